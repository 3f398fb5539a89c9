"""A deliberately naive evaluator, independent of ``ledger.evaluation``, to check it against.

It sorts and counts every five-card subset, the textbook way: slow, short, easy to read. It shares
nothing with the evaluator under test but the card numbering (``rank * 4 + suit``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from itertools import combinations

ACE = 12
# Category numbers, worst to best, as in the rule book's ranking.
HIGH_CARD, ONE_PAIR, TWO_PAIR, TRIPS, STRAIGHT, FLUSH, FULL_HOUSE, QUADS, STRAIGHT_FLUSH, ROYAL = (
    range(10)
)

Hand = tuple[int, tuple[int, ...]]  # (category, ranks as compared)


def five_card_hand(cards: Sequence[int]) -> Hand:
    """Category and ranks of exactly five cards."""
    ranks = sorted((card // 4 for card in cards), reverse=True)
    is_flush = len({card % 4 for card in cards}) == 1
    distinct = sorted(set(ranks), reverse=True)
    straight_ranks: tuple[int, ...] | None = None
    if len(distinct) == 5:
        if distinct[0] - distinct[4] == 4:
            straight_ranks = tuple(distinct)
        elif distinct == [ACE, 3, 2, 1, 0]:
            straight_ranks = (3, 2, 1, 0, ACE)
    if straight_ranks is not None and is_flush:
        return (ROYAL if straight_ranks[0] == ACE else STRAIGHT_FLUSH), straight_ranks
    counts = Counter(ranks)
    # Groups: larger count first, then higher rank.
    grouped = sorted(counts.items(), key=lambda item: (item[1], item[0]), reverse=True)
    ordered = tuple(rank for rank, count in grouped for _ in range(count))
    shape = [count for _, count in grouped]
    if shape[0] == 4:
        return QUADS, ordered
    if shape[:2] == [3, 2]:
        return FULL_HOUSE, ordered
    if is_flush:
        return FLUSH, tuple(ranks)
    if straight_ranks is not None:
        return STRAIGHT, straight_ranks
    if shape[0] == 3:
        return TRIPS, ordered
    if shape[:2] == [2, 2]:
        return TWO_PAIR, ordered
    if shape[0] == 2:
        return ONE_PAIR, ordered
    return HIGH_CARD, ordered


def best_hand(cards: Sequence[int]) -> Hand:
    """The best five-card hand of 5 to 7 cards, by trying every five-card subset."""
    return max(five_card_hand(five) for five in combinations(cards, 5))


def partial_hand(cards: Sequence[int]) -> Hand:
    """Up to four cards (or a 3-card Chinese front): groups only, no straights or flushes."""
    counts = Counter(card // 4 for card in cards)
    grouped = sorted(counts.items(), key=lambda item: (item[1], item[0]), reverse=True)
    shape = [count for _, count in grouped]
    ordered = tuple(rank for rank, count in grouped for _ in range(count))
    if shape and shape[0] == 4:
        return QUADS, ordered
    if shape and shape[0] == 3:
        return TRIPS, ordered
    if shape[:2] == [2, 2]:
        return TWO_PAIR, ordered
    if shape and shape[0] == 2:
        return ONE_PAIR, ordered
    return HIGH_CARD, ordered


def best_low8(cards: Sequence[int]) -> tuple[int, ...] | None:
    """Best eight-or-better low as ranks 1..8 (ace = 1), highest first, or None (STUD8-7)."""
    values = {1 if card // 4 == ACE else card // 4 + 2 for card in cards}
    lows = sorted(value for value in values if value <= 8)
    if len(lows) < 5:
        return None
    candidates = [tuple(sorted(five, reverse=True)) for five in combinations(lows, 5)]
    return min(candidates)  # the lowest highest card, then the next, ...
