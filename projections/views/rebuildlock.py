"""The mark that a rebuild is running on a store, which goes with its process.

A rebuild read straight through holds it from before it marks the views as being built until it
has marked them current; ``update --follow`` waits while it is held, and views left marked by a
rebuild that no longer holds it (it died) are ``projection_outdated``. On PostgreSQL: a shared
advisory lock of the store's schema on a connection of its own; on SQLite: a shared ``flock`` of
a file beside the store's (``<store>.rebuilding``).
"""

from __future__ import annotations

import fcntl
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from ledger.store.urls import sqlite_path
from projections.db import Store

REBUILD_LOCK_KEY = 0x1ED6E45D
"""PostgreSQL advisory lock held (shared) by a running rebuild, with the store's schema as
second key."""


@contextmanager
def running(store: Store, settings: Any) -> Iterator[None]:
    """Held for as long as the block runs (see the module)."""
    if store.postgres:
        key = _key(store)
        with store.datastore.get_connection() as conn:
            conn.execute("SELECT pg_advisory_lock_shared(%s, %s)", key)
            conn.commit()
            try:
                yield
            finally:
                conn.execute("SELECT pg_advisory_unlock_shared(%s, %s)", key)
                conn.commit()
        return
    path = _lock_path(settings)
    if path is None:
        yield
        return
    with open(path, "a") as held:
        fcntl.flock(held, fcntl.LOCK_SH)
        try:
            yield
        finally:
            fcntl.flock(held, fcntl.LOCK_UN)


def alive(store: Store, settings: Any) -> bool:
    """Whether a rebuild of this store holds :func:`running`."""
    if store.postgres:
        with store.transaction(commit=False) as tx:
            free = tx.scalar("SELECT pg_try_advisory_xact_lock(?, ?) AS free", _key(store))
        return not free
    path = _lock_path(settings)
    if path is None:
        return True
    try:
        with open(path, "a") as probe:
            fcntl.flock(probe, fcntl.LOCK_EX | fcntl.LOCK_NB)
            fcntl.flock(probe, fcntl.LOCK_UN)
    except BlockingIOError:
        return True
    return False


def _key(store: Store) -> tuple[int, int]:
    return (REBUILD_LOCK_KEY, zlib.crc32((store.schema or "").encode()) - 2**31)


def _lock_path(settings: Any) -> str | None:
    path = sqlite_path(str(settings.database_url).strip())
    return None if path == ":memory:" else path + ".rebuilding"
