"""Exact dealer-outcome counts of CyberCaribbean Stud for every player hand and dealer up card.

For a player's five cards ``P`` and the dealer's up card ``U``, the dealer's four hidden cards
are any 4 of the 46 cards left: ``C(46, 4) = 163,185`` hands, each equally likely. What the
Play/fold decision needs (CSP-2..4) is how many of them

- do not qualify (CSP-3: below A-K high): the Ante wins even money, the Play pushes;
- qualify and lose to ``P``; tie ``P`` exactly (a push, CSP-4); or qualify and beat ``P``.

Brute force (2,598,960 × 47 × 163,185 evaluations) is out of reach. Instead:

*Suits.* Up to a permutation of suits, ``U`` is a spade. What then matters of ``P`` is its rank
multiset (6,175 patterns), the ranks of its spades ``M`` (they cannot be in a dealer's spade
flush), and whether ``P`` is a flush. All 2,598,960 player hands are reduced to distinct
``(pattern, M, flush)`` classes with multiplicities, then paired with every spade ``u`` not in
``M``; every ``(P, U)`` pair of the deck is one of these keys four times over (the suit of ``U``).

*Ranks (non-flush dealer hands).* The dealer's hand is ``u`` plus a multiset ``R4`` of four
ranks (1,820 of them); the number of ways to take ``R4`` from what is left is
``∏ C(n_r, k_r)`` with ``n_r = 4 - (cards of rank r in P) - [r == u]``. This depends only on
``(pattern, u)``, so ~80,000 rows of 1,820 weights give every dealer rank multiset its count,
each classified once against the player's threshold (its strength) and CSP-3.

*Flushes.* Those counts include, for four distinct ranks ``F`` not in ``M ∪ {u}``, the one way
of taking all four hidden cards in spades, which makes the dealer a spade flush (or straight
flush) instead of the high card or straight its ranks alone make. For each key the 495 sets
``F`` are checked against ``M`` and the count moves from the rank strength to the flush
strength.

Every figure is an exact integer; sums stay well inside ``int64``. The whole computation takes a
few seconds with numpy on one core.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from itertools import combinations, combinations_with_replacement
from math import comb

import numpy as np
import numpy.typing as npt

from ledger.evaluation import caribbean as csp
from ledger.evaluation import high
from ledger.evaluation._high_tables import FLUSH_STRENGTH

I64 = npt.NDArray[np.int64]
Bool = npt.NDArray[np.bool_]

DEALER_HANDS = 163_185  # C(46, 4): the dealer's hidden cards given P and U
PAIRS_PER_SUIT = 4  # the up card's suit: every key stands for four (P, U) pairs
SPADE = 3
_CHOOSE = np.array([[comb(n, k) for k in range(5)] for n in range(5)], dtype=np.int64)
"""``_CHOOSE[n, k] = C(n, k)`` for n, k in 0..4."""
_CHOOSE32 = _CHOOSE.astype(np.int32)


@dataclass(frozen=True)
class Counts:
    """One row per ``(P class, u)`` key; every array has one entry per key.

    ``weight`` counts the (P, U) pairs of the deck with U a spade that the key stands for
    (multiply by 4 for all four suits of U). The dealer counts sum to ``DEALER_HANDS``.
    """

    weight: I64
    strength: I64
    """The player's strength (:mod:`ledger.evaluation.high`)."""
    not_qualified: I64
    player_wins: I64
    ties: I64
    dealer_wins: I64
    up_rank: I64
    pattern: I64
    spade_mask: I64
    flush: Bool

    @property
    def category(self) -> I64:
        return self.strength >> 20

    @property
    def keys(self) -> int:
        return len(self.weight)


def rank_strength(ranks: tuple[int, ...]) -> int:
    """Strength of five cards with these ranks in no single suit."""
    seen: dict[int, int] = {}
    cards = []
    for rank in ranks:
        suit = seen.get(rank, 0)
        seen[rank] = suit + 1
        cards.append(rank * 4 + suit)
    if len({c & 3 for c in cards}) == 1:  # five distinct ranks all given suit 0
        cards[0] += 1
    return high.evaluate(cards)


def _four_rank_multisets() -> tuple[I64, I64]:
    """Every multiset of four ranks as (rank, count) pairs padded to four: (1820, 4) x 2."""
    ranks, counts = [], []
    for combo in combinations_with_replacement(range(13), 4):
        pairs = sorted({r: combo.count(r) for r in combo}.items())
        pairs += [(0, 0)] * (4 - len(pairs))
        ranks.append([p[0] for p in pairs])
        counts.append([p[1] for p in pairs])
    return np.array(ranks, dtype=np.int64), np.array(counts, dtype=np.int64)


def _dealer_rank_table(r4_ranks: I64, r4_counts: I64) -> tuple[I64, Bool]:
    """Strength and CSP-3 qualification of ``u`` + each four-rank multiset: (13, 1820)."""
    strength = np.full((13, len(r4_ranks)), -1, dtype=np.int64)
    qualifies = np.zeros((13, len(r4_ranks)), dtype=np.bool_)
    for j in range(len(r4_ranks)):
        base = [int(r) for r, k in zip(r4_ranks[j], r4_counts[j], strict=True) for _ in range(k)]
        for u in range(13):
            ranks = (*base, u)
            if max(ranks.count(r) for r in ranks) > 4:
                continue  # five of a rank: its weight is always 0
            value = rank_strength(ranks)
            strength[u, j] = value
            qualifies[u, j] = csp.dealer_qualifies(value)
    return strength, qualifies


def _player_classes() -> tuple[I64, I64, I64, I64]:
    """Every five-card hand reduced to (pattern key, spade mask, flush) with multiplicity."""
    hands = combinations_array(52, 5)
    ranks, suits = hands >> 2, hands & 3
    pattern = (5 ** ranks).sum(axis=1)
    spades = ((suits == SPADE) << ranks).sum(axis=1)
    flush = (suits == suits[:, :1]).all(axis=1).astype(np.int64)
    key = pattern << 14 | spades << 1 | flush
    unique, weight = np.unique(key, return_counts=True)
    return unique >> 14, unique >> 1 & 0x1FFF, unique & 1, weight.astype(np.int64)


def combinations_array(n: int, k: int) -> I64:
    """Every k-subset of ``range(n)`` in lexicographic order, one row each (numpy, no loop over
    the subsets)."""
    rows = np.arange(n, dtype=np.int64)[:, None]
    for _ in range(k - 1):
        last = rows[:, -1]
        extend = n - 1 - last
        repeated = np.repeat(rows, extend, axis=0)
        starts = np.repeat(last + 1 - np.cumsum(extend) + extend, extend)
        following = np.arange(len(repeated), dtype=np.int64) + starts
        rows = np.concatenate([repeated, following[:, None]], axis=1)
    return rows[np.all(rows < n, axis=1)] if k else np.zeros((1, 0), dtype=np.int64)


def _pattern_ranks(pattern: int) -> tuple[int, ...]:
    ranks: list[int] = []
    for rank in range(13):
        ranks += [rank] * (pattern // 5**rank % 5)
    return tuple(ranks)


@cache
def dealer_counts() -> Counts:
    """The exact counts for every key (computed once per process, a few seconds)."""
    patterns, spade_masks, flushes, class_weight = _player_classes()
    r4_ranks, r4_counts = _four_rank_multisets()
    dealer_strength, dealer_qualifies = _dealer_rank_table(r4_ranks, r4_counts)

    # Player strength per class: by ranks, or the flush table for a flush.
    pattern_ids, pattern_index = np.unique(patterns, return_inverse=True)
    pattern_ranks = [_pattern_ranks(int(p)) for p in pattern_ids]
    by_ranks = np.array([rank_strength(r) for r in pattern_ranks], dtype=np.int64)
    rank_mask = np.array([sum(1 << r for r in set(rs)) for rs in pattern_ranks], dtype=np.int64)
    flush_table = np.array(FLUSH_STRENGTH.whole(), dtype=np.int64)
    strength = np.where(flushes == 1, flush_table[rank_mask[pattern_index]],
                        by_ranks[pattern_index])
    held = np.array([[rs.count(r) for r in range(13)] for rs in pattern_ranks], dtype=np.int64)

    # Expand each class with every spade up card it leaves in the deck.
    rows = [(i, u) for i in range(len(patterns)) for u in range(13)
            if not int(spade_masks[i]) >> u & 1]
    cls = np.array([r[0] for r in rows], dtype=np.int64)
    up = np.array([r[1] for r in rows], dtype=np.int64)
    pid = pattern_index[cls]
    threshold = strength[cls]

    not_q, wins, ties = _rank_part(pid, up, threshold, held, r4_ranks, r4_counts,
                                   dealer_strength, dealer_qualifies)
    _flush_part(spade_masks[cls], up, threshold, not_q, wins, ties)
    dealer_wins = DEALER_HANDS - not_q - wins - ties
    return Counts(weight=class_weight[cls], strength=threshold, not_qualified=not_q,
                  player_wins=wins, ties=ties, dealer_wins=dealer_wins, up_rank=up,
                  pattern=patterns[cls], spade_mask=spade_masks[cls],
                  flush=flushes[cls] == 1)


def _rank_part(pid: I64, up: I64, threshold: I64, held: I64, r4_ranks: I64, r4_counts: I64,
               dealer_strength: I64, dealer_qualifies: Bool) -> tuple[I64, I64, I64]:
    """Dealer counts by rank multiset (flushes counted at their rank strength for now).

    For each up rank the 1,820 multisets are sorted by the dealer's strength, so that "does not
    qualify", "below the player" and "not above the player" are prefixes: one cumulative sum of
    the weights per row gives all three counts.
    """
    not_q = np.zeros(len(pid), dtype=np.int64)
    wins = np.zeros(len(pid), dtype=np.int64)
    ties = np.zeros(len(pid), dtype=np.int64)
    for u in range(13):
        rows = np.nonzero(up == u)[0]
        if not len(rows):
            continue
        valid = dealer_strength[u] >= 0
        order = np.argsort(np.where(valid, dealer_strength[u], -1), kind="stable")
        order = order[valid[order]]
        strengths = dealer_strength[u][order]
        ranks, counts = r4_ranks[order], r4_counts[order]
        first_q = int(np.argmax(dealer_qualifies[u][order]))
        # Rows sharing a pattern share their weights; the threshold only moves the cut.
        pats, inverse = np.unique(pid[rows], return_inverse=True)
        left = 4 - held[pats]
        left[:, u] -= 1
        weight = np.ones((len(pats), len(order)), dtype=np.int32)
        for slot in range(4):
            weight *= _CHOOSE32[left[:, ranks[:, slot]], counts[None, :, slot]]
        cumulative = np.zeros((len(pats), len(order) + 1), dtype=np.int64)
        np.cumsum(weight, axis=1, out=cumulative[:, 1:])
        below = np.searchsorted(strengths, threshold[rows], side="left")
        upto = np.searchsorted(strengths, threshold[rows], side="right")
        below_q = np.maximum(below, first_q)
        upto_q = np.maximum(upto, first_q)
        start = cumulative[inverse, first_q]
        below_count = cumulative[inverse, below_q]
        not_q[rows] = start
        wins[rows] = below_count - start
        ties[rows] = cumulative[inverse, upto_q] - below_count
    return not_q, wins, ties


def _flush_part(spade_mask: I64, up: I64, threshold: I64, not_q: I64, wins: I64,
                ties: I64) -> None:
    """Move each dealer spade flush from its rank strength to its flush strength (in place)."""
    for u in range(13):
        others = [r for r in range(13) if r != u]
        sets = list(combinations(others, 4))
        masks = np.array([sum(1 << r for r in s) for s in sets], dtype=np.int64)
        by_rank = np.array([rank_strength((*s, u)) for s in sets], dtype=np.int64)
        by_flush = np.array([FLUSH_STRENGTH[m | 1 << u] for m in masks], dtype=np.int64)
        rank_q = np.array([csp.dealer_qualifies(int(v)) for v in by_rank], dtype=np.bool_)
        rows = np.nonzero(up == u)[0]
        for start in range(0, len(rows), 8192):
            idx = rows[start:start + 8192]
            free = (masks[None, :] & spade_mask[idx, None]) == 0  # (B, 495)
            thr = threshold[idx, None]
            # A flush always qualifies; the rank strength it replaces may not.
            not_q[idx] -= (free & ~rank_q).sum(axis=1)
            wins[idx] += (free & (by_flush < thr)).sum(axis=1)
            wins[idx] -= (free & rank_q & (by_rank < thr)).sum(axis=1)
            ties[idx] += (free & (by_flush == thr)).sum(axis=1)
            ties[idx] -= (free & rank_q & (by_rank == thr)).sum(axis=1)
