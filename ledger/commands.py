"""Commands: what table devices ask the ledger to do.

A command is a frozen value with a client-made ``command_id`` (idempotency: the same id twice
appends nothing the second time and returns the first answer) and the human ``table`` code.
The application validates a command against the rules and turns it into events; a command that
is refused raises a coded :class:`~ledger.errors.LedgerError` and appends nothing.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PositiveInt, model_validator

from ledger.cards import Card

TableCode = str
TABLE_CODE_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$"
PLAYER_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.@-]{0,63}$"


class Command(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    command_id: str = Field(min_length=1, max_length=128)
    table: TableCode = Field(pattern=TABLE_CODE_PATTERN)

    @property
    def name(self) -> str:
        return _NAMES[type(self)]

    @model_validator(mode="before")
    @classmethod
    def _no_nul(cls, data: Any) -> Any:
        """No text anywhere in a command may hold a NUL character (PostgreSQL refuses them in
        text, and no card, code or name needs one)."""
        if _holds_nul(data):
            raise ValueError("text must not contain NUL (\\x00) characters")
        return data


# --- table commands ------------------------------------------------------------------------


class OpenTable(Command):
    """Open a table of ``game`` with its settings (limits, paytables, rake policy, card source)."""

    game: str
    currency: str = Field(default="EUR", pattern=r"^[A-Z]{3}$")
    timezone: str = "Europe/Amsterdam"
    config: dict[str, Any] = Field(default_factory=dict)
    opened_by: str = "floor"


class ChangeConfig(Command):
    """An approved configuration change (COM-4): never during a hand; the approver is recorded."""

    config: dict[str, Any]
    approver: str = Field(min_length=1)
    reason: str = ""


class SeatPlayer(Command):
    seat: int = Field(ge=1, le=10)
    player: str = Field(pattern=PLAYER_PATTERN)


class UnseatPlayer(Command):
    seat: int = Field(ge=1, le=10)
    reason: str = "left"


class BuyIn(Command):
    """Chips from the cage to a seated player's stack (never during a hand, COM-3)."""

    seat: int = Field(ge=1, le=10)
    amount: PositiveInt
    kind: str = "buy_in"


class CashOut(Command):
    """Chips from a player's stack back to the cage; ``amount`` None cashes out everything."""

    seat: int = Field(ge=1, le=10)
    amount: PositiveInt | None = None


# --- the table's tray (house-banked tables) ----------------------------------------------

MAX_DENOMINATIONS = 20
MAX_CHIPS = 1_000_000
MAX_DENOMINATION = 1_000_000_000


class _TrayCommand(Command):
    chips: dict[int, int] = Field(min_length=1, max_length=MAX_DENOMINATIONS)
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
    seat: int = Field(ge=1, le=10)
    kind: str
    amount: PositiveInt


class DealCards(Command):
    """Deal the next round. With the ``rng`` source the ledger deals from its committed deck and
    ``cards`` must be omitted; with ``recorded`` the device reports every card dealt, by target
    (a seat number as text, ``dealer`` or ``community``), face-down cards first."""

    cards: dict[str, tuple[Card, ...]] | None = None


class Act(Command):
    """A player's decision: ``fold``, ``play``, ``raise``, ``check``, ``bet``, ``call``,
    ``complete``, ``bring_in``, ``accept``/``decline`` (a role offer), ``set`` (a Chinese Poker
    hand, with ``front``/``middle``/``back``), ``declare`` (with ``declaration``), ``show``,
    ``muck``. ``amount`` where the action needs one."""

    seat: int = Field(ge=1, le=10)
    action: str
    amount: int | None = Field(default=None, ge=0)
    front: tuple[Card, ...] | None = None
    middle: tuple[Card, ...] | None = None
    back: tuple[Card, ...] | None = None
    declaration: str | None = None


class Reveal(Command):
    pass


class Settle(Command):
    pass


class VoidHand(Command):
    """Void the hand in progress (COM-5): every wager returned, nothing raked."""

    reason: str = Field(min_length=1)
    approved_by: str | None = Field(default=None, min_length=1, max_length=128)
    """The floor supervisor who authorises a void the game's rules do not allow at this point
    (a Chinese Poker misdeal after a player has set, CHP-10). Recorded in the event."""


HandCommand = StartHand | PlaceWager | Act | Reveal | Settle

AnyCommand = (
    OpenTable
    | ChangeConfig
    | SeatPlayer
    | UnseatPlayer
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
)

_NAMES: dict[type[Command], str] = {
    OpenTable: "open_table",
    ChangeConfig: "change_config",
    SeatPlayer: "seat_player",
    UnseatPlayer: "unseat_player",
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

    from ledger.errors import InvalidInput, validation_problems

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


def _holds_nul(value: Any) -> bool:
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, dict):
        return any(_holds_nul(k) or _holds_nul(v) for k, v in value.items())
    if isinstance(value, list | tuple):
        return any(_holds_nul(v) for v in value)
    return False
