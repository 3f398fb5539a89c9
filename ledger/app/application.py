"""The ledger application: commands in, events out.

Thin by design: it loads a table (from the aggregate cache, or from its latest snapshot plus the
events after it), asks the table's pure state machine to decide, appends the events together
with the command log row in one transaction, and retries when another writer got to the table
first. Every command logs one line.
"""

from __future__ import annotations

import hashlib
import json
import random
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from functools import cached_property
from typing import Any
from uuid import UUID

from eventsourcing.persistence import IntegrityError

from ledger.access.keys import Keyring
from ledger.access.principals import PrincipalStore, require_approver
from ledger.access.signatures import applies_to, check_approval, moved_past, one_step_approval
from ledger.domain.actors import DEALERS, Actor
from ledger.domain.approval import Approval, named_approvers
from ledger.domain.commands import CORRECTION_COMMANDS, Command, OpenTable, SignInDealer
from ledger.domain.errors import ConcurrencyError, LedgerError, StateConflict
from ledger.domain.records import CORRECTIONS
from ledger.logs import get_logger
from ledger.settings import Settings
from ledger.store.base import LedgerStore
from ledger.store.schema import CommandRow
from ledger.store.trust import sign_snapshot
from ledger.table.dealing import DeckKeeper
from ledger.table.events import Table, TableEvent, TableSnapshot, table_id
from ledger.table.state import TableState

log = get_logger("ledger.command")

_HIDDEN_FIELDS = {"sealed_deck"}


class CommandResult:
    """What a command appended (or, for a repeated command id, what it appended the first time).

    The events are kept as the JSON the store holds, so recording the result costs no second
    serialisation; ``events`` parses them on demand.
    """

    def __init__(
        self,
        command_id: str,
        command: str,
        table: str,
        table_version: int,
        events_json: str,
        *,
        count: int,
        hand_no: int | None,
        replayed: bool = False,
    ) -> None:
        self.command_id = command_id
        self.command = command
        self.table = table
        self.table_version = table_version
        self.events_json = events_json
        self.count = count
        """Number of events appended."""
        self.hand_no = hand_no
        """The hand the last event belongs to, if any."""
        self.replayed = replayed

    @classmethod
    def of(cls, command: Command, table: Table, events: list[TableEvent]) -> CommandResult:
        parts = [
            f'{{"type":"{type(e).__name__}","version":{e.originator_version},'
            + e.stored_state().decode()[1:]
            for e in events
        ]
        # the field's value, or None where the event has none (a model's missing attribute
        # is a slow path: pydantic's __getattr__ raising)
        hand_no = events[-1].__dict__.get("hand_no") if events else None
        return cls(command.command_id, command.name, command.table, table.version,
                   "[" + ",".join(parts) + "]", count=len(events), hand_no=hand_no)

    @cached_property
    def events(self) -> list[dict[str, Any]]:
        events: list[dict[str, Any]] = json.loads(self.events_json)
        for event in events:
            for hidden in _HIDDEN_FIELDS:
                event.pop(hidden, None)
        return events

    def to_json(self) -> str:
        head = json.dumps({"command_id": self.command_id, "command": self.command,
                           "table": self.table, "table_version": self.table_version})
        return head[:-1] + ',"events":' + self.events_json + "}"

    @classmethod
    def from_json(cls, text: str, *, replayed: bool) -> CommandResult:
        data = json.loads(text)
        events = data["events"]
        return cls(data["command_id"], data["command"], data["table"], data["table_version"],
                   json.dumps(events), count=len(events),
                   hand_no=events[-1].get("hand_no") if events else None, replayed=replayed)

    def as_dict(self) -> dict[str, Any]:
        return {"command_id": self.command_id, "command": self.command, "table": self.table,
                "table_version": self.table_version, "replayed": self.replayed,
                "events": self.events}


class LedgerApp(LedgerStore):
    """The event-sourced ledger of all tables in one store: a store that takes commands."""

    name = LedgerStore.name
    """The same store as the read side's (the library names the events table after it)."""

    def __init__(
        self,
        settings: Settings | None = None,
        *,
        keeper: DeckKeeper | None = None,
        env: dict[str, str] | None = None,
        allow_seeded: bool = False,
        actor: Actor | None = None,
        keyring: Keyring | None = None,
    ) -> None:
        super().__init__(settings, keeper=keeper, env=env, actor=actor)
        self.allow_seeded = allow_seeded
        """Whether tables dealing from a seeded shuffle may be opened and played (simulations:
        ``ledger simulate --seed``, ``ledger demo``); refused otherwise (the HTTP API)."""
        self.principals = PrincipalStore(self.recorder, self.settings.register_root)
        self.keyring = keyring
        """Principals' keys this process holds (``--key`` at the command line, a simulation's
        own principals): a command that names them as its approvers is signed with them in one
        step; any other approval comes through a proposal (``ledger.app.approvals``)."""
        try:
            self.principals.register.ensure_epoch()
        except Exception as exc:  # a user that may only read: the register stays as it is
            log.debug("register_epoch_not_written", error=str(exc).splitlines()[0][:200])
        self._shared_at: dict[UUID, float] = {}
        """Tables another process wrote to, and when this process last saw it."""

    # --- commands -----------------------------------------------------------------------

    def execute(self, command: Command, *, actor: Actor | None = None,
                approval: Approval | None = None) -> CommandResult:
        """Validate and record one command; a refused command raises and appends nothing.
        Its events name ``actor`` (default: the application's). A command that needs approval
        (``ledger.domain.approval.named_approvers``) runs only with ``approval`` signed by
        every approver it names, or when :attr:`keyring` holds their keys (one step)."""
        started = time.perf_counter()
        actor = actor or self.actor
        tid = table_id(command.table)
        payload = hashlib.sha256(
            command.model_dump_json(exclude={"command_id"}).encode()
        ).hexdigest()
        try:
            lock = self._lock_of(tid)
            if lock.acquire(blocking=False):  # the common case: nobody else holds the table
                try:
                    result = self._execute(command, tid, payload, actor, approval)
                finally:
                    lock.release()
            else:
                with self._table_lock(tid):
                    result = self._execute(command, tid, payload, actor, approval)
        except LedgerError as exc:
            log.info(
                "command_rejected",
                table=command.table,
                command=command.name,
                command_id=command.command_id,
                actor=actor.id,
                code=exc.code,
                ms=round((time.perf_counter() - started) * 1000, 3),
            )
            raise
        log.info(
            "command",
            table=command.table,
            command=command.name,
            command_id=command.command_id,
            actor=actor.id,
            hand=result.hand_no,
            events=result.count,
            replayed=result.replayed,
            ms=round((time.perf_counter() - started) * 1000, 3),
        )
        return result

    def _execute(self, command: Command, tid: UUID, payload: str, actor: Actor,
                 approval: Approval | None) -> CommandResult:
        # The command log is checked only when something fails: a repeated command id either
        # fails to validate again or fails to insert its log row, and then the first answer is
        # returned. The common path costs no extra query.
        #
        # No read before the save (issue 29): the command is decided on the cached table, and
        # the save's optimistic check (the events' versions are unique per table) catches a
        # table another process moved; then the table is loaded again and the command decided
        # again. A refusal decided on a cached table that another process has since moved is
        # decided again on the table brought forward. A table another process writes to as
        # well (a clash or a fast-forward that found its events, in the last few seconds) is
        # brought forward before each decision instead (one indexed read, as a read is), so
        # that alternating writers do not each lose one attempt per command.
        for attempt in range(self.settings.command_retries):
            now = datetime.now(UTC)
            fresh = attempt > 0 or self._shared(tid)
            decided_on: list[int] = []
            try:
                table = self._decide(command, tid, now, actor, approval, fresh=fresh,
                                     decided_on=decided_on)
            except LedgerError:
                prior = self._recall(command, tid, payload)
                if prior is not None:
                    return prior
                if not fresh and decided_on and self._moved_since(tid, decided_on[0]):
                    continue  # refused on a stale table: decide again on the table as it is
                raise
            events = table.pending_events
            result = CommandResult.of(command, table, events)
            row = CommandRow(command.command_id, str(tid), command.name, payload, result.to_json())
            try:
                self.commit(table, row)
            except IntegrityError:
                self._evict(tid)
                prior = self._recall(command, tid, payload)
                if prior is not None:
                    return prior
                self._shared_at[tid] = time.monotonic()
                if attempt > 0:
                    # Exponential backoff with jitter: a writer whose cache is warm can win
                    # every race while it has work, so the loser waits longer each time (at
                    # most 50 ms) and gets in between bursts instead of losing all its attempts
                    # to one. The first clash is a stale cache more often than a race: no wait.
                    time.sleep(random.uniform(0, min(0.05, 0.001 * 2**attempt)))
                continue
            except BaseException:
                self._evict(tid)
                raise
            return result
        raise ConcurrencyError(
            "concurrent_updates",
            f"table {command.table} kept changing under the command; try again",
            attempts=self.settings.command_retries,
        )

    SHARED_FOR_S = 5.0
    """How long a table stays brought forward before each command after this process last
    saw another process write to it."""

    def _shared(self, tid: UUID) -> bool:
        """Whether another process wrote to the table lately (seen by this process)."""
        seen = self._shared_at.get(tid)
        if seen is None:
            return False
        if time.monotonic() - seen < self.SHARED_FOR_S:
            return True
        self._shared_at.pop(tid, None)
        return False

    def _for_command(self, code: str, tid: UUID, *, fresh: bool) -> Table:
        """The table a command decides on: the cached one as it stands (its save checks that
        nothing was appended since), or, ``fresh``, brought forward with the events stored
        since its version (loaded from the store when not cached)."""
        cached = _cached(self.repository.cache, tid)
        if cached is not None and not fresh:
            return cached
        before = None if cached is None else cached.version
        table = self.load(code)
        if before is not None and table.version > before:
            self._shared_at[tid] = time.monotonic()  # another process wrote to it
        return table

    def _moved_since(self, tid: UUID, version: int) -> bool:
        """Whether the store holds events of the table after ``version``."""
        return bool(self.recorder.select_events(tid, gt=version, limit=1))

    def _decide(self, command: Command, tid: UUID, now: datetime, actor: Actor,
                approval: Approval | None = None, *, fresh: bool = True,
                decided_on: list[int] | None = None) -> Table:
        """The table with the command's events appended in memory (not yet saved); the
        version it was decided on is appended to ``decided_on``."""
        if isinstance(command, OpenTable):
            if self._exists(tid):
                raise StateConflict("table_exists", f"table {command.table} is already open")
            table = Table.open(TableState.open(command), command.command_id, now, actor)
            self._check_seeded(table, command)
            return table
        table = self._for_command(command.table, tid, fresh=fresh)
        if decided_on is not None:
            decided_on.append(table.version)
        self._check_seeded(table, command)
        approved = bool(named_approvers(command))
        bound = applies_to(command, table.version, table.state) if approved else {}
        if approval is not None:
            moved_past(command, approval.applies_to, table.version, table.state,
                       lambda version: self._correction_since(table, version))
        if isinstance(command, CORRECTION_COMMANDS):
            records = self._correction(table, command, now)
        else:
            records = table.state.decide(command, self.keeper)
        if approved:
            register = self.principals.state()
            if approval is None and self.keyring is not None:
                approval = one_step_approval(self.keyring, command, bound, proposer=actor.id,
                                             register_version=register.version)
            approval = check_approval(register, command, approval, now=now)
        elif isinstance(command, SignInDealer):  # DLR-1: a registered, active dealer
            require_approver(self.principals.state(), command.dealer, rule="DLR-1",
                             roles=DEALERS)
        try:
            for number, record in enumerate(records):
                table.record(record, command.command_id, now, actor,
                             approval if number == 0 else None)
        except BaseException:
            self._evict(tid)
            raise
        return table

    @contextmanager
    def as_left(self, result: CommandResult) -> Iterator[Table]:
        """The table as ``result``'s command left it, under its lock: the cached table when it
        still stands at the command's version (no read: the save has just written it), else
        as :meth:`peeking` reads it (a repeated command's table, brought forward)."""
        tid = table_id(result.table)
        if not result.replayed:
            with self._table_lock(tid):
                cached = _cached(self.repository.cache, tid)
                if cached is not None and cached.version == result.table_version:
                    yield cached
                    return
        with self.peeking(result.table) as table:
            yield table

    def check_proposal(self, command: Command) -> dict[str, Any]:
        """What a proposal of ``command`` is bound to (``applies_to``), once the rules accept
        it as the table stands and every approver it names may approve; nothing recorded."""
        table = self.load(command.table)
        self._check_seeded(table, command)
        if isinstance(command, CORRECTION_COMMANDS):
            self._correction(table, command, datetime.now(UTC))
        else:
            table.state.decide(command, self.keeper)
        register = self.principals.state()
        for principal_id, roles, rule in named_approvers(command):
            require_approver(register, principal_id, rule=rule, roles=roles)
        return applies_to(command, table.version, table.state)

    def _correction_since(self, table: Table, version: int) -> int | None:
        """The version of the first correction recorded after ``version`` (None: none)."""
        from ledger.store.history import StorePast

        past = StorePast(self, table.id, table.version, snapshots=True)
        for event in past.since(version, only=CORRECTIONS):
            return event.originator_version
        return None

    def _correction(self, table: Table, command: Any, now: datetime) -> list[Any]:
        """COR-1..5: decided from the table's stored past (the state keeps no history)."""
        from ledger.store.history import StorePast
        from ledger.table import corrections

        past = StorePast(self, table.id, table.version, snapshots=True)
        return corrections.decide(table.state, command, past, now)

    def _check_seeded(self, table: Table, command: Command) -> None:
        """COM-8: a seeded shuffle is for simulations; anyone who knows the seed knows every
        deck, so a ledger that does not allow it (the HTTP API) refuses to open, change into or
        play such a table."""
        config = command.__dict__.get("config") or {}
        if self.allow_seeded or (table.state.config.card_source != "seeded"
                                 and config.get("card_source") != "seeded"):
            return
        raise StateConflict(
            "seeded_table_refused",
            f"table {table.state.code} would deal from a seeded shuffle, which anyone who knows "
            "the seed can predict: it is for simulations (ledger simulate --seed, ledger demo), "
            "never for play through this service (COM-8)",
            table=table.state.code, rule="COM-8",
        )

    def recall(self, command: Command) -> CommandResult | None:
        """The first answer to ``command``'s id at its table, when it was recorded already
        (``command_id_reused`` when that id was another command)."""
        payload = hashlib.sha256(
            command.model_dump_json(exclude={"command_id"}).encode()
        ).hexdigest()
        return self._recall(command, table_id(command.table), payload)

    def _recall(self, command: Command, tid: UUID, payload: str) -> CommandResult | None:
        """The first answer to this command id on this table (command ids are per table)."""
        row: CommandRow | None = self.recorder.select_command(  # type: ignore[attr-defined]
            str(tid), command.command_id
        )
        if row is None:
            return None
        if row.payload_sha256 != payload or row.command != command.name:
            raise StateConflict(
                "command_id_reused",
                f"command id {command.command_id!r} was already used for a different command",
                command_id=command.command_id,
                first_command=row.command,
            )
        return CommandResult.from_json(row.result, replayed=True)

    def commit(self, table: Table, row: CommandRow) -> None:
        """Record the table's pending events and the command's log row in one transaction.

        The library's steps without its layers: no protocol checks, no recordings built (the
        notification ids are not needed), the events mapped and handed to the recorder
        directly (issue 29)."""
        events = table.collect_events()
        to_stored = self.mapper.to_stored_event
        self.recorder.insert_events([to_stored(e) for e in events], command_row=row)
        cache = self.repository.cache
        if cache is not None:  # saved: the table in memory is the table in the store
            cache.put(table.id, table)
        self._take_snapshot(table, events)

    def _take_snapshot(self, table: Table, events: list[TableEvent]) -> None:
        """Snapshot from memory whenever a command crosses the interval; never fail the command."""
        if self.snapshots is None or not events:
            return
        interval = self.settings.snapshot_interval
        first, last = events[0].originator_version, events[-1].originator_version
        if last // interval == (first - 1) // interval:
            return
        try:
            self.snapshots.put([sign_snapshot(self.snapshot_key, TableSnapshot.take(table))])
        except Exception as exc:
            log.warning("snapshot_failed", table_id=str(table.id), error=str(exc))


def _cached(cache: Any, tid: UUID) -> Table | None:
    """The table in the aggregate cache as it stands (None: not cached)."""
    if cache is None:
        return None
    try:
        table: Table = cache.get(tid)
    except KeyError:
        return None
    return table
