"""Request and response bodies of the HTTP API.

Command bodies are derived from the command models of ``ledger.commands`` (one source of truth):
the same fields, minus ``table``, which the path names (``POST /tables`` keeps it in the body).
"""

from __future__ import annotations

from functools import cache
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, create_model

from ledger.commands import Command, OpenTable
from ledger.games.base import Step
from ledger.tokens import Role


@cache
def body_model(cls: type[Command]) -> type[BaseModel]:
    """The request body of ``cls``: its fields, without ``table`` except for OpenTable."""
    fields: dict[str, Any] = {
        name: (info.annotation, info)
        for name, info in cls.model_fields.items()
        if name != "table" or cls is OpenTable
    }
    model: type[BaseModel] = create_model(
        f"{cls.__name__}Body",
        __config__=ConfigDict(extra="forbid"),
        __doc__=cls.__doc__ or cls.__name__,
        **fields,
    )
    return model


class EventOut(BaseModel):
    """One event as stored (``sealed_deck`` left out), plus its class and table version.

    The fields after the envelope are those of the event class named by ``type``
    (``ledger.records``); face-down cards a reader may not see are ``null``.
    """

    model_config = ConfigDict(extra="allow")

    type: str = Field(description="Event class: HandStarted, WagerPlaced, CardsDealt, ...")
    version: int = Field(description="The table's version after this event.")
    timestamp: str
    prev_hash: str | None = Field(
        default=None,
        description="SHA-256 chain digest of the previous event; only for readers who see every "
        "card (auditors). The digest covers the previous event's face-down cards, so a reader "
        "who knows the rest of that event could search for them.",
    )
    command_id: str | None = None


class CommandOut(BaseModel):
    """What a command appended (201), or what it appended the first time (200, replayed)."""

    command_id: str
    command: str
    table: str
    table_version: int
    replayed: bool
    events: list[EventOut]


class TableOut(BaseModel):
    """A table now: configuration, seats, stacks, the hand in progress and what it waits for.

    For every token but an auditor's, the hand's face-down cards are ``null`` unless revealed
    (a seat-bound device token sees its own seat's).
    """

    code: str
    game: str
    currency: str
    timezone: str
    version: int = Field(description="Events in the table's stream.")
    config_version: int
    config: dict[str, Any]
    seats: dict[str, str] = Field(description="Seat number -> player.")
    balances: dict[str, int] = Field(description="Account -> chips (minor units).")
    button: int | None
    hand_no: int = Field(description="The last hand started (0 before the first).")
    hand: dict[str, Any] | None = Field(description="The game's hand state, None between hands.")
    step: Step
    memo: dict[str, Any] | None = None


class TokenIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    role: Role
    tables: list[str] | None = Field(default=None, description="Device tokens: table codes.")
    seat: int | None = Field(default=None, description="Device tokens: bind to one seat.")
    label: str = Field(default="", max_length=200)


class TokenOut(BaseModel):
    token_id: str
    role: str
    tables: list[str] | None
    seat: int | None
    label: str
    created_at: str
    revoked_at: str | None


class NewTokenOut(TokenOut):
    token: str = Field(description="The bearer token; shown this once, stored only hashed.")


class HealthOut(BaseModel):
    status: str
    version: str
