"""Event store wiring: the pydantic mapper, recorders with the command log, and the mapping
from ``LEDGER_DATABASE_URL`` to the eventsourcing library's environment.

The command log (``ledger_commands``) is written in the same transaction as the events a command
appends, so a command id is either recorded together with its events or not at all; that is what
makes a repeated command append nothing. Command ids are unique per table (the devices of two
tables may both count from ``c-1``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse
from uuid import UUID

from eventsourcing.persistence import Mapper, StoredEvent
from eventsourcing.postgres import PostgresApplicationRecorder
from eventsourcing.sqlite import SQLiteApplicationRecorder, SQLiteCursor
from eventsourcing.utils import resolve_topic
from psycopg import Cursor
from psycopg.rows import DictRow
from psycopg.sql import SQL, Identifier

from ledger.errors import InvalidInput
from ledger.settings import Settings

COMMANDS_TABLE = "ledger_commands"
TOKENS_TABLE = "ledger_tokens"


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
        cls = _resolve(stored_event.topic)
        data = json.loads(stored_event.state)
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
    return f"{cls.__module__}:{cls.__qualname__}"


# --- recorders -----------------------------------------------------------------------------


class LedgerSQLiteRecorder(SQLiteApplicationRecorder):
    """SQLite events table plus the command log, written in one transaction."""

    def construct_create_table_statements(self) -> list[str]:
        return [
            *super().construct_create_table_statements(),
            f"CREATE TABLE IF NOT EXISTS {COMMANDS_TABLE} ("
            "table_id TEXT NOT NULL, command_id TEXT NOT NULL, command TEXT NOT NULL, "
            "payload_sha256 TEXT NOT NULL, result TEXT NOT NULL, "
            "recorded_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')), "
            "PRIMARY KEY (table_id, command_id))",
            f"CREATE TABLE IF NOT EXISTS {TOKENS_TABLE} ("
            "token_id TEXT PRIMARY KEY, secret_sha256 TEXT NOT NULL, role TEXT NOT NULL, "
            "tables TEXT, seat INTEGER, label TEXT NOT NULL, created_at TEXT NOT NULL, "
            "revoked_at TEXT)",
        ]

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


class LedgerPostgresRecorder(PostgresApplicationRecorder):
    """PostgreSQL events table plus the command log, written in one transaction."""

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
                "revoked_at text)"
            ).format(schema, Identifier(TOKENS_TABLE))
        )
        self._insert_command = SQL(
            "INSERT INTO {}.{} (command_id, table_id, command, payload_sha256, result) "
            "VALUES (%s, %s, %s, %s, %s)"
        ).format(schema, commands)
        self._select_command = SQL(
            "SELECT command_id, table_id, command, payload_sha256, result FROM {}.{} "
            "WHERE table_id = %s AND command_id = %s"
        ).format(schema, commands)

    def _insert_stored_events(
        self, curs: Cursor[DictRow], stored_events: Sequence[StoredEvent], **kwargs: Any
    ) -> None:
        # After the events, in their transaction and pipeline: the library
        # syncs the pipeline right after this, so a repeated command id surfaces there as an
        # IntegrityError, like a version clash. (Sent before the events, a unique violation
        # aborted the pipeline and came back as an OperationalError, which the library
        # retries ten times before giving up.)
        super()._insert_stored_events(curs, stored_events, **kwargs)
        row: CommandRow | None = kwargs.get("command_row")
        if row is not None:
            # Its own cursor: the library reads the events' notification ids from ``curs``.
            with curs.connection.cursor() as own:
                own.execute(
                    self._insert_command,
                    (row.command_id, row.table_id, row.command, row.payload_sha256, row.result),
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


# --- environment ---------------------------------------------------------------------------


def store_env(settings: Settings) -> dict[str, str]:
    """The eventsourcing environment for ``settings.database_url``."""
    url = settings.database_url.strip()
    parsed = urlparse(url)
    if parsed.scheme == "sqlite":
        path = sqlite_path(url)
        if path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        return {
            "PERSISTENCE_MODULE": "eventsourcing.sqlite",
            "SQLITE_DBNAME": path if path != ":memory:" else "file::memory:?cache=shared",
            "APPLICATION_RECORDER_TOPIC": _topic(LedgerSQLiteRecorder),
            "SQLITE_LOCK_TIMEOUT": "30",
        }
    if parsed.scheme in ("postgresql", "postgres", "postgresql+psycopg"):
        if not parsed.path.strip("/"):
            raise InvalidInput("invalid_database_url", f"{url!r} names no database")
        return {
            "PERSISTENCE_MODULE": "eventsourcing.postgres",
            "POSTGRES_DBNAME": unquote(parsed.path.lstrip("/")),
            "POSTGRES_HOST": parsed.hostname or "localhost",
            "POSTGRES_PORT": str(parsed.port or 5432),
            "POSTGRES_USER": unquote(parsed.username or "postgres"),
            "POSTGRES_PASSWORD": unquote(parsed.password or ""),
            "POSTGRES_POOL_SIZE": str(settings.postgres_pool_size),
            "POSTGRES_SCHEMA": settings.postgres_schema,
            "POSTGRES_LOCK_TIMEOUT": "10",
            "APPLICATION_RECORDER_TOPIC": _topic(LedgerPostgresRecorder),
        }
    raise InvalidInput(
        "invalid_database_url",
        f"unsupported database URL {url!r}: use sqlite:///path or postgresql://user@host/db",
    )


def sqlite_path(url: str) -> str:
    """``sqlite:///var/x.db`` -> ``var/x.db``; ``sqlite:////tmp/x.db`` -> ``/tmp/x.db``."""
    rest = url[len("sqlite://") :]
    if rest in ("", "/", "/:memory:"):
        return ":memory:"
    return rest[1:] if rest.startswith("/") else rest
