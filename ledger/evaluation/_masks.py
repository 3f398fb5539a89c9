"""Rank masks: the small precomputed tables every evaluator shares.

A *rank mask* is a 13-bit integer with bit ``r`` set when rank ``r`` (0..12 = 2..A) is present.
Everything here is computed from plain arithmetic; nothing is read from disk. The tables of one
entry per mask are :class:`LazyTable`: made at their first lookup, not at import.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from ledger.domain.cards import DECK_SIZE

_V = TypeVar("_V")


class LazyTable(dict[int, _V]):
    """A table made whole by ``build`` (its entries in key order from 0) at its first lookup
    rather than at import: a command that evaluates no hand, or only a few with other tables,
    does not make it (those of this package take a tenth of a short command's start). Then
    a lookup is a plain dict's, and a key it lacks is a ``KeyError``. Only a lookup
    (``table[key]``) or :meth:`whole` makes it; a dict is no sequence (``numpy.array`` of one
    is an object, not the table): :meth:`whole` is the table as the tuple it was."""

    def __init__(self, build: Callable[[], Sequence[_V]]) -> None:
        super().__init__()
        self._build = build

    def __missing__(self, key: int) -> _V:
        if dict.__len__(self):
            raise KeyError(key)
        self.update(enumerate(self._build()))
        return self[key]

    def whole(self) -> tuple[_V, ...]:
        """Every entry in key order (the table as a tuple; made now if not yet)."""
        if not dict.__len__(self):
            self.update(enumerate(self._build()))
        return tuple(self.values())

RANK_COUNT = 13
MASK_COUNT = 1 << RANK_COUNT
ACE = 12
FULL_MASK = MASK_COUNT - 1

RANK_BIT: tuple[int, ...] = tuple(1 << (card >> 2) for card in range(DECK_SIZE))
"""``RANK_BIT[card]``: the rank-mask bit of a card."""


def _descending() -> tuple[tuple[int, ...], ...]:
    table: list[tuple[int, ...]] = [()]
    for mask in range(1, MASK_COUNT):
        top = mask.bit_length() - 1
        # The mask without its top bit is smaller, so its entry already exists.
        table.append((top, *table[mask ^ (1 << top)]))
    return tuple(table)


DESCENDING: LazyTable[tuple[int, ...]] = LazyTable(_descending)
"""``DESCENDING[mask]``: the ranks present in ``mask``, highest first."""


def _straights() -> tuple[tuple[int, int], ...]:
    runs = [(top, 0b11111 << (top - 4)) for top in range(ACE, 3, -1)]
    runs.append((3, 0b1111 | (1 << ACE)))  # the wheel A-2-3-4-5: its top card is the 5
    return tuple(runs)


STRAIGHTS: tuple[tuple[int, int], ...] = _straights()
"""``(top rank, mask)`` of the ten five-card straights, best first; the wheel is last (CSP-5)."""


def straight_ranks(top: int) -> tuple[int, ...]:
    """The five ranks of the straight with top card ``top``, as compared (wheel: 5 4 3 2 A)."""
    if top == 3:
        return (3, 2, 1, 0, ACE)
    return (top, top - 1, top - 2, top - 3, top - 4)


def _runs() -> tuple[int, ...]:
    """Longest run of consecutive ranks per mask, ace high or low, no K-A-2 wrap (HCF-10).

    Encoded ``length << 4 | top`` so that a larger value is a longer run, or at equal length a run
    with a higher top card. The ace is looked at twice: above the king and below the two; an
    ace-low run A-2-3 has top = rank of the 3. Equal length, the higher top card wins, so a lone
    ace is a run of one with top = ace.
    """
    table = [0] * MASK_COUNT
    for mask in range(1, MASK_COUNT):
        # Position p of the 14-bit line is: 0 the ace played low, 1..13 the ranks 2..A.
        line = (mask << 1) | (mask >> ACE & 1)
        length = 0
        starts = line
        while line:
            starts = line
            line &= line >> 1
            length += 1
        # ``starts`` marks each position where a run of ``length`` begins; the highest one wins.
        top_position = starts.bit_length() - 1 + length - 1
        table[mask] = length << 4 | (top_position - 1)
    return tuple(table)


RUNS: LazyTable[int] = LazyTable(_runs)
"""``RUNS[mask]`` = ``length << 4 | top rank`` of the mask's best run; 0 for the empty mask."""


def run_of(mask: int, length: int) -> bool:
    """True when ``mask`` is exactly one run of ``length`` consecutive ranks (ace high or low)."""
    return mask.bit_count() == length and RUNS[mask] >> 4 == length
