"""Typed answers of the table and hand reads (``/tables``, ``/tables/{code}/configs``,
``/hands``, ``/tables/{code}/hands/{n}``), so that a client generated from ``/openapi.json``
knows their fields. Amounts are integers of the table's minor unit (``*_minor``); times are
UTC ISO 8601 strings ending in ``Z``; days are ``YYYY-MM-DD``.

The views' rows are validated against these models on the way out. Nested parts whose shape is
the game's own (cards by round, actions, outcomes, pots) stay open objects: their fields are the
records' (``ledger.domain.records``), described in docs/reference/hand-histories.md."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ledger.api.schemas import GameConfig
from ledger.domain.results import HandResults


class TableRow(BaseModel):
    """One table as the tables view holds it."""

    table_code: str
    table_id: str
    game: str
    currency: str = Field(description="ISO 4217 code: amounts are integers of its minor unit.")
    timezone: str
    opened_at: str
    opened_by: str
    config_version: int
    hands: int = Field(description="Hands started.")
    last_version: int = Field(description="Events in the table's stream.")
    last_event_at: str | None = None


class ConfigRow(BaseModel):
    """One configuration of a table's history (COM-4: each change approved, between hands)."""

    config_version: int
    version: int = Field(description="The table's event that set it.")
    at: str
    approver: str
    reason: str
    config: GameConfig = Field(description="The configuration (one schema per game).")


class _HandHeading(BaseModel):
    """What every hand read starts with: which hand, when, and how it stands."""

    model_config = ConfigDict(extra="allow")

    table_code: str
    hand_no: int
    game: str
    gaming_day: str
    started_at: str
    ended_at: str | None = None
    status: str = Field(description="in_progress, settled, voided or cancelled.")
    paid_rules: list[str] = Field(default=[], description="The rules under which the hand's "
                                  "ending paid: a wager won, a jackpot award, a rake, a void "
                                  "(what `rule` searches).")
    currency: str | None = Field(default=None, description="The table's currency (ISO 4217): "
                                 "the row's amounts are integers of its minor unit.")


class HandSummary(_HandHeading):
    """A hand without its cards: totals for the whole hand in the table's minor unit."""

    button: int | None = None
    dp_seat: int | None = Field(default=None, description="The designated player (HCF-1).")
    players: int
    rules: list[str] = Field(description="Every rule id the hand's records cite.")
    wagered_minor: int
    rake_minor: int
    jackpot_contributions_minor: int
    jackpot_awards_minor: int
    house_result_minor: int
    dp_result_minor: int | None = None
    withheld_minor: int = Field(description="Winnings withheld (COM-7, HCF-12, CHP-8).")


class PlayerHand(_HandHeading):
    """One hand of one player (``GET /hands?player=``): the seat, its wagers by kind and the
    player's result (``net_minor``) in the table's minor unit."""

    seat: int
    player: str
    wagered_minor: int
    net_minor: int
    wagers: dict[str, int] = Field(description="Wager kind -> amount (minor units).")
    rules: list[str]


class HandPage(BaseModel):
    """A page of a hand search: the rows, how many match in all, the next page."""

    total: int = Field(description="Hands (with `player`: that player's hands) matching every "
                       "filter.")
    limit: int
    offset: int
    next: str | None = Field(description="The link to the next page (the same search from "
                             "the next offset); null on the last page.")
    searched: dict[str, Any] = Field(description="What was searched: the filters and the "
                                     "period as it was run (`from`, `to`).")
    note: str | None = Field(default=None, description="Set when the period was cut at today.")
    items: list[HandSummary | PlayerHand]


class HandResult(BaseModel):
    """How the hand ended: each seat's result and the table's lines (``results``), the
    records' outcomes, pots, rake and jackpot lines as they were settled."""

    model_config = ConfigDict(extra="allow")

    results: HandResults | None = Field(
        default=None, description="Per-seat results (null while the hand is in progress).")


class HandDetail(HandSummary):
    """One hand in full: the summary, its seats, the cards by round, the actions, the reveals,
    how it ended and the corrections that concern it (COR-1..5)."""

    card_source: str | None = None
    config_version: int | None = None
    deck_commitment: str | None = None
    first_version: int | None = None
    last_version: int | None = None
    seats: list[dict[str, Any]]
    cards: list[dict[str, Any]]
    actions: list[dict[str, Any]]
    reveals: list[dict[str, Any]]
    result: HandResult | None = None
    corrections: list[dict[str, Any]] = []
