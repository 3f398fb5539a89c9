"""One small SQL layer for the read side: the same statements on SQLite and PostgreSQL.

The read models live in the database that holds the events, reached through the application
recorder's own datastore (the same file or the same connection pool). Statements are written
once, with ``?`` placeholders and table names in braces::

    tx.execute("INSERT INTO {proj_hands} AS cur (table_code, hand_no) VALUES (?, ?)", (code, 1))

:meth:`Store.sql` qualifies the names (``"schema"."proj_hands"`` on PostgreSQL) and turns the
placeholders into ``%s`` for psycopg. Upserts use ``INSERT ... AS cur ... ON CONFLICT ... DO
UPDATE SET x = cur.x + excluded.x``, which both databases understand. Booleans are stored as
0/1 integers and times as ISO-8601 UTC text, so rows read back the same on both.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from typing import Any

from ledger.store.errors import loaded_classes

Row = dict[str, Any]
Params = Sequence[Any]


class _Names(dict[str, str]):
    def __init__(self, schema: str | None) -> None:
        super().__init__()
        self._schema = schema

    def __missing__(self, key: str) -> str:
        name = key if self._schema is None else f'"{self._schema}"."{key}"'
        self[key] = name
        return name


class Store:
    """The database of one ledger application, seen by the read side."""

    read_only = False
    """True for a store pinned to a read-only snapshot (``projections.audit.reader``)."""

    def __init__(self, recorder: Any) -> None:
        self.recorder = recorder
        self.datastore: Any = recorder.datastore
        self.postgres = isinstance(
            recorder, loaded_classes("eventsourcing.postgres", "PostgresApplicationRecorder"))
        self.schema: str | None = self.datastore.schema if self.postgres else None
        self.events_table: str = recorder.events_table_name
        self.notification_column = "notification_id" if self.postgres else "rowid"
        self._names = _Names(self.schema)
        self._compiled: dict[str, str] = {}

    @property
    def dialect(self) -> str:
        return "postgresql" if self.postgres else "sqlite"

    def name(self, table: str) -> str:
        """The table's name as statements must write it (schema-qualified on PostgreSQL)."""
        return self._names[table]

    def sql(self, text: str) -> str:
        """``text`` with table names qualified and placeholders in the driver's style."""
        compiled = self._compiled.get(text)
        if compiled is None:
            compiled = text.format_map(self._names)
            if self.postgres:
                compiled = compiled.replace("?", "%s")
            self._compiled[text] = compiled
        return compiled

    @contextmanager
    def transaction(self, *, commit: bool = True) -> Iterator[Tx]:
        """One transaction: committed on success (when ``commit``), rolled back on error. On
        SQLite a transaction that may write takes the write lock first (``BEGIN IMMEDIATE``,
        :func:`ledger.store.sqlite.immediate_transaction`): one that read first would fail at
        once when a command committed in between."""
        if commit and not self.postgres:
            from ledger.store.sqlite import immediate_transaction

            with immediate_transaction(self.datastore) as cursor:
                yield Tx(self, cursor)
            return
        with self.datastore.transaction(commit=commit) as cursor:
            yield Tx(self, cursor)

    def exists(self, tx: Tx, table: str) -> bool:
        """Whether the table ``table`` (unqualified) exists in this store."""
        if self.postgres:
            return bool(tx.scalar("SELECT to_regclass(?) IS NOT NULL AS found",
                                  (self.name(table),)))
        return int(tx.scalar("SELECT COUNT(*) AS n FROM sqlite_master WHERE type = 'table' "
                             "AND name = ?", (table,)) or 0) == 1

    def has_column(self, tx: Tx, table: str, column: str) -> bool:
        """Whether the table ``table`` (unqualified) of this store has the column ``column``."""
        if self.postgres:
            return int(tx.scalar("SELECT COUNT(*) AS n FROM information_schema.columns WHERE "
                                 "table_schema = ? AND table_name = ? AND column_name = ?",
                                 (self.schema, table, column)) or 0) == 1
        return int(tx.scalar("SELECT COUNT(*) AS n FROM pragma_table_info(?) WHERE name = ?",
                             (table, column)) or 0) == 1

    def fetchall(self, text: str, params: Params = ()) -> list[Row]:
        with self.transaction(commit=False) as tx:
            return tx.fetchall(text, params)

    def fetchone(self, text: str, params: Params = ()) -> Row | None:
        with self.transaction(commit=False) as tx:
            return tx.fetchone(text, params)


class Tx:
    """A cursor inside a transaction, with the statement helpers."""

    def __init__(self, store: Store, cursor: Any) -> None:
        self.store = store
        self.cursor = cursor

    def execute(self, text: str, params: Params = ()) -> int:
        """Run one statement; the number of rows it changed."""
        self.cursor.execute(self.store.sql(text), tuple(params))
        return self._rowcount()

    def insert(self, table: str, columns: Sequence[str], rows: Sequence[Params]) -> None:
        """Add ``rows`` (values in the order of ``columns``) to ``table``, as plain inserts (a
        row whose key is taken is an error). On PostgreSQL by ``COPY``, which streams the rows
        instead of sending a statement for each; the values stored are the same."""
        if not rows:
            return
        if self.store.postgres:
            statement = f"COPY {self.store.name(table)} ({', '.join(columns)}) FROM STDIN"
            with self.cursor.copy(statement) as copy:
                write = copy.write_row
                for row in rows:
                    write(row)
            return
        text = f"INSERT INTO {{{table}}} ({', '.join(columns)}) VALUES " \
            f"({','.join('?' * len(columns))})"
        self.cursor.executemany(self.store.sql(text), rows)

    def executemany(self, text: str, rows: Iterable[Params]) -> None:
        batch = [tuple(r) for r in rows]
        if batch:
            self.cursor.executemany(self.store.sql(text), batch)

    def fetchall(self, text: str, params: Params = ()) -> list[Row]:
        self.cursor.execute(self.store.sql(text), tuple(params))
        return [_as_dict(row) for row in self.cursor.fetchall()]

    def fetchone(self, text: str, params: Params = ()) -> Row | None:
        self.cursor.execute(self.store.sql(text), tuple(params))
        row = self.cursor.fetchone()
        return None if row is None else _as_dict(row)

    def scalar(self, text: str, params: Params = ()) -> Any:
        row = self.fetchone(text, params)
        return None if row is None else next(iter(row.values()))

    def _rowcount(self) -> int:
        cursor = getattr(self.cursor, "sqlite_cursor", self.cursor)
        return int(cursor.rowcount)


def _as_dict(row: Any) -> Row:
    if isinstance(row, dict):
        return row
    return {key: row[key] for key in row.keys()}  # noqa: SIM118 - sqlite3.Row


def iso(moment: datetime) -> str:
    """A UTC timestamp as fixed-width ISO-8601 text (sorts as it reads)."""
    if moment.utcoffset() != _ZERO:
        return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    key = (moment.minute, moment.hour, moment.day, moment.month, moment.year)
    head = _MINUTES.get(key)
    if head is None:  # the same text as the line above, down to the minute
        if len(_MINUTES) >= 4096:
            _MINUTES.clear()
        head = _MINUTES[key] = moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:")
    return f"{head}{moment.second:02d}.{moment.microsecond:06d}Z"


_ZERO = timedelta(0)
_MINUTES: dict[tuple[int, ...], str] = {}
"""The text of each minute :func:`iso` wrote lately (a UTC moment's fields are its text's)."""
