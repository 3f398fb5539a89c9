"""Eight-or-better low for five to seven cards (STUD8-7).

A qualifying low is five different ranks, all 8 or lower, the ace counting low; straights and
flushes do not spoil it. The best is A-2-3-4-5 (the wheel), the worst 8-7-6-5-4. High and low are
chosen independently from the same cards.

Value: ``evaluate_low8`` returns an ``int`` where a *higher value is a better low* (the same
direction as high strengths), or ``None`` when the cards hold no qualifying low. The five low ranks
form an 8-bit mask (bit 0 the ace, bit 1 the two, ... bit 7 the eight); between two sets of five,
the one whose highest card is lower, then the next, ... is the better low, which is exactly the
smaller mask. The value is ``255 - mask``: 224 for A-2-3-4-5, 7 for 8-7-6-5-4.

Speed: each card has a precomputed low bit (0 for 9 to K); the OR of the cards' bits indexes a
256-entry table. No sorting, no counting per call, no validation.
"""

from __future__ import annotations

from collections.abc import Sequence

from ledger.domain.cards import DECK_SIZE, RANK_NAMES
from ledger.evaluation._masks import ACE

__all__ = ["evaluate_low8", "low_labels", "low_ranks"]

_LOW_MASK = 0xFF
_LOW_RANK_OF_BIT = (ACE, 0, 1, 2, 3, 4, 5, 6)  # bit -> rank index: A, 2, 3, ..., 8


def _low_bit(card: int) -> int:
    rank = card >> 2
    if rank == ACE:
        return 1
    return 1 << (rank + 1) if rank <= 6 else 0


_LOW_BIT: tuple[int, ...] = tuple(_low_bit(card) for card in range(DECK_SIZE))


def _lowest_five(mask: int) -> int | None:
    if mask.bit_count() < 5:
        return None
    while mask.bit_count() > 5:  # keep the five lowest ranks
        mask ^= 1 << (mask.bit_length() - 1)
    return _LOW_MASK - mask


_LOW8: tuple[int | None, ...] = tuple(_lowest_five(mask) for mask in range(256))


def evaluate_low8(cards: Sequence[int]) -> int | None:
    """The best eight-or-better low of 5 to 7 cards, or ``None`` when there is none (STUD8-7).

    Higher is better; equal values tie. Not validated.
    """
    mask = 0
    for card in cards:
        mask |= _LOW_BIT[card]
    return _LOW8[mask]


def low_ranks(value: int) -> tuple[int, ...]:
    """The five rank indexes of a low, highest first: 8-6-4-2-A -> ``(6, 4, 2, 0, 12)``."""
    mask = _LOW_MASK - value
    if not 0 <= mask <= _LOW_MASK or mask.bit_count() != 5:
        raise ValueError(f"{value} is not an eight-or-better low value")
    return tuple(_LOW_RANK_OF_BIT[bit] for bit in range(7, -1, -1) if mask >> bit & 1)


def low_labels(value: int) -> list[str]:
    """The low as text, highest first: ``["8", "6", "4", "2", "A"]``."""
    return [RANK_NAMES[rank] for rank in low_ranks(value)]
