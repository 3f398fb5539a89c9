"""PostgreSQL as the ledger runs it in a fleet: multi-host URLs, the connection pool, bounded
retries, schema creation under a lock, and the recorder with the command log.

Only a PostgreSQL store imports this module (and psycopg with it): ``store_env`` names the
factory and the recorder by topic, which the library resolves when it opens the store.

- **URLs.** ``postgresql://user:pw@h1:5432,h2:5433/ledger?target_session_attrs=read-write``
  names several servers; libpq tries them in order and keeps the first that fits the session
  attributes, so after a failover every new connection finds the new primary.
- **The pool** (psycopg_pool) checks each connection before handing it out (its own
  ``check_connection``), gives up waiting for one after ``LEDGER_CONNECT_TIMEOUT`` (less when
  the caller's wait budget, :mod:`ledger.store.availability`, has less left), and tries to reconnect
  for a few seconds at a time, so that it reconnects promptly when the server is back.
- **Retries.** The library retries each store call ten times whatever the cause, each attempt
  waiting for the pool: 10 x 30 s when the server is gone. Here a call retries only while the
  caller's wait budget lasts (``LEDGER_CONNECT_TIMEOUT``), then fails with ``store_unavailable``.
- **Schema creation** takes a transaction-level advisory lock first, so any number of processes
  may start at once on a fresh database (PostgreSQL's catalog does not serialise concurrent
  ``CREATE TABLE IF NOT EXISTS``; it fails with ``tuple concurrently updated``), and so do
  the library's composite types (two ``CREATE TYPE`` at once: a unique violation).
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import time
from collections.abc import Callable, Sequence
from typing import Any, TypeVar
from urllib.parse import parse_qsl

import psycopg
from eventsourcing.persistence import InterfaceError, OperationalError, StoredEvent
from eventsourcing.postgres import (
    PostgresAggregateRecorder,
    PostgresApplicationRecorder,
    PostgresFactory,
)
from psycopg import Connection, Cursor
from psycopg.errors import DuplicateObject
from psycopg.pq import TransactionStatus
from psycopg.rows import DictRow, dict_row
from psycopg.sql import SQL, Identifier
from psycopg_pool import ConnectionPool

from ledger.store import availability
from ledger.store.identity import new_identity, postgres_insert
from ledger.store.schema import COMMANDS_TABLE, TOKENS_TABLE, CommandRow, corrections_index
from ledger.store.sidetables import postgres_ddl
from ledger.store.urls import PostgresURL

SCHEMA_LOCK_KEY = 0x1ED6E45C
"""The advisory lock every process takes before creating or migrating the ledger's tables."""


RETRY_WAIT_S = 0.2

RECORD_COMMAND_FUNCTION = "ledger_record_command"
"""The function that records a command's events and its command-log row in one statement."""


# --- the pool -------------------------------------------------------------------------------


class LedgerPool(ConnectionPool[Connection[DictRow]]):
    """The library's pool with waits bounded by the caller's budget, and a record of whether
    the store was reachable at the last attempt (what ``/ready`` and lock waits ask)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.failing_since: float | None = None
        self.last_error = ""

    def getconn(self, timeout: float | None = None) -> Connection[DictRow]:
        budget = availability.current()
        wait = self.timeout if timeout is None else timeout
        if budget is not None:
            wait = max(0.001, min(wait, budget.left))
        started = time.monotonic()
        try:
            conn = super().getconn(wait)
        finally:
            if budget is not None:
                budget.spend(time.monotonic() - started)
        self.failing_since = None  # checked before it was handed out: the store answers
        return conn

    def putconn(self, conn: Connection[DictRow]) -> None:
        if not conn.closed and conn.info.transaction_status == TransactionStatus.IDLE:
            with contextlib.suppress(AttributeError):
                conn._ledger_returned_at = time.monotonic()  # type: ignore[attr-defined]
        super().putconn(conn)

    def _connect(self, timeout: float | None = None) -> Connection[DictRow]:
        try:
            conn = super()._connect(timeout)
        except Exception as exc:
            self._failed(exc)
            raise
        self.failing_since = None
        return conn

    def _failed(self, exc: BaseException) -> None:
        if self.failing_since is None:
            self.failing_since = time.monotonic()
        self.last_error = str(exc).strip().splitlines()[0] if str(exc).strip() else \
            type(exc).__name__

    @property
    def unreachable(self) -> bool:
        """Whether the last attempt to reach the store failed (no success since)."""
        return self.failing_since is not None


JUST_USED_S = 1.0
"""A connection handed back idle less than this long ago is handed out again unchecked."""


def check_unless_just_used(conn: Connection[DictRow]) -> None:
    """The pool's check of a connection before handing it out (a round trip), skipped for one
    that was handed back idle within the last second (issue 29: one round trip fewer per
    command under load). A server gone in that second fails the statement instead, which the
    recorder retries within the caller's wait budget on another connection (the pool drops a
    broken one); after an outage of more than a second every connection is checked again."""
    returned = getattr(conn, "_ledger_returned_at", None)
    if returned is not None and time.monotonic() - returned < JUST_USED_S \
            and not conn.closed and conn.info.transaction_status == TransactionStatus.IDLE:
        return
    ConnectionPool.check_connection(conn)


class LedgerPostgresFactory(PostgresFactory):
    """The library's factory with the ledger's pool, bounded retries and locked DDL.

    Chosen with ``PERSISTENCE_MODULE=ledger.store.postgres:LedgerPostgresFactory``; reads the extra
    ``LEDGER_PG_OPTIONS`` (``key=value&...``, the URL's parameters) from the environment.
    """

    def __init__(self, env: Any) -> None:
        super().__init__(env)
        store = self.datastore
        old = store.pool
        timeout = float(self.env.get(self.POSTGRES_CONNECT_TIMEOUT) or 5)
        options = dict(parse_qsl(self.env.get("LEDGER_PG_OPTIONS") or ""))
        base = old.kwargs if isinstance(old.kwargs, dict) else {}
        store.pool = LedgerPool(  # type: ignore[assignment]
            connection_class=Connection[DictRow],
            kwargs={**base, "row_factory": dict_row,
                    "connect_timeout": max(2, round(timeout)), **options},
            # One connection at rest, growing with the load up to the library's size plus its
            # overflow (LEDGER_POSTGRES_POOL_SIZE + 10) and shrinking back when idle: a fleet
            # of short commands started together would otherwise hold five each and take
            # every slot of the server (max_connections) before doing anything.
            min_size=1,
            max_size=old.max_size,
            open=False,
            configure=store.after_connect_func(),
            timeout=timeout,
            max_waiting=old.max_waiting,
            max_lifetime=old.max_lifetime,
            check=check_unless_just_used,
            reconnect_timeout=max(timeout, 2.0),
            name=f"ledger-{old.name}",
        )
        old.close()

    aggregate_recorder_class = PostgresAggregateRecorder  # replaced below, once defined


# --- bounded retries and the schema lock ----------------------------------------------------

T = TypeVar("T")
_RETRIED = (InterfaceError, OperationalError)


def _bounded(func: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(func)
    def call(self: Any, *args: Any, **kwargs: Any) -> Any:
        pool = self.datastore.pool
        with availability.budget(pool.timeout) as budget:
            while True:
                try:
                    return func(self, *args, **kwargs)
                except _RETRIED:
                    if budget.left <= RETRY_WAIT_S:
                        raise
                    time.sleep(RETRY_WAIT_S)
                    budget.spend(RETRY_WAIT_S)

    return call


def bounded_retries(cls: type[T]) -> type[T]:
    """``cls`` with each of the library's retrying methods retrying within the caller's wait
    budget instead (the undecorated method is the library's ``__wrapped__``)."""
    for name, member in inspect.getmembers(cls, inspect.isfunction):
        inner = getattr(member, "__wrapped__", None)
        if inner is not None and getattr(member, "__module__", "").startswith("eventsourcing"):
            setattr(cls, name, _bounded(inner))
    return cls


def schema_lock(cursor: Cursor[Any] | Any) -> None:
    """Wait for the ledger's schema lock until the end of the current transaction."""
    cursor.execute("SELECT pg_advisory_xact_lock(%s)", (SCHEMA_LOCK_KEY,))


class SchemaLocked:
    """Recorder mixin (first among the bases): every DDL transaction takes the schema lock.

    The library creates its composite types (``CREATE TYPE`` has no ``IF NOT EXISTS``) each in
    a transaction of its own and ignores ``DuplicateObject``. Two processes creating one type
    at once get something else: the second waits for the first's commit, then fails with a
    unique violation on ``pg_type`` (an ``IntegrityError``). Under the lock the second starts
    only after the first committed, and sees ``DuplicateObject``."""

    datastore: Any
    sql_create_statements: list[Any]

    def create_table(self) -> None:
        for statement in self.sql_create_statements:
            if "CREATE TYPE" in statement.as_string():
                with self.datastore.transaction(commit=True) as curs, \
                        contextlib.suppress(DuplicateObject):
                    schema_lock(curs)
                    curs.execute(statement, prepare=False)
        with self.datastore.transaction(commit=True) as curs:
            self._create_table(curs)
        self.datastore.register_type_adapters()

    def _create_table(self, curs: Cursor[DictRow]) -> None:
        schema_lock(curs)
        super()._create_table(curs)  # type: ignore[misc]


@bounded_retries
class LedgerSnapshotRecorder(SchemaLocked, PostgresAggregateRecorder):
    """The snapshots table, with bounded retries and locked DDL."""


LedgerPostgresFactory.aggregate_recorder_class = LedgerSnapshotRecorder


@bounded_retries
class LedgerPostgresRecorder(SchemaLocked, PostgresApplicationRecorder):
    """PostgreSQL events table plus the command log, written in one transaction (its tables
    created under the schema lock, its calls retried within the wait budget)."""

    def __init__(self, datastore: Any, *, events_table_name: str = "stored_events") -> None:
        super().__init__(datastore, events_table_name=events_table_name)
        schema = Identifier(self.datastore.schema)
        commands = Identifier(COMMANDS_TABLE)
        self.sql_create_statements.append(
            SQL(
                "CREATE TABLE IF NOT EXISTS {}.{} ("
                "table_id text NOT NULL, command_id text NOT NULL, command text NOT NULL, "
                "payload_sha256 text NOT NULL, result text NOT NULL, "
                "recorded_at timestamptz NOT NULL DEFAULT now(), "
                "PRIMARY KEY (table_id, command_id))"
            ).format(schema, commands)
        )
        self.sql_create_statements.append(
            SQL(
                "CREATE TABLE IF NOT EXISTS {}.{} ("
                "token_id text PRIMARY KEY, secret_sha256 text NOT NULL, role text NOT NULL, "
                "tables text, seat integer, label text NOT NULL, created_at text NOT NULL, "
                "revoked_at text, principal_id text)"
            ).format(schema, Identifier(TOKENS_TABLE))
        )
        # Stores made before approver tokens: their tokens' table gains the principal column.
        self.sql_create_statements.append(
            SQL("ALTER TABLE {}.{} ADD COLUMN IF NOT EXISTS principal_id text").format(
                schema, Identifier(TOKENS_TABLE)))
        # A command log without its recorded_at column (made before it, or altered by hand).
        self.sql_create_statements.append(
            SQL("ALTER TABLE {}.{} ADD COLUMN IF NOT EXISTS recorded_at timestamptz NOT NULL "
                "DEFAULT now()").format(schema, commands))
        self.sql_create_statements.extend(
            SQL(ddl).format() for ddl in postgres_ddl(self.datastore.schema)
        )
        quoted = ".".join('"' + name.replace('"', '""') + '"'
                          for name in (self.datastore.schema, self.events_table_name))
        self.sql_create_statements.append(
            SQL(corrections_index(self.events_table_name, quoted)).format())
        self._insert_command = SQL(
            "INSERT INTO {}.{} (command_id, table_id, command, payload_sha256, result) "
            "VALUES (%s, %s, %s, %s, %s)"
        ).format(schema, commands)
        self._insert_events_and_command = SQL("WITH command AS ({}) ").format(
            self._insert_command) + self.insert_events_statement
        self._select_command = SQL(
            "SELECT command_id, table_id, command, payload_sha256, result FROM {}.{} "
            "WHERE table_id = %s AND command_id = %s"
        ).format(schema, commands)
        # A command in one statement (issue 29): the lock, the command-log row and the events
        # in a function called in autocommit mode, so the statement is its own transaction:
        # one round trip where the library's pipeline takes two (its sync, then COMMIT).
        events_table = Identifier(self.events_table_name)
        self.sql_create_statements.append(SQL(
            "CREATE OR REPLACE FUNCTION {schema}.{function}("
            "p_events {schema}.{event_type}[], p_command_id text, p_table_id text, "
            "p_command text, p_payload_sha256 text, p_result text) "
            "RETURNS SETOF bigint LANGUAGE plpgsql AS $BODY$ "
            "BEGIN "
            "SET LOCAL lock_timeout = '{lock_timeout}s'; "
            "LOCK TABLE {schema}.{events} IN EXCLUSIVE MODE; "
            "INSERT INTO {schema}.{commands} (command_id, table_id, command, payload_sha256, "
            "result) VALUES (p_command_id, p_table_id, p_command, p_payload_sha256, p_result); "
            "RETURN QUERY INSERT INTO {schema}.{events} "
            "(originator_id, originator_version, topic, state) "
            "SELECT originator_id, originator_version, topic, state FROM unnest(p_events) "
            "RETURNING notification_id; "
            "END; $BODY$"
        ).format(schema=schema, function=Identifier(RECORD_COMMAND_FUNCTION),
                 event_type=Identifier(self.stored_event_type_name),
                 lock_timeout=self.datastore.lock_timeout, events=events_table,
                 commands=commands))
        self._record_command = SQL("SELECT * FROM {}.{}(%s, %s, %s, %s, %s, %s)").format(
            schema, Identifier(RECORD_COMMAND_FUNCTION))
        self.one_statement: bool | None = None
        """Whether the store has the one-statement function: unknown until the first command,
        False for a store made before it and opened by a user who may not create it (the
        command then takes the library's pipeline, two round trips)."""

    def _create_table(self, curs: Cursor[DictRow]) -> None:
        super()._create_table(curs)
        # Stores made before command ids were per table keyed the log by command id alone.
        curs.execute(
            "SELECT c.conname, array_agg(a.attname::text ORDER BY a.attname) AS columns "
            "FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid "
            "JOIN pg_namespace n ON n.oid = t.relnamespace "
            "JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = ANY(c.conkey) "
            "WHERE c.contype = 'p' AND n.nspname = %s AND t.relname = %s GROUP BY c.conname",
            (self.datastore.schema, COMMANDS_TABLE),
        )
        row = curs.fetchone()
        if row is not None and list(row["columns"]) == ["command_id"]:
            curs.execute(
                SQL("ALTER TABLE {}.{} DROP CONSTRAINT {}, ADD PRIMARY KEY (table_id, command_id)")
                .format(Identifier(self.datastore.schema), Identifier(COMMANDS_TABLE),
                        Identifier(row["conname"]))
            )
        # A store knows who it is: its identity, written once (ledger.store.identity).
        curs.execute(SQL(postgres_insert(self.datastore.schema)).format(),
                     new_identity())

    def insert_events(
        self, stored_events: Sequence[StoredEvent], **kwargs: Any
    ) -> Sequence[int] | None:
        """A command's events with its command-log row in one statement (one round trip, its
        own transaction); anything else, or a store without the function, as the library
        inserts events (bounded retries either way, :func:`_bounded`)."""
        row: CommandRow | None = kwargs.get("command_row")
        if row is None or self.one_statement is False or not stored_events:
            return _LIBRARY_INSERT(self, stored_events, **kwargs)
        events = [self.construct_pg_stored_event(e.originator_id, e.originator_version,
                                                 e.topic, e.state) for e in stored_events]
        with self.datastore.get_connection() as conn, conn.cursor() as curs:
            try:
                curs.execute(self._record_command, (events, row.command_id, row.table_id,
                                                    row.command, row.payload_sha256,
                                                    row.result), prepare=True)
            except psycopg.errors.UndefinedFunction:
                self.one_statement = False
            else:
                self.one_statement = True
                return [int(r[RECORD_COMMAND_FUNCTION]) for r in curs.fetchall()]
        return _LIBRARY_INSERT(self, stored_events, **kwargs)

    def _insert_stored_events(
        self, curs: Cursor[DictRow], stored_events: Sequence[StoredEvent], **kwargs: Any
    ) -> None:
        # The library's steps (lock the events table, insert the events returning their
        # notification ids) with the command log's row in the same statement (issue 29: one
        # statement for the command's events and its log row, one round trip with the lock,
        # inside the library's pipeline, which syncs right after this: a repeated command id
        # surfaces there as an IntegrityError, like a version clash). No NOTIFY: nothing
        # listens on the channel (the views pull, projections.views), and a NOTIFY serialises
        # the commits of the whole database on its queue lock.
        self._lock_table(curs)
        events = [self.construct_pg_stored_event(e.originator_id, e.originator_version,
                                                 e.topic, e.state) for e in stored_events]
        row: CommandRow | None = kwargs.get("command_row")
        if row is None:
            curs.execute(self.insert_events_statement, (events,), prepare=True)
            return
        curs.execute(
            self._insert_events_and_command,
            (row.command_id, row.table_id, row.command, row.payload_sha256, row.result, events),
            prepare=True,
        )

    def select_command(self, table_id: str, command_id: str) -> CommandRow | None:
        with self.datastore.get_connection() as conn, conn.cursor() as curs:
            curs.execute(self._select_command, (table_id, command_id), prepare=True)
            row = curs.fetchone()
        if row is None:
            return None
        return CommandRow(
            row["command_id"], row["table_id"], row["command"], row["payload_sha256"], row["result"]
        )


_LIBRARY_INSERT: Callable[..., Sequence[int] | None] = \
    PostgresApplicationRecorder.insert_events.__wrapped__
"""The library's insert, without its own retries (the ledger's bound them)."""
LedgerPostgresRecorder.insert_events = _bounded(  # type: ignore[method-assign]
    LedgerPostgresRecorder.insert_events)


def connect(url: PostgresURL, timeout_s: int, **kwargs: Any) -> psycopg.Connection[Any]:
    """One connection outside the pool (start-up checks)."""
    return psycopg.connect(**url.connect_kwargs(timeout_s), **kwargs)
