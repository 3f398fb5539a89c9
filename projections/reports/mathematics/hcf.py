"""The mathematics of a High Card Flush table with a designated player (HCF-4..11), exact.

A player and the DP each hold seven cards of one deck. Every figure is a count of ordered pairs
``(player's hand, DP's hand)``, made exact by the structure of the game: a hand's flush
(HCF-4) and its straight-flush run (HCF-10) are each the best of four *per-suit* values, and a
condition "the best of the four suits is at most x" holds exactly when it holds in every suit.
So for a per-suit table ``F[a][b]`` (how many disjoint pairs of rank sets ``A``, ``B`` in one
suit, of sizes ``a`` and ``b``, meet the condition), the number of pairs of hands meeting it in
every suit is the coefficient of ``u^7 v^7`` in ``F(u, v)^4``.

Flushes compare by length, then rank by rank from the top: a suit's key is ``(len, mask)`` and
at equal lengths the larger 13-bit mask is the better flush. "At most x" in one suit means a
shorter set, or a set of x's length whose mask is at most x's; the pairs where both sets sit at
their threshold's length are counted from a two-dimensional prefix table over the masks of those
lengths. Straight-flush runs (``length << 4 | top``) have about ninety values; the per-suit
table is a histogram of all 3^13 ways of giving each rank to the player, the DP or neither.

Figures (per unit wagered; every one an exact rational):

- the probability that the DP qualifies (HCF-8);
- the Flush Bonus (HCF-11) and the Straight Flush Bonus (HCF-10) as the table plays them, a wager
  that must beat the DP's hand (a push at equal hands), and the same paytables as pure paytables
  (paid on the player's hand alone); both assume the hand stays in action (a player who folds
  loses the bonus wagers, HCF-5);
- the player's expected result against the DP for the best strategy among those that look at
  the player's own flush (length and ranks): for each flush, fold, raise 1x Ante or raise the
  maximum (HCF-5), whichever is worth most given that flush. Card removal in the player's other
  suits is averaged over, which is what a strategy card does. The DP's expected win per player
  hand is its negative; the fee (HCF-13) is apart.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from functools import cache
from itertools import combinations
from math import comb
from typing import Any

import numpy as np
import numpy.typing as npt

from ledger.evaluation import hcf as ev
from ledger.evaluation._masks import RUNS

I64 = npt.NDArray[np.int64]
HAND = ev.HAND_SIZE
RANKS: tuple[int, ...] = tuple(range(13))


class Deck:
    """A deck of four suits over ``ranks`` and hands of ``hand`` cards (the real game: 13 and 7;
    the tests use smaller ones that brute force can check)."""

    def __init__(self, ranks: Sequence[int] = RANKS, hand: int = HAND) -> None:
        self.ranks = tuple(ranks)
        self.hand = hand
        self.n = len(self.ranks)
        self.size = hand + 1
        # Masks of each length over these ranks, in flush order (smaller mask: worse flush).
        self.masks = [sorted(sum(1 << r for r in c) for c in combinations(self.ranks, length))
                      for length in range(self.n + 1)]
        self.index = [{m: i for i, m in enumerate(ms)} for ms in self.masks]
        self.total = comb(4 * self.n, hand) * comb(4 * self.n - hand, hand)

    def choose(self, n: int, k: int) -> int:
        return comb(n, k) if 0 <= k <= n else 0

    @cache  # noqa: B019 - one Deck per shape, kept for the process
    def pair_prefix(self, la: int, lb: int) -> I64:
        """``T[i, j]``: disjoint (A, B), ``|A| = la``, ``|B| = lb``, A among the first ``i``
        masks of its length and B among the first ``j``."""
        ma = np.array(self.masks[la], dtype=np.int64)
        mb = np.array(self.masks[lb], dtype=np.int64)
        table = np.zeros((len(ma) + 1, len(mb) + 1), dtype=np.int64)
        if la + lb <= self.n:
            disjoint = (ma[:, None] & mb[None, :]) == 0
            table[1:, 1:] = disjoint.cumsum(axis=0).cumsum(axis=1)
        return table

    def flush_table(self, x: tuple[int, int], y: tuple[int, int]) -> I64:
        """Per-suit ``F[a][b]`` for "player's suit at most x, DP's at most y"; a threshold is
        ``(length, count)``: sets shorter than ``length``, or of that length among the first
        ``count`` masks (length ``size`` means no limit)."""
        (lx, ix), (ly, iy) = x, y
        f = np.zeros((self.size, self.size), dtype=np.int64)
        n = self.n
        for a in range(min(lx, self.hand) + 1):
            for b in range(min(ly, self.hand) + 1):
                if a < lx and b < ly:
                    f[a, b] = self.choose(n, a) * self.choose(n - a, b)
                elif a == lx and b < ly:
                    f[a, b] = ix * self.choose(n - a, b)
                elif a < lx and b == ly:
                    f[a, b] = iy * self.choose(n - b, a)
                else:
                    f[a, b] = int(self.pair_prefix(lx, ly)[ix, iy])
        return f

    def hands_pairs(self, tables: Sequence[I64]) -> I64:
        """For each per-suit table, the pairs of hands meeting it in all four suits."""
        batch = np.stack(tables)
        square = np.zeros_like(batch)
        for a in range(self.size):
            for b in range(self.size):
                square[:, a:, b:] += batch[:, a:a + 1, b:b + 1] * batch[:, :self.size - a,
                                                                        :self.size - b]
        pairs: I64 = (square * square[:, ::-1, ::-1]).sum(axis=(1, 2))
        return pairs


def _pairs_77(deck: Deck, tables: Sequence[I64]) -> I64:
    return deck.hands_pairs(tables)


@cache
def flush_counts(deck: Deck) -> dict[str, Any]:
    """Per player flush ``(length, mask)``: hands with it (times the DP's hands), DP hands
    below it, tied with it, and not qualifying (HCF-8), all as pair counts."""
    nq_len = 3
    # HCF-8: the three-card flushes that do not qualify are those below a 9 (8-7-6 and down).
    nq_count = sum(1 for m in deck.masks[nq_len] if m < 1 << ev.NINE)
    everything = (deck.size, 0)
    rows = []
    tables = []
    for length in range(1, deck.hand + 1):
        for k, mask in enumerate(deck.masks[length]):
            at, below = (length, k + 1), (length, k)
            tables += [deck.flush_table(at, below), deck.flush_table(below, below),
                       deck.flush_table(at, at), deck.flush_table(below, at),
                       deck.flush_table(at, (nq_len, nq_count)),
                       deck.flush_table(below, (nq_len, nq_count)),
                       deck.flush_table(at, everything), deck.flush_table(below, everything)]
            rows.append((length, mask))
    values = _pairs_77(deck, tables).reshape(-1, 8)
    wins = values[:, 0] - values[:, 1]
    ties = values[:, 2] - values[:, 3] - wins
    not_q = values[:, 4] - values[:, 5]
    hands = values[:, 6] - values[:, 7]
    dp_nq = int(_pairs_77(deck, [deck.flush_table(everything, (nq_len, nq_count))])[0])
    return {"keys": rows, "wins": wins, "ties": ties, "not_qualified": not_q, "hands": hands,
            "dp_not_qualified": dp_nq, "nq_key": (nq_len, nq_count)}


@cache
def run_counts(deck: Deck) -> dict[str, Any]:
    """Per player straight-flush run key: hands (times the DP's), DP runs below it, ties."""
    n = deck.n
    digits = np.arange(3 ** n, dtype=np.int64)
    mask_a = np.zeros_like(digits)
    mask_b = np.zeros_like(digits)
    for position, rank in enumerate(deck.ranks):
        digit = digits // 3 ** position % 3
        mask_a |= (digit == 1).astype(np.int64) << rank
        mask_b |= (digit == 2).astype(np.int64) << rank
    size_a = np.array([bin(m).count("1") for m in range(1 << 13)], dtype=np.int64)
    a, b = size_a[mask_a], size_a[mask_b]
    keep = (a <= deck.hand) & (b <= deck.hand)
    runs = np.array(RUNS.whole(), dtype=np.int64)
    ka, kb = runs[mask_a[keep]], runs[mask_b[keep]]
    keys = np.unique(np.concatenate([ka, kb]))
    ia, ib = np.searchsorted(keys, ka), np.searchsorted(keys, kb)
    hist = np.zeros((deck.size, deck.size, len(keys) + 1, len(keys) + 1), dtype=np.int64)
    np.add.at(hist, (a[keep], b[keep], ia + 1, ib + 1), 1)
    cumulative = hist.cumsum(axis=2).cumsum(axis=3)
    last = len(keys)
    tables = []
    for k in range(len(keys)):
        at, below = k + 1, k
        tables += [cumulative[:, :, at, below], cumulative[:, :, below, below],
                   cumulative[:, :, at, at], cumulative[:, :, below, at],
                   cumulative[:, :, at, last], cumulative[:, :, below, last]]
    values = _pairs_77(deck, tables).reshape(-1, 6)
    wins = values[:, 0] - values[:, 1]
    ties = values[:, 2] - values[:, 3] - wins
    hands = values[:, 4] - values[:, 5]
    return {"keys": [int(k) for k in keys], "wins": wins, "ties": ties, "hands": hands}


def _ratio(numerator: int, denominator: int) -> Fraction:
    return Fraction(int(numerator), int(denominator))


def exact(flush_paytable: Mapping[int, int], straight_flush_paytable: Mapping[int, int],
          deck: Deck | None = None) -> dict[str, Any]:
    """Every exact figure (Fractions) for the given bonus paytables (N of N-1 by length)."""
    deck = deck or _standard()
    fc = flush_counts(deck)
    rc = run_counts(deck)
    total = deck.total
    qualify = 1 - _ratio(fc["dp_not_qualified"], total)
    lengths = [k[0] for k in fc["keys"]]

    # The main game (HCF-8, HCF-9): per flush, the best of fold, raise 1x, raise the maximum.
    nq_len, nq_count = fc["nq_key"]
    strategy = []
    player_total = Fraction(0)
    raised = Fraction(0)
    raise_units = Fraction(0)
    for i, (length, mask) in enumerate(fc["keys"]):
        hands = int(fc["hands"][i])
        if not hands:
            continue
        rank = deck.index[length][mask]
        beats_nq = (length, rank) >= (nq_len, nq_count)
        not_q = int(fc["not_qualified"][i])
        wins = int(fc["wins"][i]) - (not_q if beats_nq else int(fc["wins"][i]))
        ties = int(fc["ties"][i]) if beats_nq else 0
        losses = hands - not_q - wins - ties
        best, action = Fraction(-1), "fold"
        for multiple in sorted({1, ev.max_raise_multiple(length)}):
            value = _ratio(not_q + (wins - losses) * (1 + multiple), hands)
            if value > best:
                best, action = value, f"raise {multiple}x"
        strategy.append({"length": length, "mask": mask, "action": action, "value": best})
        weight = _ratio(hands, total)
        player_total += weight * best
        if action != "fold":
            raised += weight
            raise_units += weight * int(action.split()[1].rstrip("x"))

    def bonus(keys: list[int], key_length: list[int], counts: dict[str, Any],
              paytable: Mapping[int, int], minimum: int) -> tuple[Fraction, Fraction]:
        against = Fraction(0)
        pure = Fraction(0)
        for i, length in enumerate(key_length):
            hands = int(counts["hands"][i])
            odds = paytable.get(length) if length >= minimum else None
            if odds is None:
                against -= _ratio(hands, total)
                pure -= _ratio(hands, total)
                continue
            wins, ties = int(counts["wins"][i]), int(counts["ties"][i])
            against += _ratio(wins * odds - (hands - wins - ties), total)
            pure += _ratio(hands * odds, total)
        return against, pure

    flush_against, flush_pure = bonus(
        [k[1] for k in fc["keys"]], lengths, fc, flush_paytable, ev.FLUSH_BONUS_MIN_LENGTH)
    run_lengths = [k >> 4 for k in rc["keys"]]
    sf_against, sf_pure = bonus(rc["keys"], run_lengths, rc, straight_flush_paytable,
                                ev.STRAIGHT_FLUSH_BONUS_MIN_LENGTH)
    flush_dist: dict[int, Fraction] = {}
    for i, length in enumerate(lengths):
        flush_dist[length] = flush_dist.get(length, Fraction(0)) + _ratio(fc["hands"][i], total)
    run_dist: dict[int, Fraction] = {}
    for i, length in enumerate(run_lengths):
        run_dist[length] = run_dist.get(length, Fraction(0)) + _ratio(rc["hands"][i], total)
    return {
        "dp_qualifies": qualify,
        "player_expected": player_total,
        "dp_expected_per_player_hand": -player_total,
        "raise_probability": raised,
        "mean_raise_antes": raise_units,
        "flush_bonus": {"against_dp": flush_against, "pure": flush_pure},
        "straight_flush_bonus": {"against_dp": sf_against, "pure": sf_pure},
        "flush_length_probability": dict(sorted(flush_dist.items())),
        "run_length_probability": dict(sorted(run_dist.items())),
        "strategy": strategy,
    }


@cache
def _standard() -> Deck:
    return Deck()
