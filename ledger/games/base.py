"""The protocol every game implements: pure rules over plain values.

A game never touches the event store. The table aggregate hands it a read-only
:class:`TableView` and the game's own hand state, and the game answers with *records*
(``ledger.domain.records``): the facts to append, each carrying its balanced transfers and the rule
id behind every decision. ``evolve`` folds a record into the hand state; the aggregate uses it when
it appends and when it replays, and the audit uses it to rebuild a hand from the stream before
asking ``decide`` to settle it again and comparing.

Flow of a hand, as the table drives it::

    start(table, hand_no)          -> [HandStarted, ...]       (the table fills the deck commitment)
    decide(table, hand, command)   -> [WagerPlaced | PlayerActed | CardsRevealed | HandSettled ...]
    deal_plan(table, hand)         -> DealPlan                  (the table deals from its deck or
                                                                 checks the device's cards)
    evolve(hand, record)           -> hand | None               (None once the hand has ended)
    next_step(table, hand)         -> Step                      (what the hand waits for)
    leave(table, hand, seat)       -> [PlayerActed fold, ...]   (COM-6: the seat folds at once,
                                                                 whoever's turn it is)

Voiding a hand (COM-5) is the table's job: it reverses every chip moved during the hand.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, Any, ClassVar, Generic, Literal, TypeVar

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    Strict,
    model_validator,
)

from ledger.domain import accounts
from ledger.domain.bounds import Amount, AmountOrZero
from ledger.domain.commands import HandCommand
from ledger.domain.errors import RuleViolation, StateConflict
from ledger.domain.records import CardSource, HandRecord, Record, Target, Transfer


class Limits(Record):
    """Minimum and maximum of one wager kind, in minor units (COM-4)."""

    min: AmountOrZero
    max: AmountOrZero

    @model_validator(mode="after")
    def _ordered(self) -> Limits:
        if self.min > self.max:
            raise ValueError(f"minimum {self.min} is above maximum {self.max}")
        return self


class CorrectionPolicy(BaseModel):
    """COR-4: how far back, and above what amount with two approvers, a table's records may be
    corrected. Defaults (argued in docs/auditor/corrections.md): 72 hours, two approvers above
    1,000.00 in a currency of two decimals (100,000 minor units)."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    window_hours: int = Field(default=72, ge=1, le=24 * 366)
    """How long after a record it may still be corrected, in hours."""
    second_approver_above: int | None = Field(default=100_000, ge=0)
    """Minor units a correction may move with one approver; None: one always suffices."""


class ConfigBase(BaseModel):
    """Settings every game shares. Each game subclasses it with its paytables and policies.

    Changing any of it is an approved configuration change (COM-4), recorded as an event.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    game: str
    card_source: CardSource = "rng"
    """COM-8: ``rng`` (the service shuffles), ``recorded`` (a device reports the cards) or
    ``seeded`` (simulations only: a shuffle anyone can repeat from ``shuffle_seed``)."""
    shuffle_seed: Annotated[int, Strict(), Field(ge=0, lt=2**63)] | None = None
    """The seed of a ``seeded`` table's shuffles; only for that source."""
    max_aggregate_payout: Amount | None = None
    """COM-7: one cap per hand on winnings banked by the house or the DP; None means no cap."""
    limits: dict[str, Limits] = Field(default_factory=dict)
    """COM-4: the minimum and maximum of each wager kind the table offers, by kind."""
    # A configuration that never set correction limits is stored as it was before they existed
    # (the key left out), so tables opened earlier are decided again to the same record. Left
    # out by the field, not by a model serializer: the JSON schema (/openapi.json) stays the
    # settings' own.
    corrections: CorrectionPolicy | None = Field(default=None, exclude_if=lambda v: v is None)
    """COR-4: the table's correction limits; None (not shown in the configuration) keeps the
    defaults of :class:`CorrectionPolicy`."""

    @property
    def correction_policy(self) -> CorrectionPolicy:
        return self.corrections or CorrectionPolicy()

    @model_validator(mode="after")
    def _seed_with_seeded_source(self) -> ConfigBase:
        if (self.card_source == "seeded") != (self.shuffle_seed is not None):
            raise ValueError("a seeded card source needs shuffle_seed, and only it takes one "
                             "(COM-8)")
        return self


class HandBase(BaseModel):
    """Base of every game's hand state (frozen; ``evolve`` returns a new one)."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    game: str
    hand_no: int

    def participants(self) -> tuple[int, ...]:
        """Seats taking part in the hand (their chips may not move outside it, COM-3)."""
        raise NotImplementedError


class DealSlot(Record):
    """One target of a round: a seat number, ``dealer`` or ``community`` (STUD8-6), with how
    many cards it receives face down and face up."""

    target: Target
    down: int = Field(default=0, ge=0)
    up: int = Field(default=0, ge=0)

    @property
    def count(self) -> int:
        return self.down + self.up


class DealPlan(Record):
    """The next round to deal: targets in dealing order and how many cards each receives.

    From the ``rng`` deck the table deals one card at a time, round-robin over the slots in
    order, each slot's face-down cards before its face-up ones. A device in ``recorded`` mode
    must report exactly these targets and counts.
    """

    round: str
    slots: tuple[DealSlot, ...]
    note: str | None = None
    """Why the round is dealt as it is, where that is not the usual (e.g. the STUD8-6
    community card), or what the next round will need."""

    @property
    def count(self) -> int:
        return sum(s.count for s in self.slots)


class Option(Record):
    """One thing a seat may do now, with the amount range where an amount is needed."""

    action: str
    min_amount: int = 0
    max_amount: int = 0
    public_max_amount: int | None = None
    """Set when the rules derive ``max_amount`` from the acting seat's face-down cards (the
    High Card Flush raise cap, HCF-5): the largest amount any hand could allow, which is what a
    reader who cannot see those cards is shown instead."""

    def public(self) -> Option:
        """The option as a reader who cannot see the acting seat's cards sees it."""
        if self.public_max_amount is None:
            return self
        return self.model_copy(update={"max_amount": self.public_max_amount,
                                       "public_max_amount": None})


class Step(Record):
    """What the hand waits for.

    ``wager``: the listed seats may place wagers (``options`` name the kinds and ranges) and the
    table may then deal; ``act``: the listed seat decides (options); ``offer``: a role offer
    awaits an answer; ``deal``/``reveal``/``settle``: the table does it next; ``over``: no hand.
    """

    kind: Literal["wager", "offer", "act", "deal", "reveal", "settle", "over"]
    seats: tuple[int, ...] = ()
    options: tuple[Option, ...] = ()
    note: str | None = None
    deal: DealPlan | None = None
    """The round the table deals next, when it may deal now (a ``deal`` step, or a ``wager``
    step once a wager is in): targets in dealing order with their face-down and face-up
    counts. A ``recorded`` table's device reports exactly these (``DealCards.cards``)."""

    def public(self) -> Step:
        """The step as a reader who cannot see the listed seats' face-down cards sees it."""
        options = tuple(o.public() for o in self.options)
        if options == self.options:
            return self
        return self.model_copy(update={"options": options})


@dataclass(frozen=True)
class TableView:
    """What a game may read about its table. Read-only by convention."""

    code: str
    game: str
    currency: str
    config: Any
    config_version: int
    seats: Mapping[int, str]
    """Seat number -> player id, for the players seated now."""
    balances: Mapping[str, int]
    button: int | None
    hand_no: int
    """Number of the last hand started (0 before the first)."""
    memo: Any = None
    """The game's own table-level memory (``Game.memo_type``), e.g. buy-in history."""
    departed: frozenset[int] = frozenset()
    """Seats of the hand in progress whose player has left (COM-6): folded, never waited for
    again, and not to be taken by anyone until the hand ends."""

    def stack(self, player_id: str) -> int:
        return self.balances.get(accounts.player(player_id), 0)

    def seat_stack(self, seat: int) -> int:
        player_id = self.seats.get(seat)
        return 0 if player_id is None else self.stack(player_id)

    def player_at(self, seat: int) -> str:
        try:
            return self.seats[seat]
        except KeyError:
            raise StateConflict("seat_empty", f"seat {seat} has no player", seat=seat) from None


C = TypeVar("C", bound=ConfigBase)
H = TypeVar("H", bound=HandBase)


class Game(ABC, Generic[C, H]):
    """One game's rules. Implementations are stateless; all state is passed in."""

    name: ClassVar[str]
    """Stable id used in commands and events: ``caribbean-stud``, ``high-card-flush``, ..."""
    title: ClassVar[str]
    config_type: ClassVar[type[ConfigBase]]
    hand_type: ClassVar[type[HandBase]]
    memo_type: ClassVar[type[BaseModel] | None] = None
    seats: ClassVar[range] = range(1, 8)
    """Seat numbers the game's table has."""
    banking: ClassVar[Literal["house", "player", "pool"]]
    """Who banks the wagers: the house (CSP), a designated player (HCF) or nobody (pooled games)."""

    # --- table level --------------------------------------------------------------------

    def default_config(self) -> C:
        return self.config_type(game=self.name)  # type: ignore[return-value]

    def opening_transfers(self, config: C) -> tuple[Transfer, ...]:
        """Chips the house puts in when the table opens (e.g. the jackpot seed)."""
        return ()

    def config_change_transfers(self, table: TableView, new: C) -> tuple[Transfer, ...]:
        """Chips moved when a configuration change takes effect (none by default)."""
        return ()

    def check_buy_in(self, table: TableView, seat: int, amount: int, kind: str) -> None:
        """Refuse a buy-in the game does not allow (raise a RuleViolation)."""
        if kind != "buy_in":
            raise RuleViolation(
                "unknown_buy_in_kind", f"{self.title} has no buy-in of kind {kind!r}", kind=kind
            )

    def check_corrected_amount(self, table: TableView, kind: str, amount: int) -> None:
        """COR-2: refuse a player's buy-in or cash-out (``kind``) corrected to an amount of
        chips the game cannot hold (raise a RuleViolation); 0 (it never happened) always
        passes. Any amount by default."""

    def initial_memo(self) -> BaseModel | None:
        return self.memo_type() if self.memo_type is not None else None

    def evolve_memo(self, memo: Any, record: Record) -> Any:
        """Fold a table-level record (a buy-in, a hand ending, ...) into the game's memo."""
        return memo

    # --- hand level ---------------------------------------------------------------------

    @abstractmethod
    def start(self, table: TableView, hand_no: int) -> list[HandRecord]:
        """Start hand ``hand_no``: the first record is a HandStarted (the table fills in the deck
        commitment and card source); raise when no hand can start."""

    @abstractmethod
    def decide(self, table: TableView, hand: H, command: HandCommand) -> list[HandRecord]:
        """Validate ``command`` against the rules and return the records it produces."""

    @abstractmethod
    def deal_plan(self, table: TableView, hand: H) -> DealPlan:
        """The next round of cards to deal; raise RuleViolation when it is not time to deal."""

    @abstractmethod
    def evolve(self, hand: H | None, record: HandRecord) -> H | None:
        """The hand after ``record``; a HandStarted creates it, a hand ending returns None."""

    @abstractmethod
    def next_step(self, table: TableView, hand: H) -> Step:
        """What the hand waits for now."""

    def leave(self, table: TableView, hand: H, seat: int) -> list[HandRecord]:
        """The player of ``seat`` leaves while ``hand`` is in play (COM-6, decision of
        2026-12-01): the seat has folded, at once, whoever's turn it is.

        This is the one mechanism every game shares; the game supplies only what its fold is
        (:meth:`fold_out`). The table does the rest, the same way for every game
        (``ledger.table.state``): the seat is in ``TableView.departed`` until the hand ends, so
        it is never waited for again (a wager step no longer lists it, and a game never gives
        it the turn: it has folded), every wager or action naming it is refused
        (``seat_left``), and nobody may sit in it until the hand has ended (``seat_reserved``).
        """
        if seat not in hand.participants():
            return []
        return self.fold_out(table, hand, seat)

    @abstractmethod
    def fold_out(self, table: TableView, hand: H, seat: int) -> list[HandRecord]:
        """The records of ``seat`` folding now, in turn or not (COM-6): its wagers are lost as
        this game's fold loses them and the fold's side-wager rules apply. Nothing when the
        seat has no decision left in the hand (it folded already, or made its last decision
        and its hand plays on), or has nothing at stake yet (no wager before the deal)."""

    def void_restriction(self, hand: H) -> tuple[str, str] | None:
        """Why the floor may not void ``hand`` now without a supervisor's approval, as
        ``(rule id, explanation)``; None (the default) when a void is allowed (COM-5)."""
        return None

    def visible_cards(self, hand: H, record: HandRecord) -> bool:
        """Whether a device may see the face-down cards in ``record`` (default: never)."""
        return False


# --- helpers shared by the games -----------------------------------------------------------


def check_limits(config: ConfigBase, kind: str, amount: int) -> None:
    """A wager outside the table's posted limits is rejected (COM-4)."""
    limits = config.limits.get(kind)
    if limits is None:
        return
    if amount < limits.min:
        raise RuleViolation(
            "wager_below_minimum",
            f"{kind} of {amount} is below the table minimum of {limits.min} (COM-4)",
            kind=kind,
            amount=amount,
            minimum=limits.min,
            rule="COM-4",
        )
    if amount > limits.max:
        raise RuleViolation(
            "wager_above_maximum",
            f"{kind} of {amount} is above the table maximum of {limits.max} (COM-4)",
            kind=kind,
            amount=amount,
            maximum=limits.max,
            rule="COM-4",
        )


def require_chips(table: TableView, seat: int, amount: int, rule: str = "COM-3") -> None:
    """Only chips on the table play: the seat's stack must cover ``amount`` (COM-3)."""
    stack = table.seat_stack(seat)
    if amount > stack:
        raise RuleViolation(
            "insufficient_chips",
            f"seat {seat} has {stack} in chips, {amount} needed ({rule})",
            seat=seat,
            stack=stack,
            needed=amount,
            rule=rule,
        )


def wrong_phase(what: str, step: Step) -> RuleViolation:
    return RuleViolation(
        "not_allowed_now",
        f"cannot {what} now: the hand is waiting for {step.kind}"
        + (f" from seat {step.seats[0]}" if step.kind == "act" and step.seats else ""),
        waiting_for=step.kind,
        seats=list(step.seats),
    )


def out_of_turn(seat: int, step: Step) -> RuleViolation:
    expected = step.seats[0] if step.seats else None
    return RuleViolation(
        "out_of_turn",
        f"seat {seat} acted out of turn; seat {expected} is to act",
        seat=seat,
        expected=expected,
    )
