"""Command endpoints: one per command of the application, each a thin translation.

Every body carries the client-made ``command_id`` (idempotency: a repeated id returns the first
answer, ``replayed: true`` and status 200, and appends nothing; the same id with a different
command is ``command_id_reused``). The answer lists the events appended; the sealed deck is
never in it, and face-down cards the caller may not see are ``null``.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, cast

from fastapi import APIRouter, Depends, Path, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel

from ledger.access.probes import record_refusal
from ledger.api.approvals import approvals_of
from ledger.api.approvals import held as held_proposal
from ledger.api.auth import Principal, check_seat, check_table, require
from ledger.api.errors import ApiError, log, responses
from ledger.api.models import CommandOut, ProposalOut, body_model
from ledger.api.visibility import (
    CardFilter,
    card_texts,
    hidden_cards,
    mask_events,
    scrub,
    sees_all_cards,
    shown_cards,
    visible_step,
)
from ledger.app.application import LedgerApp
from ledger.app.fleet import Ledger, app_of
from ledger.domain.actors import Actor
from ledger.domain.approval import named_approvers
from ledger.domain.commands import (
    COMMANDS_BY_NAME,
    Act,
    BuyIn,
    CashOut,
    ChangeConfig,
    Command,
    CorrectHand,
    CorrectMovement,
    CorrectSeat,
    CountInventory,
    Credit,
    DealCards,
    Fill,
    OpenTable,
    PlaceWager,
    Reveal,
    SeatPlayer,
    Settle,
    SettleOwed,
    SignInDealer,
    SignOutDealer,
    StartHand,
    UnseatPlayer,
    VoidHand,
    command_from,
)
from ledger.domain.errors import LedgerError
from ledger.domain.records import HAND_ENDINGS, Record
from ledger.domain.results import hand_results
from ledger.store.history import hand_events

HAND_ENDING_NAMES = frozenset(cls.__name__ for cls in HAND_ENDINGS)

CODE_PATH = Path(
    pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$", description="Table code (case-insensitive)."
)


@dataclass(frozen=True)
class Endpoint:
    command: type[Command]
    path: str
    summary: str
    roles: tuple[str, ...] = ("device",)
    seat_command: bool = False
    """Seat-bound device tokens may send it, for their own seat."""


ENDPOINTS: tuple[Endpoint, ...] = (
    Endpoint(OpenTable, "/tables", "Open a table", ("admin",)),
    Endpoint(ChangeConfig, "/tables/{code}/config", "Change the configuration (COM-4)", ("admin",)),
    Endpoint(SeatPlayer, "/tables/{code}/seats", "Seat a player"),
    Endpoint(UnseatPlayer, "/tables/{code}/departures", "Unseat a player (COM-6)"),
    Endpoint(SignInDealer, "/tables/{code}/dealer/sign-ins",
             "A dealer signs in, relieving the dealer on duty (DLR-1)"),
    Endpoint(SignOutDealer, "/tables/{code}/dealer/sign-outs",
             "The dealer on duty signs out (DLR-1)"),
    Endpoint(BuyIn, "/tables/{code}/buy-ins", "Buy chips in (COM-3)"),
    Endpoint(CashOut, "/tables/{code}/cash-outs", "Cash chips out"),
    Endpoint(StartHand, "/tables/{code}/hands", "Start a hand"),
    Endpoint(PlaceWager, "/tables/{code}/hands/current/wagers", "Place a wager", seat_command=True),
    Endpoint(DealCards, "/tables/{code}/hands/current/deal", "Deal the next round (COM-8)"),
    Endpoint(Act, "/tables/{code}/hands/current/actions", "Act for a seat", seat_command=True),
    Endpoint(Reveal, "/tables/{code}/hands/current/reveal", "Reveal the hand due to show"),
    Endpoint(Settle, "/tables/{code}/hands/current/settle", "Settle the hand"),
    Endpoint(VoidHand, "/tables/{code}/hands/current/void", "Void the hand (COM-5)"),
    Endpoint(CountInventory, "/tables/{code}/inventory-counts",
             "Count the tray: opening or closing (INV-1)"),
    Endpoint(Fill, "/tables/{code}/fills", "Fill the tray from the cage (INV-2)"),
    Endpoint(Credit, "/tables/{code}/credits", "Credit chips from the tray to the cage (INV-3)"),
    Endpoint(CorrectHand, "/tables/{code}/corrections/hands",
             "Correct a settled hand's cards: settle it again, compensate the difference (COR-1)",
             ("admin",)),
    Endpoint(CorrectMovement, "/tables/{code}/corrections/movements",
             "Correct a buy-in, cash-out, fill or credit by a linked movement (COR-2)",
             ("admin",)),
    Endpoint(CorrectSeat, "/tables/{code}/corrections/seats",
             "Correct who sat at a seat for a run of hands (COR-3)", ("admin",)),
    Endpoint(SettleOwed, "/tables/{code}/corrections/owed",
             "Pay at the cage what a correction left owed to or by a player (COR-5)",
             ("admin",)),
)


def run(request: Request, who: Principal, spec: Endpoint, code: str, body: BaseModel
        ) -> JSONResponse:
    """Check the caller's scope, build the command, execute it, answer with its events."""
    data = body.model_dump(exclude_unset=True)
    if spec.command is not OpenTable:
        check_table(who, code)
        data["table"] = code
    if who.seat is not None:
        if not spec.seat_command:
            raise ApiError(
                "forbidden",
                f"a seat-bound device token only wagers and acts for seat {who.seat}",
                role=who.role,
            )
        check_seat(who, data.get("seat"))
    name = _NAMES[spec.command]
    metrics = request.app.state.metrics
    held: Ledger = request.app.state.ledger
    try:
        command = command_from(name, data)
        ledger = app_of(held, command.table)  # in a fleet, the store that holds the table
    except LedgerError:
        metrics.command(name, "rejected")
        raise
    prior = ledger.recall(command) if named_approvers(command) else None
    if named_approvers(command) and prior is None:  # held for its approvers' signatures
        try:
            proposal = approvals_of(request).propose(command, actor=actor_of(who),
                                                     proposer_principal=who.principal)
        except LedgerError:
            metrics.command(name, "rejected")
            raise
        metrics.command(name, "proposed")
        return held_proposal(proposal)
    try:
        result = prior or held.execute(command, actor=actor_of(who))
    except LedgerError as exc:
        metrics.command(name, "rejected")
        if who.sees_everything or _sees_all_cards_of(ledger, command.table, who):
            raise
        if exc.private is not None and exc.private.seat not in who.seats:
            _record_probe(request, who, command, exc)
        public = exc.public(who.seats)
        if card_texts([public.message, public.details]):
            public = scrub(public, _shown_now(ledger, command.table, who.seats))
        if public is exc:
            raise
        raise public from None
    metrics.command(name, "replayed" if result.replayed else "appended")
    answer = result.as_dict()
    with ledger.as_left(result) as table:  # no read: the table the command just saved
        full = sees_all_cards(who, table)
        answer["hand_no"] = table.state.hand_no
        answer["step"] = visible_step(table.state.next_step(), who, full).model_dump(mode="json")
        ending = next((e for e in answer["events"] if e.get("type") in HAND_ENDING_NAMES), None)
        events = [] if ending is None else hand_events(ledger, command.table,
                                                       int(ending["hand_no"]))
    if not full:
        cards = CardFilter(lambda: _hidden_now(ledger, command.table, who.seats))
        answer["events"] = mask_events(answer["events"], cards)
    found = hand_results(cast(list[Record], events)) if events else None
    answer["results"] = None if found is None else found.model_dump(mode="json")
    return JSONResponse(answer, status_code=200 if result.replayed else 201)


def actor_of(who: Principal) -> Actor:
    """The actor the events of a command sent with ``who``'s token name."""
    return Actor.token(who.token_id, who.role, who.label)


def _record_probe(request: Request, who: Principal, command: Command, exc: LedgerError
                  ) -> None:
    """A refusal that depended on cards ``who`` cannot see: recorded (``ledger.access.probes``)."""
    assert exc.private is not None
    ledger: LedgerApp = request.app.state.ledger
    try:
        with ledger.peeking(command.table) as table:
            hand_no = table.state.hand_no
        record_refusal(
            request.app.state.probes, table_code=command.table, hand_no=hand_no,
            seat=exc.private.seat, command=_NAMES[type(command)],
            action=getattr(command, "action", None), amount=getattr(command, "amount", None),
            code=exc.code, rule=exc.details.get("rule"), token_id=who.token_id)
    except Exception as failure:  # the refusal is still answered; the failure is logged
        log.error("probe_not_recorded", table=command.table, code=exc.code,
                  token_id=who.token_id, error_class=type(failure).__name__)


def _hidden_now(ledger: LedgerApp, code: str, seats: frozenset[int]
                ) -> tuple[int | None, frozenset[str]]:
    with ledger.reading(code) as table:
        if table.state.hand is None:
            return None, frozenset()
        return table.state.hand_no, hidden_cards(ledger, table, seats)


def _sees_all_cards_of(ledger: LedgerApp, code: str, who: Principal) -> bool:
    try:
        with ledger.reading(code) as table:
            return sees_all_cards(who, table)
    except LedgerError:
        return False


def _shown_now(ledger: LedgerApp, code: str, seats: frozenset[int]) -> frozenset[str]:
    try:
        with ledger.reading(code) as table:
            return shown_cards(ledger, table, seats)
    except LedgerError:
        return frozenset()


_NAMES: dict[type[Command], str] = {cls: name for name, cls in COMMANDS_BY_NAME.items()}


def _endpoint(spec: Endpoint) -> Callable[..., JSONResponse]:
    body_type = body_model(spec.command)
    has_code = "{code}" in spec.path

    def endpoint(request: Request, body: Any, who: Principal, code: str = "") -> JSONResponse:
        table = code if has_code else str(getattr(body, "table", ""))
        return run(request, who, spec, table, body)

    params = [
        inspect.Parameter("request", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=Request),
        inspect.Parameter("body", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=body_type),
        inspect.Parameter(
            "who",
            inspect.Parameter.POSITIONAL_OR_KEYWORD,
            annotation=Principal,
            default=Depends(require(*spec.roles)),
        ),
    ]
    if has_code:
        params.append(
            inspect.Parameter(
                "code", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=str, default=CODE_PATH
            )
        )
    endpoint.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    return endpoint


def router() -> APIRouter:
    api = APIRouter(tags=["commands"])
    for spec in ENDPOINTS:
        name = _NAMES[spec.command]
        roles = " or ".join(spec.roles)
        seat_note = (
            " A seat-bound device token may send it for its own seat." if spec.seat_command else ""
        )
        api.add_api_route(
            spec.path,
            _endpoint(spec),
            methods=["POST"],
            name=f"command:{name}",
            operation_id=name,
            summary=spec.summary,
            description=f"`{name}` — {inspect.cleandoc(spec.command.__doc__ or '')}\n\n"
            f"Token: {roles}.{seat_note}",
            status_code=201,
            response_model=CommandOut,
            responses={200: {"model": CommandOut, "description": "Replayed: the first answer "
                             "to this command_id; nothing appended."},
                       202: {"model": ProposalOut, "description": "Held for approval: a "
                             "command that names approvers becomes a proposal each of them "
                             "approves with their own signature (POST /proposals/{id}/"
                             "approvals); nothing appended yet."},
                       **responses(403, 404, 409)},
        )
    return api
