"""Opening a store: the mapping from ``LEDGER_DATABASE_URL`` to the eventsourcing library's
environment, and the checks a PostgreSQL store gets before the library opens it (connect within
the timeout, create the schema, decide whether this user creates the tables).

The recorders are :mod:`ledger.store.sqlite` and :mod:`ledger.store.postgres`; only a PostgreSQL
store imports the latter: nothing here imports psycopg until a PostgreSQL store is opened, so
that commands on SQLite start without it.

The command log (``ledger_commands``) is written in the same transaction as the events a command
appends, so a command id is either recorded together with its events or not at all; that is what
makes a repeated command append nothing. Command ids are unique per table (the devices of two
tables may both count from ``c-1``).
"""

from __future__ import annotations

import random
import time
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode, urlparse

from ledger.domain.errors import InvalidInput
from ledger.settings import Settings
from ledger.store.errors import (
    BUSY_SERVER,
    PostgresTarget,
    StoreError,
    _denied,
    store_error,
    unavailable,
)
from ledger.store.identity import IDENTITY_TABLE
from ledger.store.mapper import _topic
from ledger.store.schema import COMMANDS_TABLE, TOKENS_TABLE
from ledger.store.sidetables import SIDE_TABLES
from ledger.store.sqlite import LedgerSQLiteRecorder, check_sqlite_store
from ledger.store.urls import PostgresURL, redact_url, sqlite_path

if TYPE_CHECKING:  # imported where used: a SQLite store never loads psycopg
    import psycopg


# --- environment ---------------------------------------------------------------------------


def store_env(settings: Settings, *, check: bool = True) -> dict[str, str]:
    """The eventsourcing environment for ``settings.database_url`` (a SQLite file checked
    first unless ``check`` is false: the shard map is checked without its stores, one of
    which may be down)."""
    url = settings.database_url.strip()
    parsed = urlparse(url)
    if parsed.scheme == "sqlite":
        path = sqlite_path(url)
        if path != ":memory:" and check:
            check_sqlite_store(path)
        return {
            "PERSISTENCE_MODULE": "ledger.store.sqlite:LedgerSQLiteFactory",
            "SQLITE_DBNAME": path if path != ":memory:" else "file::memory:?cache=shared",
            "APPLICATION_RECORDER_TOPIC": _topic(LedgerSQLiteRecorder),
            "SQLITE_LOCK_TIMEOUT": "30",
        }
    if parsed.scheme in ("postgresql", "postgres", "postgresql+psycopg"):
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


# --- the store before use, and its failures as coded errors ---------------------------------


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
              TOKENS_TABLE, *(t for t in SIDE_TABLES if t != IDENTITY_TABLE)]
    # The identity row (ledger.store.identity) is made by whoever may create tables; a store
    # made before it stays readable to a user who may not (it is then identified by where
    # it is).
    conn = _connect_patiently(target, settings.connect_timeout)
    try:
        with conn:
            return _prepare_schema(conn, target, tables)
    except psycopg.Error as exc:
        found = store_error(exc, settings)
        if found is None:
            raise
        raise found from None


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
    if all(found.values()):
        return {}
    _check_columns(conn, target)  # no DDL by this user: what it needs must be there
    return {"CREATE_TABLE": "no"}


NEEDED_COLUMNS = {COMMANDS_TABLE: ("recorded_at",)}
"""Columns of the ledger's own tables added after they were first made: a user who may not
alter the tables (their owner migrates them when next opening the store) is told which are
missing (``store_schema_outdated``) rather than failing in the middle of a command."""


def _check_columns(conn: psycopg.Connection[Any], target: PostgresTarget) -> None:
    for table, columns in NEEDED_COLUMNS.items():
        # the catalog, not information_schema (which shows only columns this user may use)
        have = {r[0] for r in conn.execute(
            "SELECT a.attname::text FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid "
            "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = %s AND "
            "c.relname = %s AND a.attnum > 0 AND NOT a.attisdropped", (target.schema, table))}
        missing = [c for c in columns if c not in have]
        if missing:
            raise StoreError(
                "store_schema_outdated",
                f"table {target.schema}.{table} of {target} lacks column(s) "
                f"{', '.join(missing)}, which this version needs, and user {target.user!r} "
                "may not add them: run any ledger command once as the tables' owner (it "
                "migrates them), e.g. `ledger tables` with that user's LEDGER_DATABASE_URL",
                table=table, columns=missing, schema=target.schema)


