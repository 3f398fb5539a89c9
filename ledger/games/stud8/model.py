"""Settings and hand state of Seven Card Stud Hi/Lo Eight or Better (STUD8-1..11).

The configuration holds every table setting the rules leave to the house (STUD8-1 ante,
STUD8-2 bring-in tie-break, STUD8-5 raise cap, STUD8-8 chip unit, STUD8-11 rake); the hand state
is a frozen value that ``evolve`` replaces record by record. Chips a seat puts in stay on its own
spot, ``spot:<seat>:pot``, until settlement; the state keeps each seat's contribution so that
the pots of STUD8-9 are a pure function of it.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator, model_validator

from ledger.domain.bounds import Amount, AmountOrZero, BasisPoints, Count
from ledger.domain.cards import Card
from ledger.domain.errors import RuleViolation
from ledger.domain.frozen import Kept
from ledger.domain.records import Record
from ledger.games.base import ConfigBase, HandBase, Limits

GAME: Literal["stud-hilo"] = "stud-hilo"
STREET_NAMES = {3: "third_street", 4: "fourth_street", 5: "fifth_street",
                6: "sixth_street", 7: "seventh_street"}
STREET_RULES = {3: "STUD8-2", 4: "STUD8-3", 5: "STUD8-4", 6: "STUD8-4", 7: "STUD8-4"}
"""The rule that governs the betting of each street."""


class StudConfig(ConfigBase):
    """Table settings; every amount in minor units and a whole number of ``chip_unit`` chips.

    Defaults: a 10.00/20.00 game with a 2.00 ante (about a fifth of the small bet, STUD8-1) and
    a 5.00 bring-in (half the small bet, STUD8-2), chips of 1.00 (STUD8-8), one bet and three
    raises unlimited heads-up (STUD8-5), no rake (STUD8-11).
    """

    game: Literal["stud-hilo"] = GAME
    small_bet: Amount = 1_000
    """STUD8-2/3: bets and raises on third and fourth street."""
    big_bet: Amount = 2_000
    """STUD8-4: bets and raises on fifth to seventh street (and on fourth with an open pair)."""
    ante: Amount = 200
    """STUD8-1: posted by every seat dealt in."""
    chip_unit: Amount = 100
    """STUD8-8: the smallest chip; every wager and every split is made of whole chips."""
    bring_in_tiebreak: Literal["suit", "seat"] = "suit"
    """STUD8-2: equal lowest up cards: by suit (clubs lowest) or closest to the dealer's left."""
    max_raises: Count | None = 3
    """STUD8-5: raises allowed after the bet (or completion) in a round; None is unlimited."""
    heads_up_unlimited: bool = True
    """STUD8-5: no cap when only two players remain in the hand."""
    rake_bps: BasisPoints = 0
    """STUD8-11: rake as basis points of the pot."""
    rake_cap: AmountOrZero | None = None
    """STUD8-11: the most rake taken from one hand; None is no cap."""
    limits: dict[str, Limits] = Field(default_factory=dict)
    """Not used: fixed-limit stud posts its wagers as ``ante``, ``small_bet`` and ``big_bet``
    (COM-4, STUD8-2); any limits are refused."""

    @property
    def bring_in(self) -> int:
        """STUD8-2: the bring-in is half the small bet."""
        return self.small_bet // 2

    @field_validator("limits")
    @classmethod
    def _no_limits(cls, value: dict[str, Limits]) -> dict[str, Limits]:
        if value:
            raise ValueError(
                "fixed-limit stud posts its wagers as ante, small_bet and big_bet (COM-4, STUD8-2)"
            )
        return value

    @model_validator(mode="after")
    def _whole_chips(self) -> StudConfig:
        unit = self.chip_unit
        if self.big_bet < self.small_bet:
            raise ValueError("the big bet must not be smaller than the small bet (STUD8-4)")
        if self.small_bet % (2 * unit):
            raise ValueError(
                f"the small bet must be an even number of {unit}-chips so that the bring-in, "
                "half of it, is whole chips (STUD8-2, STUD8-8)"
            )
        for name in ("ante", "big_bet"):
            if getattr(self, name) % unit:
                raise ValueError(f"{name} must be whole chips of {unit} (STUD8-8)")
        if self.rake_cap is not None and self.rake_cap % unit:
            raise ValueError(f"rake_cap must be whole chips of {unit} (STUD8-11)")
        if self.max_aggregate_payout is not None:
            raise ValueError("stud is a pooled game: nothing is banked, COM-7 does not apply")
        return self


class StudSeat(Record):
    """One seat dealt into the hand."""

    seat: int
    player: str
    down: tuple[Card, ...] = ()
    up: tuple[Card, ...] = ()
    contributed: int = 0
    """Everything this seat put in this hand (ante included), on ``spot:<seat>:pot``."""
    street_bet: int = 0
    """What it put in on the current street (the ante and earlier streets excluded)."""
    folded_on: int | None = None
    """The street it folded on (3..7), None while live."""
    showdown: Literal["show", "muck"] | None = None

    @property
    def live(self) -> bool:
        return self.folded_on is None

    @property
    def cards(self) -> tuple[int, ...]:
        return self.down + self.up


class StreetAction(Record):
    """One decision on the current street: ``amount`` is what it put in."""

    seat: int
    action: str
    amount: int = 0


Phase = Literal["betting", "settle"]


class StudHand(HandBase):
    """The hand now: facts only. The state of the betting round is replayed from ``actions``
    with the table's settings (``betting.round_state``), and whose turn it is also depends on
    the stacks (a seat without chips behind is all-in and skipped), read from the table view.

    ``_round`` and ``_live`` (no fields: neither stored, compared nor copied) keep the round
    replayed for this hand, with the configuration it was replayed with, and its live seats."""

    __slots__ = ("_live", "_round")

    game: Literal["stud-hilo"] = GAME
    seats: tuple[StudSeat, ...]
    street: int = 0
    """The last street dealt (3..7); 0 before the deal."""
    community: tuple[Card, ...] = ()
    """STUD8-6: the community card, when the deck ran short on seventh street."""
    phase: Phase = "betting"
    actions: tuple[StreetAction, ...] = ()
    """What was done on the current street, in order (the round is replayed from it)."""

    def participants(self) -> tuple[int, ...]:
        return tuple(s.seat for s in self.seats)

    def seat(self, number: int) -> StudSeat:
        for s in self.seats:
            if s.seat == number:
                return s
        raise RuleViolation("seat_not_in_hand", f"seat {number} is not in this hand", seat=number)

    def replace(self, *updated: StudSeat) -> tuple[StudSeat, ...]:
        if len(updated) == 1:
            one = updated[0]
            number = one.seat
            return tuple([one if s.seat == number else s for s in self.seats])
        by_seat = {s.seat: s for s in updated}
        return tuple([by_seat.get(s.seat, s) for s in self.seats])

    @property
    def live(self) -> tuple[StudSeat, ...]:
        live: tuple[StudSeat, ...] | None = _LIVE.get(self)
        if live is None:
            live = tuple([s for s in self.seats if s.folded_on is None])
            _LIVE.put(self, live)
        return live

    @property
    def betting_street(self) -> int:
        """The street whose rules govern the hand's betting and its ending: third street before
        the deal too, since the antes are posted for it (STUD8-1). A seat that leaves after the
        antes folds on third street (COM-6), and a hand every other seat left before the deal
        ends on third street: won uncontested and not raked (STUD8-2, STUD8-11)."""
        return self.street or 3

    @property
    def pot_total(self) -> int:
        return sum(s.contributed for s in self.seats)


_LIVE = Kept(StudHand, "_live")
