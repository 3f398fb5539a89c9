"""Setting a Chinese Poker hand for simulated players (never used on a hand a player set).

Helpers that split 13 cards into front (3), middle (5) and back (5): a quick legal arrangement,
random ones, arrangements that make three flushes or three straights (CHP-7), and deliberately
fouled ones (CHP-3) so that the simulator exercises every path. Every judgement is left to
:mod:`ledger.evaluation`; this module only searches.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from itertools import combinations, product

from ledger.evaluation import high
from ledger.evaluation.chinese import AutomaticWin, automatic_wins, is_fouled

Segments = tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]
SIZES = (3, 5, 5)
_STRAIGHTS = frozenset({high.Category.STRAIGHT, high.Category.STRAIGHT_FLUSH,
                        high.Category.ROYAL_FLUSH})


def _rest(cards: Sequence[int], used: Sequence[int]) -> tuple[int, ...]:
    taken = set(used)
    return tuple(c for c in cards if c not in taken)


def greedy(cards: Sequence[int]) -> Segments:
    """The best five cards at the back, the best five of the rest in the middle, the last three
    in front. Always in order (CHP-2): the back is the best five of all 13, so it beats or equals
    the middle, and the middle, the best five of eight cards that include the front, beats it."""
    back = max(combinations(cards, 5), key=high.evaluate)
    rest = _rest(cards, back)
    middle = max(combinations(rest, 5), key=high.evaluate)
    return _rest(rest, middle), middle, back


def random_split(cards: Sequence[int], rng: random.Random) -> Segments:
    """Any split into 3 / 5 / 5 cards, in order or not."""
    shuffled = list(cards)
    rng.shuffle(shuffled)
    return tuple(shuffled[:3]), tuple(shuffled[3:8]), tuple(shuffled[8:])


def random_legal(cards: Sequence[int], rng: random.Random, tries: int = 40) -> Segments:
    """A random split that is not fouled, else the greedy one."""
    for _ in range(tries):
        front, middle, back = random_split(cards, rng)
        if high.evaluate(middle) > high.evaluate(back):
            middle, back = back, middle
        if not is_fouled(front, middle, back):
            return front, middle, back
    return greedy(cards)


def fouled(cards: Sequence[int], rng: random.Random) -> tuple[tuple[int, ...], ...]:
    """A set the dealer will foul (CHP-3): segments out of order, or of the wrong sizes."""
    front, middle, back = greedy(cards)
    mode = rng.random()
    if mode < 0.6 and high.evaluate(back) > high.evaluate(middle):
        return front, back, middle
    if mode < 0.75:
        for _ in range(40):
            split = random_split(cards, rng)
            if is_fouled(*split):
                return split
    sizes = rng.choice(((4, 4, 5), (3, 4, 6), (2, 5, 6), (3, 6, 4)))
    flat = [*front, *middle, *back]
    return (tuple(flat[: sizes[0]]), tuple(flat[sizes[0]: sizes[0] + sizes[1]]),
            tuple(flat[sizes[0] + sizes[1]:]))


def three_flushes(cards: Sequence[int]) -> Segments | None:
    """A split with every segment of one suit (CHP-7), when the suits allow one."""
    by_suit: dict[int, list[int]] = {}
    for c in sorted(cards, reverse=True):
        by_suit.setdefault(c & 3, []).append(c)
    for suits in product(by_suit, repeat=3):
        need = {s: sum(size for size, x in zip(SIZES, suits, strict=True) if x == s)
                for s in by_suit}
        if any(need[s] != len(by_suit[s]) for s in by_suit):
            continue
        pools = {s: list(by_suit[s]) for s in by_suit}
        back = tuple(pools[suits[2]][:5])
        del pools[suits[2]][:5]
        middle = tuple(pools[suits[1]][:5])
        del pools[suits[1]][:5]
        front = tuple(pools[suits[0]][:3])
        if AutomaticWin.THREE_FLUSHES in automatic_wins(front, middle, back):
            return front, middle, back
    return None


def three_straights(cards: Sequence[int]) -> Segments | None:
    """A split with every segment a straight (CHP-7), when one exists."""
    runs = [five for five in combinations(cards, 5)
            if high.category(high.evaluate(five)) in _STRAIGHTS]
    for back in runs:
        rest = _rest(cards, back)
        for middle in combinations(rest, 5):
            if high.category(high.evaluate(middle)) not in _STRAIGHTS:
                continue
            front = _rest(rest, middle)
            if AutomaticWin.THREE_STRAIGHTS in automatic_wins(front, middle, back):
                return front, middle, back
    return None


def automatic(cards: Sequence[int]) -> tuple[AutomaticWin, Segments] | None:
    """The best automatic win the 13 cards allow (CHP-7) and a set that shows it: the Dragon and
    six pairs do not depend on the set; three flushes and three straights are searched for."""
    base = greedy(cards)
    found = automatic_wins(*base)
    for win in (AutomaticWin.DRAGON, AutomaticWin.SIX_PAIRS):
        if win in found:
            return win, base
    flushes = three_flushes(cards)
    if flushes is not None:
        return AutomaticWin.THREE_FLUSHES, flushes
    straights = three_straights(cards)
    if straights is not None:
        return AutomaticWin.THREE_STRAIGHTS, straights
    return None
