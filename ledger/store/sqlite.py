"""The embedded store: SQLite, with the command log written in the transaction of the events, and
the checks that a file given as a store is one (or can become one) before it is opened."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from uuid import UUID

from eventsourcing import persistence
from eventsourcing.persistence import InterfaceError, StoredEvent
from eventsourcing.sqlite import (
    SQLITE3_DEFAULT_LOCK_TIMEOUT,
    SQLiteApplicationRecorder,
    SQLiteConnection,
    SQLiteConnectionPool,
    SQLiteCursor,
    SQLiteFactory,
)

from ledger.store.errors import StoreError, sqlite_failure
from ledger.store.identity import IDENTITY_TABLE, SQLITE_INSERT, new_identity
from ledger.store.schema import COMMANDS_TABLE, TOKENS_TABLE, CommandRow, corrections_index
from ledger.store.sidetables import sqlite_ddl

_SQLITE_COMMANDS_DDL = (
    f"CREATE TABLE IF NOT EXISTS {COMMANDS_TABLE} ("
    "table_id TEXT NOT NULL, command_id TEXT NOT NULL, command TEXT NOT NULL, "
    "payload_sha256 TEXT NOT NULL, result TEXT NOT NULL, "
    "recorded_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')), "
    "PRIMARY KEY (table_id, command_id))"
)


STATEMENT_CACHE = 64
"""Prepared statements each SQLite connection keeps. The library opens its connections with
``cached_statements=True``, a cache of one statement: a command's four (``BEGIN``, the events,
the command-log row, ``COMMIT``) were then prepared again every time (issue 29: 14 us for a
``BEGIN``, 33 us for an insert, against 2 and 7 prepared once)."""


class LedgerSQLitePool(SQLiteConnectionPool):
    """The library's pool of SQLite connections, each keeping :data:`STATEMENT_CACHE`
    prepared statements (the rest as the library opens them: autocommit, WAL, rows by name)."""

    def _create_connection(self) -> SQLiteConnection:
        try:
            conn = sqlite3.connect(database=self.db_name, uri=True, check_same_thread=False,
                                   isolation_level=None, cached_statements=STATEMENT_CACHE,
                                   timeout=self.lock_timeout or SQLITE3_DEFAULT_LOCK_TIMEOUT)
        except (sqlite3.Error, TypeError) as exc:
            raise InterfaceError(exc) from exc
        if not self.is_sqlite_memory_mode and not self.is_journal_mode_wal:
            if str(conn.execute("PRAGMA journal_mode;").fetchone()[0]).lower() != "wal":
                conn.execute("PRAGMA journal_mode=WAL;")
                self.journal_mode_was_changed_to_wal = True
            self.is_journal_mode_wal = True
        conn.row_factory = sqlite3.Row
        return SQLiteConnection(sqlite_conn=conn, max_age=self.max_age)


class LedgerSQLiteFactory(SQLiteFactory):
    """The library's SQLite factory on the ledger's pool (``PERSISTENCE_MODULE``)."""

    def __init__(self, env: Any) -> None:
        super().__init__(env)
        old = self.datastore.pool
        self.datastore.pool = LedgerSQLitePool(
            db_name=old.db_name, lock_timeout=old.lock_timeout, pool_size=old.pool_size,
            max_overflow=old.max_overflow, pool_timeout=old.pool_timeout, max_age=old.max_age,
            pre_ping=old.pre_ping)
        old.close()


class LedgerSQLiteRecorder(SQLiteApplicationRecorder):
    """SQLite events table plus the command log, written in one transaction."""

    def construct_create_table_statements(self) -> list[str]:
        return [
            *super().construct_create_table_statements(),
            _SQLITE_COMMANDS_DDL,
            f"CREATE TABLE IF NOT EXISTS {TOKENS_TABLE} ("
            "token_id TEXT PRIMARY KEY, secret_sha256 TEXT NOT NULL, role TEXT NOT NULL, "
            "tables TEXT, seat INTEGER, label TEXT NOT NULL, created_at TEXT NOT NULL, "
            "revoked_at TEXT, principal_id TEXT)",
            *sqlite_ddl(),
        ]

    def create_table(self) -> None:
        super().create_table()
        self._create_corrections_index()

    def _create_corrections_index(self) -> None:
        """The corrections index, made when missing (a store made before it) in a transaction
        that takes the write lock first (``BEGIN IMMEDIATE``), so that it waits for another
        process's write as any write does: a transaction that has read (the tables' ``IF NOT
        EXISTS``) cannot wait to become a writer and fails at once, "database is locked"."""
        name = f"{self.events_table_name}_corrections"
        with self.datastore.get_connection(commit=True) as conn:
            cursor = conn.cursor()
            cursor.execute("SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = ?",
                           (name,))
            if cursor.fetchone() is not None:
                return
            cursor.execute("BEGIN IMMEDIATE")
            try:
                cursor.execute(corrections_index(self.events_table_name))
            except BaseException:
                conn.rollback()
                raise
            conn.commit()

    def _create_table(self, c: SQLiteCursor) -> None:
        super()._create_table(c)
        # Stores made before approver tokens: their tokens' table gains the principal column.
        c.execute(f"PRAGMA table_info({TOKENS_TABLE})")
        if "principal_id" not in {str(r[1]) for r in c.fetchall()}:
            c.execute(f"ALTER TABLE {TOKENS_TABLE} ADD COLUMN principal_id TEXT")
        # Stores made before command ids were per table keyed the log by command id alone;
        # a log without its recorded_at column (made before it, or altered by hand) gets it,
        # the rows it holds stamped with the time of the migration.
        c.execute(f"PRAGMA table_info({COMMANDS_TABLE})")
        found = c.fetchall()
        keyed = sorted((int(r[5]), str(r[1])) for r in found if int(r[5]) > 0)
        stamped = "recorded_at" in {str(r[1]) for r in found}
        if [name for _, name in keyed] == ["command_id"] or not stamped:
            columns = "table_id, command_id, command, payload_sha256, result"
            stamp = "recorded_at" if stamped else "strftime('%Y-%m-%dT%H:%M:%fZ','now')"
            c.execute(f"ALTER TABLE {COMMANDS_TABLE} RENAME TO {COMMANDS_TABLE}_old")
            c.execute(_SQLITE_COMMANDS_DDL)
            c.execute(f"INSERT INTO {COMMANDS_TABLE} ({columns}, recorded_at) "
                      f"SELECT {columns}, {stamp} FROM {COMMANDS_TABLE}_old")
            c.execute(f"DROP TABLE {COMMANDS_TABLE}_old")
        # A store knows who it is: its identity, written once (ledger.store.identity). Looked
        # for first: a write here on every open would need the write lock after this
        # transaction has read, which SQLite refuses at once while another process writes.
        c.execute(f"SELECT 1 FROM {IDENTITY_TABLE} WHERE one = 1")
        if c.fetchone() is None:
            c.execute(SQLITE_INSERT, new_identity())

    def insert_events(
        self, stored_events: Sequence[StoredEvent], **kwargs: Any
    ) -> Sequence[int] | None:
        """A command's events and its command-log row: ``BEGIN IMMEDIATE``, the two inserts,
        ``COMMIT`` on the pool's writer connection (:func:`immediate_transaction`), without the
        library's layers of context managers around each (issue 29: they cost a third of the
        Python of a save), with the library's errors. Anything else is inserted as the library
        does."""
        row: CommandRow | None = kwargs.get("command_row")
        if row is None:
            return super().insert_events(stored_events, **kwargs)
        ids: list[int] = []
        with immediate_transaction(self.datastore) as cursor:
            conn = cursor.sqlite_cursor
            for e in stored_events:
                conn.execute(self.insert_events_statement, (
                    e.originator_id.hex if isinstance(e.originator_id, UUID)
                    else e.originator_id, e.originator_version, e.topic, e.state))
                ids.append(int(conn.lastrowid or 0))
            conn.execute(self._insert_command, (row.command_id, row.table_id, row.command,
                                                row.payload_sha256, row.result))
        return ids

    _insert_command = (f"INSERT INTO {COMMANDS_TABLE} (command_id, table_id, command, "
                       "payload_sha256, result) VALUES (?,?,?,?,?)")

    def select_command(self, table_id: str, command_id: str) -> CommandRow | None:
        with self.datastore.transaction(commit=False) as c:
            c.execute(
                f"SELECT command_id, table_id, command, payload_sha256, result "
                f"FROM {COMMANDS_TABLE} WHERE table_id = ? AND command_id = ?",
                (table_id, command_id),
            )
            row = c.fetchone()
        return None if row is None else CommandRow(*tuple(row))


_LIBRARY_ERRORS: tuple[tuple[type[sqlite3.Error], type[Exception]], ...] = (
    (sqlite3.InterfaceError, persistence.InterfaceError),
    (sqlite3.DataError, persistence.DataError),
    (sqlite3.OperationalError, persistence.OperationalError),
    (sqlite3.IntegrityError, persistence.IntegrityError),
    (sqlite3.InternalError, persistence.InternalError),
    (sqlite3.ProgrammingError, persistence.ProgrammingError),
    (sqlite3.NotSupportedError, persistence.NotSupportedError),
    (sqlite3.DatabaseError, persistence.DatabaseError),
    (sqlite3.Error, persistence.PersistenceError),
)
"""sqlite3's errors and the library's, in the order its transaction translates them."""


def _library_error(exc: sqlite3.Error) -> Exception:
    """The library's error for a sqlite3 one (what its transactions raise)."""
    for theirs, ours in _LIBRARY_ERRORS:
        if isinstance(exc, theirs):
            return ours(exc)
    return persistence.PersistenceError(exc)


@contextmanager
def immediate_transaction(datastore: Any) -> Iterator[SQLiteCursor]:
    """A write transaction that takes the write lock first (``BEGIN IMMEDIATE``), committed
    when the block ends, rolled back when it raises; sqlite3's errors become the library's.

    In the write-ahead log a transaction that reads before it writes cannot become a writer
    once another connection has committed since its read began: it fails at once with
    "database is locked", whatever the busy timeout. Taking the lock first, it waits for the
    other writer (up to the timeout) and then sees everything committed before it."""
    with datastore.get_connection(commit=True) as pooled:
        conn = pooled._sqlite_conn
        cursor = pooled.cursor()
        try:
            conn.execute("BEGIN IMMEDIATE")
            yield cursor
            conn.commit()
        except sqlite3.Error as exc:
            if conn.in_transaction:
                conn.rollback()
            raise _library_error(exc) from exc
        except BaseException:
            if conn.in_transaction:
                conn.rollback()
            raise
        finally:
            cursor.sqlite_cursor.close()


SQLITE_MAGIC = b"SQLite format 3\x00"


LEDGER_TABLES = ("stored_events", "stored_snapshots")


LEDGER_PREFIXES = ("ledger_", "proj_")
"""A SQLite store holding a table of these names (or prefixes) is the ledger's."""


def check_sqlite_store(path: str) -> None:
    """Refuse, before anything is written to it, a SQLite store the ledger cannot use: a path
    under a regular file or at a directory (``invalid_path``), a file this user cannot read
    or write (``store_permission_denied``), a file that is not SQLite or a SQLite database
    without the ledger's tables (``store_not_ledger``), a truncated or damaged one
    (``store_corrupt``). A missing or empty file is a new store (its folder is made)."""
    target = Path(path)
    try:
        for parent in target.parents:
            if parent.exists() and not parent.is_dir():
                raise StoreError("invalid_path", f"the SQLite store {path} lies under "
                                 f"{parent}, which is a file, not a directory", path=path)
        if target.is_dir():
            raise StoreError("invalid_path", f"the SQLite store {path} is a directory: give "
                             "the path of a file (sqlite:///var/ledger.sqlite3)", path=path)
        if target.exists() and not target.is_file():
            raise StoreError("invalid_path", f"the SQLite store {path} is not a regular file",
                             path=path)
        target.parent.mkdir(parents=True, exist_ok=True)
        if not target.exists() or target.stat().st_size == 0:
            return
        with target.open("rb") as fh:
            header = fh.read(100)
        size = target.stat().st_size
    except PermissionError as exc:
        raise StoreError("store_permission_denied", f"cannot use the SQLite store {path}: "
                         f"{exc.strerror or 'permission denied'} ({exc.filename or path})",
                         path=path) from None
    except OSError as exc:
        raise StoreError("invalid_path", f"cannot use the SQLite store {path}: "
                         f"{exc.strerror or exc} ({exc.filename or path})", path=path) from None
    if not header.startswith(SQLITE_MAGIC[:len(header)]) or len(header) < len(SQLITE_MAGIC):
        raise StoreError("store_not_ledger", f"{path} is not a SQLite database (nor a ledger "
                         "store): point LEDGER_DATABASE_URL at the ledger's store", path=path)
    if len(header) < 100:
        raise StoreError("store_corrupt", f"the SQLite store {path} is truncated ({size} "
                         "bytes, less than its header): restore it from a backup "
                         "(docs/operations/backup.md)", path=path)
    page = int.from_bytes(header[16:18], "big")
    page = 65536 if page == 1 else page
    pages = int.from_bytes(header[28:32], "big")
    if header[24:28] == header[92:96] and pages and page >= 512 and size < page * pages:
        raise StoreError("store_corrupt", f"the SQLite store {path} is truncated: its header "
                         f"counts {pages} pages of {page} bytes, the file holds {size} bytes; "
                         "restore it from a backup (docs/operations/backup.md)", path=path)
    tables = _sqlite_tables(path)
    if tables and not any(t in LEDGER_TABLES or t.startswith(LEDGER_PREFIXES) for t in tables):
        shown = ", ".join(sorted(tables)[:5]) + (", ..." if len(tables) > 5 else "")
        raise StoreError("store_not_ledger", f"the SQLite database {path} is not a ledger store "
                         f"(it holds {shown} and none of the ledger's tables); nothing was "
                         "written to it: point LEDGER_DATABASE_URL at the ledger's store",
                         path=path)


def _sqlite_tables(path: str) -> set[str]:
    """The tables of the SQLite database at ``path``, read without writing to it."""
    from urllib.parse import quote

    try:
        conn = sqlite3.connect(f"file:{quote(str(Path(path).resolve()))}?mode=ro", uri=True)
        try:
            rows = conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
        finally:
            conn.close()
    except sqlite3.Error as exc:
        raise sqlite_failure(path, exc) or StoreError(
            "store_corrupt", f"cannot read the SQLite store {path}: {exc}", path=path) from None
    return {str(r[0]) for r in rows}
