"""Records: the facts a table's stream is made of, as plain frozen values.

Each record type here is one kind of event in a table's stream. Games (``ledger.games``) decide
records; the table aggregate (``ledger.table.events``) wraps each record in an event of the same
name and fields (plus the envelope: table id, version, timestamp, previous hash, command id) and
appends it. Records never depend on the event store, so the rules, the aggregate and the audit
all read the same values.

Every chip movement is a :class:`Transfer` between two named accounts (``ledger.domain.accounts``);
the rule id behind a movement travels with it.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, PositiveInt

from ledger.domain.cards import Card

CardSource = Literal["rng", "recorded", "seeded"]
"""COM-8: the service shuffles (``rng``), a device reports the cards (``recorded``), or, for
simulations only, a shuffle seeded from the configuration (``seeded``)."""
Target = int | Literal["dealer", "community"]
"""Who receives cards: a seat number, the dealer, or the community (STUD8-6)."""


class Record(BaseModel):
    # defer_build: a model's validator and serializer are built when first used, not at import
    # (most of the records, events and commands are never used by a command about one hand).
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


class Transfer(Record):
    """Chips moved from ``src`` to ``dst``, balanced by construction."""

    src: str
    dst: str
    amount: PositiveInt
    rule: str | None = None
    memo: str | None = None


class SeatEntry(Record):
    seat: int
    player: str


class Dealt(Record):
    """Cards given to one target in one round, face down and face up, in dealing order."""

    target: Target
    down: tuple[Card, ...] = ()
    up: tuple[Card, ...] = ()

    @property
    def cards(self) -> tuple[int, ...]:
        return self.down + self.up


# --- table records -------------------------------------------------------------------------


class TableOpened(Record):
    """A table opens with its game and its configuration (validated by the game's model)."""

    code: str
    game: str
    currency: str
    timezone: str
    config: dict[str, Any]
    config_version: int = 1
    opened_by: str
    transfers: tuple[Transfer, ...] = ()


class ConfigChanged(Record):
    """An approved configuration change (COM-4); never during a hand."""

    config: dict[str, Any]
    config_version: int
    approver: str
    reason: str = ""
    transfers: tuple[Transfer, ...] = ()


class PlayerSeated(Record):
    seat: int
    player: str


class PlayerUnseated(Record):
    seat: int
    player: str
    reason: str = "left"


class DealerSignedIn(Record):
    """DLR-1: ``dealer`` (a registered principal) deals at the table from now on."""

    dealer: str


class DealerSignedOut(Record):
    """DLR-1: ``dealer`` no longer deals at the table (``relieved`` when another took over)."""

    dealer: str
    reason: str = "signed out"


class ChipsBoughtIn(Record):
    seat: int
    player: str
    amount: PositiveInt
    kind: str = "buy_in"
    transfers: tuple[Transfer, ...]


class ChipsCashedOut(Record):
    seat: int
    player: str
    amount: PositiveInt
    transfers: tuple[Transfer, ...]


# --- hand records --------------------------------------------------------------------------


class ChipCount(Record):
    """Chips of one denomination (INV-1..3): ``denomination`` in minor units, ``count`` chips."""

    denomination: PositiveInt
    count: int


class InventoryCounted(Record):
    """INV-1: the chips in the table's tray, counted and signed by two people (opening or
    closing). A count moves nothing."""

    moment: Literal["opening", "closing"]
    chips: tuple[ChipCount, ...]
    amount: int
    signers: tuple[str, str]
    rule: str = "INV-1"


class TableFilled(Record):
    """INV-2: chips brought from the cage to the table's tray, signed by two people."""

    chips: tuple[ChipCount, ...]
    amount: PositiveInt
    signers: tuple[str, str]
    transfers: tuple[Transfer, ...]
    rule: str = "INV-2"


class TableCredited(Record):
    """INV-3: chips returned from the table's tray to the cage, signed by two people."""

    chips: tuple[ChipCount, ...]
    amount: PositiveInt
    signers: tuple[str, str]
    transfers: tuple[Transfer, ...]
    rule: str = "INV-3"


class HandRecord(Record):
    hand_no: int


class HandStarted(HandRecord):
    """A hand begins: who is in, where the button is, and the commitment to the deck (COM-8)."""

    button: int | None = None
    seats: tuple[SeatEntry, ...]
    card_source: CardSource
    config_version: int
    deck_commitment: str | None = None
    sealed_deck: str | None = None
    transfers: tuple[Transfer, ...] = ()
    dealer: str | None = None
    """DLR-2: the dealer on duty when the hand started (None: nobody had signed in)."""


class RoleOffered(HandRecord):
    """A seat is offered a role for this hand (the designated player of HCF-1)."""

    seat: int
    role: str


class WagerPlaced(HandRecord):
    seat: int
    kind: str
    amount: PositiveInt
    transfers: tuple[Transfer, ...]
    rule: str | None = None


class CardsDealt(HandRecord):
    """One round of dealing (``round`` names it: ``initial``, ``third_street``, ...)."""

    round: str
    dealt: tuple[Dealt, ...]


class PlayerActed(HandRecord):
    """A decision at the table: fold, play, raise, check, bet, call, complete, set a hand, ...

    ``amount`` is what the action puts in (0 for a fold or a check); ``segments`` carries a
    Chinese Poker set (front, middle, back); ``declaration`` an automatic win declared.
    """

    seat: int
    action: str
    amount: int = 0
    transfers: tuple[Transfer, ...] = ()
    segments: tuple[tuple[Card, ...], ...] | None = None
    declaration: str | None = None
    rule: str | None = None


class CardsRevealed(HandRecord):
    target: Target
    cards: tuple[Card, ...]


class Outcome(Record):
    """How one wager (or one pairing) ended, and the rule that decided it.

    ``amount`` is what the owner of the wager gained (positive) or lost (negative), not counting
    the stake returned; ``withheld`` is what a cap (COM-7, HCF-12, CHP-8) blocked.
    """

    seat: int | None
    wager: str
    result: Literal["win", "lose", "push", "dead", "forfeit", "returned", "split", "scoop"]
    stake: int = 0
    amount: int = 0
    withheld: int = 0
    rule: str
    note: str | None = None


class JackpotLine(Record):
    """A progressive award (CSP-6): which line, how much, and from where."""

    seat: int
    line: str
    amount: int
    source: Literal["house", "meter"]
    meter_before: int
    meter_after: int
    reset_to_seed: bool = False
    rule: str = "CSP-6"


class CoverageLine(Record):
    """One seat's coverage test in an HCF settlement (HCF-12)."""

    seat: int
    liability: int
    covered: bool
    funds_before: int
    funds_after: int


class Coverage(Record):
    dp_seat: int
    funds_at_start: int
    lines: tuple[CoverageLine, ...]
    funds_left: int


class PotLine(Record):
    """One pot of a pooled hand (STUD8-9) and how it was split (STUD8-7, STUD8-8)."""

    index: int
    amount: int
    rake: int = 0
    eligible: tuple[int, ...]
    high_winners: tuple[int, ...]
    low_winners: tuple[int, ...] = ()
    high_amount: int
    low_amount: int = 0


class PointsLine(Record):
    """Points between two seats in Chinese Poker (CHP-3..7), from ``seat``'s point of view."""

    seat: int
    opponent: int
    points: int
    detail: tuple[str, ...] = ()


class RakeLine(Record):
    seat: int | None
    amount: int
    rule: str
    method: str | None = None


class HandSettled(HandRecord):
    """The settlement the rules computed, as outcomes and balanced transfers.

    The optional sections carry what each game needs to show its decisions: jackpot awards
    (CSP), coverage (HCF), pots (STUD8), points (CHP), rake lines. ``deck`` and ``salt`` reveal
    the committed deck after the hand (COM-8).
    """

    outcomes: tuple[Outcome, ...]
    transfers: tuple[Transfer, ...]
    max_aggregate_payout: int | None = None
    jackpot: tuple[JackpotLine, ...] = ()
    coverage: Coverage | None = None
    pots: tuple[PotLine, ...] = ()
    points: tuple[PointsLine, ...] = ()
    rake: tuple[RakeLine, ...] = ()
    deck: tuple[Card, ...] | None = None
    salt: str | None = None


class HandVoided(HandRecord):
    """A misdeal or dead deal (COM-5): every wager returned, nothing raked, the reason kept."""

    reason: str
    transfers: tuple[Transfer, ...]
    rule: str = "COM-5"
    approved_by: str | None = None
    """Who authorised a void the game allows only with approval (CHP-10), or of a hand whose
    deck could not be unsealed."""
    deck: tuple[Card, ...] | None = None
    salt: str | None = None
    deck_unreadable: bool = False
    """The hand's sealed deck could not be opened with the deck key in use (lost or replaced
    key): voided with approval, its deck never revealed, so its deals cannot be checked against
    the commitment (COM-8)."""


class HandCancelled(HandRecord):
    """A hand that ends before any card is dealt (e.g. nobody takes the DP role, HCF-1)."""

    reason: str
    transfers: tuple[Transfer, ...] = ()
    rule: str | None = None
    deck: tuple[Card, ...] | None = None
    salt: str | None = None


# --- corrections (COR-1..5): never an edit, always a new event that names what it corrects --


class CardFix(Record):
    """COR-1: a card recorded for ``target`` in a hand, and the card it really was."""

    target: Target
    recorded: Card
    actual: Card


class Difference(Record):
    """What one account gains (positive) or loses (negative) by a correction, as the rules
    decide it, before COR-5 routes it (a player who has left is paid or owes through
    ``owed:<player>``)."""

    account: str
    amount: int


class HandCorrected(Record):
    """COR-1: a settled hand settled again with corrected facts, under the rules and the
    configuration in force when it was played; ``transfers`` compensate the difference
    between the settlement in force (the original, plus earlier corrections) and
    ``settlement``. The original events stay as they were."""

    hand: int
    settled_version: int
    """The version of the hand's original HandSettled."""
    fixes: tuple[CardFix, ...]
    """Every card correction of the hand so far (earlier corrections' fixes included)."""
    settlement: HandSettled
    """The hand as the rules settle it with the corrected facts."""
    differences: tuple[Difference, ...]
    transfers: tuple[Transfer, ...]
    approvers: tuple[str, ...]
    reason: str
    rule: str = "COR-1"


class MovementCorrected(Record):
    """COR-2: a buy-in, cash-out, fill or credit recorded with a wrong amount; the
    compensating movement is linked to the original by its version."""

    original_version: int
    movement: Literal["buy_in", "cash_out", "fill", "credit"]
    player: str | None = None
    recorded_amount: int
    """The amount in force before this correction (the original's, or the last correction's)."""
    amount: int
    """What really moved (0: the movement never happened)."""
    transfers: tuple[Transfer, ...]
    approvers: tuple[str, ...]
    reason: str
    rule: str = "COR-2"


class SeatCorrected(Record):
    """COR-3: who really sat at ``seat`` from hand ``from_hand`` to ``to_hand`` (for player
    ratings and exports); no chip moves."""

    seat: int
    recorded_player: str
    player: str
    from_hand: int
    to_hand: int
    approvers: tuple[str, ...]
    reason: str
    rule: str = "COR-3"


class OwedSettled(Record):
    """COR-5: what a correction left owed between the house and a player, paid at the cage:
    ``paid_to_player`` (the house owed it) or ``paid_by_player``."""

    player: str
    amount: int
    direction: Literal["paid_to_player", "paid_by_player"]
    transfers: tuple[Transfer, ...]
    approvers: tuple[str, ...]
    reason: str
    rule: str = "COR-5"


CORRECTIONS: tuple[type[Record], ...] = (HandCorrected, MovementCorrected, SeatCorrected,
                                         OwedSettled)


HAND_RECORDS: tuple[type[HandRecord], ...] = (
    HandStarted,
    RoleOffered,
    WagerPlaced,
    CardsDealt,
    PlayerActed,
    CardsRevealed,
    HandSettled,
    HandVoided,
    HandCancelled,
)
HAND_ENDINGS: tuple[type[HandRecord], ...] = (HandSettled, HandVoided, HandCancelled)
