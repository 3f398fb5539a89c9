"""The statistics of game protection: the information test, decision quality, the pair tests,
and the control of false discoveries when many players and pairs are tested at once.

Every distribution comes from scipy; nothing here is written by hand but the sums.

*Information test* (:func:`information_test`). Each decision ``i`` made from the cards a
player could see has a probability ``p_i`` that its action turns out a best one once every card
is known (:mod:`.odds`). A player who cannot see the hidden cards is right with probability
``p_i`` whatever the strategy, good or bad, so the number of decisions that were a best one,
``S``, has the Poisson-binomial distribution of the ``p_i``: the p-value is its exact upper tail
``P(S >= s)`` (``scipy.stats.poisson_binom``), and ``z = (S - sum p) / sqrt(sum p(1-p))``. A
player who sees the hidden cards is right far more often. The same on money: the sum of each
decision's real result minus the expected result of the action chosen, over the square root of
the sum of the variances, a z with a normal tail (one-sided). Both are one-sided: being unlucky
is no offence.

*Decision quality* (:func:`information_test`, ``cost``): the expected result given up by not
taking the action with the best expected value, summed; apart from the information test.

*Pair tests* (:func:`pair_count_test`, :func:`pair_sum_test`). How player A treats player B is
compared with how A treats everyone else in the same period, and with how everyone else treats
B: the identities are permuted across the occasions. For counts (an occasion either shows the
behaviour or not) the permutation distribution is hypergeometric (``scipy.stats.hypergeom``),
exact; for sums of amounts it is the sum of a sample drawn without replacement, whose mean and
variance are exact and whose tail is taken as normal. The pair's p-value is the larger of the
two sides (an intersection-union test): A must stand out against its other opponents *and* B
must stand out against its other opponents, so a player who is merely loose, tight or lucky
with everyone is not a pair.

*Many tests* (:func:`adjust`): Benjamini-Hochberg (``scipy.stats.false_discovery_control``)
over every test of one report; a flag is a test whose adjusted p-value is at most the rate.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats

from projections.protection.odds import Judgement

FDR_RATE = 0.05
"""The false discovery rate a report controls unless told otherwise."""


@dataclass(frozen=True)
class InformationResult:
    """The information test and the decision quality of one player (or one pair) over a period."""

    decisions: int
    best: int
    """Decisions whose action turned out a best one."""
    expected_best: float
    z: float
    p_value: float
    """Exact Poisson-binomial upper tail of ``best`` (one-sided)."""
    result: int
    """Sum of the real results of the actions chosen (minor units)."""
    expected_result: float
    result_z: float
    result_p_value: float
    cost: float
    """Expected result given up against the optimal action, summed (minor units)."""


def information_test(judgements: Sequence[Judgement]) -> InformationResult:
    """The information test and decision quality over ``judgements`` (see the module)."""
    p = np.array([j.p_best for j in judgements], dtype=np.float64)
    best = sum(1 for j in judgements if j.was_best)
    expected_best = float(p.sum())
    spread = float((p * (1 - p)).sum())
    z = (best - expected_best) / math.sqrt(spread) if spread > 0 else 0.0
    p_value = _poisson_binomial_tail(best, p)
    result = sum(j.result for j in judgements)
    expected_result = float(sum(j.expected for j in judgements))
    variance = float(sum(j.variance for j in judgements))
    result_z = (result - expected_result) / math.sqrt(variance) if variance > 0 else 0.0
    return InformationResult(
        decisions=len(judgements),
        best=best,
        expected_best=expected_best,
        z=z,
        p_value=min(max(p_value, 0.0), 1.0),
        result=result,
        expected_result=expected_result,
        result_z=result_z,
        result_p_value=float(stats.norm.sf(result_z)) if variance > 0 else 1.0,
        cost=float(sum(j.cost for j in judgements)),
    )


@dataclass(frozen=True)
class PairInformation:
    """Is a player's information concentrated on one opponent's hidden hand?"""

    decisions: int
    excess: float
    """Decisions a best one against this opponent, beyond the visible cards' promise."""
    predicted: float
    """The excess the player's decisions against everyone else predict for these."""
    z: float
    p_value: float


def pair_information_test(pair: Sequence[Judgement],
                          others: Sequence[Judgement]) -> PairInformation:
    """The player's excess of best decisions against one opponent, beyond what its excess
    against every other opponent predicts (per unit of variance): ``T = (S_B - E_B) - r V_B``
    with ``r = (S_O - E_O) / V_O``; ``Var T = V_B + V_B^2 / V_O``; one-sided normal tail. A
    player who sees every designated player's hand has ``r`` large and ``T`` near zero: its
    flag is the player's own test; a player shown one DP's hand stands out here. Without other
    decisions ``r`` is 0 (the plain information test against the one opponent, as a z)."""
    def sums(items: Sequence[Judgement]) -> tuple[float, float]:
        excess = sum(float(j.was_best) - j.p_best for j in items)
        return excess, sum(j.p_best * (1 - j.p_best) for j in items)

    excess_b, var_b = sums(pair)
    excess_o, var_o = sums(others)
    rate = excess_o / var_o if var_o > 0 else 0.0
    predicted = rate * var_b
    var_t = var_b + (var_b * var_b / var_o if var_o > 0 else 0.0)
    z = (excess_b - predicted) / math.sqrt(var_t) if var_t > 0 else 0.0
    return PairInformation(len(pair), excess_b, predicted, z,
                           float(stats.norm.sf(z)) if var_t > 0 else 1.0)


def _poisson_binomial_tail(observed: int, p: np.ndarray[tuple[int], np.dtype[np.float64]]) -> float:
    """``P(S >= observed)`` for S Poisson-binomial with probabilities ``p``: the upper tail
    summed from the probability mass (accurate far out, where ``1 - cdf`` would round to 0)."""
    if not len(p) or observed <= 0:
        return 1.0
    if observed <= float(p.sum()):
        return float(stats.poisson_binom.sf(observed - 1, p))
    ks = np.arange(observed, len(p) + 1)
    mass = np.asarray(stats.poisson_binom.pmf(ks, p), dtype=np.float64)
    return float(mass.sum())


def weight(judgement: Judgement) -> float:
    """How much one decision speaks for hidden information: a best action the visible cards
    made unlikely weighs most (``was_best - p_best``)."""
    return float(judgement.was_best) - judgement.p_best


@dataclass(frozen=True)
class Side:
    """One side of a pair test: the occasions of one player with anyone, and those with the
    other player of the pair (counts, or sums of amounts)."""

    occasions: int
    """All occasions of the player (the population)."""
    total: float
    """What they add up to (events for a count, an amount for a sum)."""
    pair_occasions: int
    """The occasions shared with the other player of the pair (the sample)."""
    pair_total: float


@dataclass(frozen=True)
class PairResult:
    statistic: float
    """The pair's standardised excess (z) on the weaker side."""
    p_value: float
    p_first: float
    p_second: float


def count_side_p(side: Side) -> tuple[float, float]:
    """Hypergeometric upper tail and z of the pair's events among the player's occasions."""
    n_total, k_total = side.occasions, int(side.total)
    n, k = side.pair_occasions, int(side.pair_total)
    if not n or not n_total:
        return 1.0, 0.0
    p = float(stats.hypergeom.sf(k - 1, n_total, k_total, n))
    mean = n * k_total / n_total
    var = (n * (k_total / n_total) * (1 - k_total / n_total)
           * ((n_total - n) / (n_total - 1) if n_total > 1 else 0.0))
    z = (k - mean) / math.sqrt(var) if var > 0 else 0.0
    return min(max(p, 0.0), 1.0), z


def pair_count_test(first: Side, second: Side) -> PairResult:
    """Counts (see the module): the larger of the two sides' exact p-values."""
    p1, z1 = count_side_p(first)
    p2, z2 = count_side_p(second)
    return PairResult(statistic=min(z1, z2), p_value=max(p1, p2), p_first=p1, p_second=p2)


def sum_side_p(values: Sequence[float], pair: Sequence[bool]) -> tuple[float, float]:
    """Normal tail and z of the pair's sum among a player's occasions, drawn without
    replacement (exact mean and variance of the permutation distribution)."""
    x = np.asarray(values, dtype=np.float64)
    chosen = np.asarray(pair, dtype=np.bool_)
    n_total, n = len(x), int(chosen.sum())
    if not n or n == n_total:
        return 1.0, 0.0
    mean = n * float(x.mean())
    var = n * float(x.var()) * (n_total - n) / (n_total - 1)
    if var <= 0:
        return 1.0, 0.0
    z = (float(x[chosen].sum()) - mean) / math.sqrt(var)
    return float(stats.norm.sf(z)), z


def pair_sum_test(first: tuple[Sequence[float], Sequence[bool]],
                  second: tuple[Sequence[float], Sequence[bool]]) -> PairResult:
    """Sums (see the module): the larger of the two sides' p-values."""
    p1, z1 = sum_side_p(*first)
    p2, z2 = sum_side_p(*second)
    return PairResult(statistic=min(z1, z2), p_value=max(p1, p2), p_first=p1, p_second=p2)


def adjust(p_values: Sequence[float]) -> list[float]:
    """Benjamini-Hochberg adjusted p-values, in the order given (empty in, empty out)."""
    if not p_values:
        return []
    adjusted = stats.false_discovery_control(np.asarray(p_values, dtype=np.float64),
                                             method="bh")
    return [float(min(max(p, 0.0), 1.0)) for p in adjusted]
