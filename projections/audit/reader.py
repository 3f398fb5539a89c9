"""One consistent read of the store for the audit and the exports.

Tables keep playing while an audit runs. Read statement by statement, the audit could see a
command's events without its command-log row (or the reverse) and report a discrepancy that is
only a race. A :class:`SnapshotReader` reads everything through one read transaction:

- PostgreSQL: ``REPEATABLE READ, READ ONLY`` (one snapshot for every statement; the library's
  idle-in-transaction timeout is lifted for this transaction only, since replaying a page of
  events between two statements may take longer than it allows);
- SQLite: one ``BEGIN`` ... ``ROLLBACK`` on one connection; in WAL mode its first read fixes
  the snapshot and writers go on undisturbed.

:func:`pinned` gives the exports the same: a store whose every read goes through one such
transaction.

Nothing that runs inside a snapshot can break it:

- on PostgreSQL the transaction is opened by one ``BEGIN ISOLATION LEVEL REPEATABLE READ READ
  ONLY`` on a connection known to be idle (one handed over inside a transaction is rolled back
  first), so no statement can come before its isolation level, and the pooled connection keeps
  its defaults;
- a transaction asked of a pinned store is a savepoint of the snapshot: a failed statement that
  its caller catches and goes past (a cache not there yet) is rolled back alone, instead of
  aborting the snapshot on PostgreSQL, where every later read of the export then failed;
- a snapshot writes nothing (:class:`ReadOnlySnapshot`, on both stores alike);
- a snapshot asked for within a snapshot is the same snapshot.

The reader counts the event rows it returns (``rows_read``): the incremental audit is tested
by that count, not by timing.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from typing import Any, cast
from uuid import UUID

from eventsourcing.persistence import StoredEvent

from ledger.logs import get_logger
from ledger.store.mapper import state_bytes
from ledger.store.schema import COMMANDS_TABLE
from projections.db import Row, Store, Tx

log = get_logger(__name__)
SNAPSHOT_BEGIN = "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"


@dataclass(frozen=True)
class Stored:
    """A stored event with its position in the notification log."""

    position: int
    event: StoredEvent

    @property
    def originator_version(self) -> int:
        return int(self.event.originator_version)

    @property
    def topic(self) -> str:
        return str(self.event.topic)

    @property
    def state(self) -> bytes:
        return state_bytes(self.event.state)


class SnapshotReader:
    """Reads through one transaction opened by :func:`consistent_read`."""

    def __init__(self, store: Store, tx: Tx) -> None:
        self.store = store
        self.tx = tx
        self.rows_read = 0
        """Event rows returned so far (the incremental audit's measure)."""
        self._events = store.name(store.events_table)
        self._column = store.notification_column
        self.head = int(tx.scalar(f"SELECT MAX({self._column}) AS n FROM {self._events}") or 0)
        """The last notification id in this snapshot."""

    def _key(self, table_id: UUID) -> Any:
        return table_id if self.store.postgres else table_id.hex

    def table_ids(self) -> list[UUID]:
        rows = self.tx.fetchall(f"SELECT DISTINCT originator_id FROM {self._events}")
        return sorted(_uuid(row["originator_id"]) for row in rows)

    def table_sizes(self) -> dict[UUID, int]:
        """Each table's last version (its number of events), from the store's index."""
        rows = self.tx.fetchall(f"SELECT originator_id, MAX(originator_version) AS n "
                                f"FROM {self._events} GROUP BY originator_id")
        return {_uuid(row["originator_id"]): int(row["n"]) for row in rows}

    def events(self, table_id: UUID, *, gt: int = 0, lte: int | None = None,
               page: int = 1_000) -> Iterator[Stored]:
        """The stored events of a table after version ``gt`` (up to ``lte``), in order."""
        after = gt
        while True:
            bound = "" if lte is None else " AND originator_version <= ?"
            params: list[Any] = [self._key(table_id), after]
            if lte is not None:
                params.append(lte)
            cursor = self.tx.cursor  # rows as the driver gives them (no dict made of each)
            cursor.execute(self.store.sql(
                f"SELECT {self._column} AS position, originator_version, topic, state "
                f"FROM {self._events} WHERE originator_id = ? AND originator_version > ?"
                f"{bound} ORDER BY originator_version LIMIT ?"), (*params, page))
            rows = [_columns(row) for row in cursor.fetchall()]
            self.rows_read += len(rows)
            for position, version, topic, state in rows:
                yield Stored(int(position), StoredEvent(
                    originator_id=table_id, originator_version=int(version),
                    topic=topic, state=_raw(state)))
            if len(rows) < page:
                return
            after = int(rows[-1][1])

    def first(self, table_id: UUID) -> Stored | None:
        """Version 1 of a table's stream (its opening), if stored."""
        return next(iter(self.events(table_id, lte=1)), None)

    def command_results(self, table_id: UUID, *, since: str | None = None) -> Iterable[str]:
        """The ``result`` of every command-log row of a table (``since``: recorded at or after
        that ISO-8601 UTC instant)."""
        if since is None:
            rows = self.tx.fetchall(f"SELECT result FROM {{{COMMANDS_TABLE}}} "
                                    "WHERE table_id = ?", (str(table_id),))
        else:
            rows = self.tx.fetchall(f"SELECT result FROM {{{COMMANDS_TABLE}}} WHERE table_id "
                                    "= ? AND recorded_at >= ?", (str(table_id), since))
        return [row["result"] for row in rows]

    def fetchall(self, text: str, params: Iterable[Any] = ()) -> list[Row]:
        return self.tx.fetchall(text, tuple(params))

    def exists(self, table: str) -> bool:
        return self.store.exists(self.tx, table)


class ReadOnlySnapshot(Exception):
    """A write asked of a store pinned to a snapshot (its transaction only reads)."""


@contextmanager
def snapshot_transaction(store: Store) -> Iterator[Tx]:
    """One read-only transaction in which every statement sees the same snapshot (the one
    already open when ``store`` is pinned)."""
    if isinstance(store, PinnedStore):
        yield store.snapshot_tx
        return
    if not store.postgres:
        with store.transaction(commit=False) as tx:
            yield tx
        return
    from psycopg.pq import TransactionStatus

    with store.datastore.get_connection() as conn:
        status = conn.info.transaction_status
        if status != TransactionStatus.IDLE:  # not ours to go on with: start afresh
            log.warning("snapshot_on_busy_connection", status=status.name)
            conn.rollback()
        cursor = conn.cursor()
        cursor.execute(SNAPSHOT_BEGIN)
        try:
            tx = Tx(store, cursor)
            tx.execute("SET LOCAL idle_in_transaction_session_timeout = 0")
            yield tx
        finally:
            if conn.info.transaction_status in (TransactionStatus.INTRANS,
                                                TransactionStatus.INERROR):
                conn.rollback()


@contextmanager
def consistent_read(app: Any) -> Iterator[SnapshotReader]:
    """A :class:`SnapshotReader` over one read-only snapshot of the application's store."""
    store = Store(app.recorder)
    with snapshot_transaction(store) as tx:
        yield SnapshotReader(store, tx)


class PinnedStore:
    """A :class:`~projections.db.Store` whose every read goes through one snapshot
    transaction (the exports: their files agree with each other while tables play)."""

    read_only = True

    def __init__(self, store: Store, tx: Tx) -> None:
        self._store = store
        self.snapshot_tx = tx
        self._savepoints = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)

    @contextmanager
    def transaction(self, *, commit: bool = True) -> Iterator[Tx]:
        """A savepoint of the snapshot: a failure inside it, even one its caller catches,
        is rolled back alone and leaves the snapshot readable. Writes are refused."""
        if commit:
            raise ReadOnlySnapshot("a store pinned to a snapshot only reads")
        self._savepoints += 1
        name = f"pinned_{self._savepoints}"
        tx = self.snapshot_tx
        tx.execute(f"SAVEPOINT {name}")
        try:
            yield tx
        except BaseException:
            with suppress(Exception):  # fails only on a lost connection: the first error says it
                tx.execute(f"ROLLBACK TO SAVEPOINT {name}")
                tx.execute(f"RELEASE SAVEPOINT {name}")
            raise
        else:
            tx.execute(f"RELEASE SAVEPOINT {name}")
        finally:
            self._savepoints -= 1

    def fetchall(self, text: str, params: Iterable[Any] = ()) -> list[Row]:
        return self.snapshot_tx.fetchall(text, tuple(params))

    def fetchone(self, text: str, params: Iterable[Any] = ()) -> Row | None:
        return self.snapshot_tx.fetchone(text, tuple(params))


@contextmanager
def pinned(store: Store) -> Iterator[Store]:
    """``store`` read in one snapshot for the duration of the block."""
    with snapshot_transaction(store) as tx:
        yield cast(Store, PinnedStore(store, tx))


def _columns(row: Any) -> tuple[Any, Any, Any, Any]:
    """(position, version, topic, state) of an event row (a mapping on PostgreSQL, a sequence
    on SQLite)."""
    if isinstance(row, dict):
        return row["position"], row["originator_version"], row["topic"], row["state"]
    return row[0], row[1], row[2], row[3]


def _raw(state: Any) -> Any:
    """The stored state as the driver gives it: bytes (PostgreSQL's memoryview made bytes),
    or text when a row was rewritten by hand as text (kept, so the chain sees what is there)."""
    return state if isinstance(state, str | bytes) else bytes(state)


def _uuid(value: Any) -> UUID:
    return value if isinstance(value, UUID) else UUID(str(value))
