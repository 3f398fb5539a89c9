"""The mathematics of a CyberCaribbean Stud configuration (CSP-2..7), exact.

From the exact dealer counts of :mod:`.caribbean_counts` and the table's Play paytable (CSP-4):

- per strategy, the house edge of the Ante (the player's expected loss per Ante, Play wager
  results included), the element of risk (the same over the average total wagered, Ante plus the
  2x Ante Play when played), the probability of playing and the standard deviation of the
  house's result per hand in Antes. Strategies: *optimal* (play exactly when the Play's expected
  value given the player's five cards and the dealer's up card beats the fold's -1 Ante), and
  the simple ones: A-K-J-8-3 or better, a pair or better, A-K or better, always;
- the progressive side wager (CSP-6/7): the exact probability of each jackpot line, the return
  as a linear function of the meter, the meter at which the wager breaks even.

All sums are integers: the edges are exact rationals (printed to six decimals). The COM-7 cap
and the rounding of percentage awards to the minor unit are left out (the cap depends on the
size of the Antes; the rounding is below a cent per award).

A seeded simulation of the same deals, decided by the same strategies and settled from the
dealt cards, is printed beside the exact figures as a check (:func:`simulate`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import Any

import numpy as np
import numpy.typing as npt

from ledger.evaluation import caribbean as csp
from ledger.evaluation import high
from ledger.evaluation._high_tables import FLUSH_STRENGTH, RANK_STRENGTH
from ledger.games.caribbean.config import CaribbeanConfig
from projections.reports.mathematics.caribbean_counts import (
    DEALER_HANDS,
    Counts,
    combinations_array,
    dealer_counts,
)

I64 = npt.NDArray[np.int64]
Bool = npt.NDArray[np.bool_]

AKJ83 = (high.Category.HIGH_CARD << 20 | 13 << 16 | 12 << 12 | 10 << 8 | 7 << 4 | 2)
"""The strength of A-K-J-8-3 (no pair, no flush): the classic "play with AKJ83 or better"."""

STRATEGIES: dict[str, str] = {
    "optimal": "play when the Play's expected value, given the five cards and the dealer's up "
               "card, is better than folding",
    "akj83": "play A-K-J-8-3 or better (any pair or better, or no pair from A-K-J-8-3 up)",
    "pair": "play a pair or better",
    "ak": "play A-K or better (any hand the dealer would qualify with)",
    "always": "always play",
}
LINES = csp.JACKPOT_LINES
_LINE_CATEGORY = {label: high.Category[label.upper()] for label in LINES}


def play_odds_array(paytable: Mapping[str, int]) -> I64:
    return np.array([paytable[c.label] for c in high.Category], dtype=np.int64)


def play_value(counts: Counts, odds: I64) -> I64:
    """The Play's result summed over the 163,185 dealer hands, in Antes (fold: -163,185)."""
    win = 1 + 2 * odds[counts.category]
    return counts.not_qualified + counts.player_wins * win - 3 * counts.dealer_wins


def decisions(counts: Counts, odds: I64) -> dict[str, Bool]:
    """Which keys each strategy plays."""
    value = play_value(counts, odds)
    strength = counts.strength
    qualifies = (strength >> 20 >= high.Category.ONE_PAIR) | (
        (strength >> 16 & 15 == 13) & (strength >> 12 & 15 == 12))
    return {
        "optimal": value > -DEALER_HANDS,
        "akj83": strength >= AKJ83,
        "pair": strength >> 20 >= high.Category.ONE_PAIR,
        "ak": qualifies,
        "always": np.ones(counts.keys, dtype=np.bool_),
    }


def strategy_figures(counts: Counts, odds: I64, plays: Bool) -> dict[str, Any]:
    """Exact figures of one strategy: house edge, element of risk, P(play), SD per hand."""
    w = counts.weight
    total = int(w.sum())
    win = 1 + 2 * odds[counts.category]
    value = play_value(counts, odds)
    result = np.where(plays, value, -DEALER_HANDS)
    squares = np.where(
        plays,
        counts.not_qualified + counts.player_wins * win * win + 9 * counts.dealer_wins,
        DEALER_HANDS,
    )
    mean = Fraction(int((w * result).sum()), total * DEALER_HANDS)
    second = Fraction(int((w * squares).sum()), total * DEALER_HANDS)
    play_p = Fraction(int(w[plays].sum()), total)
    edge = -mean
    risk = edge / (1 + 2 * play_p)
    return {
        "house_edge": edge,
        "element_of_risk": risk,
        "play_probability": play_p,
        "sd_per_hand": float(second - mean * mean) ** 0.5,
        "mean_wagered": 1 + 2 * play_p,
    }


def jackpot_figures(counts: Counts, plays: Bool, config: CaribbeanConfig) -> dict[str, Any]:
    """CSP-6/7: probabilities of the lines (a fold forfeits the award), return per meter."""
    jackpot = config.jackpot
    w = counts.weight
    total = int(w.sum())
    lines = []
    fixed = Fraction(0)
    slope = Fraction(0)
    for line in LINES:
        held = (counts.category == _LINE_CATEGORY[line]) & plays
        p = Fraction(int(w[held].sum()), total)
        award = jackpot.fixed_awards.get(line, 0)
        bps = jackpot.percent_awards_bps.get(line, 0)
        fixed += p * award
        slope += p * Fraction(bps, 10_000)
        lines.append({"line": line, "probability": p, "fixed_award_minor": award,
                      "percent_award_bps": bps})
    wager = jackpot.wager
    break_even = None if slope == 0 else (wager - fixed) / slope
    return {"enabled": jackpot.enabled, "wager_minor": wager, "lines": lines,
            "fixed_return": fixed / wager, "return_per_meter_unit": slope / wager,
            "break_even_meter_minor": break_even}


def jackpot_return(figures: Mapping[str, Any], meter_minor: int) -> Fraction:
    """The side wager's expected return per unit wagered (1 = break even) at a meter."""
    value: Fraction = figures["fixed_return"] + figures["return_per_meter_unit"] * meter_minor
    return value


def exact(config: CaribbeanConfig) -> dict[str, Any]:
    """Every exact figure of the configuration (Fractions; see :func:`report`)."""
    counts = dealer_counts()
    odds = play_odds_array(config.play_paytable)
    chosen = decisions(counts, odds)
    return {
        "strategies": {name: strategy_figures(counts, odds, chosen[name]) for name in STRATEGIES},
        "jackpot": jackpot_figures(counts, chosen["optimal"], config),
    }


# --- the simulation beside it ---------------------------------------------------------------

_PATTERNS = np.array(sorted(RANK_STRENGTH), dtype=np.int64)
_PATTERN_STRENGTH = np.array([RANK_STRENGTH[k] for k in sorted(RANK_STRENGTH)], dtype=np.int64)
_FLUSH = np.array(FLUSH_STRENGTH.whole(), dtype=np.int64)


def strengths(cards: I64) -> I64:
    """Strength of each row of five cards (numpy: the rank-multiset and flush tables)."""
    ranks, suits = cards >> 2, cards & 3
    key = (5 ** ranks).sum(axis=1)
    by_rank = _PATTERN_STRENGTH[np.searchsorted(_PATTERNS, key)]
    mask = (1 << ranks).sum(axis=1)
    flush = (suits == suits[:, :1]).all(axis=1)
    return np.where(flush, _FLUSH[np.where(flush, mask, 0)], by_rank)


def _lookup(counts: Counts) -> tuple[I64, I64]:
    key = (counts.pattern << 14 | counts.spade_mask << 1 | counts.flush) << 4 | counts.up_rank
    order = np.argsort(key)
    return key[order], order


def simulate(config: CaribbeanConfig, hands: int, seed: int) -> dict[str, dict[str, float]]:
    """Deal ``hands`` random hands; each strategy's mean result per Ante and its standard error.

    The deals are settled from the cards (CSP-3/4); only the optimal strategy's decisions come
    from the exact counts (the expected value of each dealt hand's Play).
    """
    counts = dealer_counts()
    odds = play_odds_array(config.play_paytable)
    value = play_value(counts, odds)
    keys, order = _lookup(counts)
    rng = np.random.default_rng(seed)
    deals = np.argsort(rng.random((hands, 52)), axis=1)[:, :10].astype(np.int64)
    player, dealer = deals[:, :5], deals[:, 5:]
    up = dealer[:, 4]
    p_strength, d_strength = strengths(player), strengths(dealer)
    # The optimal decision: the dealt (P, U) as its key, with U's suit mapped to spades.
    swap = up & 3
    suits = player & 3
    mapped = np.where(suits == swap[:, None], 3, np.where(suits == 3, swap[:, None], suits))
    ranks = player >> 2
    pattern = (5 ** ranks).sum(axis=1)
    spades = ((mapped == 3) << ranks).sum(axis=1)
    flush = (suits == suits[:, :1]).all(axis=1)
    key = (pattern << 14 | spades << 1 | flush) << 4 | (up >> 2)
    row = order[np.searchsorted(keys, key)]
    plays_by: dict[str, Callable[[], Bool]] = {
        "optimal": lambda: value[row] > -DEALER_HANDS,
        "akj83": lambda: p_strength >= AKJ83,
        "pair": lambda: p_strength >> 20 >= high.Category.ONE_PAIR,
        "ak": lambda: np.array([csp.dealer_qualifies(int(s)) for s in p_strength]),
        "always": lambda: np.ones(hands, dtype=np.bool_),
    }
    qualified = np.array([csp.dealer_qualifies(int(s)) for s in d_strength])
    win = 1 + 2 * odds[p_strength >> 20]
    played = np.where(~qualified, 1, np.where(p_strength > d_strength, win,
                                              np.where(p_strength == d_strength, 0, -3)))
    out = {}
    for name, plays in plays_by.items():
        result = np.where(plays(), played, -1).astype(np.float64)
        out[name] = {"hands": hands, "mean": float(result.mean()),
                     "stderr": float(result.std(ddof=1) / hands ** 0.5)}
    return out


def brute_force_play_value(player: tuple[int, ...], up: int, odds: I64) -> int:
    """The Play's summed result over every dealer hand, by enumeration (a slow, independent
    check of :func:`play_value`: every one of the 163,185 hands evaluated and compared)."""
    rest = np.array([c for c in range(52) if c not in player and c != up], dtype=np.int64)
    hidden = rest[combinations_array(len(rest), 4)]
    dealer = np.concatenate([hidden, np.full((len(hidden), 1), up, dtype=np.int64)], axis=1)
    mine = high.evaluate(player)
    total = 0
    win = 1 + 2 * int(odds[mine >> 20])
    for row in dealer.tolist():
        theirs = high.evaluate(row)
        if not csp.dealer_qualifies(theirs):
            total += 1
        elif mine > theirs:
            total += win
        elif mine < theirs:
            total -= 3
    return total
