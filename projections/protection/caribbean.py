"""Caribbean Stud decisions against the dealer's hidden cards (CSP-1..7), exact.

A player decides Play or fold (CSP-2) seeing five cards and the dealer's up card (CSP-1). The
dealer's four hidden cards are any four of the 46 others: 163,185 equally likely hands. Each
falls in one of four cells (CSP-3, CSP-4): the dealer does not qualify (the Ante wins even
money, the Play pushes), the player wins (Ante 1-1, Play at the paytable), an exact tie (both
push), the dealer wins (both lose). A fold loses the Ante (CSP-2) and forfeits any jackpot award
the hand holds (CSP-6); the side wager itself is collected either way, so it is left out of both
actions' results.

The counts come from the method of :mod:`projections.reports.mathematics.caribbean_counts`, for
one decision instead of all of them: the dealer's hand is the up card ``u`` plus a multiset of
four ranks (1,820 of them), each taken in ``prod C(n_r, k_r)`` ways where ``n_r`` counts the
unseen cards of rank ``r``; the strength of ``u`` plus each multiset is a table made once. The
hands where all four hidden cards share the up card's suit are flushes: for each set of four
ranks whose cards of that suit are all unseen (at most 495 of them), one way moves from the rank
strength to the flush strength. Well under a millisecond per decision
(``ops/bench/surveillance.py --timing``), and decisions whose seen cards are the same up to a
permutation of suits share one computation (an LRU cache keyed by the unseen cards per rank, the
up card's rank, the seen ranks of its suit and the player's strength).

Not modelled: the COM-7 cap on a hand's payouts (it depends on the other seats), and the meter's
rounding for percentage jackpot awards (the caller passes the award the hand would get).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from itertools import combinations, combinations_with_replacement
from math import comb

import numpy as np
import numpy.typing as npt

from ledger.evaluation import caribbean as csp
from ledger.evaluation import high
from ledger.evaluation._high_tables import FLUSH_STRENGTH
from ledger.evaluation._masks import RANK_BIT
from projections.protection.odds import ActionOdds
from projections.reports.mathematics.caribbean_counts import rank_strength

I64 = npt.NDArray[np.int64]

ACTIONS = ("fold", "play")
CELLS = ("not_qualified", "player_wins", "tie", "dealer_wins")
_CHOOSE = np.array([[comb(n, k) for k in range(5)] for n in range(5)], dtype=np.int64)


@dataclass(frozen=True)
class DealerCounts:
    """How the dealer's hidden hands fall against one player hand (CSP-3, CSP-4)."""

    strength: int
    """The player's strength (:mod:`ledger.evaluation.high`)."""
    not_qualified: int
    player_wins: int
    ties: int
    dealer_wins: int

    @property
    def total(self) -> int:
        return self.not_qualified + self.player_wins + self.ties + self.dealer_wins

    def by_cell(self) -> tuple[int, int, int, int]:
        return (self.not_qualified, self.player_wins, self.ties, self.dealer_wins)


@dataclass(frozen=True)
class _Tables:
    multisets: I64
    """(1820, 13): cards of each rank in each four-rank multiset."""
    strength: I64
    """(13, 1820): strength of the up rank plus each multiset (-1: five of a rank)."""
    qualifies: npt.NDArray[np.bool_]
    flush_masks: I64
    """(13, 495): four ranks other than the up rank, as rank masks."""
    flush_strength: I64
    flush_rank_strength: I64
    flush_rank_qualifies: npt.NDArray[np.bool_]


@cache
def _tables() -> _Tables:
    """The tables every decision shares (made at first use, a fraction of a second)."""
    multisets = np.zeros((1820, 13), dtype=np.int64)
    for j, combo in enumerate(combinations_with_replacement(range(13), 4)):
        for rank in combo:
            multisets[j, rank] += 1
    strength = np.full((13, 1820), -1, dtype=np.int64)
    qualifies = np.zeros((13, 1820), dtype=np.bool_)
    for j, combo in enumerate(combinations_with_replacement(range(13), 4)):
        for u in range(13):
            if combo.count(u) == 4:
                continue
            value = rank_strength((*combo, u))
            strength[u, j] = value
            qualifies[u, j] = csp.dealer_qualifies(value)
    masks = np.zeros((13, 495), dtype=np.int64)
    by_flush = np.zeros((13, 495), dtype=np.int64)
    by_rank = np.zeros((13, 495), dtype=np.int64)
    for u in range(13):
        for i, ranks in enumerate(combinations([r for r in range(13) if r != u], 4)):
            mask = sum(1 << r for r in ranks)
            masks[u, i] = mask
            by_flush[u, i] = FLUSH_STRENGTH[mask | 1 << u]
            by_rank[u, i] = rank_strength((*ranks, u))
    rank_q = np.vectorize(csp.dealer_qualifies, otypes=[np.bool_])(by_rank)
    return _Tables(multisets, strength, qualifies, masks, by_flush, by_rank, rank_q)


def dealer_counts(player: Sequence[int], up: int, also_seen: Sequence[int] = ()) -> DealerCounts:
    """Exact counts of the dealer's hidden four cards against ``player`` (five cards) given the
    up card ``up``: every 4-subset of the cards not seen (the 46 others; fewer when
    ``also_seen`` names more cards the player saw). Not validated: distinct cards 0..51."""
    seen = (*player, up, *also_seen)
    left = [4] * 13
    suit_seen = 0
    for card in seen:
        left[card >> 2] -= 1
        if card & 3 == up & 3 and card != up:
            suit_seen |= RANK_BIT[card]
    return _counts(tuple(left), up >> 2, suit_seen, high.evaluate(player))


@lru_cache(maxsize=65_536)
def _counts(left: tuple[int, ...], u: int, suit_seen: int, mine: int) -> DealerCounts:
    t = _tables()
    weight = np.prod(_CHOOSE[np.array(left)[None, :], t.multisets], axis=1)
    strength, qualifies = t.strength[u], t.qualifies[u]
    valid = strength >= 0
    weight = np.where(valid, weight, 0)
    not_q = int(weight[~qualifies].sum())
    wins = int(weight[qualifies & (strength < mine)].sum())
    ties = int(weight[qualifies & (strength == mine)].sum())
    # The four hidden cards all of the up card's suit: a flush (always qualifies), not the
    # high card or straight that its ranks alone make.
    free = (t.flush_masks[u] & suit_seen) == 0
    rank_q = t.flush_rank_qualifies[u]
    by_rank, by_flush = t.flush_rank_strength[u], t.flush_strength[u]
    not_q -= int((free & ~rank_q).sum())
    wins += int((free & (by_flush < mine)).sum()) - int((free & rank_q & (by_rank < mine)).sum())
    ties += int((free & (by_flush == mine)).sum()) - int((free & rank_q & (by_rank == mine)).sum())
    total = comb(sum(left), 4)
    return DealerCounts(mine, not_q, wins, ties, total - not_q - wins - ties)


def cell_of(player: Sequence[int], dealer: Sequence[int]) -> str:
    """The cell the dealer's five cards fall in against the player's five (CSP-3, CSP-4)."""
    theirs = high.evaluate(dealer)
    if not csp.dealer_qualifies(theirs):
        return "not_qualified"
    mine = high.evaluate(player)
    if mine > theirs:
        return "player_wins"
    return "tie" if mine == theirs else "dealer_wins"


def action_odds(counts: DealerCounts, ante: int, paytable: Mapping[str, int],
                jackpot_award: int = 0) -> ActionOdds:
    """Fold and Play, cell by cell, in minor units (CSP-2..4, CSP-6).

    ``paytable``: the table's Play paytable (category label -> N of N-1); ``jackpot_award``:
    what the player's hand wins on the side wager if it plays (0 without the wager or a
    jackpot line), forfeited by a fold."""
    odds = paytable[high.category(counts.strength).label]
    fold = -ante
    play = (ante, ante + 2 * ante * odds, 0, -3 * ante)
    return ActionOdds(
        actions=ACTIONS,
        cells=CELLS,
        counts=counts.by_cell(),
        results=tuple((fold, p + jackpot_award) for p in play),
    )


@cache
def _subsets(n: int) -> I64:
    from projections.reports.mathematics.caribbean_counts import combinations_array

    return combinations_array(n, 4)


def table_luck(seats: Sequence[tuple[Sequence[int], int]], up: int,
               hidden: Sequence[int]) -> tuple[float, float, float]:
    """The seats' Play results on the dealer's cards, each as if played and counted in its own
    Antes (CSP-3, CSP-4; ``seats``: each seat's five cards and its Play odds N), summed: the
    real sum with the dealer's ``hidden`` four, and its exact mean and variance over every
    four cards the seats and the up card leave (the seats share one dealer hand, so their
    results are summed hand by hand, not treated as independent)."""
    from projections.reports.mathematics.caribbean import strengths

    seen = {up, *(c for cards, _ in seats for c in cards)}
    rest = np.array([c for c in range(52) if c not in seen], dtype=np.int64)
    dealer = rest[_subsets(len(rest))]
    dealer = np.concatenate([dealer, np.full((len(dealer), 1), up, dtype=np.int64)], axis=1)
    theirs = strengths(dealer)
    qualifies = (theirs >> 20 >= high.Category.ONE_PAIR) | (
        (theirs >> 16 & 15 == 13) & (theirs >> 12 & 15 == 12))
    total = np.zeros(len(dealer), dtype=np.float64)
    real = 0.0
    real_theirs = high.evaluate((*hidden, up))
    real_q = csp.dealer_qualifies(real_theirs)
    for cards, odds in seats:
        mine = high.evaluate(cards)
        total += np.where(~qualifies, 1.0, np.where(theirs < mine, 1.0 + 2 * odds,
                                                    np.where(theirs == mine, 0.0, -3.0)))
        real += (1.0 if not real_q else 1.0 + 2 * odds if real_theirs < mine
                 else 0.0 if real_theirs == mine else -3.0)
    return real, float(total.mean()), float(total.var())


def jackpot_award(player: Sequence[int], fixed_awards: Mapping[str, int],
                  percent_awards_bps: Mapping[str, int], meter: int) -> int:
    """CSP-6/7: what the player's five cards win on the side wager, with the meter at ``meter``
    (percentage awards rounded down)."""
    line = csp.jackpot_line(high.evaluate(player))
    if line is None:
        return 0
    if line in fixed_awards:
        return fixed_awards[line]
    return meter * percent_awards_bps.get(line, 0) // 10_000
