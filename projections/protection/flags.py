"""A test of the surveillance report and how it is shown (the JSON of a flag)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

DESCRIPTIONS = {
    "csp_hidden_cards": "Play/fold agrees with the dealer's hidden cards more often than the "
                        "visible cards allow (CSP-2..4)",
    "hcf_hidden_hand": "fold/raise agrees with the designated player's hidden hand more often "
                       "than the player's own cards allow (HCF-5, HCF-8..11)",
    "hcf_dp_pair": "against this designated player, fold/raise agrees with the DP's hidden "
                   "hand more often than the player's decisions against other DPs predict",
    "stud_soft_fold": "folds hands that were ahead when this player bet, more than with "
                      "others (STUD8-7)",
    "stud_bet_behind": "bets and raises with cards behind this player in both halves, more "
                       "than with others (STUD8-7)",
    "stud_chips_passed": "loses chips to this player while ahead of it, more than to others "
                         "(STUD8-7)",
    "chinese_points_passed": "arrangements fall short of their best against this opponent, "
                             "more than against others (CHP-2..5)",
    "dealer_hold": "the house's result on the cards this dealer dealt, each Ante as if "
                   "played, lies outside the interval the visible cards give (CSP-3, CSP-4)",
    "dealer_rake": "the rake of the hands this dealer dealt lies outside the interval of the "
                   "table's policy (HCF-13, CHP-11, STUD8-11)",
    "dealer_voids": "more voided and corrected hands per 100 than the other dealers' "
                    "(COM-5, COR-1)",
}

@dataclass
class Test:
    """One test of the report (a flag when its adjusted p-value is at most the rate)."""

    kind: str
    table: str | None
    game: str
    players: list[str]
    statistic: float
    p_value_raw: float
    hands: list[tuple[str, int]]
    decisions: int | None = None
    hands_tested: int | None = None
    dealer: str | None = None
    detail: dict[str, Any] = field(default_factory=dict)
    p_value: float = 1.0

    def as_dict(self, rate: float) -> dict[str, Any]:
        return {
            "kind": self.kind, "description": DESCRIPTIONS.get(self.kind, ""),
            "table": self.table, "game": self.game, "players": self.players,
            "dealer": self.dealer, "statistic": round(self.statistic, 3),
            "p_value": self.p_value, "p_value_raw": self.p_value_raw,
            "flagged": self.p_value <= rate, "decisions": self.decisions,
            "hands_tested": self.hands_tested,
            "hands": [{"table": t, "hand_no": n, "replay": f"/tables/{t}/hands/{n}/replay"}
                      for t, n in self.hands],
            "detail": self.detail,
        }
