"""Caribbean Stud: dealer qualification, Play paytable, progressive jackpot line.

Rules: CSP-3 (the dealer qualifies with A-K or better), CSP-4 (Play wager paytable), CSP-5
(standard ranking, A-2-3-4-5 the lowest straight: :mod:`ledger.evaluation.high`), CSP-6 and CSP-7
(jackpot lines; only the best one is paid). Everything here reads a strength from
:func:`ledger.evaluation.high.evaluate` of the five cards.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from ledger.evaluation.high import Category

__all__ = [
    "DEFAULT_PLAY_PAYTABLE",
    "JACKPOT_LINES",
    "dealer_qualifies",
    "jackpot_line",
    "play_odds",
]

_ACE_NIBBLE = 13  # rank index 12 + 1
_KING_NIBBLE = 12

DEFAULT_PLAY_PAYTABLE: Mapping[Category, int] = MappingProxyType(
    {
        Category.HIGH_CARD: 1,
        Category.ONE_PAIR: 1,
        Category.TWO_PAIR: 2,
        Category.THREE_OF_A_KIND: 3,
        Category.STRAIGHT: 4,
        Category.FLUSH: 5,
        Category.FULL_HOUSE: 7,
        Category.FOUR_OF_A_KIND: 20,
        Category.STRAIGHT_FLUSH: 50,
        Category.ROYAL_FLUSH: 100,
    }
)
"""CSP-4 default: category -> N of N-1 on the Play wager (one pair or less pays 1-1)."""

JACKPOT_LINES: tuple[str, ...] = (
    "flush",
    "full_house",
    "four_of_a_kind",
    "straight_flush",
    "royal_flush",
)
"""CSP-6: the hands that win the progressive jackpot side wager, lowest first."""


def dealer_qualifies(strength: int) -> bool:
    """CSP-3: A-K high or better: an ace and a king together, or any pair or better.

    A high-card hand lists its ranks highest first, so it holds an ace and a king exactly when
    its top two ranks are A and K. A-Q high does not qualify.
    """
    if strength >> 20 >= Category.ONE_PAIR:
        return True
    return strength >> 16 & 15 == _ACE_NIBBLE and strength >> 12 & 15 == _KING_NIBBLE


def play_odds(strength: int, paytable: Mapping[Category, int] = DEFAULT_PLAY_PAYTABLE) -> int:
    """CSP-4: the N of N-1 paid on a winning Play wager, by the player's category."""
    return paytable[Category(strength >> 20)]


def jackpot_line(strength: int) -> str | None:
    """CSP-6, CSP-7: the jackpot line the hand holds (a hand holds at most one: its category),
    or ``None``. A straight is not a jackpot hand."""
    label = Category(strength >> 20).label
    return label if label in JACKPOT_LINES else None
