"""High Card Flush values: the table configuration, the hand state and the rotation memo.

Everything here is a frozen pydantic value; :mod:`ledger.games.hcf.game` decides and evolves,
:mod:`ledger.games.hcf.settlement` settles. Seat order helpers live here too, because the deal
(HCF-3), the decisions, the settlement (HCF-7) and the rotation (HCF-1) all walk the table.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from ledger.domain.bounds import Amount, AmountOrZero, Odds
from ledger.domain.cards import Card
from ledger.domain.errors import RuleViolation
from ledger.domain.records import Record
from ledger.evaluation import hcf as ev
from ledger.games.base import ConfigBase, HandBase, Limits

GAME: Final = "high-card-flush"
DP_ROLE = "designated_player"

ANTE = "ante"
RAISE = "raise"
FLUSH_BONUS = "flush_bonus"
STRAIGHT_FLUSH_BONUS = "straight_flush_bonus"
HOUSE_FEE = "house_fee"
WAGER_KINDS = (ANTE, FLUSH_BONUS, STRAIGHT_FLUSH_BONUS)
"""Wagers a player places before the deal (HCF-2); the table posts limits for each it offers."""
BONUS_KINDS = (FLUSH_BONUS, STRAIGHT_FLUSH_BONUS)

RakeMethod = Literal["i", "ii", "iii"]
CoveragePolicy = Literal["in-order", "collect-first"]


class RakeConfig(Record):
    """HCF-13: the house fee per participant and who pays it (disclosed at the table).

    ``i``: every player and the DP pay ``fee``; ``ii``: every player, not the DP; ``iii``: only
    the DP, one fee. A fee of 0 (the default) rakes nothing.
    """

    method: RakeMethod = "i"
    """HCF-13: ``i`` every player and the DP pay the fee, ``ii`` every player but not the DP,
    ``iii`` only the DP."""
    fee: AmountOrZero = 0
    """HCF-13: the fee per participant who pays, in minor units; 0 rakes nothing."""

    @property
    def players_pay(self) -> int:
        """The fee each player owes (HCF-13 (i), (ii))."""
        return self.fee if self.method in ("i", "ii") else 0

    @property
    def dp_pays(self) -> int:
        """The fee the DP owes (HCF-13 (i), (iii))."""
        return self.fee if self.method in ("i", "iii") else 0


def _check_paytable(value: dict[int, int], lengths: range, rule: str) -> dict[int, int]:
    unknown = sorted(set(value) - set(lengths))
    if unknown:
        raise ValueError(
            f"paytable lengths {unknown} cannot win; lengths {lengths.start}..{lengths.stop - 1}"
            f" only ({rule})"
        )
    if any(odds < 1 for odds in value.values()):
        raise ValueError(f"paytable odds must be at least 1 ({rule})")
    return dict(sorted(value.items(), reverse=True))


def _default_limits() -> dict[str, Limits]:
    return {
        ANTE: Limits(min=500, max=50_000),
        FLUSH_BONUS: Limits(min=100, max=10_000),
        STRAIGHT_FLUSH_BONUS: Limits(min=100, max=10_000),
    }


class HcfConfig(ConfigBase):
    """The table settings of High Card Flush (every one a COM-4 configuration change).

    ``limits`` posts the Ante and each bonus wager the table offers (COM-4, HCF-2): a bonus kind
    without limits is not offered. Paytables map the player's length to N of N-1 (HCF-10,
    HCF-11); a length left out never wins. ``dp_minimum_bank`` makes a seat eligible for the DP
    role (HCF-1); ``coverage_policy`` orders the coverage test (HCF-12); ``rake`` is HCF-13.
    """

    game: Literal["high-card-flush"] = GAME
    limits: dict[str, Limits] = Field(default_factory=_default_limits)
    """COM-4, HCF-2: limits of ``ante`` (required) and of each bonus wager the table offers
    (``flush_bonus``, ``straight_flush_bonus``); a bonus without limits is not offered."""
    flush_bonus_paytable: dict[int, Odds] = Field(
        default_factory=lambda: dict(ev.DEFAULT_FLUSH_BONUS_PAYTABLE)
    )
    """HCF-11: odds N (of N-1) of the Flush Bonus by the player's flush length; a length left
    out never wins."""
    straight_flush_bonus_paytable: dict[int, Odds] = Field(
        default_factory=lambda: dict(ev.DEFAULT_STRAIGHT_FLUSH_BONUS_PAYTABLE)
    )
    """HCF-10: odds N (of N-1) of the Straight Flush Bonus by the straight flush's length."""
    dp_minimum_bank: Amount = 10_000
    """HCF-1: the least stack that makes a seat eligible to bank the hand."""
    coverage_policy: CoveragePolicy = "in-order"
    """HCF-12: ``in-order`` tests each seat in the HCF-7 order; ``collect-first`` settles the seats
    that win nothing net first (HCF-7 order), then the net winners (HCF-7 order)."""
    rake: RakeConfig = Field(default_factory=RakeConfig)
    """HCF-13: the house fee and who pays it."""

    @field_validator("limits")
    @classmethod
    def _limits(cls, value: dict[str, Limits]) -> dict[str, Limits]:
        if ANTE not in value:
            raise ValueError("the table must post Ante limits (COM-4, HCF-2)")
        unknown = sorted(set(value) - set(WAGER_KINDS))
        if unknown:
            raise ValueError(f"limits for unknown wagers {unknown}; wagers: {list(WAGER_KINDS)}")
        if value[ANTE].min < 1:
            raise ValueError("the Ante minimum must be positive (HCF-2)")
        return value

    @field_validator("flush_bonus_paytable")
    @classmethod
    def _flush_paytable(cls, value: dict[int, int]) -> dict[int, int]:
        return _check_paytable(value, range(ev.FLUSH_BONUS_MIN_LENGTH, 8), "HCF-11")

    @field_validator("straight_flush_bonus_paytable")
    @classmethod
    def _sf_paytable(cls, value: dict[int, int]) -> dict[int, int]:
        return _check_paytable(value, range(ev.STRAIGHT_FLUSH_BONUS_MIN_LENGTH, 8), "HCF-10")

    @model_validator(mode="after")
    def _bank_covers_an_ante(self) -> HcfConfig:
        if self.dp_minimum_bank < self.limits[ANTE].min:
            raise ValueError(
                f"dp_minimum_bank {self.dp_minimum_bank} is below the Ante minimum"
                f" {self.limits[ANTE].min}: such a DP could not cover one Ante (HCF-1, HCF-12)"
            )
        return self

    def offers(self, kind: str) -> bool:
        return kind in self.limits

    def min_entry(self) -> int:
        """The least stack with which a player can post a minimum Ante (HCF-6, HCF-13)."""
        return 2 * self.limits[ANTE].min + self.rake.players_pay


class HcfMemo(BaseModel):
    """The table's memory of the DP rotation (HCF-1), kept across hands.

    ``position`` is the seat whose turn was last: the last DP, or, after a hand nobody banked,
    the first seat offered in it; the next hand's offer starts clockwise after it.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    position: int | None = None
    hand_no: int = 0
    first_offered: int | None = None
    accepted: bool = False


Decision = Literal["fold", "raise"]
Phase = Literal["offer", "wagers", "decisions", "reveal", "settle"]


class HcfSeat(Record):
    """One seat of the hand: its wagers (minor units), cards and decision."""

    seat: int
    player: str
    ante: int = 0
    flush_bonus: int = 0
    straight_flush_bonus: int = 0
    house_fee: int = 0
    raised: int = 0
    cards: tuple[Card, ...] = ()
    decision: Decision | None = None

    def wager(self, kind: str) -> int:
        return self.raised if kind == RAISE else int(getattr(self, kind))

    @property
    def stakes(self) -> int:
        """Everything the seat has at risk (the fee is not a wager)."""
        return self.ante + self.raised + self.flush_bonus + self.straight_flush_bonus


class HcfHand(HandBase):
    """A High Card Flush hand: who banks it, the wagers, the cards and where it stands."""

    game: Literal["high-card-flush"] = GAME
    phase: Phase = "offer"
    seats: tuple[HcfSeat, ...]
    offered: tuple[int, ...] = ()
    """Seats offered the DP role this hand, in order (HCF-1); the last one answers now."""
    dp: int | None = None
    """The designated player's seat; the button sits in front of it (HCF-1)."""
    funds: int = 0
    """The DP's funds in action: its stack when it accepted (HCF-12)."""
    dp_cards: tuple[Card, ...] = ()
    dealt: tuple[int, ...] = ()
    """Player seats dealt in, in dealing order (HCF-3)."""
    folds: tuple[int, ...] = ()
    """Seats that folded, in the order they folded (their wagers went to the bank, HCF-12)."""

    def participants(self) -> tuple[int, ...]:
        return tuple(s.seat for s in self.seats)

    def seat(self, number: int) -> HcfSeat:
        for s in self.seats:
            if s.seat == number:
                return s
        raise RuleViolation("seat_not_in_hand", f"seat {number} is not in this hand", seat=number)

    def replace(self, updated: HcfSeat) -> tuple[HcfSeat, ...]:
        return tuple(updated if s.seat == updated.seat else s for s in self.seats)

    @property
    def offered_to(self) -> int | None:
        return self.offered[-1] if self.phase == "offer" and self.offered else None

    @property
    def dp_seat(self) -> HcfSeat:
        assert self.dp is not None
        return self.seat(self.dp)

    @property
    def live(self) -> tuple[HcfSeat, ...]:
        """Player seats with an Ante that have not folded, in seat number order."""
        return tuple(s for s in self.seats if s.ante and s.decision != "fold")

    @property
    def to_act(self) -> HcfSeat | None:
        """The next seat to fold or raise: dealing order, left of the button (HCF-3, HCF-5)."""
        for number in self.dealt:
            s = self.seat(number)
            if s.decision is None:
                return s
        return None


# --- seat order ----------------------------------------------------------------------------


def clockwise_after(start: int | None, seats: Iterable[int]) -> tuple[int, ...]:
    """``seats`` clockwise (ascending numbers) from the first one after ``start``, wrapping."""
    ordered = sorted(seats)
    if start is None:
        return tuple(ordered)
    return tuple([s for s in ordered if s > start] + [s for s in ordered if s <= start])


def counter_clockwise_before(button: int, seats: Iterable[int]) -> tuple[int, ...]:
    """``seats`` counter-clockwise from the seat right of ``button`` (HCF-7), the button last."""
    ordered = sorted(seats, reverse=True)
    return tuple([s for s in ordered if s < button] + [s for s in ordered if s >= button])
