"""The surveillance report: every test of a period, false discoveries controlled, the flags.

Reads the settled hands of the period (all tables, or one) from the hands view and runs:

==========================  ===================================================================
kind                        test (subject)
==========================  ===================================================================
``csp_hidden_cards``        information test of Play/fold against the dealer's hidden cards
                            (a player at a Caribbean Stud table; CSP-2..6)
``hcf_hidden_hand``         information test of fold/raise against the DP's hidden hand (a
                            player at a High Card Flush table; HCF-5, HCF-8..11)
``hcf_dp_pair``             the same, only the decisions against one DP (player and DP)
``stud_soft_play``          folds of hands ahead of the bettor, facing one player's bets
``stud_bet_behind``         bets and raises behind one player in both halves
``stud_chips_passed``       chips lost to one player while ahead of it (Stud Hi/Lo pairs)
``chinese_points_passed``   arrangements short of their best against one opponent (CHP-2..5)
``dealer_hold`` ...         the dealer tests (:mod:`.dealers`)
==========================  ===================================================================

Every test gives a one-sided p-value; Benjamini-Hochberg over all of them (:mod:`.stats`) gives
the adjusted p-values, and a test is a flag when its adjusted p-value is at most the rate
(``FDR_RATE``, 5%, unless told otherwise): among the flags of a report, the expected share of
honest players, pairs or dealers is at most the rate.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ledger.domain.errors import InvalidInput
from ledger.games.caribbean.config import CaribbeanConfig
from ledger.games.chinese.config import ChineseConfig
from ledger.games.hcf.model import HcfConfig
from projections.fleet import for_table
from projections.protection import stats
from projections.protection.decisions import Decision, caribbean_decisions, hcf_decisions
from projections.protection.occasions import chinese_occasions, stud_occasions
from projections.protection.pairs import TOP_HANDS, Occasion, PairTest, run_pair_tests
from projections.reports.periods import Period

DESCRIPTIONS = {
    "csp_hidden_cards": "Play/fold agrees with the dealer's hidden cards more often than the "
                        "visible cards allow (CSP-2..4)",
    "hcf_hidden_hand": "fold/raise agrees with the designated player's hidden hand more often "
                       "than the player's own cards allow (HCF-5, HCF-8..11)",
    "hcf_dp_pair": "against this designated player only, fold/raise agrees with the DP's "
                   "hidden hand more often than the player's own cards allow",
    "stud_soft_play": "folds hands that were ahead when this player bet, more than with "
                      "others (STUD8-7)",
    "stud_bet_behind": "bets and raises with cards behind this player in both halves, more "
                       "than with others (STUD8-7)",
    "stud_chips_passed": "loses chips to this player while ahead of it, more than to others "
                         "(STUD8-7)",
    "chinese_points_passed": "arrangements fall short of their best against this opponent, "
                             "more than against others (CHP-2..5)",
}
PAIR_KINDS = {"soft_play": ("stud_soft_play", True), "bet_behind": ("stud_bet_behind", True),
              "chips_passed": ("stud_chips_passed", False),
              "points_passed": ("chinese_points_passed", False)}
HAND_COLUMNS = ("table_code, hand_no, game, gaming_day, config_version, dp_seat, seats_json, "
                "cards_json, actions_json, result_json")


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


Progress = Callable[[int, int], None]


def surveillance(model: Any, chosen: Period, table: str | None = None,
                 rate: float = stats.FDR_RATE,
                 progress: Progress | None = None) -> dict[str, Any]:
    """Every test of the period (see the module): ``{"period", "rate", "tests", "flags",
    "all"}``; ``flags`` and ``all`` are lists of test dicts, the flags first by p-value."""
    if not 0 < rate < 1:
        raise InvalidInput("invalid_rate", f"the false discovery rate must lie between 0 and 1, "
                           f"not {rate}", rate=rate)
    tables = [model.table(table)] if table else model.tables()
    rows_by_table = {t["table_code"]: _hands(model, t["table_code"], chosen) for t in tables}
    total = sum(len(r) for r in rows_by_table.values())
    done = 0
    tests: list[Test] = []
    for t in tables:
        code, game = t["table_code"], t["game"]
        configs: dict[int, Any] = {}
        decisions: list[Decision] = []
        found: list[Occasion] = []
        for row in rows_by_table[code]:
            version = int(row["config_version"])
            if version not in configs:
                configs[version] = _config(game, model.config(code, version))
            config = configs[version]
            if isinstance(config, CaribbeanConfig):
                decisions += caribbean_decisions(row, config)
            elif isinstance(config, HcfConfig):
                decisions += hcf_decisions(row, config)
            elif isinstance(config, ChineseConfig):
                found += chinese_occasions(row, config)
            elif game == "stud-hilo":
                found += stud_occasions(row)
            done += 1
            if progress is not None:
                progress(done, total)
        tests += _decision_tests(code, game, decisions)
        tests += _pair_tests(code, game, found)
    adjusted = stats.adjust([t.p_value_raw for t in tests])
    for test, p in zip(tests, adjusted, strict=True):
        test.p_value = p
    ordered = sorted(tests, key=lambda t: (t.p_value, -t.statistic, t.kind, t.table or "",
                                           t.players))
    everything = [t.as_dict(rate) for t in ordered]
    return {"period": chosen.as_dict(), "rate": rate, "tests": len(tests),
            "hands": total, "flags": [t for t in everything if t["flagged"]],
            "all": everything}


def _hands(model: Any, code: str, chosen: Period) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = for_table(model, code).store.fetchall(
        f"SELECT {HAND_COLUMNS} FROM {{proj_hands}} WHERE table_code = ? AND status = "
        "'settled' AND gaming_day >= ? AND gaming_day <= ? ORDER BY hand_no",
        (code, chosen.first, chosen.last))
    return rows


def _config(game: str, data: dict[str, Any]) -> Any:
    models: dict[str, Any] = {"caribbean-stud": CaribbeanConfig, "high-card-flush": HcfConfig,
                              "chinese-poker": ChineseConfig}
    model = models.get(game)
    return data if model is None else model.model_validate(data)


def _decision_tests(code: str, game: str, decisions: Sequence[Decision]) -> list[Test]:
    if not decisions:
        return []
    kind = "csp_hidden_cards" if game == "caribbean-stud" else "hcf_hidden_hand"
    groups: dict[tuple[str, ...], list[Decision]] = defaultdict(list)
    for d in decisions:
        groups[(kind, d.player)].append(d)
        if d.against is not None and d.against != d.player:
            groups[("hcf_dp_pair", d.player, d.against)].append(d)
    tests = []
    for (test_kind, *who), group in sorted(groups.items()):
        result = stats.information_test([d.judgement for d in group])
        ranked = sorted(group, key=lambda d: (-stats.weight(d.judgement), d.hand_no))
        hands = [(d.table, d.hand_no) for d in ranked if stats.weight(d.judgement) > 0]
        tests.append(Test(
            kind=test_kind, table=code, game=game, players=list(who), statistic=result.z,
            p_value_raw=result.p_value, hands=list(dict.fromkeys(hands))[:TOP_HANDS],
            decisions=result.decisions,
            hands_tested=len({d.hand_no for d in group}),
            detail={"best": result.best, "expected_best": round(result.expected_best, 3),
                    "result_minor": result.result,
                    "expected_result_minor": round(result.expected_result),
                    "result_z": round(result.result_z, 3),
                    "result_p_value": result.result_p_value,
                    "decision_cost_minor": round(result.cost),
                    "decision_cost_per_decision_minor": round(result.cost / result.decisions,
                                                              2)}))
    return tests


def _pair_tests(code: str, game: str, found: Sequence[Occasion]) -> list[Test]:
    by_kind: dict[str, list[Occasion]] = defaultdict(list)
    for item in found:
        by_kind[item.kind].append(item)
    tests = []
    for short, items in sorted(by_kind.items()):
        kind, counted = PAIR_KINDS[short]
        for pair in run_pair_tests(kind, items, counted):
            tests.append(_pair_test(code, game, pair, items))
    return tests


def _pair_test(code: str, game: str, pair: PairTest, items: Sequence[Occasion]) -> Test:
    hands = {(o.table, o.hand_no) for o in items
             if o.actor == pair.actor and o.other == pair.other}
    return Test(
        kind=pair.kind, table=code, game=game, players=[pair.actor, pair.other],
        statistic=pair.result.statistic, p_value_raw=pair.result.p_value,
        hands=list(pair.hands), hands_tested=len(hands),
        detail={"occasions": pair.occasions, "observed": round(pair.total, 3),
                "expected": round(pair.expected, 3),
                "p_actor_side": pair.result.p_first, "p_other_side": pair.result.p_second})
