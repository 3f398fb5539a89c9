"""An independent, slower computation of the Caribbean Stud figures (CSP-2..7), to check
:mod:`.caribbean_counts` and :mod:`.caribbean` against.

It shares nothing with the rank-pattern method but the game's evaluator tables: no suit
classes, no rank multisets, no flush correction. For one dealer up card ``U`` every one of the
2,349,060 player hands ``P`` of the other 51 cards is taken one by one, and the dealer's hidden
hands disjoint from ``P`` are counted by inclusion and exclusion over the cards of ``P``::

    #{H : H ∩ P = ∅, H has property X} = Σ_{S ⊆ P, |S| ≤ 4} (-1)^|S| #{H ⊇ S : H has X}

where ``H`` runs over all ``C(51, 4) = 249,900`` hidden hands beside ``U`` and ``X`` is "does
not qualify" (CSP-3), or "qualifies and is below (or not above) ``P``". The counts of hands
holding ``S`` are tables indexed by the subset (1, 51, 1,275, 20,825 and 249,900 subsets of
sizes 0 to 4) and by the dealer's strength, cumulated over the strength, so each term is one
look-up. Per player hand this gives the exact numbers of dealer hands that do not qualify, lose,
tie and win, from which the strategies are decided and summed again here, with their own code.

Its cost is about ``C(51, 5) × 31`` look-ups per up card: seconds per up card, a minute or more
for the thirteen ranks (the suit of the up card changes nothing but the names of the suits, so
each rank is counted once with a spade and weighed four times).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from fractions import Fraction
from itertools import combinations
from math import comb
from typing import Any

import numpy as np
import numpy.typing as npt

from ledger.domain.cards import parse_cards
from ledger.evaluation import caribbean as csp
from ledger.evaluation import high
from projections.reports.mathematics.caribbean import strengths
from projections.reports.mathematics.caribbean_counts import combinations_array

I64 = npt.NDArray[np.int64]
Bool = npt.NDArray[np.bool_]

HIDDEN = comb(46, 4)
"""The dealer's hidden hands disjoint from a player's five cards and the up card."""
PLAYER_HANDS = comb(51, 5)
CHUNK = 100_000


@dataclass(frozen=True)
class UpCardCounts:
    """For one up card (a spade of ``up_rank``), one row per player hand of the other 51 cards."""

    up_rank: int
    cards: I64
    """(2,349,060, 5) card ids, each row in increasing order."""
    strength: I64
    not_qualified: I64
    player_wins: I64
    ties: I64

    @property
    def dealer_wins(self) -> I64:
        result: I64 = HIDDEN - self.not_qualified - self.player_wins - self.ties
        return result


def _subset_ids(cards: I64, positions: tuple[int, ...]) -> I64:
    """The combinatorial number of the chosen columns of each row (rows sorted ascending)."""
    ids = np.zeros(len(cards), dtype=np.int64)
    for j, p in enumerate(positions):
        column = cards[:, p]
        # C(column, j + 1), vectorised
        value = np.ones(len(cards), dtype=np.int64)
        for i in range(j + 1):
            value = value * (column - i) // (i + 1)
        ids += value
    return ids


def _qualifies(strength: I64) -> Bool:
    values, inverse = np.unique(strength, return_inverse=True)
    flags = np.array([csp.dealer_qualifies(int(v)) for v in values], dtype=np.bool_)
    result: Bool = flags[inverse]
    return result


def up_card_counts(up_rank: int) -> UpCardCounts:
    """Every player hand against the spade of ``up_rank``, counted by inclusion-exclusion."""
    up = up_rank * 4 + 3
    local = np.array([c for c in range(52) if c != up], dtype=np.int64)  # local id -> card

    hidden = combinations_array(51, 4)
    dealer = np.concatenate([local[hidden], np.full((len(hidden), 1), up, dtype=np.int64)],
                            axis=1)
    d_strength = strengths(dealer)
    qualified = _qualifies(d_strength)
    levels = np.unique(d_strength)
    position = np.searchsorted(levels, d_strength)
    width = len(levels) + 1

    # Per subset size k: cumulative counts of qualifying hidden hands holding the subset, by
    # the dealer's strength level; and the counts of hands that do not qualify.
    cumulative: dict[int, npt.NDArray[Any]] = {}
    not_q: dict[int, I64] = {}
    for k, dtype in ((0, np.int32), (1, np.int32), (2, np.int32), (3, np.int8)):
        subsets = comb(51, k)
        table = np.zeros((subsets, width), dtype=dtype)
        nq = np.zeros(subsets, dtype=np.int64)
        for positions in combinations(range(4), k):
            ids = _subset_ids(hidden, positions)
            np.add.at(table, (ids[qualified], position[qualified] + 1), 1)
            nq += np.bincount(ids[~qualified], minlength=subsets)
        cumulative[k] = np.cumsum(table, axis=1, dtype=dtype)
        not_q[k] = nq
    colex = _subset_ids(hidden, (0, 1, 2, 3))  # a hidden hand as a 4-subset of itself
    four_q = np.zeros(len(hidden), dtype=np.bool_)
    four_q[colex] = qualified
    four_position = np.zeros(len(hidden), dtype=np.int64)
    four_position[colex] = position

    out_nq, out_wins, out_ties, out_strength = [], [], [], []
    players = combinations_array(51, 5)
    for start in range(0, len(players), CHUNK):
        rows = players[start:start + CHUNK]
        p_strength = strengths(local[rows])
        below = np.searchsorted(levels, p_strength, side="left")
        upto = np.searchsorted(levels, p_strength, side="right")
        nq = np.zeros(len(rows), dtype=np.int64)
        lt = np.zeros(len(rows), dtype=np.int64)
        le = np.zeros(len(rows), dtype=np.int64)
        for k in range(5):
            sign = -1 if k % 2 else 1
            for positions in combinations(range(5), k):
                ids = _subset_ids(rows, positions)
                if k == 4:
                    q = four_q[ids]
                    nq += sign * ~q
                    lt += sign * (q & (four_position[ids] < below))
                    le += sign * (q & (four_position[ids] < upto))
                    continue
                table = cumulative[k]
                nq += sign * not_q[k][ids]
                lt += sign * table[ids, below].astype(np.int64)
                le += sign * table[ids, upto].astype(np.int64)
        out_nq.append(nq)
        out_wins.append(lt)
        out_ties.append(le - lt)
        out_strength.append(p_strength)
    return UpCardCounts(up_rank=up_rank, cards=local[players],
                        strength=np.concatenate(out_strength),
                        not_qualified=np.concatenate(out_nq),
                        player_wins=np.concatenate(out_wins), ties=np.concatenate(out_ties))


_AKJ83 = high.evaluate(parse_cards("As Kd Jc 8h 3s"))


def plays(counts: UpCardCounts, paytable: Mapping[str, int]) -> dict[str, Bool]:
    """Each strategy's decision for every player hand (written again, not imported)."""
    category = counts.strength >> 20
    win = 1 + 2 * np.array([paytable[c.label] for c in high.Category], dtype=np.int64)[category]
    value = counts.not_qualified + counts.player_wins * win - 3 * counts.dealer_wins
    return {
        "optimal": value > -HIDDEN,
        "akj83": counts.strength >= _AKJ83,
        "pair": category >= high.Category.ONE_PAIR,
        "ak": _qualifies(counts.strength),
        "always": np.ones(len(category), dtype=np.bool_),
    }


@dataclass
class Sums:
    """Integer sums over (player hand, up card) pairs, in Antes times ``HIDDEN``."""

    pairs: int = 0
    result: dict[str, int] | None = None
    played: dict[str, int] | None = None
    lines: dict[str, int] | None = None

    def add(self, counts: UpCardCounts, paytable: Mapping[str, int], weight: int = 4) -> None:
        self.result = self.result or {}
        self.played = self.played or {}
        self.lines = self.lines or {}
        category = counts.strength >> 20
        win = 1 + 2 * np.array([paytable[c.label] for c in high.Category],
                               dtype=np.int64)[category]
        value = counts.not_qualified + counts.player_wins * win - 3 * counts.dealer_wins
        self.pairs += weight * len(category)
        for name, chosen in plays(counts, paytable).items():
            total = int(np.where(chosen, value, -HIDDEN).sum())
            self.result[name] = self.result.get(name, 0) + weight * total
            self.played[name] = self.played.get(name, 0) + weight * int(chosen.sum())
            if name == "optimal":
                for line in csp.JACKPOT_LINES:
                    held = int((chosen & (category == high.Category[line.upper()])).sum())
                    self.lines[line] = self.lines.get(line, 0) + weight * held

    def figures(self) -> dict[str, Any]:
        assert self.result is not None and self.played is not None and self.lines is not None
        out: dict[str, Any] = {"strategies": {}, "lines": {}}
        for name, total in self.result.items():
            edge = -Fraction(total, self.pairs * HIDDEN)
            play = Fraction(self.played[name], self.pairs)
            out["strategies"][name] = {"house_edge": edge, "play_probability": play,
                                       "element_of_risk": edge / (1 + 2 * play)}
        out["lines"] = {line: Fraction(n, self.pairs) for line, n in self.lines.items()}
        return out


def every_up_card(paytable: Mapping[str, int]) -> Iterator[tuple[int, Sums]]:
    """The running sums after each up rank (2 to A); the last are the figures of the deck."""
    sums = Sums()
    for rank in range(13):
        sums.add(up_card_counts(rank), paytable)
        yield rank, sums
