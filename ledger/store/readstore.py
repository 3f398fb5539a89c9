"""The read store: ``LEDGER_READ_DATABASE_URL``, a standby of the event store (streaming
replication) that serves the read routes and the reading commands (views, audit, exports),
while commands, the table state and the projections' catch-up use the primary.

A standby is read-only: the application on it creates nothing (``CREATE_TABLE=no``) and never
catches the views up itself; the views it serves are as far as the primary's catch-up wrote
them and the standby has replayed. A read route of the API catches the views up on the
primary, waits up to :data:`REPLAY_WAIT_S` for the standby to have replayed that far, and
says how far its answer reflects (``X-Ledger-Views-Position``, beside the primary's
``X-Ledger-Primary-Position``).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from ledger.settings import Settings

REPLAY_WAIT_S = 1.0
"""How long a read route waits for the standby to replay the primary's catch-up before it
answers with the views as the standby has them (the answer's headers say how far)."""


def read_settings(settings: Settings) -> Settings | None:
    """The settings of the read store, or None when there is none."""
    url = (settings.read_database_url or "").strip()
    if not url:
        return None
    return settings.model_copy(update={"database_url": url, "read_database_url": None})


def open_reader(settings: Settings, **kwargs: Any) -> Any:
    """The store on the read store's URL (no DDL, no commands), or None when there is none."""
    chosen = read_settings(settings)
    if chosen is None:
        return None
    if settings.shards.strip():  # one standby per shard is not built yet
        from ledger.store.fleet import not_across_shards

        raise not_across_shards("a read store (LEDGER_READ_DATABASE_URL)")
    from ledger.store.base import LedgerStore
    from ledger.store.errors import StoreError

    try:
        app = LedgerStore(chosen, env={"CREATE_TABLE": "no"}, **kwargs)
    except StoreError as exc:  # say which store: the message names only host and port
        raise StoreError(exc.code, f"read store (LEDGER_READ_DATABASE_URL): {exc.message}",
                         **exc.details) from None
    app.replica = True  # type: ignore[attr-defined]
    app.primary_settings = settings  # type: ignore[attr-defined]
    return app


@contextmanager
def primary_of(app: Any) -> Iterator[Any]:
    """Where a reading command writes what it must (the access log of who saw hidden cards):
    ``app`` itself, or, for an application on a read store, the primary, opened for it."""
    if not is_replica(app):
        yield app
        return
    from ledger.store.base import LedgerStore

    primary = LedgerStore(app.primary_settings)
    try:
        yield primary
    finally:
        primary.close()


def is_replica(app: Any) -> bool:
    """Whether ``app`` reads a read store (whose views it must not try to catch up)."""
    return bool(getattr(app, "replica", False))


def views_position(store: Any) -> int | None:
    """The notification every view of ``store`` (a ``projections.db.Store``) has processed (0:
    none), or None when that store has no views yet (a standby that has not replayed their
    creation)."""
    with store.transaction(commit=False) as tx:
        if not store.exists(tx, "proj_tracking"):
            return None
        row = tx.fetchone("SELECT MIN(position) AS p FROM {proj_tracking}")
    return int((row or {}).get("p") or 0)
