"""The ledger application: commands in, events out.

Thin by design: it loads a table (from the aggregate cache, or from its latest snapshot plus the
events after it), asks the table's pure state machine to decide, appends the events together
with the command log row in one transaction, and retries when another writer got to the table
first. Every command logs one line.
"""

from __future__ import annotations

import contextlib
import hashlib
import random
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any
from uuid import UUID

from eventsourcing.application import AggregateNotFoundError, Application, ProcessingEvent
from eventsourcing.persistence import IntegrityError
from pydantic import BaseModel

from ledger.commands import Command, OpenTable
from ledger.decks import SealedDeckKeeper, deck_key
from ledger.errors import ConcurrencyError, LedgerError, NotFound, StateConflict
from ledger.logs import get_logger
from ledger.persistence import CommandRow, PydanticMapper, store_env
from ledger.settings import Settings, get_settings
from ledger.table import Table, TableEvent, TableSnapshot, table_id
from ledger.tablestate import DeckKeeper, TableState

log = get_logger("ledger.command")

_HIDDEN_FIELDS = {"sealed_deck"}


class CommandResult(BaseModel):
    """What a command appended (or, for a repeated command id, what it appended the first time)."""

    command_id: str
    command: str
    table: str
    table_version: int
    events: list[dict[str, Any]]
    replayed: bool = False


class LedgerApp(Application[UUID]):
    """The event-sourced ledger of all tables in one store."""

    name = "Ledger"
    snapshot_class = TableSnapshot

    def __init__(
        self,
        settings: Settings | None = None,
        *,
        keeper: DeckKeeper | None = None,
        env: dict[str, str] | None = None,
    ) -> None:
        self.settings = settings or get_settings()
        merged = {
            **store_env(self.settings),
            "IS_SNAPSHOTTING_ENABLED": "y",
            "AGGREGATE_CACHE_FASTFORWARD": "n",
            "DEEPCOPY_FROM_AGGREGATE_CACHE": "n",
            **(env or {}),
        }
        if self.settings.cache_size > 0:
            merged["AGGREGATE_CACHE_MAXSIZE"] = str(self.settings.cache_size)
        super().__init__(env=merged)
        self.keeper: DeckKeeper = keeper or SealedDeckKeeper(deck_key(self.settings))
        self._locks: dict[UUID, threading.Lock] = {}
        self._locks_guard = threading.Lock()

    def construct_mapper(self) -> PydanticMapper:
        return PydanticMapper()

    # --- commands -----------------------------------------------------------------------

    def execute(self, command: Command) -> CommandResult:
        """Validate and record one command; a refused command raises and appends nothing."""
        started = time.perf_counter()
        tid = table_id(command.table)
        payload = hashlib.sha256(
            command.model_dump_json(exclude={"command_id"}).encode()
        ).hexdigest()
        try:
            with self._table_lock(tid):
                result = self._execute(command, tid, payload)
        except LedgerError as exc:
            log.info(
                "command_rejected",
                table=command.table,
                command=command.name,
                command_id=command.command_id,
                code=exc.code,
                ms=round((time.perf_counter() - started) * 1000, 3),
            )
            raise
        hand = next((e["hand_no"] for e in reversed(result.events) if "hand_no" in e), None)
        log.info(
            "command",
            table=command.table,
            command=command.name,
            command_id=command.command_id,
            hand=hand,
            events=len(result.events),
            replayed=result.replayed,
            ms=round((time.perf_counter() - started) * 1000, 3),
        )
        return result

    def _execute(self, command: Command, tid: UUID, payload: str) -> CommandResult:
        prior = self._recall(command, payload)
        if prior is not None:
            return prior
        for attempt in range(self.settings.command_retries):
            now = datetime.now(UTC)
            if isinstance(command, OpenTable):
                if self._exists(tid):
                    raise StateConflict("table_exists", f"table {command.table} is already open")
                table = Table.open(TableState.open(command), command.command_id, now)
            else:
                table = self.load(command.table)
                records = table.state.decide(command, self.keeper)
                try:
                    for record in records:
                        table.record(record, command.command_id, now)
                except BaseException:
                    self._evict(tid)
                    raise
            result = CommandResult(
                command_id=command.command_id,
                command=command.name,
                table=command.table,
                table_version=table.version,
                events=[_describe(e) for e in table.pending_events],
            )
            row = CommandRow(
                command.command_id, str(tid), command.name, payload, result.model_dump_json()
            )
            try:
                self.save(table, command_row=row)
            except IntegrityError:
                self._evict(tid)
                prior = self._recall(command, payload)
                if prior is not None:
                    return prior
                time.sleep(random.uniform(0, 0.002 * (attempt + 1)))
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

    def _recall(self, command: Command, payload: str) -> CommandResult | None:
        row: CommandRow | None = self.recorder.select_command(command.command_id)  # type: ignore[attr-defined]
        if row is None:
            return None
        if row.payload_sha256 != payload or row.command != command.name:
            raise StateConflict(
                "command_id_reused",
                f"command id {command.command_id!r} was already used for a different command",
                command_id=command.command_id,
                first_command=row.command,
            )
        result = CommandResult.model_validate_json(row.result)
        return result.model_copy(update={"replayed": True})

    # --- reading ------------------------------------------------------------------------

    def load(self, code: str) -> Table:
        """The table with its current state (from the cache when it is there)."""
        try:
            table: Table = self.repository.get(table_id(code))
        except AggregateNotFoundError:
            raise NotFound("unknown_table", f"no table {code!r} is open", table=code) from None
        return table

    @contextmanager
    def reading(self, code: str) -> Iterator[Table]:
        """Hold the table's lock while reading its state."""
        with self._table_lock(table_id(code)):
            yield self.load(code)

    def _exists(self, tid: UUID) -> bool:
        if self.repository.cache is not None:
            try:
                self.repository.cache.get(tid)
                return True
            except KeyError:
                pass
        return bool(self.recorder.select_events(tid, limit=1))

    # --- plumbing -----------------------------------------------------------------------

    @contextmanager
    def _table_lock(self, tid: UUID) -> Iterator[None]:
        with self._locks_guard:
            lock = self._locks.setdefault(tid, threading.Lock())
        with lock:
            yield

    def _evict(self, tid: UUID) -> None:
        cache = self.repository.cache
        if cache is not None:
            with contextlib.suppress(KeyError):
                cache.get(tid, evict=True)

    def _take_snapshots(self, processing_event: ProcessingEvent[UUID]) -> None:
        """Snapshot from memory whenever a command crosses the interval; never fail the command."""
        if self.snapshots is None:
            return
        interval = self.settings.snapshot_interval
        for aggregate in processing_event.aggregates.values():
            versions = [
                e.originator_version
                for e in processing_event.events
                if e.originator_id == aggregate.id
            ]
            if not versions or max(versions) // interval == (min(versions) - 1) // interval:
                continue
            try:
                self.snapshots.put([TableSnapshot.take(aggregate)])  # type: ignore[arg-type]
            except Exception as exc:
                log.warning("snapshot_failed", table_id=str(aggregate.id), error=str(exc))


def _describe(event: TableEvent) -> dict[str, Any]:
    data = event.model_dump(mode="json", exclude=_HIDDEN_FIELDS | {"originator_id"})
    data["type"] = type(event).__name__
    data["version"] = data.pop("originator_version")
    return data
