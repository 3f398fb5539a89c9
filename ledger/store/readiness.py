"""What ``/ready`` reports: each store (each shard's, in a fleet) ``ready``, ``read-only`` (it
answers, but this process may not write to it: a role granted SELECT only, a standby, a file
it may not write) or ``down`` (it does not answer within ``LEDGER_CONNECT_TIMEOUT``, or could
not be opened), each asked within a wait budget of its own."""

from __future__ import annotations

import os
import time
from typing import Any

from eventsourcing.sqlite import SQLiteApplicationRecorder

from ledger.domain.errors import LedgerError
from ledger.store import availability
from ledger.store.errors import store_error
from ledger.store.fleet import StoreFleet


def writable(app: Any) -> bool:
    """Whether this process may append to the store's events table."""
    recorder = app.recorder
    if isinstance(recorder, SQLiteApplicationRecorder):
        path = str(recorder.datastore.pool.db_name)
        if "memory" in path:
            return True
        folder = os.path.dirname(os.path.abspath(path))
        return os.access(path, os.W_OK) and os.access(folder, os.W_OK)
    schema = recorder.datastore.schema
    events = f'"{schema}"."{recorder.events_table_name}"'
    with recorder.datastore.transaction(commit=False) as cursor:
        cursor.execute("SELECT pg_is_in_recovery() AS standby, "
                       "current_setting('default_transaction_read_only') AS ro, "
                       "has_table_privilege(%s, 'INSERT') AS may_insert", (events,))
        row = cursor.fetchone()
    return bool(row["may_insert"]) and not row["standby"] and row["ro"] != "on"


def shard_state(app: Any) -> tuple[str, str | None]:
    """``(state, why)`` of one open store."""
    try:
        with availability.own_budget(float(app.settings.connect_timeout)):
            availability.check_ready(app)
            return ("ready", None) if writable(app) else (
                "read-only", "this process may read the store but not write to it")
    except LedgerError as exc:
        return "down", exc.message
    except Exception as exc:
        found = store_error(exc, app.settings)
        return "down", found.message if found is not None else str(exc).strip()


def readiness(ledger: Any) -> list[dict[str, Any]]:
    """One row per store: ``shard`` (None for one store), ``state``, ``message`` (why it is
    not ready, else None)."""
    if not isinstance(ledger, StoreFleet):
        state, why = shard_state(ledger)
        return [{"shard": None, "state": state, "message": why}]
    ledger.revive()
    rows = []
    for shard in ledger.map.shards:
        down = ledger.down.get(shard.name)
        if down is not None:
            state, why = "down", down.message
        else:
            state, why = shard_state(ledger.opened[shard.name])
        rows.append({"shard": shard.name, "state": state, "message": why})
    return rows


PLACEMENT_TTL_S = 30.0
"""How long ``/ready`` reuses its look at where the tables are (a scan of each store's table
list) before looking again."""


def out_of_place(ledger: Any, placement: Any) -> list[dict[str, Any]]:
    """The tables of a fleet held by a store other than the one the map names (refused,
    ``table_moved``), looked at again at most every :data:`PLACEMENT_TTL_S` seconds; none for
    one store, or while a shard is down (it cannot be asked)."""
    if not isinstance(ledger, StoreFleet) or ledger.down:
        return []
    cached = getattr(ledger, "_placement_seen", None)
    now = time.monotonic()
    if cached is not None and now - cached[0] < PLACEMENT_TTL_S:
        return list(cached[1])
    rows = [{"table": r["table"], "held_by": r["held_by"], "mapped_to": r["mapped_to"]}
            for r in placement(ledger) if not r["in_place"]]
    ledger._placement_seen = (now, rows)  # type: ignore[attr-defined]
    return rows
