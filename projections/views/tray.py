"""The tray view: every count, fill and credit of a house-banked table's tray (INV-1..3).

``proj_tray``, one row per event: table, version, time, gaming day, kind (``opening``,
``closing``, ``fill``, ``credit``), amount, chips by denomination and the two signers. The
inventory report (:mod:`projections.reports.inventory`) reads it with the accounting view.
"""

from __future__ import annotations

from typing import Any

from ledger.domain import records as r
from projections.views.base import Item, View, dumps

TRAY_DDL = (
    "CREATE TABLE IF NOT EXISTS {proj_tray} ("
    "table_code TEXT NOT NULL, version BIGINT NOT NULL, at TEXT NOT NULL, "
    "gaming_day TEXT NOT NULL, kind TEXT NOT NULL, amount_minor BIGINT NOT NULL, "
    "chips_json TEXT NOT NULL, signer_1 TEXT NOT NULL, signer_2 TEXT NOT NULL, "
    "rule TEXT NOT NULL, PRIMARY KEY (table_code, version))"
)


_TRAY: frozenset[type] = frozenset((r.InventoryCounted, r.TableFilled, r.TableCredited))


class Tray(View):
    name = "tray"
    description = "the tray of house-banked tables: counts, fills, credits and their signers"
    tables = ("proj_tray",)
    ddl = (TRAY_DDL,
           "CREATE INDEX IF NOT EXISTS proj_tray_day ON {proj_tray} (gaming_day, table_code)")

    def reset(self) -> None:
        self._rows: list[tuple[Any, ...]] = []

    def handle(self, item: Item) -> None:
        event: Any = item.event
        isa = item.isa
        if _TRAY.isdisjoint(isa):
            return
        if r.InventoryCounted in isa:
            kind = event.moment
        elif r.TableFilled in isa:
            kind = "fill"
        else:
            kind = "credit"
        chips = {str(c.denomination): c.count for c in event.chips}
        self._rows.append((item.code, item.version, item.at, item.day, kind, event.amount,
                           dumps(chips), event.signers[0], event.signers[1], event.rule))

    def flush(self) -> None:
        self.tx.insert("proj_tray", (
            "table_code", "version", "at", "gaming_day", "kind", "amount_minor", "chips_json",
            "signer_1", "signer_2", "rule"), self._rows)
