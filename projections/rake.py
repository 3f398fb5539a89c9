"""The rake view: every rake line the rules computed (HandSettled.rake), with the method,
the rule, the seat that paid it and the gaming day; totals per table, game, method and day are
sums over it (:mod:`projections.queries`).

The lines are the record of what was raked and how; the chips themselves move by transfers into
the ``rake`` account (at settlement, or when a hand starts for a fee taken up front, CHP-11).
The audit checks that a settled hand's lines add up to the rake account's change over the hand;
the accounting view reports that change per day, so both must agree.
"""

from __future__ import annotations

from typing import Any

from ledger.records import HandSettled
from projections.base import Item, View

RAKE_DDL = (
    "CREATE TABLE IF NOT EXISTS {proj_rake} ("
    "table_code TEXT NOT NULL, hand_no BIGINT NOT NULL, seq INTEGER NOT NULL, "
    "version BIGINT NOT NULL, at TEXT NOT NULL, gaming_day TEXT NOT NULL, game TEXT NOT NULL, "
    "seat INTEGER, method TEXT NOT NULL, rule TEXT NOT NULL, amount_minor BIGINT NOT NULL, "
    "PRIMARY KEY (table_code, hand_no, seq))"
)


class Rake(View):
    name = "rake"
    description = "rake lines per hand, with method and rule (totals by table, game, day)"
    tables = ("proj_rake",)
    ddl = (
        RAKE_DDL,
        "CREATE INDEX IF NOT EXISTS proj_rake_day ON {proj_rake} (gaming_day, table_code)",
    )

    def reset(self) -> None:
        self._rows: list[tuple[Any, ...]] = []

    def handle(self, item: Item) -> None:
        event = item.event
        if not isinstance(event, HandSettled) or not event.rake:
            return
        for seq, line in enumerate(event.rake):
            self._rows.append((item.code, event.hand_no, seq, item.version, item.at, item.day,
                               item.table.game, line.seat, line.method or line.rule, line.rule,
                               line.amount))

    def flush(self) -> None:
        self.tx.executemany(
            "INSERT INTO {proj_rake} (table_code, hand_no, seq, version, at, gaming_day, game, "
            "seat, method, rule, amount_minor) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
            self._rows,
        )
