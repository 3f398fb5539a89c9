"""Random decks for property tests, some with an automatic win planted in one seat (CHP-7)."""

from __future__ import annotations

import random

from ledger.domain.cards import FULL_DECK, make_card

KINDS = ("dragon", "six_pairs", "three_flushes", "three_straights")


def planted_hand(kind: str, rng: random.Random) -> list[int]:
    """13 random cards that hold the automatic win ``kind`` (when set the right way)."""
    if kind == "dragon":
        return [make_card(rank, rng.randrange(4)) for rank in range(13)]
    if kind == "six_pairs":
        ranks = rng.sample(range(13), 7)
        cards = [make_card(r, s) for r in ranks[:6] for s in rng.sample(range(4), 2)]
        return [*cards, make_card(ranks[6], rng.randrange(4))]
    if kind == "three_flushes":
        while True:
            suits = [rng.randrange(4) for _ in range(3)]
            need = {s: 0 for s in suits}
            for s, size in zip(suits, (3, 5, 5), strict=True):
                need[s] += size
            if all(n <= 13 for n in need.values()):
                return [make_card(r, s) for s, n in need.items() for r in rng.sample(range(13), n)]
    while True:  # three straights: runs of 3, 5 and 5 (the ace plays low as rank -1)
        cards = []
        for size in (3, 5, 5):
            top = rng.randrange(size - 2, 13)
            run = range(top - size + 1, top + 1)
            cards.extend(make_card(r % 13, rng.randrange(4)) for r in run)
        if len(set(cards)) == 13:
            return cards


def deck_with(rng: random.Random, plants: dict[int, str]) -> tuple[int, ...]:
    """A shuffled deck; the ``slot``-th seat dealt (0 = left of the button) of every entry of
    ``plants`` receives a hand holding that automatic win."""
    hands = {slot: planted_hand(kind, rng) for slot, kind in plants.items()}
    used = [c for hand in hands.values() for c in hand]
    if len(set(used)) != len(used):  # two planted hands clash: keep the first only
        first = min(hands)
        hands = {first: hands[first]}
    taken = {c for hand in hands.values() for c in hand}
    others = [c for c in FULL_DECK if c not in taken]
    rng.shuffle(others)
    for hand in hands.values():
        rng.shuffle(hand)
    return tuple(
        hands[position % 4].pop() if position % 4 in hands else others.pop()
        for position in range(52)
    )
