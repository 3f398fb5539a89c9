"""``ledger correct``: put a dealer's error right with a new event, never an edit (COR-1..5).

Each command names the approving supervisors (``--approver``, twice above the table's amount
limit) and a reason, appends one correction event and prints what it moved. A refused
correction prints ``error [code] message``, exits with status 2 and appends nothing.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

import typer

from ledger.cli import app
from ledger.cli.common import DATABASE_OPTION, fail, ledger_app

correct_app = typer.Typer(
    help="Correct a settled hand's cards, a cash movement's amount or a seat's player, with "
    "approvers and a reason (COR-1..5). The record is never edited: a correction is a new event "
    "that compensates the difference.",
    no_args_is_help=True,
)
app.add_typer(correct_app, name="correct")

APPROVER = typer.Option(..., "--approver", help="An approving supervisor's principal id; give "
                        "two above the table's amount limit (COR-4).")
REASON = typer.Option(..., "--reason", help="Why the record is corrected (kept in the event).")
COMMAND_ID = typer.Option(None, "--command-id", help="Idempotency key (default: a new one); "
                          "the same key again appends nothing.")
AS_JSON = typer.Option(False, "--json", help="Print the command's answer as JSON.")


@correct_app.command("hand")
def correct_hand(
    table: str = typer.Argument(..., metavar="TABLE", help="Table code."),
    hand_no: int = typer.Argument(..., metavar="HAND_NO", help="The settled hand to correct."),
    cards: list[str] = typer.Option(  # noqa: B008
        ..., "--card", metavar="TARGET:RECORDED=ACTUAL",
        help="A card recorded wrongly and the card really dealt, e.g. dealer:Qs=Ah or 3:7h=6h; "
        "give every wrong card of the hand."),
    approvers: list[str] = APPROVER,
    reason: str = REASON,
    command_id: str | None = COMMAND_ID,
    as_json: bool = AS_JSON,
    database_url: str | None = DATABASE_OPTION,
) -> None:
    """Settle hand HAND_NO of TABLE again with the cards it really held, under the rules and
    configuration in force when it was played, and compensate the difference (COR-1, COR-5)."""
    fixes = [_fix(text) for text in cards]
    _run("correct_hand", table, {"hand": hand_no, "fixes": fixes}, approvers, reason,
         command_id, as_json, database_url)


@correct_app.command("movement")
def correct_movement(
    table: str = typer.Argument(..., metavar="TABLE", help="Table code."),
    version: int = typer.Argument(..., metavar="VERSION",
                                  help="The event (table version) of the buy-in, cash-out, fill "
                                  "or credit, as ledger replay or the bankroll movements show."),
    amount: int = typer.Argument(..., metavar="AMOUNT_MINOR",
                                 help="What really moved, in minor units (0: nothing)."),
    approvers: list[str] = APPROVER,
    reason: str = REASON,
    command_id: str | None = COMMAND_ID,
    as_json: bool = AS_JSON,
    database_url: str | None = DATABASE_OPTION,
) -> None:
    """Correct the amount of a cash movement by a compensating movement linked to it (COR-2)."""
    _run("correct_movement", table, {"version": version, "amount": amount}, approvers,
         reason, command_id, as_json, database_url)


@correct_app.command("seat")
def correct_seat(
    table: str = typer.Argument(..., metavar="TABLE", help="Table code."),
    seat: int = typer.Argument(..., metavar="SEAT", help="Seat number."),
    player: str = typer.Argument(..., metavar="PLAYER", help="Who really sat there."),
    from_hand: int = typer.Option(..., "--from-hand", help="First hand of the period."),
    to_hand: int = typer.Option(..., "--to-hand", help="Last hand of the period."),
    approvers: list[str] = APPROVER,
    reason: str = REASON,
    command_id: str | None = COMMAND_ID,
    as_json: bool = AS_JSON,
    database_url: str | None = DATABASE_OPTION,
) -> None:
    """Record who really sat at SEAT from one hand to another, for ratings and exports; no
    chip moves (COR-3)."""
    _run("correct_seat", table, {"seat": seat, "player": player, "from_hand": from_hand,
                                 "to_hand": to_hand}, approvers, reason, command_id, as_json,
         database_url)


@correct_app.command("owed")
def settle_owed(
    table: str = typer.Argument(..., metavar="TABLE", help="Table code."),
    player: str = typer.Argument(..., metavar="PLAYER", help="The player owed or owing."),
    amount: int | None = typer.Option(None, "--amount", help="Minor units (default: all)."),
    approvers: list[str] = APPROVER,
    reason: str = REASON,
    command_id: str | None = COMMAND_ID,
    as_json: bool = AS_JSON,
    database_url: str | None = DATABASE_OPTION,
) -> None:
    """Pay at the cage what corrections left owed between the house and PLAYER (the account
    owed:PLAYER): the cage pays the player, or takes what the player owes (COR-5)."""
    fields: dict[str, Any] = {"player": player}
    if amount is not None:
        fields["amount"] = amount
    _run("settle_owed", table, fields, approvers, reason, command_id, as_json, database_url)


def _fix(text: str) -> dict[str, str]:
    from ledger.domain.errors import InvalidInput

    target, sep, cards = text.partition(":")
    recorded, eq, actual = cards.partition("=")
    if not (sep and eq and target and recorded and actual):
        fail(InvalidInput("invalid_fix", f"--card {text!r}: write TARGET:RECORDED=ACTUAL, e.g. "
                          "dealer:Qs=Ah or 3:7h=6h (COR-1)", rule="COR-1"))
    return {"target": target.strip().lower(), "recorded": recorded.strip(),
            "actual": actual.strip()}


def _run(name: str, table: str, fields: dict[str, Any], approvers: list[str], reason: str,
         command_id: str | None, as_json: bool, database_url: str | None) -> None:
    from ledger.domain.commands import command_from
    from ledger.domain.records import Record
    from ledger.table.describe import describe, transfer_line
    from ledger.table.events import ENVELOPE, EVENT_TYPES

    data = {**fields, "command_id": command_id or f"cli-{uuid.uuid4().hex[:16]}",
            "table": table, "approvers": approvers, "reason": reason}
    with ledger_app(database_url) as ledger:
        result = ledger.execute(command_from(name, data))
        currency = ledger.load(table).state.currency
    if as_json:
        typer.echo(json.dumps(result.as_dict()))
        return
    for event in result.events:
        record_type: type[Record] = EVENT_TYPES[event["type"]].__bases__[1]
        record = record_type.model_validate(
            {k: v for k, v in event.items() if k not in {"type", "version", *ENVELOPE}})
        lines = describe(record, currency)
        typer.echo(f"v{event['version']} {lines[0]}")
        for line in lines[1:]:
            typer.echo(f"  {line}")
        for t in record.transfers if hasattr(record, "transfers") else ():
            typer.echo(f"  {transfer_line(t, currency)}")
    if result.replayed:
        typer.echo("(already recorded under this command id: nothing appended)")
