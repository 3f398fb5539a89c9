"""The corrections view: every correction of a table's record (COR-1..5), one row each.

``proj_corrections`` columns: table, version (of the correction), time, gaming day (of the
correction: its chips move that day), kind (``hand``, ``movement``, ``seat``), the hand it
corrects (``hand_no``; for a seat, the last hand of the period), the event it corrects
(``original_version``: the hand's settlement or the movement), approvers, reason, what it moved
(``moved_minor``: the gains it pays, or the movement's difference), the house's, the rake's,
the cage's and the owed accounts' change through it, and ``detail_json`` (the corrected cards
and the corrected settlement's outcomes, coverage, pots and jackpot lines, the differences and
the transfers; for a seat, the period and both players). The accounting query reports these
per day as their own line; the hand queries and the hand export attach them to their hand.
"""

from __future__ import annotations

from typing import Any

from ledger.domain import accounts
from ledger.domain import records as r
from ledger.domain.accounts import net_flows
from projections.views.base import Item, View, dumps

CORRECTIONS_DDL = (
    "CREATE TABLE IF NOT EXISTS {proj_corrections} ("
    "table_code TEXT NOT NULL, version BIGINT NOT NULL, at TEXT NOT NULL, "
    "gaming_day TEXT NOT NULL, kind TEXT NOT NULL, hand_no BIGINT, original_version BIGINT, "
    "approvers TEXT NOT NULL, reason TEXT NOT NULL, moved_minor BIGINT NOT NULL, "
    "house_minor BIGINT NOT NULL, rake_minor BIGINT NOT NULL, cage_minor BIGINT NOT NULL, "
    "owed_minor BIGINT NOT NULL, rule TEXT NOT NULL, detail_json TEXT NOT NULL, "
    "PRIMARY KEY (table_code, version))"
)


class Corrections(View):
    name = "corrections"
    description = "every correction: what it corrects, approvers, reason, what it moved"
    tables = ("proj_corrections",)
    ddl = (CORRECTIONS_DDL,
           "CREATE INDEX IF NOT EXISTS proj_corrections_day ON {proj_corrections} "
           "(gaming_day, table_code)",
           "CREATE INDEX IF NOT EXISTS proj_corrections_hand ON {proj_corrections} "
           "(table_code, hand_no)")

    def reset(self) -> None:
        self._rows: list[tuple[Any, ...]] = []

    def handle(self, item: Item) -> None:
        if item.isa.isdisjoint(r.CORRECTIONS):
            return
        event = item.event
        flows = net_flows(getattr(event, "transfers", ()))
        owed = sum(v for a, v in flows.items() if a.startswith("owed:"))
        kind, hand, original, moved, detail = _facts(event)
        self._rows.append((item.code, item.version, item.at, item.day, kind, hand, original,
                           ", ".join(getattr(event, "approvers", ())),
                           getattr(event, "reason", ""), moved,
                           flows.get(accounts.HOUSE, 0), flows.get(accounts.RAKE, 0),
                           flows.get(accounts.CAGE, 0), owed, getattr(event, "rule", ""),
                           dumps(detail)))

    def flush(self) -> None:
        self.tx.insert("proj_corrections", (
            "table_code", "version", "at", "gaming_day", "kind", "hand_no", "original_version",
            "approvers", "reason", "moved_minor", "house_minor", "rake_minor", "cage_minor",
            "owed_minor", "rule", "detail_json"), self._rows)


def _facts(event: Any) -> tuple[str, int | None, int | None, int, dict[str, Any]]:
    """(kind, hand, original version, amount moved, detail) of one correction."""
    transfers = [t.model_dump(mode="json") for t in getattr(event, "transfers", ())]
    if isinstance(event, r.HandCorrected):
        settlement = event.settlement.model_dump(
            mode="json", include={"outcomes", "jackpot", "coverage", "pots", "points", "rake"})
        detail: dict[str, Any] = {"fixes": [f.model_dump(mode="json") for f in event.fixes],
                  "settlement": settlement,
                  "differences": [d.model_dump(mode="json") for d in event.differences],
                  "transfers": transfers}
        moved = sum(d.amount for d in event.differences if d.amount > 0)
        return "hand", event.hand, event.settled_version, moved, detail
    if isinstance(event, r.MovementCorrected):
        detail = {"movement": event.movement, "player": event.player,
                  "recorded_minor": event.recorded_amount, "amount_minor": event.amount,
                  "transfers": transfers}
        return ("movement", None, event.original_version,
                abs(event.amount - event.recorded_amount), detail)
    if isinstance(event, r.OwedSettled):
        return ("owed", None, None, event.amount,
                {"player": event.player, "direction": event.direction, "transfers": transfers})
    assert isinstance(event, r.SeatCorrected)
    detail = {"seat": event.seat, "recorded_player": event.recorded_player,
              "player": event.player, "from_hand": event.from_hand, "to_hand": event.to_hand}
    return "seat", event.to_hand, None, 0, detail
