"""The lookup tables behind :mod:`ledger.evaluation.high`, each built once, at its first use.

Strength encoding (public; see ``high``): ``category << 20 | n1 << 16 | n2 << 12 | n3 << 8 |
n4 << 4 | n5`` where ``n = rank index + 1`` and 0 means "no card".

*Rank table.* A multiset of ranks (each rank at most four times) is summed into a single integer
``sum(5 ** rank)``: the base-5 digits are the counts, so the sum is unique for every multiset of
every size. ``RANK_STRENGTH`` maps the key of every multiset of 0 to 7 cards to its best
non-flush hand (the empty one to 0). It is generated from nested rank masks rather than from card
combinations: a multiset is exactly ``m1 ⊇ m2 ⊇ m3 ⊇ m4`` (the ranks held at least once, twice,
three, four times), its key is ``K(m1) + K(m2) + K(m3) + K(m4)``, and its hand follows from the
masks directly.

*Flush table.* ``FLUSH_STRENGTH[mask]`` is the flush or straight flush of one suit holding the
ranks of ``mask`` (five or more). With seven cards or fewer, a hand holding a five-card flush
cannot hold a full house or four of a kind, so the flush table alone decides such hands.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import combinations
from typing import Any

from ledger.evaluation._masks import (
    ACE,
    DESCENDING,
    FULL_MASK,
    MASK_COUNT,
    RANK_COUNT,
    STRAIGHTS,
    LazyTable,
    straight_ranks,
)

HIGH_CARD, ONE_PAIR, TWO_PAIR, THREE_OF_A_KIND, STRAIGHT, FLUSH = 0, 1, 2, 3, 4, 5
FULL_HOUSE, FOUR_OF_A_KIND, STRAIGHT_FLUSH, ROYAL_FLUSH = 6, 7, 8, 9

MAX_CARDS = 7
POW5: tuple[int, ...] = tuple(5**rank for rank in range(RANK_COUNT))


def pack(category: int, ranks: tuple[int, ...]) -> int:
    """Encode a category and up to five rank indexes (most significant first)."""
    value = category
    for position in range(5):
        value = value << 4 | (ranks[position] + 1 if position < len(ranks) else 0)
    return value


def _mask_keys() -> tuple[int, ...]:
    keys = [0] * MASK_COUNT
    for mask in range(1, MASK_COUNT):
        low = mask & -mask
        keys[mask] = keys[mask ^ low] + POW5[low.bit_length() - 1]
    return tuple(keys)


def _kickers() -> list[tuple[int, ...]]:
    """``table[count][mask]``: the top ``count`` ranks of ``mask``, packed in ``count`` nibbles."""
    tables = [(0,) * MASK_COUNT]
    for count in range(1, 6):
        shorter = tables[count - 1]
        shift = 4 * (count - 1)
        table = [0] * MASK_COUNT
        for mask in range(1, MASK_COUNT):
            top = mask.bit_length() - 1
            table[mask] = (top + 1) << shift | shorter[mask ^ (1 << top)]
        tables.append(tuple(table))
    return tables


def _straight_values() -> tuple[int, ...]:
    """``table[mask]``: the strength of the best straight in ``mask``, 0 when there is none."""
    table = [0] * MASK_COUNT
    for top, run in reversed(STRAIGHTS):  # worst first, so that a better straight overwrites
        value = pack(STRAIGHT, straight_ranks(top))
        free = FULL_MASK ^ run
        extra = free
        while True:  # every superset of the run: the run plus each submask of the free ranks
            table[run | extra] = value
            if not extra:
                break
            extra = (extra - 1) & free
    return tuple(table)


MASK_KEY: LazyTable[int] = LazyTable(_mask_keys)
_KICK: LazyTable[tuple[int, ...]] = LazyTable(_kickers)
_STRAIGHT: LazyTable[int] = LazyTable(_straight_values)


def _by_size() -> tuple[tuple[int, ...], ...]:
    """``table[size]``: every rank mask of ``size`` ranks."""
    table: list[list[int]] = [[] for _ in range(RANK_COUNT + 1)]
    for mask in range(MASK_COUNT):
        table[mask.bit_count()].append(mask)
    return tuple(tuple(masks) for masks in table)


def _made_hand(m2: int, m3: int, m4: int) -> tuple[int, int, int]:
    """``(strength without kickers, ranks excluded from kickers, kicker count)`` of a shape.

    A shape is the nested masks of the ranks held at least twice, three and four times.
    """
    if m4:
        quad = m4.bit_length() - 1
        return pack(FOUR_OF_A_KIND, (quad,) * 4), 1 << quad, 1
    if m3:
        trips = m3.bit_length() - 1
        rest = m2 ^ (1 << trips)
        if rest:
            pair = rest.bit_length() - 1  # the second trips of 3-3-1 plays as the pair
            return pack(FULL_HOUSE, (trips,) * 3 + (pair,) * 2), FULL_MASK, 0
        return pack(THREE_OF_A_KIND, (trips,) * 3), 1 << trips, 2
    pairs = _ranks_down(m2)
    if len(pairs) >= 2:
        high, low = pairs[0], pairs[1]
        return pack(TWO_PAIR, (high, high, low, low)), 1 << high | 1 << low, 1
    if pairs:
        return pack(ONE_PAIR, (pairs[0],) * 2), m2, 3
    return pack(HIGH_CARD, ()), 0, 5


def _ranks_down(mask: int) -> list[int]:
    """The ranks of ``mask``, highest first (``DESCENDING[mask]``, without the table)."""
    ranks = []
    while mask:
        top = mask.bit_length() - 1
        ranks.append(top)
        mask ^= 1 << top
    return ranks


def _shapes(by_size: tuple[tuple[int, ...], ...]) -> Iterator[tuple[int, int, int]]:
    """Every ``(m2, m3, m4)`` with ``m4 ⊆ m3 ⊆ m2`` that fits in seven cards."""
    for size2 in range(4):  # m1 ⊇ m2 holds every paired rank once more: 2 * |m2| <= 7
        for m2 in by_size[size2]:
            for m3 in _submasks(m2, MAX_CARDS - 2 * size2):
                for m4 in _submasks(m3, MAX_CARDS - 2 * size2 - m3.bit_count()):
                    yield m2, m3, m4


def _submasks(mask: int, most: int) -> Iterator[int]:
    """Every submask of ``mask`` with at most ``most`` bits (the empty one included)."""
    bits = [1 << r for r in DESCENDING[mask]]
    for size in range(min(most, len(bits)) + 1):
        for chosen in combinations(bits, size):
            yield sum(chosen)


def _rank_strengths() -> dict[int, int]:
    """Key of every rank multiset of 0..7 cards -> its best non-flush strength (none: 0).

    The multiset is ``m1 = m2 | free`` plus its shape; ``free`` ranges over the ranks held once.
    """
    table: dict[int, int] = {}
    by_size = _by_size()
    for m2, m3, m4 in _shapes(by_size):
        base, excluded, kicker_count = _made_hand(m2, m3, m4)
        kickers = _KICK[kicker_count]
        keep = FULL_MASK ^ excluded
        room = MAX_CARDS - 2 * m2.bit_count() - m3.bit_count() - m4.bit_count()
        key = MASK_KEY[m2] + MASK_KEY[m3] + MASK_KEY[m4]
        # Every m1: the paired ranks and the ranks held once (``f``, disjoint from them).
        held = [m2 | f for size in range(room + 1) for f in by_size[size] if not f & m2]
        # Below a straight, five distinct ranks may still make one (5-5-5-6-7-8-9 is a straight).
        if base >> 20 < STRAIGHT and m2.bit_count() + room >= 5:
            for m1 in held:
                made, run = base | kickers[m1 & keep], _STRAIGHT[m1]
                table[key + MASK_KEY[m1]] = run if run > made else made
        else:
            for m1 in held:
                table[key + MASK_KEY[m1]] = base | kickers[m1 & keep]
    return table


def _rank_strength(key: object) -> int:
    """``RANK_STRENGTH[key]`` worked out alone, without the tables (the same strength as the
    table's; a ``KeyError`` for a key no multiset of at most seven cards has)."""
    if not isinstance(key, int) or key < 0:
        raise KeyError(key)
    held = [0, 0, 0, 0, 0]  # held[n]: the mask of the ranks held at least n times
    rest = key
    for rank in range(RANK_COUNT):
        rest, count = divmod(rest, 5)
        for times in range(1, count + 1):
            held[times] |= 1 << rank
    _, m1, m2, m3, m4 = held
    if rest or m1.bit_count() + m2.bit_count() + m3.bit_count() + m4.bit_count() > MAX_CARDS:
        raise KeyError(key)
    base, excluded, kicker_count = _made_hand(m2, m3, m4)
    kickers, free = 0, m1 & (FULL_MASK ^ excluded)
    for position in range(kicker_count - 1, -1, -1):  # as ``_KICK[kicker_count][free]``
        if free:
            top = free.bit_length() - 1
            kickers |= (top + 1) << 4 * position
            free ^= 1 << top
    made = base | kickers
    if base >> 20 < STRAIGHT:
        for top, run in STRAIGHTS:  # best first
            if m1 & run == run:
                straight = pack(STRAIGHT, straight_ranks(top))
                return straight if straight > made else made
    return made


def _flush_strengths() -> tuple[int, ...]:
    broadway = pack(STRAIGHT, straight_ranks(ACE))
    royal = pack(ROYAL_FLUSH, straight_ranks(ACE))
    to_straight_flush = (STRAIGHT_FLUSH - STRAIGHT) << 20
    flush = FLUSH << 20
    five = _KICK[5]
    table = [0] * MASK_COUNT
    for mask in range(MASK_COUNT):
        if mask.bit_count() >= 5:
            straight = _STRAIGHT[mask]
            if straight == broadway:
                table[mask] = royal
            elif straight:
                table[mask] = straight + to_straight_flush
            else:
                table[mask] = flush | five[mask]
    return tuple(table)


ALONE = 256
"""Keys of :data:`RANK_STRENGTH` worked out one by one before the whole table is built."""


class _RankTable(dict[int, int]):
    """:data:`RANK_STRENGTH`, built on demand rather than at import (a tenth of a second: most
    commands never evaluate a hand, ``ledger --help`` among them). The first :data:`ALONE` keys
    looked up are worked out one by one (:func:`_rank_strength`: the few dozen hands of one
    hand's replay cost a fraction of the whole table's 76,155 keys); the next builds the whole
    table. Anything but a lookup (``in``, ``len``, iterating) builds it too. It is the whole
    table once built: a key it lacks is a ``KeyError``, as in a plain dict."""

    whole = False

    def _built(self) -> _RankTable:
        if not self.whole:
            self.update(_rank_strengths())
            self.whole = True
        return self

    def __missing__(self, key: int) -> int:
        if self.whole:
            raise KeyError(key)
        if dict.__len__(self) < ALONE and type(key) is int:  # another type equal to an int
            value = self[key] = _rank_strength(key)  # key finds it in the whole table only
            return value
        return self._built()[key]

    def __iter__(self) -> Iterator[int]:
        return dict.__iter__(self._built())

    def __len__(self) -> int:
        return dict.__len__(self._built())

    def __contains__(self, key: object) -> bool:
        return dict.__contains__(self._built(), key)

    def get(self, key: int, default: Any = None) -> Any:
        return dict.get(self._built(), key, default)

    def keys(self) -> Any:
        return dict.keys(self._built())

    def values(self) -> Any:
        return dict.values(self._built())

    def items(self) -> Any:
        return dict.items(self._built())


RANK_STRENGTH: dict[int, int] = _RankTable()
"""Rank-multiset key -> best non-flush strength, for every multiset of 0..7 cards (0 -> 0);
built on first use."""

FLUSH_STRENGTH: LazyTable[int] = LazyTable(_flush_strengths)
"""Rank mask of one suit (5+ ranks) -> its flush or straight flush strength; 0 otherwise."""
