"""The rake view: every rake line the rules computed (HandSettled.rake), with the method,
the rule, the seat that paid it and the gaming day; totals per table, game, method and day are
sums over it (:mod:`projections.read.queries`).

The lines are the record of what was raked and how; the chips themselves move by transfers into
the ``rake`` account (at settlement, or when a hand starts for a fee taken up front, CHP-11).
The audit checks that a settled hand's lines add up to the rake account's change over the hand;
the accounting view reports that change per day, so both must agree.
"""

from __future__ import annotations

import re
from decimal import Decimal
from functools import lru_cache
from typing import Any

from ledger.domain.money import format_amount
from ledger.domain.records import HandSettled
from projections.views.base import Item, View

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
    version = 2
    tables = ("proj_rake",)
    ddl = (
        RAKE_DDL,
        "CREATE INDEX IF NOT EXISTS proj_rake_day ON {proj_rake} (gaming_day, table_code)",
    )

    def reset(self) -> None:
        self._rows: list[tuple[Any, ...]] = []

    def handle(self, item: Item) -> None:
        if HandSettled not in item.isa:
            return
        event: Any = item.event
        if not event.rake:
            return
        for seq, line in enumerate(event.rake):
            self._rows.append((item.code, event.hand_no, seq, item.version, item.at, item.day,
                               item.table.game, line.seat,
                               method_text(line.rule, line.method, item.table.currency),
                               line.rule, line.amount))

    def flush(self) -> None:
        self.tx.insert("proj_rake", (
            "table_code", "hand_no", "seq", "version", "at", "gaming_day", "game", "seat",
            "method", "rule", "amount_minor"), self._rows)


_HCF_METHODS = {
    "i": "every player and the designated player pay the fee",
    "ii": "every player pays the fee, the designated player does not",
    "iii": "only the designated player pays, one fee",
}
_STUD = re.compile(r"^(\d+) bps of the pot, (?:cap (\d+)|no cap)")


@lru_cache(maxsize=1024)
def method_text(rule: str, method: str | None, currency: str | None) -> str:
    """One form for every rake method, amounts in currency units: ``HCF-13 (ii): every player
    pays the fee, the designated player does not``, ``STUD8-11: 5.00% of the pot, at most 3.00
    a hand, whole chips, main pot first``, ``CHP-11: a fixed fee per player per hand``."""
    if rule == "HCF-13" and method in _HCF_METHODS:
        return f"HCF-13 ({method}): {_HCF_METHODS[method]}"
    found = _STUD.match(method or "") if rule == "STUD8-11" else None
    if found is not None:
        bps, cap = found.groups()
        percent = (Decimal(bps) / 100).quantize(Decimal("0.01"))
        limit = f"at most {format_amount(int(cap), currency)} a hand" if cap else "no cap"
        return f"STUD8-11: {percent}% of the pot, {limit}, whole chips, main pot first"
    if rule == "CHP-11":
        return "CHP-11: a fixed fee per player per hand"
    return f"{rule}: {method}" if method and method != rule else rule
