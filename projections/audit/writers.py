"""Signs of a writer the chain walk does not see, each a finding of its own (issue 30):

- ``projection_outdated``: a view whose tables differ from the code's layout
  (:mod:`projections.views.layout`); its totals cannot be compared until it is rebuilt;
- ``command_log_without_events``: a row of the command log (``ledger_commands``) that names no
  event, or a table with no events: the ledger writes a command's row in the transaction of its
  events, so such a row was written by hand (a forged "first answer" for that command id,
  which a repeat of the command would be given);
- a snapshot that does not hold (edited, moved, written without the key) is
  ``snapshot_mismatch`` (:func:`projections.audit.checkpoint.snapshot_problems`);
- ``table_moved``: over a fleet, a table held by a store other than the one the map names.
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

from projections.audit.model import Discrepancy
from projections.db import Store


def layout_findings(app: Any, views: list[str]) -> tuple[dict[str, str], list[Discrepancy]]:
    """The views among ``views`` whose tables differ from the code's (name -> why), and a
    ``projection_outdated`` finding for each."""
    from projections.views.layout import of_app
    from projections.views.runner import LAYOUT, TRACKING

    differ = of_app(app, views)
    store = Store(app.recorder)
    with store.transaction(commit=False) as tx:  # marked so by a runner's setup before
        if store.exists(tx, TRACKING):
            for row in tx.fetchall("SELECT view, fingerprint FROM {proj_tracking} "
                                   "WHERE fingerprint LIKE ?", (LAYOUT + "%",)):
                differ.setdefault(str(row["view"]), str(row["fingerprint"])[len(LAYOUT):])
    return differ, [Discrepancy("views", None, "projection_outdated",
                                {"view": name, "layout": "as this version makes it"},
                                {"why": why, "run": "ledger projections rebuild --view " + name})
                    for name, why in differ.items()]


def commands_without_events(app: Any, table_ids: set[str]) -> list[Discrepancy]:
    """``command_log_without_events`` for every command-log row that lists no event, or names
    a table the store holds no event of (``table_ids``: the tables that have events)."""
    store = Store(app.recorder)
    rows = store.fetchall(
        "SELECT table_id, command_id, command, "
        "CASE WHEN result LIKE ? THEN 1 ELSE 0 END AS empty FROM {ledger_commands}",
        ('%"events":[]}',))
    names = _codes(app, [UUID(t) for t in table_ids])
    found = []
    for row in rows:
        tid = str(row["table_id"])
        empty = bool(row["empty"])
        if not empty and tid in table_ids:
            continue
        found.append(Discrepancy(
            names.get(tid, tid), None, "command_log_without_events",
            {"command_id": row["command_id"], "events": "the events its command appended"},
            {"command_id": row["command_id"], "command": row["command"],
             "events": "none listed" if empty else "its table has no event in the store"}))
    return found


def _codes(app: Any, table_ids: list[UUID]) -> dict[str, str]:
    """Table id -> code, for the findings (the id is shown where the code cannot be read)."""
    from projections.views.context import TableDirectory

    directory = TableDirectory(app)
    directory.load(table_ids)
    codes = {}
    for tid in table_ids:
        info = directory.get(tid)
        if info is not None:
            codes[str(tid)] = info.code
    return codes


def moved_tables(fleet: Any) -> list[Discrepancy]:
    """``table_moved`` for every table of a fleet held by a store other than the one the map
    (``LEDGER_SHARDS``) names: refused until the map is restored (``ledger shards``)."""
    from projections.read.fleet import placement

    return [Discrepancy(row["table"], None, "table_moved",
                        {"shard": row["mapped_to"], "why": "the shard LEDGER_SHARDS names"},
                        {"shard": row["held_by"], "why": "the shard whose store holds it"})
            for row in placement(fleet) if not row["in_place"]]
