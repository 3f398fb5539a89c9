"""Commands: what table devices ask the ledger to do.

A command is a frozen value with a client-made ``command_id`` (idempotency: the same id twice
appends nothing the second time and returns the first answer) and the human ``table`` code.
The application validates a command against the rules and turns it into events; a command that
is refused raises a coded :class:`~ledger.domain.errors.LedgerError` and appends nothing.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    Strict,
    field_validator,
    model_validator,
)

from ledger.domain.bounds import (
    MAX_AMOUNT,
    MAX_COUNT,
    MAX_REASON,
    Amount,
    AmountOrZero,
    Name,
    Ordinal,
    Reason,
    Seat,
    check_text,
    nested_text_problem,
)
from ledger.domain.cards import Card
from ledger.domain.records import CardFix

TableCode = str
TABLE_CODE_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$"
PLAYER_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.@-]{0,63}$"


class Command(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    command_id: Name
    table: TableCode = Field(pattern=TABLE_CODE_PATTERN)

    @property
    def name(self) -> str:
        return _NAMES[type(self)]

    @field_validator("*", mode="before")
    @classmethod
    def _printable(cls, value: Any) -> Any:
        """No text anywhere in a command, however deep in a configuration or a card list, may
        hold a lone surrogate, a control character (NUL included: PostgreSQL refuses it) or a
        bidirectional override (``ledger.domain.bounds``); the error names the field."""
        problem = nested_text_problem(value)
        if problem is not None:
            raise ValueError(f"text must be printable: {problem}")
        return value


# --- table commands ------------------------------------------------------------------------


class OpenTable(Command):
    """Open a table of ``game`` with its settings (limits, paytables, rake policy, card source)."""

    game: str
    currency: str = Field(default="EUR", pattern=r"^[A-Z]{3}$")
    timezone: Name = "Europe/Amsterdam"
    config: dict[str, Any] = Field(default_factory=dict)
    opened_by: Name = "floor"


class ChangeConfig(Command):
    """An approved configuration change (COM-4): never during a hand; the approver is recorded."""

    config: dict[str, Any]
    approver: Name
    reason: Reason = ""


class SeatPlayer(Command):
    seat: Seat
    player: str = Field(pattern=PLAYER_PATTERN)


class UnseatPlayer(Command):
    seat: Seat
    reason: Reason = "left"


class SignInDealer(Command):
    """DLR-1: a dealer (a registered principal) takes the table between hands; a dealer on duty
    is relieved."""

    dealer: str = Field(pattern=PLAYER_PATTERN)


class SignOutDealer(Command):
    """DLR-1: the dealer on duty leaves the table between hands."""

    dealer: str = Field(pattern=PLAYER_PATTERN)
    reason: Reason = "signed out"


class BuyIn(Command):
    """Chips from the cage to a seated player's stack (never during a hand, COM-3)."""

    seat: Seat
    amount: Amount
    kind: Name = "buy_in"


class CashOut(Command):
    """Chips from a player's stack back to the cage; ``amount`` None cashes out everything."""

    seat: Seat
    amount: Amount | None = None


# --- the table's tray (house-banked tables) ----------------------------------------------

MAX_DENOMINATIONS = 20
MAX_CHIPS = MAX_COUNT
MAX_DENOMINATION = 1_000_000_000


class _TrayCommand(Command):
    chips: dict[int, Annotated[int, Strict()]] = Field(min_length=1, max_length=MAX_DENOMINATIONS)
    """Chips by denomination: ``{"2500": 40, "500": 100}`` (denomination in minor units ->
    how many chips)."""
    signers: tuple[str, str]
    """The two people who sign (INV-1..3), distinct actors known to the ledger."""

    @model_validator(mode="after")
    def _bounds(self) -> _TrayCommand:
        for denomination, count in self.chips.items():
            if not 1 <= denomination <= MAX_DENOMINATION:
                raise ValueError(f"denomination {denomination} is outside 1..{MAX_DENOMINATION}")
            if not 0 <= count <= MAX_CHIPS:
                raise ValueError(f"{count} chips of {denomination}: a count is 0..{MAX_CHIPS}")
        for signer in self.signers:
            if not re.match(PLAYER_PATTERN, signer):
                raise ValueError(f"signer {signer!r} is not an actor id (letters, digits, "
                                 "_.@-, at most 64)")
        return self


class CountInventory(_TrayCommand):
    """INV-1: the opening or closing count of the table's tray, by denomination."""

    moment: Literal["opening", "closing"]


class Fill(_TrayCommand):
    """INV-2: chips brought from the cage to the table's tray."""


class Credit(_TrayCommand):
    """INV-3: chips returned from the table's tray to the cage."""


# --- hand commands -------------------------------------------------------------------------


class StartHand(Command):
    pass


class PlaceWager(Command):
    seat: Seat
    kind: Name
    amount: Amount


class DealCards(Command):
    """Deal the next round. With the ``rng`` source the ledger deals from its committed deck and
    ``cards`` must be omitted; with ``recorded`` the device reports every card dealt, by target
    (a seat number as text, ``dealer`` or ``community``), face-down cards first."""

    cards: dict[Annotated[str, Field(max_length=16)],
                Annotated[tuple[Card, ...], Field(max_length=52)]] | None = Field(
        default=None, max_length=16)


class Act(Command):
    """A player's decision: ``fold``, ``play``, ``raise``, ``check``, ``bet``, ``call``,
    ``complete``, ``bring_in``, ``accept``/``decline`` (a role offer), ``set`` (a Chinese Poker
    hand, with ``front``/``middle``/``back``), ``declare`` (with ``declaration``), ``show``,
    ``muck``. ``amount`` where the action needs one."""

    seat: Seat
    action: Name
    amount: AmountOrZero | None = None
    front: tuple[Card, ...] | None = Field(default=None, max_length=13)
    middle: tuple[Card, ...] | None = Field(default=None, max_length=13)
    back: tuple[Card, ...] | None = Field(default=None, max_length=13)
    declaration: Name | None = None


class Reveal(Command):
    pass


class Settle(Command):
    pass


class VoidHand(Command):
    """Void the hand in progress (COM-5): every wager returned, nothing raked."""

    reason: Annotated[str, Field(min_length=1, max_length=MAX_REASON), AfterValidator(check_text)]
    approved_by: Name | None = None
    """The floor supervisor who authorises a void the game's rules do not allow at this point
    (a Chinese Poker misdeal after a player has set, CHP-10). Recorded in the event."""


# --- corrections (COR-1..5) ------------------------------------------------------------

MAX_APPROVERS = 2
APPROVER_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.@:-]{0,127}$"
REASON_MAX = 500
MAX_CORRECTION_AMOUNT = MAX_AMOUNT


class _Correction(Command):
    approvers: tuple[Annotated[str, Field(pattern=APPROVER_PATTERN)], ...] = Field(
        min_length=1, max_length=MAX_APPROVERS)
    """The supervisors approving the correction (principals of the ledger); two above the
    table's amount limit (COR-4)."""
    reason: Annotated[str, Field(min_length=3, max_length=REASON_MAX), AfterValidator(check_text)]
    """Why (at least 3 characters): the lengths are the string's, checked before its text."""


class CorrectHand(_Correction):
    """COR-1: settle hand ``hand`` again with the cards it really held; ``fixes`` lists every
    card that was recorded wrongly (a later correction of the hand replaces this one)."""

    hand: Ordinal
    fixes: tuple[CardFix, ...] = Field(min_length=1, max_length=52)


class CorrectMovement(_Correction):
    """COR-2: the buy-in, cash-out, fill or credit recorded at ``version`` really moved
    ``amount`` (0: it never happened)."""

    version: Ordinal
    amount: AmountOrZero


class CorrectSeat(_Correction):
    """COR-3: ``player`` really sat at ``seat`` from hand ``from_hand`` to ``to_hand``."""

    seat: Seat
    player: str = Field(pattern=PLAYER_PATTERN)
    from_hand: Ordinal
    to_hand: Ordinal

    @model_validator(mode="after")
    def _ordered(self) -> CorrectSeat:
        if self.to_hand < self.from_hand:
            raise ValueError("to_hand is before from_hand")
        return self


class SettleOwed(_Correction):
    """COR-5: what the house owes ``player``, or the player owes the house, after corrections,
    paid at the cage (``amount`` None: all of it)."""

    player: str = Field(pattern=PLAYER_PATTERN)
    amount: int | None = Field(default=None, ge=1, le=MAX_CORRECTION_AMOUNT)


CORRECTION_COMMANDS = (CorrectHand, CorrectMovement, CorrectSeat, SettleOwed)

HandCommand = StartHand | PlaceWager | Act | Reveal | Settle

AnyCommand = (
    OpenTable
    | ChangeConfig
    | SeatPlayer
    | UnseatPlayer
    | SignInDealer
    | SignOutDealer
    | BuyIn
    | CashOut
    | StartHand
    | PlaceWager
    | DealCards
    | Act
    | Reveal
    | Settle
    | VoidHand
    | CountInventory
    | Fill
    | Credit
    | CorrectHand
    | CorrectMovement
    | CorrectSeat
    | SettleOwed
)

_NAMES: dict[type[Command], str] = {
    OpenTable: "open_table",
    ChangeConfig: "change_config",
    SeatPlayer: "seat_player",
    UnseatPlayer: "unseat_player",
    SignInDealer: "sign_in_dealer",
    SignOutDealer: "sign_out_dealer",
    BuyIn: "buy_in",
    CashOut: "cash_out",
    StartHand: "start_hand",
    PlaceWager: "place_wager",
    DealCards: "deal",
    Act: "act",
    Reveal: "reveal",
    Settle: "settle",
    VoidHand: "void_hand",
    CountInventory: "count_inventory",
    Fill: "fill",
    Credit: "credit",
    CorrectHand: "correct_hand",
    CorrectMovement: "correct_movement",
    CorrectSeat: "correct_seat",
    SettleOwed: "settle_owed",
}
COMMANDS_BY_NAME: dict[str, type[Command]] = {v: k for k, v in _NAMES.items()}

ActionName = Literal[
    "fold",
    "play",
    "raise",
    "check",
    "bet",
    "call",
    "complete",
    "bring_in",
    "accept",
    "decline",
    "set",
    "declare",
    "show",
    "muck",
]


def command_from(name: str, data: dict[str, Any]) -> Command:
    """Build a command from its name and JSON-like fields; bad input is a coded error.

    A card that is not a card is ``unknown_card``; anything else malformed is
    ``invalid_command`` with the problems listed in ``details``.
    """
    from pydantic import ValidationError

    from ledger.domain.errors import InvalidInput, validation_problems

    cls = COMMANDS_BY_NAME.get(name)
    if cls is None:
        raise InvalidInput(
            "unknown_command", f"unknown command {name!r}; commands: {', '.join(COMMANDS_BY_NAME)}"
        )
    try:
        return cls.model_validate(data)
    except ValidationError as exc:
        problems = validation_problems(exc)
        code = classify_problems(problems)
        summary = "; ".join(f"{p['field']}: {p['problem']}" for p in problems)
        raise InvalidInput(code, f"invalid {name}: {summary}", problems=problems) from None


def classify_problems(problems: list[dict[str, str]]) -> str:
    """The code of a malformed command: ``unknown_card`` when a card is not a card, else
    ``invalid_command`` (the CLI and the HTTP API use the same rule)."""
    if any("unknown card" in p["problem"] or "card number" in p["problem"] for p in problems):
        return "unknown_card"
    return "invalid_command"
