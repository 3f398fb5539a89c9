"""Chinese Poker: how far each player's arrangement fell short of its best against each opponent.

Once the hands are open, the ledger knows the 13 cards of every player and how each opponent
set them, so it can work out, for player A against opponent X, the most points A could have
scored against X's arrangement with any legal arrangement of A's 13 cards (CHP-2: back at
least the middle, middle above the front), scored as the table scores (CHP-3..5, ``basic`` or
``mandarin``). The *shortfall* is that best minus the points A's real arrangement scored
against X. Every honest arrangement falls short against some opponents (nobody sees the others'
cards when setting); what stands out is a player who falls short against one opponent far more
than against the others, hand after hand: points passed to a partner (:mod:`.stats` pair sums).

The super bonus (CHP-6) depends on all the hands of the table and is left out of both the best
and the real points; a pair where either hand is an automatic win (CHP-7) scores the same
whatever the arrangement and is no occasion. A fouled arrangement (CHP-3) scores its penalty:
fouling against a partner is a way of passing points, and it shows.

Speed: the 286 fronts and 1,287 five-card sets of a hand are evaluated once; the 72,072 ways of
splitting 13 cards into 3 + 5 + 5 are index tables made once per process, and the score against
an opponent is a few numpy operations over them (milliseconds per player and hand).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache, lru_cache
from itertools import combinations

import numpy as np
import numpy.typing as npt

from ledger.evaluation import high
from ledger.evaluation.chinese import evaluate_front, evaluate_segment
from ledger.games.chinese.config import Scoring
from ledger.games.chinese.hand import ChineseSeat
from ledger.games.chinese.scoring import (
    FOUL_POINTS,
    SCOOP_POINTS,
    Judged,
    judge,
    score_pair,
)

I64 = npt.NDArray[np.int64]
_BONUS = (
    {high.Category.THREE_OF_A_KIND: 3},
    {high.Category.STRAIGHT_FLUSH: 10, high.Category.ROYAL_FLUSH: 10,
     high.Category.FOUR_OF_A_KIND: 8, high.Category.FULL_HOUSE: 2},
    {high.Category.STRAIGHT_FLUSH: 5, high.Category.ROYAL_FLUSH: 5,
     high.Category.FOUR_OF_A_KIND: 4},
)
"""CHP-5 by segment, as :mod:`ledger.games.chinese.scoring` pays them."""


@cache
def _splits() -> tuple[I64, I64, I64, tuple[tuple[int, ...], ...], tuple[tuple[int, ...], ...]]:
    """Every 3 + 5 + 5 split of 13 positions: front index (into the 286 3-sets), middle and back
    indexes (into the 1,287 5-sets); and the sets themselves."""
    threes = tuple(combinations(range(13), 3))
    fives = tuple(combinations(range(13), 5))
    five_index = {sum(1 << i for i in s): n for n, s in enumerate(fives)}
    front, middle, back = [], [], []
    for f, three in enumerate(threes):
        rest = [i for i in range(13) if i not in three]
        for chosen in combinations(rest, 5):
            m = sum(1 << i for i in chosen)
            b = sum(1 << i for i in rest) ^ m
            front.append(f)
            middle.append(five_index[m])
            back.append(five_index[b])
    as_array = np.array
    return (as_array(front, dtype=np.int64), as_array(middle, dtype=np.int64),
            as_array(back, dtype=np.int64), threes, fives)


@lru_cache(maxsize=256)
def _arrangements(cards: tuple[int, ...], scoring: Scoring) -> tuple[I64, I64, I64, I64, I64,
                                                                      I64]:
    """The legal arrangements of 13 cards: segment strengths and CHP-5 bonuses (0 in
    ``basic``), one row per arrangement."""
    front_i, middle_i, back_i, threes, fives = _splits()
    fronts = np.array([evaluate_front([cards[i] for i in s]) for s in threes], dtype=np.int64)
    five = np.array([evaluate_segment([cards[i] for i in s]) for s in fives], dtype=np.int64)
    f, m, b = fronts[front_i], five[middle_i], five[back_i]
    legal = (b >= m) & (m > f)
    f, m, b = f[legal], m[legal], b[legal]
    bonus = [np.zeros(len(f), dtype=np.int64) for _ in range(3)]
    if scoring == "mandarin":
        for segment, strengths in enumerate((f, m, b)):
            category = strengths >> 20
            for cat, points in _BONUS[segment].items():
                bonus[segment] += np.where(category == int(cat), points, 0)
    return f, m, b, bonus[0], bonus[1], bonus[2]


def best_points(cards: Sequence[int], opponent: Judged, scoring: Scoring) -> int:
    """The most points any legal arrangement of ``cards`` scores against ``opponent``'s hand
    (played or fouled; CHP-3..5, without the super bonus)."""
    f, m, b, bf, bm, bb = _arrangements(tuple(sorted(cards)), scoring)
    own_bonus = (bf, bm, bb)
    if opponent.status == "fouled":
        return int(FOUL_POINTS + (bf + bm + bb).max())
    results = [np.sign(mine - theirs) for mine, theirs in zip((f, m, b), opponent.strengths,
                                                                strict=True)]
    net = results[0] + results[1] + results[2]
    points = net.copy()
    if scoring == "mandarin":
        points = np.where(np.abs(net) == 3, SCOOP_POINTS * (net // 3), net)
        theirs = {bonus.segment: bonus.points for bonus in opponent.bonuses}
        for segment in range(3):
            points = points + np.where(results[segment] == 1, own_bonus[segment], 0)
            points = points - np.where(results[segment] == -1, theirs.get(segment, 0), 0)
    return int(points.max())


def shortfalls(seats: Sequence[ChineseSeat], scoring: Scoring) -> dict[tuple[int, int], int]:
    """For every ordered pair of seats (A, X) where neither hand is an automatic win: the best
    points A could have scored against X's arrangement minus the points it did score."""
    judged = {s.seat: judge(s, scoring) for s in seats}
    out: dict[tuple[int, int], int] = {}
    for seat in seats:
        a = judged[seat.seat]
        if a.status == "automatic" or len(seat.cards) != 13:
            continue
        for other in seats:
            x = judged[other.seat]
            if other.seat == seat.seat or x.status == "automatic":
                continue
            real = score_pair(a, x, scoring, frozenset()).points
            out[(seat.seat, other.seat)] = best_points(seat.cards, x, scoring) - real
    return out
