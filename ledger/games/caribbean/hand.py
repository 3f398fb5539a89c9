"""The state of a CyberCaribbean Stud hand in progress."""

from __future__ import annotations

from typing import Literal

from ledger.domain.cards import Card
from ledger.domain.errors import RuleViolation
from ledger.domain.records import Record
from ledger.games.base import HandBase
from ledger.games.caribbean.config import GAME


class CaribbeanSeat(Record):
    seat: int
    player: str
    ante: int = 0
    jackpot: int = 0
    play: int = 0
    cards: tuple[Card, ...] = ()
    decision: Literal["fold", "play"] | None = None


Phase = Literal["wagers", "decisions", "reveal", "settle"]


class CaribbeanHand(HandBase):
    game: Literal["caribbean-stud"] = GAME
    phase: Phase = "wagers"
    seats: tuple[CaribbeanSeat, ...]
    dealer_down: tuple[Card, ...] = ()
    dealer_up: tuple[Card, ...] = ()

    def seat(self, number: int) -> CaribbeanSeat:
        for s in self.seats:
            if s.seat == number:
                return s
        raise RuleViolation("seat_not_in_hand", f"seat {number} is not in this hand", seat=number)

    def participants(self) -> tuple[int, ...]:
        return tuple(s.seat for s in self.seats)

    def replace(self, updated: CaribbeanSeat) -> tuple[CaribbeanSeat, ...]:
        return tuple(updated if s.seat == updated.seat else s for s in self.seats)

    @property
    def playing(self) -> tuple[CaribbeanSeat, ...]:
        """Seats dealt in: those with an Ante."""
        return tuple(s for s in self.seats if s.ante)

    @property
    def standing(self) -> tuple[CaribbeanSeat, ...]:
        """Seats with an Ante that have not folded (a player who left folds, COM-6)."""
        return tuple(s for s in self.playing if s.decision != "fold")

    @property
    def to_act(self) -> CaribbeanSeat | None:
        return next((s for s in self.playing if s.decision is None), None)

    @property
    def dealer_cards(self) -> tuple[int, ...]:
        return self.dealer_down + self.dealer_up
