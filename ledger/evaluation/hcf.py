"""High Card Flush: the flush, the straight-flush run, DP qualification, raise cap, bonus odds.

Rules: HCF-4 (the flush decides the hand), HCF-5 (raise cap by flush length), HCF-8 (the
designated player qualifies with a three-card 9-high flush), HCF-10 (Straight Flush Bonus),
HCF-11 (Flush Bonus).

Both results are frozen, ordered dataclasses whose natural order *is* the rule's order, so the
game module compares hands with ``<``, ``==`` and ``>``; the suit never takes part in comparison.

Speed: one 13-bit rank mask per suit is collected in a single pass over the cards; the flush is
the suit with the largest ``length << 13 | mask`` (for masks of equal length, the larger mask is
the one that is higher card by card), and the run comes from a table over all 8,192 masks
(:data:`ledger.evaluation._masks.RUNS`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType

from ledger.evaluation._masks import DESCENDING, MASK_COUNT, RANK_BIT, RUNS, LazyTable

__all__ = [
    "DEFAULT_FLUSH_BONUS_PAYTABLE",
    "DEFAULT_STRAIGHT_FLUSH_BONUS_PAYTABLE",
    "FLUSH_BONUS_MIN_LENGTH",
    "STRAIGHT_FLUSH_BONUS_MIN_LENGTH",
    "Flush",
    "StraightFlush",
    "dp_qualifies",
    "flush",
    "flush_bonus_odds",
    "max_raise_multiple",
    "straight_flush",
    "straight_flush_bonus_odds",
    "suit_masks",
]

NINE = 7  # rank index of the 9
HAND_SIZE = 7  # HCF-3: seven cards to every player and the DP
FLUSH_BONUS_MIN_LENGTH = 4  # HCF-11: the Flush Bonus needs at least four cards of one suit
STRAIGHT_FLUSH_BONUS_MIN_LENGTH = 3  # HCF-10: the Straight Flush Bonus needs a run of three

# Per-mask comparison keys, shifted left by 2 to hold the suit in the low bits, so that the
# max of the four suits' keys is the best suit, ties going to the higher suit.
_FLUSH_KEY: LazyTable[int] = LazyTable(lambda: [
    (mask.bit_count() << 13 | mask) << 2 for mask in range(MASK_COUNT)])
"""``(length << 13 | mask) << 2``; at equal lengths the larger mask is the higher (HCF-4)."""
_RUN_KEY: LazyTable[int] = LazyTable(lambda: [RUNS[mask] << 2 for mask in range(MASK_COUNT)])
"""``(length << 4 | top) << 2`` of each mask's longest run (HCF-10)."""

DEFAULT_FLUSH_BONUS_PAYTABLE: Mapping[int, int] = MappingProxyType({7: 200, 6: 50, 5: 10, 4: 2})
"""HCF-11 default: flush length -> N of N-1 (3 or fewer cards lose)."""

DEFAULT_STRAIGHT_FLUSH_BONUS_PAYTABLE: Mapping[int, int] = MappingProxyType(
    {7: 1000, 6: 500, 5: 100, 4: 60, 3: 8}
)
"""HCF-10 default: straight-flush length -> N of N-1."""


@dataclass(frozen=True, order=True, slots=True)
class Flush:
    """A hand's flush (HCF-4): its longest suit; between equal lengths, the higher cards.

    Ordered by length, then by the ranks from the highest down; equal in every rank is equal.
    """

    length: int
    ranks: tuple[int, ...]  # rank indexes of the flush suit, highest first
    suit: int = field(compare=False)


@dataclass(frozen=True, order=True, slots=True)
class StraightFlush:
    """A hand's longest run of consecutive ranks in one suit (HCF-10); a lone card is a run of 1.

    Ace high or low, never wrapping K-A-2; ``high`` is the rank index of the top card (A-2-3 has
    the 3 on top). Ordered by length, then by the top card.
    """

    length: int
    high: int
    suit: int = field(compare=False)


def suit_masks(cards: Sequence[int]) -> list[int]:
    """The 13-bit rank mask of each suit (c, d, h, s)."""
    masks = [0, 0, 0, 0]
    for card in cards:
        masks[card & 3] |= RANK_BIT[card]
    return masks


def flush(cards: Sequence[int]) -> Flush:
    """The flush of a hand (HCF-4): longest suit, equal lengths decided card by card.

    Two suits equal in every rank are the same flush; the higher suit index is reported.
    """
    masks = [0, 0, 0, 0]
    for card in cards:
        masks[card & 3] |= RANK_BIT[card]
    key = _FLUSH_KEY
    best = max(key[masks[0]], key[masks[1]] | 1, key[masks[2]] | 2, key[masks[3]] | 3)
    suit = best & 3
    return Flush(best >> 15, DESCENDING[masks[suit]], suit)


def straight_flush(cards: Sequence[int]) -> StraightFlush:
    """The longest straight-flush run of a hand (HCF-10); equal lengths: the higher top card."""
    masks = [0, 0, 0, 0]
    for card in cards:
        masks[card & 3] |= RANK_BIT[card]
    run = _RUN_KEY
    best = max(run[masks[0]], run[masks[1]] | 1, run[masks[2]] | 2, run[masks[3]] | 3)
    return StraightFlush(best >> 6, best >> 2 & 15, best & 3)


def dp_qualifies(hand_flush: Flush) -> bool:
    """HCF-8: a flush of four or more cards, or of three whose highest card is a 9 or higher."""
    if hand_flush.length >= 4:
        return True
    return hand_flush.length == 3 and hand_flush.ranks[0] >= NINE


def max_raise_multiple(flush_length: int) -> int:
    """HCF-5: the largest raise, in Antes: 3 with a 6- or 7-card flush, 2 with 5, else 1."""
    if flush_length >= 6:
        return 3
    if flush_length == 5:
        return 2
    return 1


def flush_bonus_odds(
    length: int, paytable: Mapping[int, int] = DEFAULT_FLUSH_BONUS_PAYTABLE
) -> int | None:
    """HCF-11: the N of N-1 paid on a winning Flush Bonus with a flush of ``length`` cards.

    ``None`` when the bet cannot win at this length: below four cards, whatever the paytable
    says, or a length the paytable does not list.
    """
    if length < FLUSH_BONUS_MIN_LENGTH:
        return None
    return paytable.get(length)


def straight_flush_bonus_odds(
    length: int, paytable: Mapping[int, int] = DEFAULT_STRAIGHT_FLUSH_BONUS_PAYTABLE
) -> int | None:
    """HCF-10: the N of N-1 paid on a winning Straight Flush Bonus with a run of ``length``.

    ``None`` when the bet cannot win at this length: below three cards, whatever the paytable
    says, or a length the paytable does not list.
    """
    if length < STRAIGHT_FLUSH_BONUS_MIN_LENGTH:
        return None
    return paytable.get(length)
