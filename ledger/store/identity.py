"""A store knows who it is: one row, ``ledger_identity``, written when the store is made (and by
the migration when a store made before it is next opened by a user who may create tables).

Two URLs can name one store (``localhost`` and ``127.0.0.1``; ``x.sqlite3`` and
``./x.sqlite3``). Comparing URLs cannot tell; comparing identities can: the fleet
(:mod:`ledger.store.fleet`) reads the identity of every shard's store and refuses a map in which
two shards are one store (``invalid_shards``), since every table of that store would then be
counted twice. A store whose identity row cannot be read (a user who may not read it, a store
made before it opened by a user who may not create it) is identified by where it is: the real
path of a SQLite file; the database (its oid), server start time, port and schema on
PostgreSQL.
"""

from __future__ import annotations

import os
import uuid
from datetime import UTC, datetime
from typing import Any

from eventsourcing.sqlite import SQLiteApplicationRecorder

IDENTITY_TABLE = "ledger_identity"
IDENTITY_COLUMNS = ("one {int} PRIMARY KEY, store_id {text} NOT NULL, "
                    "created_at {text} NOT NULL")
"""One row (``one`` = 1): the store's id (a random UUID) and when it was made."""


def new_identity() -> tuple[int, str, str]:
    """The row a new store gets: ``(1, store id, created at)``."""
    return 1, str(uuid.uuid4()), datetime.now(UTC).isoformat(timespec="seconds")


SQLITE_INSERT = (f"INSERT INTO {IDENTITY_TABLE} (one, store_id, created_at) VALUES (?, ?, ?) "
                 "ON CONFLICT (one) DO NOTHING")


def postgres_insert(schema: str) -> str:
    quoted = '"' + schema.replace('"', '""') + '"'
    return (f"INSERT INTO {quoted}.{IDENTITY_TABLE} (one, store_id, created_at) "
            "VALUES (%s, %s, %s) ON CONFLICT (one) DO NOTHING")


def store_identity(recorder: Any) -> str:
    """The store's id, from its identity row; where that cannot be read, where it is
    (``path:...`` or ``postgresql:...``, see the module)."""
    sqlite = isinstance(recorder, SQLiteApplicationRecorder)
    if sqlite:
        table = IDENTITY_TABLE
    else:
        table = '"' + recorder.datastore.schema.replace('"', '""') + f'".{IDENTITY_TABLE}'
    try:
        with recorder.datastore.transaction(commit=False) as cursor:
            cursor.execute(f"SELECT store_id FROM {table} WHERE one = 1")
            row = cursor.fetchone()
    except Exception:
        row = None
    if row is not None:
        value = row["store_id"] if isinstance(row, dict) else row[0]
        return f"id:{value}"
    return _where(recorder, sqlite)


def _where(recorder: Any, sqlite: bool) -> str:
    if sqlite:
        name = str(recorder.datastore.pool.db_name)
        return f"path:{os.path.realpath(name) if 'memory' not in name else name}"
    with recorder.datastore.transaction(commit=False) as cursor:
        cursor.execute("SELECT (SELECT oid FROM pg_database WHERE datname = current_database()) "
                       "AS db, pg_postmaster_start_time()::text AS started, "
                       "current_setting('port') AS port")
        row = cursor.fetchone()
    return (f"postgresql:{row['db']}:{row['started']}:{row['port']}:"
            f"{recorder.datastore.schema}")
