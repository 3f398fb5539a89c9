"""Event store wiring: the pydantic mapper, recorders with the command log, and the mapping
from ``LEDGER_DATABASE_URL`` to the eventsourcing library's environment.

The PostgreSQL recorder lives in :mod:`ledger.store.postgres`, which only a PostgreSQL store
imports: nothing here imports psycopg until a PostgreSQL store is opened, so that commands on SQLite
start without it.

The command log (``ledger_commands``) is written in the same transaction as the events a command
appends, so a command id is either recorded together with its events or not at all; that is what
makes a repeated command append nothing. Command ids are unique per table (the devices of two
tables may both count from ``c-1``).
"""

from __future__ import annotations

import json
import random
import sqlite3
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode, urlparse
from uuid import UUID

from eventsourcing.persistence import Mapper, PersistenceError, StoredEvent
from eventsourcing.sqlite import SQLiteApplicationRecorder, SQLiteCursor
from eventsourcing.utils import resolve_topic

from ledger import startup
from ledger.domain.errors import ConcurrencyError, InvalidInput, LedgerError
from ledger.settings import Settings
from ledger.store.sidetables import SIDE_TABLES, sqlite_ddl

if TYPE_CHECKING:  # imported where used: a SQLite store never loads psycopg
    import psycopg

    from ledger.store.postgres import PostgresURL

COMMANDS_TABLE = "ledger_commands"
TOKENS_TABLE = "ledger_tokens"
CORRECTION_TOPICS = ("ledger.table:HandCorrected", "ledger.table:SeatCorrected")
"""The topics of the correction events (COR-1, COR-3)."""
CORRECTIONS_WHERE = "topic IN ('ledger.table:HandCorrected', 'ledger.table:SeatCorrected')"
"""The condition of the corrections index, a partial index of the events table on (table,
version) holding the correction events alone: it finds the corrections of a hand without
reading the table's other events (``projections.correction_queries``). A query uses it when
its condition holds this text as it stands (literal topics, no parameters)."""


def corrections_index(table: str, qualified: str | None = None) -> str:
    """The statement that makes the corrections index of the events table ``table`` (named
    ``qualified`` where a schema comes first). A store made before it gets it when next opened
    by a user who may create it (one pass over the events table)."""
    return (f"CREATE INDEX IF NOT EXISTS {table}_corrections ON {qualified or table} "
            f"(originator_id, originator_version) WHERE {CORRECTIONS_WHERE}")


@dataclass(frozen=True)
class CommandRow:
    """One command recorded with the events it appended."""

    command_id: str
    table_id: str
    command: str
    payload_sha256: str
    result: str


class PydanticMapper(Mapper[UUID]):
    """Stores each event as the JSON of its pydantic model, without a transcoder.

    The bytes stored are exactly those the aggregate hashed into the table's chain.
    """

    def __init__(self) -> None:
        super().__init__(transcoder=None)  # type: ignore[arg-type]

    def to_stored_event(self, domain_event: Any) -> StoredEvent:
        return StoredEvent(
            originator_id=domain_event.originator_id,
            originator_version=domain_event.originator_version,
            topic=_topic(domain_event.__class__),
            state=domain_event.stored_state(),
        )

    def to_domain_event(self, stored_event: StoredEvent) -> Any:
        """The event of a stored row, validated in full by its pydantic model.

        Fast path: pydantic parses and validates the stored JSON in one step, with the
        envelope (the row's id and version) appended as the object's last keys, so they win
        over any the bytes hold, as :meth:`from_data` sets them. Rows that need an upcast, or
        that the fast path refuses for any reason, take :meth:`from_data`, which decides the
        outcome (and the error) exactly as before: the fast path accepts nothing it refuses."""
        event = self.fast_event(stored_event.topic, stored_event.state,
                                str(stored_event.originator_id).encode(),
                                stored_event.originator_version)
        if event is not None:
            return event
        return self.from_data(stored_event, json.loads(stored_event.state))

    @staticmethod
    def fast_event(topic: str, state: Any, stream_id: bytes, version: int) -> Any:
        """The fast path of :meth:`to_domain_event` (``stream_id``: the row's id as text): the
        event, or None where it does not apply (an upcast is due, the JSON is not a plain
        object) or pydantic refuses the row, which the full path then decides and reports."""
        raw = state_bytes(state)
        cls = _resolve(topic)
        if cls.class_version != 1 or raw[:1] != b"{" or raw[-1:] != b"}" \
                or b'"class_version"' in raw:
            return None
        try:
            event = cls.__pydantic_validator__.validate_json(
                raw[:-1] + b',"originator_id":"%s","originator_version":%d}' % (stream_id, version))
        except Exception:  # the full path decides and reports
            return None
        event.keep_stored(raw)
        return event

    def from_data(self, stored_event: StoredEvent, data: dict[str, Any]) -> Any:
        """The event of a stored row whose JSON is already parsed (``data`` is consumed)."""
        cls = _resolve(stored_event.topic)
        data["originator_id"] = stored_event.originator_id
        data["originator_version"] = stored_event.originator_version
        from_version = data.pop("class_version", 1)
        while from_version < cls.class_version:
            getattr(cls, f"upcast_v{from_version}_v{from_version + 1}")(data)
            from_version += 1
        event = cls.model_validate(data)
        event.keep_stored(state_bytes(stored_event.state))
        return event


def state_bytes(state: Any) -> bytes:
    """A stored event's state as bytes. The ledger writes bytes; a row rewritten by hand may hold
    text instead (SQLite keeps what an UPDATE gives it), which must still be read and hashed."""
    if isinstance(state, str):
        return state.encode()
    return bytes(state)


@cache
def _resolve(topic: str) -> Any:
    return resolve_topic(topic)


@cache
def _topic(cls: Any) -> str:
    """The topic stored for ``cls``: the name it declares for the store (the table's events,
    ``ledger.table.events.topic_of``), else ``module:qualname``."""
    stored: str | None = getattr(cls, "stored_topic", None)
    return stored or f"{cls.__module__}:{cls.__qualname__}"


# --- recorders -----------------------------------------------------------------------------


_SQLITE_COMMANDS_DDL = (
    f"CREATE TABLE IF NOT EXISTS {COMMANDS_TABLE} ("
    "table_id TEXT NOT NULL, command_id TEXT NOT NULL, command TEXT NOT NULL, "
    "payload_sha256 TEXT NOT NULL, result TEXT NOT NULL, "
    "recorded_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')), "
    "PRIMARY KEY (table_id, command_id))"
)


class LedgerSQLiteRecorder(SQLiteApplicationRecorder):
    """SQLite events table plus the command log, written in one transaction."""

    def construct_create_table_statements(self) -> list[str]:
        return [
            *super().construct_create_table_statements(),
            _SQLITE_COMMANDS_DDL,
            f"CREATE TABLE IF NOT EXISTS {TOKENS_TABLE} ("
            "token_id TEXT PRIMARY KEY, secret_sha256 TEXT NOT NULL, role TEXT NOT NULL, "
            "tables TEXT, seat INTEGER, label TEXT NOT NULL, created_at TEXT NOT NULL, "
            "revoked_at TEXT)",
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
        # Stores made before command ids were per table keyed the log by command id alone.
        c.execute(f"PRAGMA table_info({COMMANDS_TABLE})")
        keyed = sorted((int(r[5]), str(r[1])) for r in c.fetchall() if int(r[5]) > 0)
        if [name for _, name in keyed] == ["command_id"]:
            columns = "table_id, command_id, command, payload_sha256, result, recorded_at"
            c.execute(f"ALTER TABLE {COMMANDS_TABLE} RENAME TO {COMMANDS_TABLE}_old")
            c.execute(_SQLITE_COMMANDS_DDL)
            c.execute(f"INSERT INTO {COMMANDS_TABLE} ({columns}) "
                      f"SELECT {columns} FROM {COMMANDS_TABLE}_old")
            c.execute(f"DROP TABLE {COMMANDS_TABLE}_old")

    def _insert_events(
        self, c: SQLiteCursor, stored_events: Sequence[StoredEvent], **kwargs: Any
    ) -> Sequence[int] | None:
        ids = super()._insert_events(c, stored_events, **kwargs)
        row: CommandRow | None = kwargs.get("command_row")
        if row is not None:
            c.execute(
                f"INSERT INTO {COMMANDS_TABLE} (command_id, table_id, command, payload_sha256, "
                "result) VALUES (?,?,?,?,?)",
                (row.command_id, row.table_id, row.command, row.payload_sha256, row.result),
            )
        return ids

    def select_command(self, table_id: str, command_id: str) -> CommandRow | None:
        with self.datastore.transaction(commit=False) as c:
            c.execute(
                f"SELECT command_id, table_id, command, payload_sha256, result "
                f"FROM {COMMANDS_TABLE} WHERE table_id = ? AND command_id = ?",
                (table_id, command_id),
            )
            row = c.fetchone()
        return None if row is None else CommandRow(*tuple(row))


# --- environment ---------------------------------------------------------------------------


def store_env(settings: Settings) -> dict[str, str]:
    """The eventsourcing environment for ``settings.database_url``."""
    url = settings.database_url.strip()
    parsed = urlparse(url)
    if parsed.scheme == "sqlite":
        path = sqlite_path(url)
        if path != ":memory:":
            check_sqlite_store(path)
        return {
            "PERSISTENCE_MODULE": "eventsourcing.sqlite",
            "SQLITE_DBNAME": path if path != ":memory:" else "file::memory:?cache=shared",
            "APPLICATION_RECORDER_TOPIC": _topic(LedgerSQLiteRecorder),
            "SQLITE_LOCK_TIMEOUT": "30",
        }
    if parsed.scheme in ("postgresql", "postgres", "postgresql+psycopg"):
        with startup.held():  # psycopg and the library's PostgreSQL modules
            from ledger.store.postgres import PostgresURL

        where = PostgresURL.parse(url, redact_url(url))
        return {  # the library imports ledger.store.postgres by these topics
            "PERSISTENCE_MODULE": "ledger.store.postgres:LedgerPostgresFactory",
            "POSTGRES_DBNAME": where.dbname,
            "POSTGRES_HOST": where.host,
            "POSTGRES_PORT": where.port,
            "POSTGRES_USER": where.user,
            "POSTGRES_PASSWORD": where.password,
            "POSTGRES_POOL_SIZE": str(settings.postgres_pool_size),
            "POSTGRES_SCHEMA": settings.postgres_schema.strip() or "public",
            "POSTGRES_LOCK_TIMEOUT": "10",
            "POSTGRES_CONNECT_TIMEOUT": str(settings.connect_timeout),
            "LEDGER_PG_OPTIONS": urlencode(where.options),
            "APPLICATION_RECORDER_TOPIC": "ledger.store.postgres:LedgerPostgresRecorder",
        }
    raise InvalidInput(
        "invalid_database_url",
        f"unsupported database URL {redact_url(url)!r}: use sqlite:///path or "
        "postgresql://user@host/db",
    )


def redact_url(url: str) -> str:
    """``url`` with everything between ``://`` and the last ``@`` of its authority (user and
    password) but the user name replaced, so that no message ever shows a password."""
    head, sep, rest = url.partition("://")
    if not sep or "@" not in rest:
        return url
    credentials, _, host_and_path = rest.rpartition("@")  # a password may hold '/' or '@'
    if ":" not in credentials:
        return url
    user = credentials.split(":", 1)[0]
    return f"{head}://{user}:***@{host_and_path}"


def sqlite_path(url: str) -> str:
    """``sqlite:///var/x.db`` -> ``var/x.db``; ``sqlite:////tmp/x.db`` -> ``/tmp/x.db``."""
    rest = url[len("sqlite://") :]
    if rest in ("", "/", "/:memory:"):
        return ":memory:"
    return rest[1:] if rest.startswith("/") else rest


# --- the store before use, and its failures as coded errors ---------------------------------

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
                         "bytes, less than its header): restore it from a backup (README, "
                         "Backup and restore)", path=path)
    page = int.from_bytes(header[16:18], "big")
    page = 65536 if page == 1 else page
    pages = int.from_bytes(header[28:32], "big")
    if header[24:28] == header[92:96] and pages and page >= 512 and size < page * pages:
        raise StoreError("store_corrupt", f"the SQLite store {path} is truncated: its header "
                         f"counts {pages} pages of {page} bytes, the file holds {size} bytes; "
                         "restore it from a backup (README, Backup and restore)", path=path)
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


def sqlite_failure(path: str, exc: BaseException) -> LedgerError | None:
    """A SQLite driver error about the file itself as a coded error, or None."""
    text = str(exc)
    lowered = text.lower()
    if "malformed" in lowered or "not a database" in lowered or "encrypted" in lowered \
            or "corrupt" in lowered:
        return StoreError("store_corrupt", f"the SQLite store {path} is damaged ({text}): "
                          "restore it from a backup (README, Backup and restore) and run "
                          "`ledger audit verify`", path=path)
    if "readonly" in lowered or "read-only" in lowered:
        return StoreError("store_permission_denied", f"the SQLite store {path} may only "
                          f"be read here ({text}): this command needs to write to it",
                          path=path)
    if "unable to open" in lowered or "disk i/o" in lowered:
        return StoreError("store_unavailable", f"cannot open the SQLite store {path}: "
                          f"{text}", path=path)
    return None


class StoreError(LedgerError):
    """The store cannot be reached or used: ``store_unavailable``, ``store_permission_denied``,
    ``store_schema_missing``."""


@dataclass(frozen=True)
class PostgresTarget:
    """Where a ``postgresql://`` URL points (the password is kept only to connect); ``host``
    and ``port`` are lists (``h1,h2``, ``5432,5433``) when the URL names several servers."""

    host: str
    port: str
    dbname: str
    user: str
    password: str = field(repr=False)
    schema: str
    url: PostgresURL = field(repr=False)

    @classmethod
    def of(cls, settings: Settings) -> PostgresTarget:
        with startup.held():  # psycopg and the library's PostgreSQL modules
            from ledger.store.postgres import PostgresURL

        url = settings.database_url.strip()
        where = PostgresURL.parse(url, redact_url(url))
        return cls(where.host, where.port, where.dbname, where.user, where.password,
                   settings.postgres_schema.strip() or "public", where)

    def __str__(self) -> str:
        return (f"PostgreSQL at {self.url.where}, database {self.dbname!r}, "
                f"user {self.user!r}")

    def scrub(self, text: str) -> str:
        """``text`` without the password, should a driver ever quote it (a password of one
        or two characters is left alone: replacing it would garble the message)."""
        return text.replace(self.password, "***") if len(self.password) > 2 else text


def prepare_store(settings: Settings, events_prefix: str) -> dict[str, str]:
    """Check the store before the application opens it; extra environment for the library.

    On PostgreSQL: connect once, waiting at most ``LEDGER_CONNECT_TIMEOUT`` seconds (the
    library's pool would retry for 30 s and then report only that it timed out); create the
    schema when it is missing and the user may; and decide whether the application creates
    its tables. It does when a table is missing (which needs CREATE on the schema) or when the
    user owns them all (so that new indexes reach existing stores); a user that may only read
    or write existing tables (``GRANT SELECT ...``) opens the store without any DDL.
    Failures are :class:`StoreError` with an actionable message.
    """
    if urlparse(settings.database_url.strip()).scheme == "sqlite":
        return {}
    import psycopg

    target = PostgresTarget.of(settings)
    tables = [f"{events_prefix}_events", f"{events_prefix}_snapshots", COMMANDS_TABLE,
              TOKENS_TABLE, *SIDE_TABLES]
    conn = _connect_patiently(target, settings.connect_timeout)
    try:
        with conn:
            return _prepare_schema(conn, target, tables)
    except psycopg.Error as exc:
        found = store_error(exc, settings)
        if found is None:
            raise
        raise found from None


#: What a server says while every connection slot is taken (by all clients, or under a role's
#: or a database's limit), as when a whole fleet starts at once.
SLOTS_TAKEN = ("too many clients", "too many connections for",
               "remaining connection slots are reserved")
#: What a server says while it is starting, stopping, or a standby is being promoted.
NOT_READY = ("the database system is starting up", "the database system is shutting down",
             "the database system is in recovery mode",
             "the database system is not yet accepting connections")
BUSY_SERVER = SLOTS_TAKEN + NOT_READY
"""Refusals that pass: worth asking again until the wait runs out."""


def _connect_patiently(target: PostgresTarget, timeout_s: int) -> psycopg.Connection[Any]:
    """One connection for the start-up checks. A server that refuses for now (its slots all
    taken while a fleet starts, a restart or a promotion under way) is asked again until
    ``timeout_s`` has passed; any other failure, or the last refusal, is ``store_unavailable``."""
    import psycopg

    deadline = time.monotonic() + timeout_s
    wait = 0.05
    while True:
        try:
            return psycopg.connect(**target.url.connect_kwargs(timeout_s), autocommit=True)
        except psycopg.Error as exc:
            busy = any(words in str(exc).lower() for words in BUSY_SERVER)
            left = deadline - time.monotonic()
            if not busy or left <= 0:
                raise unavailable(target, exc, timeout_s) from None
            # jittered, so that processes refused together do not all come back together
            time.sleep(min(left, wait * (0.5 + random.random())))
            wait = min(wait * 2, 1.0)


def _prepare_schema(conn: psycopg.Connection[Any], target: PostgresTarget,
                    tables: list[str]) -> dict[str, str]:
    from psycopg.sql import SQL, Identifier

    from ledger.store.postgres import schema_lock

    schema = target.schema
    row = conn.execute("SELECT has_schema_privilege(oid, 'USAGE'), "
                       "has_schema_privilege(oid, 'CREATE') FROM pg_namespace "
                       "WHERE nspname = %s", (schema,)).fetchone()
    if row is None:
        may_create = conn.execute(
            "SELECT has_database_privilege(current_database(), 'CREATE')").fetchone()
        if not (may_create and may_create[0]):
            raise StoreError(
                "store_schema_missing",
                f"schema {schema!r} does not exist in {target} and that user may not create "
                f"it: create it (CREATE SCHEMA {Identifier(schema).as_string(conn)} "
                f"AUTHORIZATION {Identifier(target.user).as_string(conn)}) or set "
                "LEDGER_POSTGRES_SCHEMA to an existing schema",
                schema=schema, database=target.dbname, user=target.user)
        with conn.transaction():  # two processes at once must not both create it
            schema_lock(conn)
            conn.execute(SQL("CREATE SCHEMA IF NOT EXISTS {}").format(Identifier(schema)))
        return {}
    usage, create = row
    if not usage:
        raise _denied(target, f"user {target.user!r} may not use schema {schema!r}",
                      f"GRANT USAGE ON SCHEMA {schema} TO {target.user}")
    found = {r[0]: bool(r[1]) for r in conn.execute(
        "SELECT c.relname, pg_has_role(c.relowner, 'USAGE') FROM pg_class c "
        "JOIN pg_namespace n ON n.oid = c.relnamespace "
        "WHERE n.nspname = %s AND c.relname = ANY(%s) AND c.relkind IN ('r', 'p')",
        (schema, tables))}
    missing = [t for t in tables if t not in found]
    if missing:
        if not create:
            raise _denied(
                target, f"the ledger's tables ({', '.join(missing)}) do not exist yet in "
                f"schema {schema!r} and user {target.user!r} may not create them",
                f"GRANT CREATE ON SCHEMA {schema} TO {target.user}, or run any ledger command "
                "once as a user who may (the schema's owner); afterwards reading needs only "
                "USAGE on the schema and SELECT on its tables")
        return {}
    return {} if all(found.values()) else {"CREATE_TABLE": "no"}


def _denied(target: PostgresTarget, problem: str, remedy: str) -> StoreError:
    return StoreError("store_permission_denied",
                      f"{problem} ({target}): {remedy}",
                      database=target.dbname, user=target.user, schema=target.schema)


def unavailable(target: PostgresTarget, exc: BaseException, timeout: int) -> StoreError:
    """``store_unavailable`` for a failed connection, with what to check."""
    reason = _reason(target.scrub(str(exc)))
    lowered = reason.lower()
    if "does not exist" in lowered and "database" in lowered:
        hint = (f"create it (createdb -h {target.host} -p {target.port} -U {target.user} "
                f"{target.dbname}) or fix the database name in LEDGER_DATABASE_URL")
    elif any(words in lowered for words in SLOTS_TAKEN):
        hint = (f"the server still refused after {timeout} s (LEDGER_CONNECT_TIMEOUT): raise its "
                "max_connections or the role's or database's CONNECTION LIMIT, run fewer "
                "processes at once, or put a connection pooler (PgBouncer) in front of it")
    elif any(words in lowered for words in NOT_READY):
        hint = (f"the server was still starting, stopping or recovering after {timeout} s "
                "(LEDGER_CONNECT_TIMEOUT): wait for it, or raise LEDGER_CONNECT_TIMEOUT")
    elif "authentication" in lowered or "password" in lowered or "role" in lowered:
        hint = "check the user and password in LEDGER_DATABASE_URL"
    elif "timeout" in lowered or "timed out" in lowered:
        hint = (f"no answer within {timeout} s (LEDGER_CONNECT_TIMEOUT): is the server up and "
                "reachable from here?")
    else:
        hint = "is the server running and accepting TCP/IP connections on that host and port?"
    return StoreError("store_unavailable", f"cannot connect to {target}: {reason}; {hint}",
                      host=target.host, port=target.port, database=target.dbname,
                      user=target.user)


def _reason(text: str) -> str:
    """The server's or the socket's own words, without libpq's framing."""
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    first = lines[0] if lines else text
    reason = first.rsplit(" failed: ", 1)[-1]
    for prefix in ("FATAL:", "ERROR:"):
        if reason.startswith(prefix):
            reason = reason[len(prefix):].strip()
    return reason or text


def loaded_classes(module: str, *names: str) -> tuple[type[Any], ...]:
    """The classes ``names`` of ``module`` if it was imported already, else none, for
    ``isinstance`` and ``except``: nothing can be an instance of a class never loaded, so asking
    never imports the module (commands on SQLite never load psycopg or the library's PostgreSQL
    recorders)."""
    found = sys.modules.get(module)
    return () if found is None else tuple(getattr(found, name) for name in names)


def _driver_error(exc: BaseException) -> BaseException | None:
    """The driver's own error behind ``exc`` (the library wraps them), if any."""
    cause: BaseException | None = exc
    for _ in range(6):
        if cause is None or isinstance(cause, (sqlite3.Error, *loaded_classes("psycopg", "Error"))):
            return cause
        cause = cause.__cause__ or cause.__context__
    return None


def permission_denied(exc: BaseException) -> bool:
    """Whether ``exc`` is the store refusing this user something (not a missing table)."""
    cause = _driver_error(exc)
    if isinstance(cause, loaded_classes("psycopg.errors", "InsufficientPrivilege")):
        return True
    return isinstance(cause, sqlite3.Error) and "readonly" in str(cause).lower()


def store_error(exc: BaseException, settings: Settings) -> LedgerError | None:
    """A store failure as a coded error, or None when ``exc`` is not one this knows.

    Looks through the library's wrappers (``PersistenceError``) to the driver's error.
    """
    cause = _driver_error(exc)
    if isinstance(cause, loaded_classes("psycopg", "Error")):
        return _postgres_error(cause, settings)
    if isinstance(cause, sqlite3.Error) or (
            isinstance(exc, PersistenceError)
            and urlparse(settings.database_url.strip()).scheme == "sqlite"):
        return sqlite_failure(sqlite_path(settings.database_url.strip()),
                              cause if cause is not None else exc)
    return None


def _postgres_error(cause: psycopg.Error, settings: Settings) -> LedgerError | None:
    """psycopg's error ``cause`` as a coded error, or None when this does not know it."""
    import psycopg
    from psycopg_pool import PoolTimeout

    target = PostgresTarget.of(settings)
    message = target.scrub(str(cause)).strip().splitlines()[0] if str(cause).strip() \
        else type(cause).__name__
    if isinstance(cause, psycopg.errors.InsufficientPrivilege):
        return _denied(target, f"user {target.user!r} lacks a privilege this needs: "
                       f"{message}",
                       f"grant it (e.g. GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES "
                       f"IN SCHEMA {target.schema} TO {target.user}) or use a role that "
                       "has it")
    if isinstance(cause, psycopg.errors.InvalidSchemaName):
        return StoreError("store_schema_missing", f"{message} ({target}): set "
                          "LEDGER_POSTGRES_SCHEMA to an existing schema",
                          schema=target.schema)
    if isinstance(cause, psycopg.errors.UndefinedTable):
        # Tables are created on first use on the primary, so a missing one is a read
        # store that has not replayed them yet, or views read before any were built.
        return StoreError("store_unavailable", f"{message} ({target}): the store does not "
                          "hold that table yet. A read store (LEDGER_READ_DATABASE_URL) "
                          "has not replayed the views' tables: keep `ledger projections "
                          "update --follow` running on the primary and try again; on the "
                          "primary, run `ledger projections update` once as a user who "
                          "may create tables", database=target.dbname,
                          schema=target.schema)
    if isinstance(cause, psycopg.errors.LockNotAvailable | psycopg.errors.QueryCanceled
                  | psycopg.errors.TransactionRollback):
        # The server answered: the table was busy (lock timeout, deadlock, serialisation).
        return ConcurrencyError("concurrent_updates", f"the store was busy and gave up: "
                                f"{message}; try again")
    if type(cause) is psycopg.OperationalError or isinstance(
            cause, PoolTimeout | psycopg.errors.ConnectionException
            | psycopg.errors.AdminShutdown | psycopg.errors.CannotConnectNow
            | psycopg.errors.CrashShutdown
            # class 53, the server short of something: connection slots, memory, disk
            | psycopg.errors.InsufficientResources | psycopg.errors.TooManyConnections
            | psycopg.errors.ConfigurationLimitExceeded | psycopg.errors.OutOfMemory
            | psycopg.errors.DiskFull):
        return unavailable(target, cause, settings.connect_timeout)
    if isinstance(cause, psycopg.OperationalError):
        # Any other failure of the operational kind: the pool closed or its queue full, an
        # object in use, the server's own I/O or system error. The store could not do it now;
        # it is not a fault of the ledger's code (never internal_error).
        return StoreError("store_unavailable", f"the store could not do this now ({target}): "
                          f"{message}; try again", database=target.dbname,
                          error_class=type(cause).__name__)
    return None
