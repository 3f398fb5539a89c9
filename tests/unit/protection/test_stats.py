"""The statistics of game protection: the information test, the pair tests, false discovery
control."""

from __future__ import annotations

import random

import pytest

from projections.protection import stats
from projections.protection.odds import ActionOdds, Judgement, judge


def _decision(p: float, rng: random.Random, sees: bool) -> Judgement:
    """A two-action decision where the first action is the better one with probability ``p``
    (out of 1,000 hidden hands); the chooser either guesses blind or sees the hidden cards."""
    wins = round(p * 1000)
    odds = ActionOdds(actions=("a", "b"), cells=("a_better", "b_better"),
                      counts=(wins, 1000 - wins), results=((1, -1), (-1, 1)))
    cell = "a_better" if rng.random() < wins / 1000 else "b_better"
    guess = "a" if rng.random() < 0.5 else "b"
    chosen = ("a" if cell == "a_better" else "b") if sees else guess
    return judge(odds, chosen, cell)


def test_poisson_binomial_tail_is_exact() -> None:
    judged = [judge(ActionOdds(("x", "y"), ("x_better", "y_better"), (1, 1), ((1, 0), (0, 1))),
                    "x", "x_better") for _ in range(3)]
    result = stats.information_test(judged)
    assert result.best == 3 and result.expected_best == pytest.approx(1.5)
    assert result.p_value == pytest.approx(0.125)  # three fair coins all heads


def test_blind_players_score_near_zero_seeing_players_far_above() -> None:
    rng = random.Random(7)
    ps = [rng.uniform(0.1, 0.9) for _ in range(400)]
    blind = stats.information_test([_decision(p, rng, sees=False) for p in ps])
    seeing = stats.information_test([_decision(p, rng, sees=True) for p in ps])
    assert abs(blind.z) < 4 and blind.p_value > 1e-4
    assert seeing.z > 10 and seeing.p_value < 1e-20
    assert seeing.result_z > 10 and seeing.result_p_value < 1e-20


def test_decision_cost_is_the_expected_result_given_up() -> None:
    odds = ActionOdds(actions=("fold", "play"), cells=("win", "lose"), counts=(3, 1),
                      results=((-1, 2), (-1, -3)))
    verdict = judge(odds, "fold", "win")
    assert verdict.optimal_action == "play"
    assert verdict.optimal_expected == pytest.approx((3 * 2 - 3) / 4)
    assert verdict.cost == pytest.approx(0.75 + 1)
    assert stats.information_test([verdict]).cost == pytest.approx(1.75)


def test_benjamini_hochberg() -> None:
    assert stats.adjust([0.01, 0.04, 0.03, 0.5]) == pytest.approx([0.04, 0.0533333, 0.0533333,
                                                                  0.5], rel=1e-5)
    assert stats.adjust([]) == []


def test_pair_count_test_is_the_larger_side() -> None:
    """10 of A's 100 occasions are with B, and all 10 show the event that A shows 12 times in
    all; B's side: 10 of the 50 occasions against B are A's, all events, 12 events in all."""
    strong = stats.Side(occasions=100, total=12, pair_occasions=10, pair_total=10)
    weak = stats.Side(occasions=50, total=40, pair_occasions=10, pair_total=10)
    both = stats.pair_count_test(strong, strong)
    assert both.p_value < 1e-8
    one = stats.pair_count_test(strong, weak)
    assert one.p_value == one.p_second and one.p_second > 0.05


def test_pair_sum_test() -> None:
    values = [0.0] * 90 + [5.0] * 10
    pair = [False] * 90 + [True] * 10
    result = stats.pair_sum_test((values, pair), (values, pair))
    assert result.p_value < 1e-6 and result.statistic > 5
    none = stats.pair_sum_test((values, [True] * 10 + [False] * 90),
                               (values, [True] * 10 + [False] * 90))
    assert none.p_value > 0.5
