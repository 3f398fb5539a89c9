"""The surveillance report: every test of a period, false discoveries controlled, the flags.

Reads the settled hands of the period (all tables, or one) from the hands view and runs:

==========================  ===================================================================
kind                        test (subject)
==========================  ===================================================================
``csp_hidden_cards``        information test of Play/fold against the dealer's hidden cards
                            (a player at a Caribbean Stud table; CSP-2..6)
``hcf_hidden_hand``         information test of fold/raise against the DP's hidden hand (a
                            player at a High Card Flush table; HCF-5, HCF-8..11)
``hcf_dp_pair``             the excess against one DP beyond the player's excess against the
                            others (player and DP: a DP showing a partner its hand)
``stud_soft_fold``          folds of hands ahead of the bettor, facing one player's bets
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
from typing import Any

from ledger.domain.errors import InvalidInput
from ledger.games.caribbean.config import CaribbeanConfig
from ledger.games.chinese.config import ChineseConfig
from ledger.games.hcf.model import HcfConfig
from projections.protection import stats
from projections.protection.dealers import dealer_tests
from projections.protection.decisions import (
    Decision,
    HandLuck,
    caribbean_decisions,
    caribbean_luck,
    hcf_decisions,
)
from projections.protection.flags import Test
from projections.protection.occasions import chinese_occasions, stud_occasions
from projections.protection.pairs import TOP_HANDS, Occasion, PairTest, run_pair_tests
from projections.read.fleet import for_table
from projections.reports.periods import Period

PAIR_KINDS = {"soft_fold": ("stud_soft_fold", True), "bet_behind": ("stud_bet_behind", True),
              "chips_passed": ("stud_chips_passed", False),
              "points_passed": ("chinese_points_passed", False)}
HAND_COLUMNS = ("table_code, hand_no, game, gaming_day, config_version, dp_seat, seats_json, "
                "cards_json, actions_json, result_json, dealer")


Progress = Callable[[int, int], None]


def surveillance(model: Any, chosen: Period, table: str | None = None,
                 rate: float = stats.FDR_RATE,
                 progress: Progress | None = None) -> dict[str, Any]:
    """Every test of the period (see the module): ``{"period", "rate", "tests", "flags",
    "all"}``; ``flags`` and ``all`` are lists of test dicts, the flags first by p-value."""
    check_rate(rate)
    tables = [model.table(table)] if table else model.tables()
    rows_by_table = {t["table_code"]: _hands(model, t["table_code"], chosen) for t in tables}
    total = sum(len(r) for r in rows_by_table.values())
    done = 0
    tests: list[Test] = []
    every_decision: list[Decision] = []
    lucks: list[HandLuck] = []
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
                luck = caribbean_luck(row, config)
                if luck is not None and luck.dealer is not None:
                    lucks.append(luck)
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
        every_decision += decisions
    tests += dealer_tests(model, chosen, tables, lucks, every_decision)
    adjusted = stats.adjust([t.p_value_raw for t in tests])
    for test, p in zip(tests, adjusted, strict=True):
        test.p_value = p
    ordered = sorted(tests, key=lambda t: (t.p_value, -t.statistic, t.kind, t.table or "",
                                           t.players))
    everything = [t.as_dict(rate) for t in ordered]
    return {"period": chosen.as_dict(), "rate": rate, "tests": len(tests),
            "hands": total, "flags": [t for t in everything if t["flagged"]],
            "all": everything}


def check_rate(rate: float) -> None:
    """``invalid_rate`` unless 0 < rate < 1."""
    if not 0 < rate < 1:
        raise InvalidInput("invalid_rate", f"the false discovery rate must lie between 0 and 1, "
                           f"not {rate}", rate=rate)


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
    by_player: dict[str, list[Decision]] = defaultdict(list)
    for d in decisions:
        by_player[d.player].append(d)
    tests = []
    for player, group in sorted(by_player.items()):
        result = stats.information_test([d.judgement for d in group])
        tests.append(Test(
            kind=kind, table=code, game=game, players=[player], statistic=result.z,
            p_value_raw=result.p_value, hands=_telling(group), decisions=result.decisions,
            hands_tested=len({d.hand_no for d in group}),
            detail={"best": result.best, "expected_best": round(result.expected_best, 3),
                    "result_minor": result.result,
                    "expected_result_minor": round(result.expected_result),
                    "result_z": round(result.result_z, 3),
                    "result_p_value": result.result_p_value,
                    "decision_cost_minor": round(result.cost),
                    "decision_cost_per_decision_minor": round(result.cost / result.decisions,
                                                              2)}))
        against: dict[str, list[Decision]] = defaultdict(list)
        for d in group:
            if d.against is not None and d.against != player:
                against[d.against].append(d)
        for dp, mine in sorted(against.items()):
            others = [d.judgement for d in group if d.against != dp]
            pair = stats.pair_information_test([d.judgement for d in mine], others)
            tests.append(Test(
                kind="hcf_dp_pair", table=code, game=game, players=[player, dp],
                statistic=pair.z, p_value_raw=pair.p_value, hands=_telling(mine),
                decisions=pair.decisions, hands_tested=len({d.hand_no for d in mine}),
                detail={"excess_best": round(pair.excess, 3),
                        "predicted_by_other_dps": round(pair.predicted, 3)}))
    return tests


def _telling(group: Sequence[Decision]) -> list[tuple[str, int]]:
    """The hands of the decisions that speak most for hidden information."""
    ranked = sorted(group, key=lambda d: (-stats.weight(d.judgement), d.hand_no))
    hands = [(d.table, d.hand_no) for d in ranked if stats.weight(d.judgement) > 0]
    return list(dict.fromkeys(hands))[:TOP_HANDS]


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
