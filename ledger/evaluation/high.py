"""The standard high poker hand: best five of five to seven cards (COM-1, CSP-5, STUD8-7, CHP-2).

A hand's *strength* is an ``int``; a higher strength is a better hand, equal strengths tie, so
integer comparison is hand comparison. The encoding is public, other modules rely on it::

    strength = category << 20 | n1 << 16 | n2 << 12 | n3 << 8 | n4 << 4 | n5

``category`` is a :class:`Category`; ``n1..n5`` are the ranks as they are compared, most significant
first and grouped (full house K K K 4 4, two pair Q Q 7 7 A, the wheel 5 4 3 2 A), each written as
rank index + 1 (1..13, 2..A). A 0 means "no card": a 3-card Chinese front (CHP-2) or a partial stud
board has fewer than five, and a missing kicker compares lower than any card.

The ace plays high or low in a straight; A-2-3-4-5 (the wheel) is the lowest straight (CSP-5,
CHP-2), and the ace-high straight flush is a royal flush, a category of its own.

Speed: :func:`evaluate` sums one precomputed integer per card. The high bits of the sum identify the
multiset of ranks (``sum(5 ** rank)``; see :mod:`ledger.evaluation._high_tables`) and index a table
of the best non-flush hand; the low 16 bits count the cards of each suit in four nibbles, offset so
that a suit with five or more cards sets the top bit of its nibble. Only then are the ranks of that
suit collected into a 13-bit mask that indexes the flush / straight-flush table. No sorting, no
counting per call. Nothing is validated there: parse with :mod:`ledger.domain.cards` first.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import IntEnum

from ledger.domain.cards import DECK_SIZE, RANK_NAMES
from ledger.evaluation._high_tables import FLUSH_STRENGTH, POW5, RANK_STRENGTH
from ledger.evaluation._masks import RANK_BIT

__all__ = [
    "Category",
    "best_five",
    "category",
    "evaluate",
    "evaluate_showing",
    "rank_labels",
    "ranks",
]


class Category(IntEnum):
    """Hand categories, worst to best; ``strength >> 20``."""

    HIGH_CARD = 0
    ONE_PAIR = 1
    TWO_PAIR = 2
    THREE_OF_A_KIND = 3
    STRAIGHT = 4
    FLUSH = 5
    FULL_HOUSE = 6
    FOUR_OF_A_KIND = 7
    STRAIGHT_FLUSH = 8
    ROYAL_FLUSH = 9

    @property
    def label(self) -> str:
        """The snake_case name used in output: ``"full_house"``."""
        return self.name.lower()


_FLUSH_CATEGORIES = frozenset({Category.FLUSH, Category.STRAIGHT_FLUSH, Category.ROYAL_FLUSH})

_SUIT_OFFSET = 0x3333  # 3 in each suit nibble: a count of 5..7 sets that nibble's top bit
_SUIT_FULL = 0x8888
_CARD_KEY: tuple[int, ...] = tuple(
    POW5[card >> 2] << 16 | 1 << 4 * (card & 3) for card in range(DECK_SIZE)
)
_RANK_KEY: tuple[int, ...] = tuple(POW5[card >> 2] for card in range(DECK_SIZE))


def evaluate(cards: Sequence[int]) -> int:
    """Strength of the best five of 5, 6 or 7 distinct cards; higher is better (CSP-5, STUD8-7).

    Not validated: the caller passes distinct cards 0..51, as parsed by :mod:`ledger.domain.cards`.
    """
    key = _CARD_KEY
    if len(cards) == 7:  # the common case, unrolled
        a, b, c, d, e, f, g = cards
        total = key[a] + key[b] + key[c] + key[d] + key[e] + key[f] + key[g]
    else:
        total = 0
        for card in cards:
            total += key[card]
    flush_bits = (total + _SUIT_OFFSET) & _SUIT_FULL
    if not flush_bits:
        return RANK_STRENGTH[total >> 16]
    # With at most seven cards only one suit can hold five, and a flush beats any non-flush hand
    # those cards could make: a full house or quads would need three cards outside the suit.
    suit = (flush_bits.bit_length() >> 2) - 1
    mask = 0
    for card in cards:
        if card & 3 == suit:
            mask |= RANK_BIT[card]
    return FLUSH_STRENGTH[mask]


def evaluate_showing(cards: Sequence[int]) -> int:
    """Strength of 1 to 4 up cards (stud, STUD8-3): high card, pairs, trips or quads only.

    Same scale as :func:`evaluate`; the positions of absent cards are 0, so A-K showing beats
    A showing and loses to any five-card hand with an A-K top. Not validated.
    """
    total = 0
    for card in cards:
        total += _RANK_KEY[card]
    return RANK_STRENGTH[total]


def category(strength: int) -> Category:
    """The category of a strength."""
    return Category(strength >> 20)


def ranks(strength: int) -> tuple[int, ...]:
    """Rank indexes (0..12 = 2..A) as compared, most significant first; absent positions omitted.

    Full house K K K 4 4 -> ``(11, 11, 11, 2, 2)``; the wheel -> ``(3, 2, 1, 0, 12)``.
    """
    return tuple(n - 1 for shift in (16, 12, 8, 4, 0) if (n := strength >> shift & 15))


def rank_labels(strength: int) -> list[str]:
    """Ranks as text: ``["K", "K", "K", "4", "4"]``; the wheel ``["5", "4", "3", "2", "A"]``."""
    return [RANK_NAMES[rank] for rank in ranks(strength)]


def best_five(cards: Sequence[int], strength: int | None = None) -> tuple[int, ...]:
    """The cards that make ``strength``, in the order of :func:`ranks` (five, or fewer for a
    partial hand); among cards of one rank, in the order given.

    ``strength`` defaults to the evaluation of ``cards`` (:func:`evaluate` for five or more
    cards, :func:`evaluate_showing` for fewer). A strength these cards do not make is a
    ``ValueError``.
    """
    if strength is None:
        strength = evaluate(cards) if len(cards) >= 5 else evaluate_showing(cards)
    wanted = ranks(strength)
    chosen: list[int] = []
    if strength >> 20 in _FLUSH_CATEGORIES:
        suit = next((s for s in range(4) if all(r * 4 + s in cards for r in wanted)), 0)
        chosen = [rank * 4 + suit for rank in wanted]
    else:
        pool = list(cards)
        for rank in wanted:
            card = next((c for c in pool if c >> 2 == rank), None)
            if card is None:
                break
            pool.remove(card)
            chosen.append(card)
    made = evaluate(chosen) if len(chosen) == 5 else evaluate_showing(chosen)
    if made != strength or not all(card in cards for card in chosen):
        raise ValueError(f"these cards do not make the strength {strength:#x}")
    return tuple(chosen)
