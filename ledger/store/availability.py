"""How long a request may wait for the store, and whether the store is there.

A request (or one store call outside a request) gets a **wait budget** of
``LEDGER_CONNECT_TIMEOUT`` seconds. Everything it waits for spends from it: a connection from
the pool (:class:`ledger.store.postgres.LedgerPool`), a pause between retries, a table's lock held
by another request of this process. When the store is down, the first request to find out spends
its budget waiting for the pool, and the requests queued behind it on a lock give up when
their own budget runs out, instead of each waiting its turn for the full timeout: every
request answers ``store_unavailable`` within the timeout, and the first one after the store is
back succeeds (the pool reconnects by itself).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from ledger.domain.errors import ConcurrencyError, LedgerError
from ledger.store.errors import PostgresTarget, StoreError

LOCK_POLL_S = 0.05


class Budget:
    """Seconds of waiting left to one request."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.left = seconds

    def spend(self, seconds: float) -> None:
        self.left -= max(0.0, seconds)


_current: ContextVar[Budget | None] = ContextVar("ledger_wait_budget", default=None)


def current() -> Budget | None:
    """The wait budget of the request being served, if any."""
    return _current.get()


@contextmanager
def budget(seconds: float) -> Iterator[Budget]:
    """The current budget, or a new one of ``seconds`` for the duration of the block."""
    found = _current.get()
    if found is not None:
        yield found
        return
    made = Budget(seconds)
    token = _current.set(made)
    try:
        yield made
    finally:
        _current.reset(token)


@contextmanager
def own_budget(seconds: float) -> Iterator[Budget]:
    """A new budget of ``seconds`` for the block, whatever the current one (one store of
    several asked in turn: one that does not answer leaves the others their full wait)."""
    made = Budget(seconds)
    token = _current.set(made)
    try:
        yield made
    finally:
        _current.reset(token)


@contextmanager
def waiting_for(lock: threading.Lock, store_down: Callable[[], LedgerError | None],
                what: str) -> Iterator[None]:
    """Hold ``lock``; without a budget, wait as long as it takes. With one, give up when the
    budget is spent: ``store_unavailable`` (from ``store_down``) when the store is unreachable,
    else ``concurrent_updates``."""
    found = _current.get()
    if found is None:
        lock.acquire()
    elif not lock.acquire(blocking=False):
        while True:
            started = time.monotonic()
            got = lock.acquire(timeout=max(0.001, min(LOCK_POLL_S, found.left)))
            found.spend(time.monotonic() - started)
            if got:
                break
            if found.left <= 0:
                down = store_down()
                if down is not None:
                    raise down
                raise ConcurrencyError(
                    "concurrent_updates",
                    f"{what} stayed busy for {found.seconds:g} s (LEDGER_CONNECT_TIMEOUT); "
                    "try again")
    try:
        yield
    finally:
        lock.release()


def outage(recorder: Any, settings: Any) -> LedgerError | None:
    """``store_unavailable`` when the store's pool found it unreachable at its last attempt
    (PostgreSQL); None otherwise."""
    pool = getattr(getattr(recorder, "datastore", None), "pool", None)
    if pool is None or not getattr(pool, "unreachable", False):
        return None
    target = PostgresTarget.of(settings)
    return StoreError("store_unavailable",
                      f"cannot reach {target}: {target.scrub(pool.last_error)}",
                      host=target.host, port=target.port, database=target.dbname)


def check_ready(app: Any) -> None:
    """One round trip to the store within the budget; raises what the store raised."""
    with budget(float(app.settings.connect_timeout)), \
            app.recorder.datastore.transaction(commit=False) as cursor:
        cursor.execute("SELECT 1")
