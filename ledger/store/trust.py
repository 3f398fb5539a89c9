"""Nothing read back from the store is trusted until it matches the table's hash chain.

Loading a table (a cold load: not in the aggregate cache) goes through
:class:`TrustedRepository`:

1. **The chain, once per process per table, from the table's nearest chain anchor (else from
   the first event).** :class:`ChainGuard` walks the stored rows in version order (only their
   bytes and links are read: no event is decoded into the table's state) and checks that
   versions follow one another, that the first is the table's opening with the genesis link
   (or that the first after an anchor carries the anchor's digest), and that each carries the
   digest of the one before it. It remembers the verified head, so a later load only walks the
   events appended since. A table whose stored chain does not verify refuses to load:
   ``table_chain_broken`` (HTTP 409), naming the version; every command and state read of it is
   refused until the store is repaired (a restart re-checks).

   A **chain anchor** (``LEDGER_CHAIN_ANCHOR_INTERVAL``, N events, default 2,000) is the first
   snapshot of a table at or after each multiple of N whose HMAC (step 2) verifies: the
   ledger, holding the key, wrote it from a table whose chain it had verified, and it names
   the digest of the event at its version. A walk from an anchor checks that the next stored
   event carries that digest: whoever edits, deletes, inserts or reorders events before it,
   even recomputing every digest after the edit (which needs no key), changes what the events
   after it link to, and the load refuses the table. An edit of an event before the anchor
   that leaves the links after it broken is not read by the load (nothing before the anchor
   is used: the table starts from a snapshot at or after it); ``ledger replay`` and ``ledger
   audit hand`` walk every anchor-to-anchor stretch they show, and ``ledger audit verify``
   walks every event, so they name it. An anchor whose HMAC does not verify is set aside
   (``anchor_rejected``) and the walk starts from an earlier one, or from the first event.
2. **The snapshot** is used only when it belongs to that chain and was written by the ledger:
   the chain digest it records must be the digest of the stored event at its version, and its
   state must carry an HMAC made with the service's key (derived from the deck key, which is
   not in the database) over the table id, the version and the state. A snapshot that fails
   either check, or that predates these checks, is set aside with a logged warning
   (``snapshot_rejected``) and the table is replayed from its first event.
3. **Every event read after the snapshot** must carry the digest of the one before it (the
   aggregate checks this as it applies each event, :meth:`ledger.table.events.TableEvent.mutate`).

What this cannot see: an edit of the very last event (nothing after it carries its digest) and
a tail cut off with its command-log rows; the command-log copy and the sealed daily heads are
the audit's evidence for those (``ledger audit verify``).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import threading
from collections.abc import Callable, Generator, Iterable
from itertools import chain
from typing import Any
from uuid import UUID, uuid4

from eventsourcing.application import AggregateNotFoundError, Repository

from ledger.logs import get_logger
from ledger.store.errors import loaded_classes
from ledger.store.mapper import state_bytes
from ledger.table.events import (
    ChainBroken,
    Table,
    TableEvent,
    TableOpened,
    TableSnapshot,
    chain_digest,
)
from ledger.table.events import topic_of as _topic_of
from ledger.table.state import GENESIS_HASH

log = get_logger("ledger.store.trust")
OPENED_TOPIC = _topic_of(TableOpened)
DIGEST_KEY = "state_hmac"
"""Key of the snapshot's own digest in its state."""
PAGE = 1_000


def _broken(table: str, version: int, why: str) -> ChainBroken:
    return ChainBroken(
        "table_chain_broken",
        f"table {table}: the stored event stream does not verify at version {version} ({why}); "
        "the table refuses commands until the store is repaired (see `ledger audit verify`)",
        version=version, reason=why)


Anchor = tuple[int, str, str]
"""A chain anchor: (version, chain digest of the event at that version, table code)."""
Anchors = Callable[[UUID, "int | None"], "Anchor | None"]
"""``anchors(tid, upto)``: the table's latest verified anchor at or before ``upto`` (None: the
latest of all), or None when it has none."""


class ChainGuard:
    """The stored chain of each table checked once per process, then only what was added."""

    def __init__(self, recorder: Any, anchors: Anchors | None = None) -> None:
        self.recorder = recorder
        self.anchors = anchors
        self._heads: dict[UUID, tuple[int, str]] = {}
        self._codes: dict[UUID, str] = {}
        self._guard = threading.Lock()

    def verify_through(self, tid: UUID, version: int | None = None) -> tuple[int, str]:
        """Check the chain of ``tid`` from the last verified event (or the nearest chain anchor,
        or the first event) up to ``version`` (None: the last stored); returns the verified head
        (version, digest) or raises ChainBroken."""
        with self._guard:
            head = self._heads.get(tid)
        if head is None:
            head = self._start(tid, version)
        if version is not None and version <= head[0]:
            return head
        after, digest = head
        rows = _stored_rows(self.recorder, tid, after, version)
        if rows is not None:  # one statement, a page at a time: no event object is made
            try:
                for number, topic, state in rows:
                    digest = self._check(tid, number, topic, state, after, digest,
                                         pinned=version is not None and number < version)
                    after = number
            finally:
                rows.close()  # a break found: the read ends now, not when the error is dropped
        else:
            while True:
                page = self.recorder.select_events(tid, gt=after, lte=version, limit=PAGE)
                for row in page:
                    digest = self._link(tid, row, after, digest)
                    after = row.originator_version
                if len(page) < PAGE:
                    break
        if version is not None and after < version:
            raise _broken(self._code(tid), after + 1, "the event is missing")
        self.remember(tid, after, digest)
        return after, digest

    def _start(self, tid: UUID, version: int | None) -> tuple[int, str]:
        """Where a table's first walk in this process starts: its latest anchor at or before
        ``version``, else before its first event."""
        found = self.anchors(tid, version) if self.anchors is not None else None
        if found is None:
            return 0, GENESIS_HASH
        at, digest, code = found
        self._codes.setdefault(tid, code)
        return at, digest

    def _link(self, tid: UUID, row: Any, after: int, digest: str) -> str:
        return self._check(tid, row.originator_version, row.topic, row.state, after, digest)

    def _check(self, tid: UUID, version: int, topic: str, state: Any, after: int,
               digest: str, *, pinned: bool = False) -> str:
        """One stored row after verified version ``after`` (digest ``digest``): its digest.

        ``pinned``: a later row of the same walk must carry this row's digest (the walk goes
        on to a version the caller compares with a signed digest), so its link may be read
        from its bytes without parsing them (:func:`link_of`): a row whose bytes are not what
        the ledger wrote does not hash to what the next row carries, whatever was read."""
        if version != after + 1:
            raise _broken(self._code(tid), after + 1, f"version {after + 1} is missing")
        raw = state_bytes(state)
        link = link_of(raw) if pinned and version > 1 else None
        if link is None:
            try:
                data = json.loads(raw)
                link = data["prev_hash"]
            except (ValueError, KeyError, TypeError):
                raise _broken(self._code(tid), version, "the event cannot be read") from None
        if version == 1:
            if topic != OPENED_TOPIC:
                raise _broken(self._code(tid), 1, "the stream does not begin with the table's "
                              "opening")
            self._codes[tid] = str(data.get("code") or tid)
        if link != digest:
            raise _broken(self._code(tid), version, "it does not carry the digest of the event "
                          "before it")
        return chain_digest(tid, version, topic, raw)

    def _code(self, tid: UUID) -> str:
        return self._codes.get(tid, str(tid))

    def remember(self, tid: UUID, version: int, digest: str) -> None:
        with self._guard:
            known = self._heads.get(tid)
            if known is None or known[0] < version:
                self._heads[tid] = (version, digest)

    def forget(self, tid: UUID) -> None:
        with self._guard:
            self._heads.pop(tid, None)


_LINK = b'"prev_hash":"'


def link_of(raw: bytes) -> str | None:
    """The link (``prev_hash``) of an event's stored JSON read from its bytes: the 64
    characters after the only ``"prev_hash":"`` it holds (in JSON without spaces that text
    can only be a key with a string value: inside a string its quotes are escaped); None when
    the bytes are not laid out so (then parse them)."""
    at = raw.find(_LINK)
    if at < 0 or raw.find(_LINK, at + 1) >= 0:
        return None
    start = at + len(_LINK)
    if raw[start + 64:start + 65] != b'"':
        return None
    try:
        return raw[start:start + 64].decode("ascii")
    except UnicodeDecodeError:
        return None


def _stored_rows(recorder: Any, tid: UUID, after: int, upto: int | None
                 ) -> Generator[tuple[int, str, Any], None, None] | None:
    """(version, topic, state) of the table's stored rows after ``after`` (up to ``upto``), in
    version order, read by one statement on a cursor of its own a page at a time; None for a
    recorder other than the library's SQLite or PostgreSQL one (read through its API then)."""
    from eventsourcing.sqlite import SQLiteAggregateRecorder

    postgres = isinstance(recorder,
                          loaded_classes("eventsourcing.postgres", "PostgresAggregateRecorder"))
    if not postgres and not isinstance(recorder, SQLiteAggregateRecorder):
        return None
    table = recorder.events_table_name
    if postgres:
        schema = recorder.datastore.schema
        table = f'"{schema}"."{table}"' if schema else table
    mark = "%s" if postgres else "?"
    bound = "" if upto is None else f" AND originator_version <= {mark}"
    sql = (f"SELECT originator_version, topic, state FROM {table} WHERE originator_id = {mark} "
           f"AND originator_version > {mark}{bound} ORDER BY originator_version")
    params: tuple[Any, ...] = (tid if postgres else tid.hex, after)
    if upto is not None:
        params += (upto,)
    return _fetched(recorder, postgres, sql, params)


def _fetched(recorder: Any, postgres: bool, sql: str, params: tuple[Any, ...]
             ) -> Generator[tuple[int, str, Any], None, None]:
    with recorder.datastore.transaction(commit=False) as cursor:
        if postgres:
            with cursor.connection.cursor(name=f"chain_guard_{uuid4().hex[:12]}") as named:
                named.itersize = PAGE
                named.execute(sql, params)
                for row in named:
                    if isinstance(row, dict):
                        row = (row["originator_version"], row["topic"], row["state"])
                    yield int(row[0]), row[1], row[2]
            return
        own = cursor.sqlite_cursor.connection.cursor()
        try:
            own.execute(sql, params)
            while rows := own.fetchmany(PAGE):
                yield from rows
        finally:
            own.close()


def snapshot_hmac(key: bytes, tid: UUID, version: int, state: dict[str, Any]) -> str:
    """The HMAC-SHA256 a snapshot carries over its table, version and state (without itself)."""
    body = {k: v for k, v in state.items() if k != DIGEST_KEY}
    text = f"{tid}|{version}|" + json.dumps(body, sort_keys=True, separators=(",", ":"))
    return hmac.new(key, text.encode(), hashlib.sha256).hexdigest()


def snapshot_key(keeper: Any) -> bytes:
    """The key snapshots are signed with: derived from the deck key (never in the database);
    a keeper without a key (tests and benchmarks with open decks) signs with a public one,
    which still catches a careless edit but not a forger."""
    derive = getattr(keeper, "derived_key", None)
    if derive is not None:
        key: bytes = derive(b"snapshot")
        return key
    return hashlib.sha256(b"table-ledger open snapshots").digest()


def sign_snapshot(key: bytes, snapshot: TableSnapshot) -> TableSnapshot:
    state = dict(snapshot.state)
    state[DIGEST_KEY] = snapshot_hmac(key, snapshot.originator_id,
                                      snapshot.originator_version, state)
    return snapshot.model_copy(update={"state": state})


class TrustedRepository(Repository[UUID]):
    """The library's repository, loading only what matches the chain (see the module)."""

    guard: ChainGuard
    key: bytes
    anchor_every: int = 0
    """Events between two chain anchors (0: none; ``Settings.chain_anchor_interval``)."""

    def anchor(self, tid: UUID, upto: int | None = None) -> Anchor | None:
        """The table's latest chain anchor at or before version ``upto`` (None: its latest
        snapshot's version): the first snapshot at or after the greatest multiple of
        :attr:`anchor_every` that has one whose HMAC verifies (see the module)."""
        every = self.anchor_every
        if every <= 0 or self.snapshot_store is None:
            return None
        if upto is None:
            latest = self._snapshot(tid, None)
            if latest is None:
                return None
            upto = latest.originator_version
        for multiple in range(upto // every, 0, -1):
            low = multiple * every
            found = list(self.snapshot_store.get(originator_id=tid, gt=low - 1,
                                                 lte=min(upto, low + every - 1), limit=1))
            if not found:
                continue
            snapshot: TableSnapshot = found[0]  # type: ignore[assignment]
            if self._signed(snapshot):
                code = snapshot.state.get("table", {}).get("code")
                return (snapshot.originator_version, str(snapshot.state["chain_head"]),
                        str(code or tid))
            log.warning("anchor_rejected", table_id=str(tid),
                        version=snapshot.originator_version,
                        reason="its state does not match its digest",
                        action="the chain is walked from an earlier anchor")
        return None

    def signed_snapshot(self, tid: UUID, *, lte: int | None = None, gte: int | None = None
                        ) -> Anchor | None:
        """The table's nearest snapshot at or before ``lte`` (or at or after ``gte``) whose
        HMAC verifies, as (version, chain digest, code); None when there is none."""
        if self.snapshot_store is None:
            return None
        found = self.snapshot_store.get(originator_id=tid, lte=lte, desc=True, limit=8) \
            if gte is None else self.snapshot_store.get(originator_id=tid, gt=gte - 1, limit=8)
        for snapshot in found:
            if self._signed(snapshot):  # type: ignore[arg-type]
                code = snapshot.state.get("table", {}).get("code")  # type: ignore[attr-defined]
                return (snapshot.originator_version,
                        str(snapshot.state["chain_head"]),  # type: ignore[attr-defined]
                        str(code or tid))
        return None

    def _signed(self, snapshot: TableSnapshot) -> bool:
        """Whether a snapshot carries the HMAC the ledger makes of it (and a chain digest)."""
        recorded = snapshot.state.get(DIGEST_KEY)
        return isinstance(recorded, str) and isinstance(snapshot.state.get("chain_head"), str) \
            and hmac.compare_digest(recorded, snapshot_hmac(
                self.key, snapshot.originator_id, snapshot.originator_version, snapshot.state))

    def _reconstruct_aggregate(self, aggregate_id: UUID, version: int | None,
                               projector_func: Any) -> Any:
        tid = aggregate_id
        snapshot = self._snapshot(tid, version)
        if snapshot is not None and not self._snapshot_ok(snapshot):
            snapshot = None
        start = snapshot.originator_version if snapshot is not None else None
        events: Iterable[TableEvent] = self.event_store.get(  # type: ignore[assignment]
            originator_id=tid, gt=start, lte=version)
        first: list[Any] = [snapshot] if snapshot is not None else []
        table: Table | None = projector_func(None, chain(first, events))
        if table is None:
            raise AggregateNotFoundError(f"Aggregate {tid!r} version {version!r} not found.")
        # Every event after the snapshot was checked as it was applied (its link to the one
        # before), and the snapshot's own head against the verified chain: all verified.
        self.guard.remember(tid, table.version, table.chain_head)
        return table

    def _snapshot(self, tid: UUID, version: int | None) -> TableSnapshot | None:
        if self.snapshot_store is None:
            return None
        found = list(self.snapshot_store.get(originator_id=tid, desc=True, limit=1, lte=version))
        return found[0] if found else None  # type: ignore[return-value]

    def _snapshot_ok(self, snapshot: TableSnapshot) -> bool:
        """Whether the snapshot belongs to the stored chain (checked from the first event, once
        per process) and its state is what the ledger signed; else a warning and False."""
        tid, version = snapshot.originator_id, snapshot.originator_version
        verified, digest = self.guard.verify_through(tid, version)
        stored = digest if verified == version else self._digest_at(tid, version)
        recorded = snapshot.state.get(DIGEST_KEY)
        why = None
        if snapshot.state.get("chain_head") != stored:
            why = "its chain digest is not that of the stored event at its version"
        elif not isinstance(recorded, str):
            why = "it carries no state digest (written before snapshots were signed)"
        elif not hmac.compare_digest(recorded, snapshot_hmac(self.key, tid, version,
                                                             snapshot.state)):
            why = "its state does not match its digest: it was edited"
        if why is None:
            return True
        log.warning("snapshot_rejected", table_id=str(tid), version=version, reason=why,
                    action="replaying the table from its first event")
        return False

    def _digest_at(self, tid: UUID, version: int) -> str | None:
        rows = self.event_store.recorder.select_events(tid, gt=version - 1, lte=version)
        if not rows:
            return None
        row = rows[0]
        return chain_digest(tid, version, row.topic, state_bytes(row.state))
