"""The state of a Chinese Poker hand, and how records change it (CHP-1, CHP-3, CHP-7, CHP-9).

Phases: ``deal`` (the hand has started: fees taken, stakes in play) -> ``setting`` (every seat
holds 13 cards; the players set their hands, in any order) -> ``reveal`` (every player has set;
declarations are still accepted, CHP-7) -> ``settle`` (the hands are open). A hand in which
nobody set (every player left) skips ``reveal``: there is nothing to open.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Literal

from ledger.domain import accounts
from ledger.domain.cards import Card
from ledger.domain.errors import RuleViolation
from ledger.domain.frozen import replaced
from ledger.domain.records import (
    HAND_ENDINGS,
    CardsDealt,
    CardsRevealed,
    HandRecord,
    HandStarted,
    PlayerActed,
    Record,
    Transfer,
)
from ledger.games.base import HandBase
from ledger.games.chinese.config import GAME

SEATS = range(1, 5)
"""CHP-1: a Chinese Poker table has four seats, all dealt every hand."""
STAKE = "stake"
"""Kind of the spot holding a player's chips in play (``spot:<seat>:stake``, CHP-8)."""

Phase = Literal["deal", "setting", "reveal", "settle"]


def clockwise_from_left_of(button: int, seats: Iterable[int]) -> tuple[int, ...]:
    """``seats`` in clockwise order starting left of the button, the button last (CHP-9).

    Seats are numbered clockwise from the dealer's left, so clockwise is ascending and wraps.
    """
    size = len(SEATS)
    return tuple(sorted(seats, key=lambda s: (s - button - 1) % size))


def next_button(previous: int | None, seats: Sequence[int]) -> int:
    """The button for a new hand: the next seat clockwise after ``previous`` among ``seats``
    (the players dealt in), or the lowest of them on a table's first hand."""
    ordered = sorted(seats)
    if previous is None:
        return ordered[0]
    return next((s for s in ordered if s > previous), ordered[0])


class ChineseSeat(Record):
    """A player's seat in the hand."""

    seat: int
    player: str
    stake: int = 0
    """Chips in play (table stakes, CHP-8): the stack at the start of the hand after the fee."""
    fee: int = 0
    """CHP-11 fee taken from this player when the hand started."""
    cards: tuple[Card, ...] = ()
    segments: tuple[tuple[Card, ...], ...] | None = None
    """Front, middle, back as the player set them (sizes as given; a wrong size fouls, CHP-3)."""
    declaration: str | None = None
    """An automatic win declared (CHP-7)."""
    folded: bool = False
    """The player left before setting (COM-6): the hand is fouled (CHP-3)."""

    @property
    def done(self) -> bool:
        return self.folded or self.segments is not None


class EmptySeat(Record):
    """A seat without a player: dealt its 13 cards (CHP-1), scoring nothing (CHP-8)."""

    seat: int
    cards: tuple[Card, ...] = ()


class ChineseHand(HandBase):
    game: Literal["chinese-poker"] = GAME
    phase: Phase = "deal"
    button: int
    seats: tuple[ChineseSeat, ...]
    """The players of the hand in payment order: left of the button first, the button last."""
    empty: tuple[EmptySeat, ...] = ()

    def participants(self) -> tuple[int, ...]:
        return tuple(s.seat for s in self.seats)

    def seat(self, number: int) -> ChineseSeat:
        for s in self.seats:
            if s.seat == number:
                return s
        raise RuleViolation(
            "seat_not_in_hand", f"seat {number} has no player in this hand", seat=number
        )

    def replace(self, updated: ChineseSeat) -> tuple[ChineseSeat, ...]:
        return tuple(updated if s.seat == updated.seat else s for s in self.seats)

    @property
    def waiting(self) -> tuple[int, ...]:
        """Seats still to set, in payment order."""
        return tuple(s.seat for s in self.seats if not s.done)

    def after_actions(self) -> Phase:
        """The phase once every player has set or folded: open the hands, or settle straight
        away when nobody set (there is nothing to open)."""
        if self.waiting:
            return "setting"
        return "reveal" if any(s.segments is not None for s in self.seats) else "settle"


def evolve(hand: ChineseHand | None, record: HandRecord) -> ChineseHand | None:
    """The hand after ``record`` (the Game's ``evolve``)."""
    if isinstance(record, HandStarted):
        return _started(record)
    if hand is None or isinstance(record, HAND_ENDINGS):
        return None
    if isinstance(record, CardsDealt):
        seats, empty = hand.seats, list(hand.empty)
        players = set(hand.participants())
        for d in record.dealt:
            if not isinstance(d.target, int):
                continue
            if d.target in players:
                s = replaced(hand.seat(d.target), cards=d.cards)
                seats = tuple(s if x.seat == s.seat else x for x in seats)
            else:
                empty.append(EmptySeat(seat=d.target, cards=d.cards))
        dealt = replaced(hand, seats=seats, empty=tuple(empty))
        return replaced(dealt, phase=dealt.after_actions())
    if isinstance(record, PlayerActed):
        s = hand.seat(record.seat)
        if record.action == "set":
            s = replaced(s, segments=record.segments)
        elif record.action == "declare":
            s = replaced(s, declaration=record.declaration)
        elif record.action == "fold":
            s = replaced(s, folded=True)
        new = replaced(hand, seats=hand.replace(s))
        if new.phase == "setting":
            new = replaced(new, phase=new.after_actions())
        return new
    if isinstance(record, CardsRevealed):
        return replaced(hand, phase="settle")
    return hand


def _started(record: HandStarted) -> ChineseHand:
    if record.button is None:  # pragma: no cover - start always places the button
        raise ValueError("a Chinese Poker hand starts with a button")
    by_seat = {e.seat: e.player for e in record.seats}
    seats = tuple(
        ChineseSeat(
            seat=seat,
            player=by_seat[seat],
            stake=_moved(record.transfers, accounts.player(by_seat[seat]),
                         accounts.spot(seat, STAKE)),
            fee=_moved(record.transfers, accounts.player(by_seat[seat]), accounts.RAKE),
        )
        for seat in clockwise_from_left_of(record.button, by_seat)
    )
    return ChineseHand(hand_no=record.hand_no, button=record.button, seats=seats)


def _moved(transfers: Sequence[Transfer], src: str, dst: str) -> int:
    return sum(t.amount for t in transfers if t.src == src and t.dst == dst)
