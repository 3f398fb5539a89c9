"""Chinese Poker: segment strengths, the foul check and automatic wins.

Rules: CHP-2 (front 3 cards, middle 5, back 5; back beats or equals middle, middle beats front;
no straights or flushes in the front; A-2-3-4-5 the lowest straight), CHP-3 (a wrong size or an
out-of-order set is fouled), CHP-7 (automatic wins).

A 3-card front is on the scale of :func:`ledger.evaluation.high.evaluate`: high card, one pair or
three of a kind, with 0 in the two missing positions, so it compares with a five-card segment by
category, then rank by rank, a missing kicker lower than any card (CHP-2 decision). Front K-K-A
loses to a middle K-K-A-5-3; front three of a kind beats a middle two pair.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum

from ledger.evaluation._masks import FULL_MASK, RANK_BIT, run_of
from ledger.evaluation.high import evaluate, evaluate_showing

__all__ = [
    "FRONT_SIZE",
    "SEGMENT_SIZES",
    "AutomaticWin",
    "automatic_wins",
    "best_automatic_win",
    "evaluate_front",
    "evaluate_segment",
    "is_fouled",
]

FRONT_SIZE = 3
BACK_SIZE = MIDDLE_SIZE = 5
SEGMENT_SIZES = (FRONT_SIZE, MIDDLE_SIZE, BACK_SIZE)
HAND_SIZE = sum(SEGMENT_SIZES)


class AutomaticWin(StrEnum):
    """CHP-7 automatic wins; the dragon beats the others, which are equal."""

    DRAGON = "dragon"
    SIX_PAIRS = "six_pairs"
    THREE_FLUSHES = "three_flushes"
    THREE_STRAIGHTS = "three_straights"


_PREFERENCE = (
    AutomaticWin.DRAGON,
    AutomaticWin.SIX_PAIRS,
    AutomaticWin.THREE_FLUSHES,
    AutomaticWin.THREE_STRAIGHTS,
)


def evaluate_front(cards: Sequence[int]) -> int:
    """CHP-2: strength of a 3-card front: high card, one pair or three of a kind only.

    Straights and flushes do not count; the two missing positions are 0. Not validated.
    """
    return evaluate_showing(cards)


def evaluate_segment(cards: Sequence[int]) -> int:
    """CHP-2: strength of a segment: 3 cards as a front, 5 cards as a standard hand."""
    return evaluate_showing(cards) if len(cards) == FRONT_SIZE else evaluate(cards)


def is_fouled(front: Sequence[int], middle: Sequence[int], back: Sequence[int]) -> bool:
    """CHP-3: fouled when a segment has the wrong size (3/5/5) or the segments are out of order.

    In order (CHP-2): the back beats or equals the middle, and the middle beats the front.
    """
    if (len(front), len(middle), len(back)) != SEGMENT_SIZES:
        return True
    middle_strength = evaluate(middle)
    return evaluate(back) < middle_strength or middle_strength <= evaluate_showing(front)


def automatic_wins(
    front: Sequence[int], middle: Sequence[int], back: Sequence[int]
) -> frozenset[AutomaticWin]:
    """CHP-7: every automatic win the 13 cards support as they are set.

    - Dragon: 13 different ranks, A to K.
    - Six pairs: six pairs and one odd card; four of a kind counts as two pairs, three of a kind
      is not a pair.
    - Three flushes: every segment of one suit, the front a 3-card flush.
    - Three straights: every segment a run, the front a 3-card run (A-2-3 lowest, Q-K-A highest),
      the five-card ones standard straights (A-2-3-4-5 lowest); no K-A-2 wrap.

    A straight flush counts as a straight or a flush. The order of the segments does not matter
    (an out-of-order set still wins automatically), but flushes and straights need segments of
    3, 5 and 5 cards. Anything other than 13 cards in all supports nothing.
    """
    segments = (front, middle, back)
    if sum(len(segment) for segment in segments) != HAND_SIZE:
        return frozenset()
    wins: set[AutomaticWin] = set()
    counts = [0] * 13
    rank_mask = 0
    for segment in segments:
        for card in segment:
            counts[card >> 2] += 1
            rank_mask |= RANK_BIT[card]
    if rank_mask == FULL_MASK:
        wins.add(AutomaticWin.DRAGON)
    if counts.count(2) + 2 * counts.count(4) == 6:  # with 13 cards the 13th is the odd card
        wins.add(AutomaticWin.SIX_PAIRS)
    if sorted(len(segment) for segment in segments) == sorted(SEGMENT_SIZES):
        if all(len({card & 3 for card in segment}) == 1 for segment in segments):
            wins.add(AutomaticWin.THREE_FLUSHES)
        if all(_is_run(segment) for segment in segments):
            wins.add(AutomaticWin.THREE_STRAIGHTS)
    return frozenset(wins)


def _is_run(cards: Sequence[int]) -> bool:
    mask = 0
    for card in cards:
        mask |= RANK_BIT[card]
    return run_of(mask, len(cards))


def best_automatic_win(
    front: Sequence[int], middle: Sequence[int], back: Sequence[int]
) -> AutomaticWin | None:
    """CHP-7: the automatic win to declare: the dragon first, else any other (equal in points:
    six pairs, then three flushes, then three straights); ``None`` when there is none."""
    wins = automatic_wins(front, middle, back)
    return next((win for win in _PREFERENCE if win in wins), None)
