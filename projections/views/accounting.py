"""The accounting view: per table and gaming day, what the cage and the pit report.

``proj_accounting`` columns (integer minor units):

- ``drop``: chips bought in at the table (buy-ins and short buys, from the cage);
- ``cash_outs``: chips cashed out back to the cage;
- ``house_win``: the change of the ``house`` account through hands (folded antes, settlements,
  the house's share of jackpot wagers, fixed jackpot awards and reseeds it pays); it is what a
  house-banked game wins, and the query layer reports it only for those (hold % = house win /
  drop);
- ``rake``: the change of the ``rake`` account (fees and rake, net of rake returned on voids);
- ``jackpot_contributions``, ``jackpot_awards`` (every award, from the meter or the house),
  ``jackpot_seeds`` (the house funding the meter at opening and after a reset);
- ``dp_results``: the designated players' results (HCF-14), summed;
- ``hands_settled``, ``hands_voided``, ``hands_cancelled``.

Each event counts on the gaming day of its own timestamp. ``proj_dp_hands`` keeps one row per
designated-player hand (table, hand, seat, player, result) for results per player; a seat
correction (COR-3) puts the player who really sat there on the DP's rows of its hands. Hand
corrections stay out of the DP's results, as out of the house win: they are the day's own
correction line (the corrections view).
"""

from __future__ import annotations

from typing import Any

from ledger.domain import accounts
from ledger.domain import records as r
from projections.views.base import KEEP_AT_MOST, Item, View

ACCOUNTING_DDL = (
    "CREATE TABLE IF NOT EXISTS {proj_accounting} ("
    "table_code TEXT NOT NULL, gaming_day TEXT NOT NULL, game TEXT NOT NULL, "
    "currency TEXT NOT NULL, banking TEXT NOT NULL, hands_settled BIGINT NOT NULL, "
    "hands_voided BIGINT NOT NULL, hands_cancelled BIGINT NOT NULL, drop_minor BIGINT NOT NULL, "
    "cash_outs_minor BIGINT NOT NULL, house_win_minor BIGINT NOT NULL, "
    "rake_minor BIGINT NOT NULL, jackpot_contributions_minor BIGINT NOT NULL, "
    "jackpot_awards_minor BIGINT NOT NULL, jackpot_seeds_minor BIGINT NOT NULL, "
    "dp_results_minor BIGINT NOT NULL, PRIMARY KEY (table_code, gaming_day))"
)
DP_DDL = (
    "CREATE TABLE IF NOT EXISTS {proj_dp_hands} ("
    "table_code TEXT NOT NULL, hand_no BIGINT NOT NULL, seat INTEGER NOT NULL, "
    "player TEXT NOT NULL, funds_minor BIGINT NOT NULL, result_minor BIGINT, "
    "status TEXT NOT NULL, gaming_day TEXT NOT NULL, PRIMARY KEY (table_code, hand_no))"
)
SUMS = (
    "hands_settled", "hands_voided", "hands_cancelled", "drop_minor", "cash_outs_minor",
    "house_win_minor", "rake_minor", "jackpot_contributions_minor", "jackpot_awards_minor",
    "jackpot_seeds_minor", "dp_results_minor",
)
DP_WAGER = "designated_player"


class Accounting(View):
    name = "accounting"
    description = "per table and gaming day: drop, cash-outs, house win, rake, jackpot, DP"
    version = 2
    tables = ("proj_accounting", "proj_dp_hands")
    ddl = (
        ACCOUNTING_DDL,
        DP_DDL,
        "CREATE INDEX IF NOT EXISTS proj_accounting_day ON {proj_accounting} (gaming_day)",
        "CREATE INDEX IF NOT EXISTS proj_dp_hands_day ON {proj_dp_hands} (gaming_day, player)",
    )

    def reset(self) -> None:
        self._days: dict[tuple[str, str], dict[str, Any]] = {}
        self._dp_new: list[tuple[Any, ...]] = []
        self._dp_done: list[tuple[Any, ...]] = []
        self._dp_seated: list[tuple[Any, ...]] = []

    def _day(self, item: Item) -> dict[str, Any]:
        key = (item.code, item.day)
        day = self._days.get(key)
        if day is None:
            day = {"game": item.table.game, "currency": item.table.currency,
                   "banking": item.table.banking, **dict.fromkeys(SUMS, 0)}
            self._days[key] = day
        return day

    def handle(self, item: Item) -> None:
        event: Any = item.event
        transfers = item.transfers
        isa = item.isa
        day = self._day(item)
        if r.SeatCorrected in isa:  # COR-3: who really banked those hands
            self._dp_seated.append((event.player, item.code, event.seat, event.from_hand,
                                    event.to_hand, event.recorded_player))
        elif r.ChipsBoughtIn in isa:
            day["drop_minor"] += event.amount
        elif r.ChipsCashedOut in isa:
            day["cash_outs_minor"] += event.amount
        elif r.HandSettled in isa:
            day["hands_settled"] += 1
            day["jackpot_awards_minor"] += sum(j.amount for j in event.jackpot)
            self._dp_settled(item, event, day)
        elif r.HandVoided in isa or r.HandCancelled in isa:
            voided = r.HandVoided in isa
            day["hands_voided" if voided else "hands_cancelled"] += 1
            self._dp_done.append((0, "voided" if voided else "cancelled", item.day, item.code,
                                  event.hand_no))
        elif r.PlayerActed in isa and event.action == "accept":
            player = next((accounts.player_id(t.src) for t in transfers
                           if accounts.is_player(t.src)), "")
            self._dp_new.append((item.code, event.hand_no, event.seat, player, event.amount,
                                 None, "in_progress", item.day))
        if not transfers or not isa.isdisjoint(r.CORRECTIONS):
            return  # corrections are their own line (the corrections view, COR-1..5)
        flows = item.flows
        day["rake_minor"] += flows.get(accounts.RAKE, 0)
        if r.HandRecord in isa:
            day["house_win_minor"] += flows.get(accounts.HOUSE, 0)
        for t in transfers:
            if t.dst == accounts.JACKPOT:
                src = t.src
                if src.startswith("spot:"):
                    day["jackpot_contributions_minor"] += t.amount
                elif src == accounts.HOUSE:
                    day["jackpot_seeds_minor"] += t.amount

    def _dp_settled(self, item: Item, event: r.HandSettled, day: dict[str, Any]) -> None:
        for o in event.outcomes:
            if o.wager == DP_WAGER:
                day["dp_results_minor"] += o.amount
                self._dp_done.append((o.amount, "settled", item.day, item.code, event.hand_no))

    def flush(self) -> None:
        if not self.keeping or len(self._days) > KEEP_AT_MOST:  # else written once at the end
            self._write_days()
        self.tx.insert("proj_dp_hands", (
            "table_code", "hand_no", "seat", "player", "funds_minor", "result_minor", "status",
            "gaming_day"), self._dp_new)
        self.tx.executemany(
            "UPDATE {proj_dp_hands} SET result_minor = ?, status = ?, gaming_day = ? "
            "WHERE table_code = ? AND hand_no = ?",
            self._dp_done,
        )
        self.tx.executemany(
            "UPDATE {proj_dp_hands} SET player = ? WHERE table_code = ? AND seat = ? AND "
            "hand_no >= ? AND hand_no <= ? AND player = ?", self._dp_seated)

    def _write_days(self) -> None:
        columns = ", ".join(SUMS)
        updates = ", ".join(f"{c} = cur.{c} + excluded.{c}" for c in SUMS)
        self.tx.executemany(
            "INSERT INTO {proj_accounting} AS cur (table_code, gaming_day, game, currency, "
            f"banking, {columns}) VALUES ({','.join('?' * (5 + len(SUMS)))}) "
            f"ON CONFLICT (table_code, gaming_day) DO UPDATE SET {updates}",
            [(code, d, v["game"], v["currency"], v["banking"], *(v[c] for c in SUMS))
             for (code, d), v in self._days.items()],
        )
        self._days = {}

    def kept(self) -> None:
        days = self._days
        self.reset()
        self._days = days
