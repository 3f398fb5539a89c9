"""Counting what a piece of code asks of the store: SQL statements, commits and rollbacks, on
SQLite (the connection's trace of every statement it runs) and PostgreSQL (every statement a
psycopg cursor or connection sends). Used by the counted guard of the write path
(tests/integration/store/test_command_cost.py) and by ``ops/bench/command_cost.py``.

A statement is one SQL statement sent (a batched insert of several rows is one); ``BEGIN``,
``COMMIT`` and ``ROLLBACK`` are counted apart from the others.
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from ledger.store.postgres import RECORD_COMMAND_FUNCTION

# A call of the function that records a command in one statement (PostgreSQL) is counted under
# its name.


@dataclass
class Counts:
    """What was sent to the store while counting."""

    statements: int = 0
    """Statements other than BEGIN/COMMIT/ROLLBACK."""
    begins: int = 0
    commits: int = 0
    rollbacks: int = 0
    kinds: Counter[str] = field(default_factory=Counter)
    """Statements by their first words (``INSERT INTO ledger_commands``, ``SELECT``...)."""
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def note(self, sql: str) -> None:
        words = sql.strip().split()
        head = words[0].upper() if words else ""
        with self._lock:
            if head in ("BEGIN", "START"):
                self.begins += 1
            elif head in ("COMMIT", "END"):
                self.commits += 1
            elif head == "ROLLBACK":
                self.rollbacks += 1
            else:
                self.statements += 1
                key = " ".join(words[:3]) if head == "INSERT" else " ".join(words[:2])
                if RECORD_COMMAND_FUNCTION in sql:
                    key = RECORD_COMMAND_FUNCTION
                self.kinds[key[:60] or "(ping)"] += 1

    def __sub__(self, other: Counts) -> Counts:
        return Counts(self.statements - other.statements, self.begins - other.begins,
                      self.commits - other.commits, self.rollbacks - other.rollbacks,
                      self.kinds - other.kinds)

    def snapshot(self) -> Counts:
        with self._lock:
            return Counts(self.statements, self.begins, self.commits, self.rollbacks,
                          Counter(self.kinds))


@contextlib.contextmanager
def counting(*apps: Any) -> Iterator[Counts]:
    """Count the statements the given applications' stores run inside the block (on
    PostgreSQL: every psycopg statement of this process)."""
    counts = Counts()
    with contextlib.ExitStack() as stack:
        pools = {id(pool): pool for app in apps for recorder in _recorders(app)
                 if hasattr(pool := getattr(recorder.datastore, "pool", None), "db_name")}
        for pool in pools.values():
            stack.enter_context(_sqlite_traced(pool, counts))
        if any(not _is_sqlite(app) for app in apps):
            stack.enter_context(_psycopg_traced(counts))
        yield counts


def _recorders(app: Any) -> list[Any]:
    found = [app.recorder]
    snapshots = getattr(app, "snapshots", None)
    if snapshots is not None:
        found.append(snapshots.recorder)
    return found


def _is_sqlite(app: Any) -> bool:
    return hasattr(getattr(app.recorder.datastore, "pool", None), "db_name")


@contextlib.contextmanager
def _sqlite_traced(pool: Any, counts: Counts) -> Iterator[None]:
    def trace(conn: sqlite3.Connection) -> None:
        conn.set_trace_callback(counts.note)

    made = pool._create_connection

    def create() -> Any:
        conn = made()
        trace(conn._sqlite_conn)
        return conn

    for conn in list(pool._pool):  # at rest: every connection is back in the pool
        trace(conn._sqlite_conn)
    pool._create_connection = create
    try:
        yield
    finally:
        del pool._create_connection
        for conn in [*pool._pool]:
            conn._sqlite_conn.set_trace_callback(None)


@contextlib.contextmanager
def _psycopg_traced(counts: Counts) -> Iterator[None]:
    import psycopg
    from psycopg._connection_base import BaseConnection

    def text(query: Any, conn: Any) -> str:
        if isinstance(query, bytes):
            return query.decode(errors="replace")
        if isinstance(query, str):
            return query
        try:
            return str(query.as_string(conn))
        except Exception:
            return "?"

    originals: list[tuple[Any, str, Any]] = []

    def patch(owner: Any, name: str, make: Any) -> None:
        original = owner.__dict__[name]
        originals.append((owner, name, original))
        setattr(owner, name, make(original))

    def on_execute(original: Any) -> Any:
        def execute(self: Any, query: Any, *args: Any, **kwargs: Any) -> Any:
            counts.note(text(query, self.connection))
            return original(self, query, *args, **kwargs)
        return execute

    def on_command(original: Any) -> Any:
        def command(self: Any, cmd: Any, *args: Any, **kwargs: Any) -> Any:
            counts.note(text(cmd, self))
            return original(self, cmd, *args, **kwargs)
        return command

    patch(psycopg.Cursor, "execute", on_execute)
    patch(psycopg.Cursor, "executemany", on_execute)
    patch(psycopg.ServerCursor, "execute", on_execute)
    patch(BaseConnection, "_exec_command", on_command)
    try:
        yield
    finally:
        for owner, name, original in reversed(originals):
            setattr(owner, name, original)
