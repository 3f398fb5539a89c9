"""Dealing: deck keepers for the ``rng`` source and the two ways a round reaches the table.

``rng`` tables deal from their committed deck one card at a time, round-robin over the game's
deal plan (:func:`deal_round_robin`); ``recorded`` tables take the cards a device reports and
check them against the plan and against every card already dealt (:func:`recorded_deal`,
COM-1, COM-8). The audit re-deals with the same function to check a revealed deck.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol

from ledger.domain.cards import ensure_distinct, new_salt, shuffled_deck
from ledger.domain.errors import InvalidInput
from ledger.domain.records import Dealt
from ledger.games.base import DealPlan


class DeckKeeper(Protocol):
    """Shuffles decks and keeps them sealed while a hand is in play (COM-8)."""

    def new_deck(self) -> tuple[tuple[int, ...], str]:
        """A fresh deck order and its salt."""

    def seal(self, deck: Sequence[int], salt: str) -> str:
        """The deck and salt in a form no read interface can open."""

    def unseal(self, sealed: str) -> tuple[tuple[int, ...], str]:
        """Back to the deck order and salt."""


class OpenDeckKeeper:
    """A keeper that seals nothing, for tests and tools that have no key: deck text + salt.

    ``decks`` optionally scripts the deck orders to hand out, in order (for reproducible tests).
    """

    def __init__(self, decks: Iterable[Sequence[int]] | None = None) -> None:
        self._decks = iter(decks) if decks is not None else None

    def new_deck(self) -> tuple[tuple[int, ...], str]:
        if self._decks is not None:
            deck = tuple(next(self._decks))
            return deck, "0" * 32
        return shuffled_deck(), new_salt()

    def seal(self, deck: Sequence[int], salt: str) -> str:
        return salt + ":" + ",".join(str(c) for c in deck)

    def unseal(self, sealed: str) -> tuple[tuple[int, ...], str]:
        salt, _, body = sealed.partition(":")
        return tuple(int(c) for c in body.split(",")), salt


def deal_round_robin(plan: DealPlan, cards: Sequence[int]) -> tuple[Dealt, ...]:
    """Deal ``cards`` one at a time over the plan's slots, down cards before up cards."""
    down: list[list[int]] = [[] for _ in plan.slots]
    up: list[list[int]] = [[] for _ in plan.slots]
    it = iter(cards)
    for k in range(max((s.count for s in plan.slots), default=0)):
        for i, slot in enumerate(plan.slots):
            if k < slot.down:
                down[i].append(next(it))
            elif k < slot.count:
                up[i].append(next(it))
    return tuple(
        Dealt(target=slot.target, down=tuple(down[i]), up=tuple(up[i]))
        for i, slot in enumerate(plan.slots)
    )


def recorded_deal(
    plan: DealPlan, reported: dict[str, tuple[int, ...]], already: Sequence[int]
) -> tuple[Dealt, ...]:
    """Check a device's report of a round against the plan (COM-1, COM-8)."""
    expected = {str(s.target): s for s in plan.slots}
    unknown = sorted(set(reported) - set(expected))
    missing = sorted(set(expected) - set(reported))
    if unknown or missing:
        raise InvalidInput(
            "wrong_deal_targets",
            f"this round ({plan.round}) deals to {', '.join(expected)}"
            + (f"; not to {', '.join(unknown)}" if unknown else "")
            + (f"; missing {', '.join(missing)}" if missing else ""),
            expected=list(expected),
            unknown=unknown,
            missing=missing,
        )
    dealt: list[Dealt] = []
    for key, slot in expected.items():
        cards = tuple(reported[key])
        if len(cards) != slot.count:
            raise InvalidInput(
                "wrong_card_count",
                f"{key} receives {slot.count} cards in {plan.round}, {len(cards)} reported",
                target=key,
                expected=slot.count,
                got=len(cards),
                rule="COM-1",
            )
        dealt.append(Dealt(target=slot.target, down=cards[: slot.down], up=cards[slot.down :]))
    everything = [*already, *(c for d in dealt for c in d.cards)]
    try:
        ensure_distinct(everything)
    except InvalidInput as exc:
        raise InvalidInput(
            "duplicate_card",
            f"{exc.details.get('card')} has already been dealt in this hand (COM-1)",
            card=exc.details.get("card"),
            rule="COM-1",
        ) from None
    return tuple(dealt)
