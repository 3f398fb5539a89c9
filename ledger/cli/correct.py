"""``ledger correct``: put a dealer's error right with a new event, never an edit (COR-1..5).

Each command names the approving supervisors (``--approver``, twice above the table's amount
limit) and a reason. With each approver's key (``--key``, once per approver) it is signed and
recorded at once, and prints what it moved; without, it is proposed, and each approver
approves it with their own key (``ledger approve``). A refused correction prints
``error [code] message``, exits with status 2 and appends nothing.
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path
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
KEYS = typer.Option(None, "--key", metavar="FILE", help="An approver's key file: signs as that "
                    "approver (give one per approver to record it at once; without, the "
                    "correction is proposed for the approvers to approve).")


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
    keys: list[Path] | None = KEYS,
    as_json: bool = AS_JSON,
    database_url: str | None = DATABASE_OPTION,
) -> None:
    """Settle hand HAND_NO of TABLE again with the cards it really held, under the rules and
    configuration in force when it was played, and compensate the difference (COR-1, COR-5)."""
    fixes = [_fix(text) for text in cards]
    _run("correct_hand", table, {"hand": hand_no, "fixes": fixes}, approvers, reason,
         command_id, as_json, database_url, keys)


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
    keys: list[Path] | None = KEYS,
    as_json: bool = AS_JSON,
    database_url: str | None = DATABASE_OPTION,
) -> None:
    """Correct the amount of a cash movement by a compensating movement linked to it (COR-2)."""
    _run("correct_movement", table, {"version": version, "amount": amount}, approvers,
         reason, command_id, as_json, database_url, keys)


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
    keys: list[Path] | None = KEYS,
    as_json: bool = AS_JSON,
    database_url: str | None = DATABASE_OPTION,
) -> None:
    """Record who really sat at SEAT from one hand to another, for ratings and exports; no
    chip moves (COR-3)."""
    _run("correct_seat", table, {"seat": seat, "player": player, "from_hand": from_hand,
                                 "to_hand": to_hand}, approvers, reason, command_id, as_json,
         database_url, keys)


@correct_app.command("owed")
def settle_owed(
    table: str = typer.Argument(..., metavar="TABLE", help="Table code."),
    player: str = typer.Argument(..., metavar="PLAYER", help="The player owed or owing."),
    amount: int | None = typer.Option(None, "--amount", help="Minor units (default: all)."),
    approvers: list[str] = APPROVER,
    reason: str = REASON,
    command_id: str | None = COMMAND_ID,
    keys: list[Path] | None = KEYS,
    as_json: bool = AS_JSON,
    database_url: str | None = DATABASE_OPTION,
) -> None:
    """Pay at the cage what corrections left owed between the house and PLAYER (the account
    owed:PLAYER): the cage pays the player, or takes what the player owes (COR-5)."""
    fields: dict[str, Any] = {"player": player}
    if amount is not None:
        fields["amount"] = amount
    _run("settle_owed", table, fields, approvers, reason, command_id, as_json, database_url,
         keys)


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
         command_id: str | None, as_json: bool, database_url: str | None,
         keys: list[Path] | None = None) -> None:
    from ledger.access.keys import Keyring
    from ledger.app.approvals import Approvals
    from ledger.app.fleet import apps_of
    from ledger.cli.keyfiles import cli_principal, open_key
    from ledger.domain.commands import command_from

    data = {**fields, "command_id": command_id or f"cli-{uuid.uuid4().hex[:16]}",
            "table": table, "approvers": approvers, "reason": reason}
    with ledger_app(database_url) as ledger:
        command = command_from(name, data)
        ring = Keyring([open_key(path) for path in keys or ()])
        if not all(a in ring for a in approvers):
            proposal = Approvals(ledger).propose(command, actor=ledger.actor,
                                                 proposer_principal=cli_principal(ledger))
            _proposed(proposal.as_dict(), as_json)
            return
        for one in apps_of(ledger):
            one.keyring = ring
        result = ledger.execute(command)
        currency = ledger.load(table).state.currency
    _print_result(result, currency, as_json)


def _proposed(found: dict[str, Any], as_json: bool) -> None:
    if as_json:
        typer.echo(json.dumps(found))
        return
    typer.echo(f"proposed {found['proposal_id']}: it waits for the signatures of "
               f"{', '.join(found['needs'])} until {found['expires_at']}")
    typer.echo(f"each approves with their own key: ledger approve {found['proposal_id']} "
               "--key FILE")


def _print_result(result: Any, currency: str, as_json: bool) -> None:
    from ledger.domain.records import Record
    from ledger.table.describe import describe, transfer_line
    from ledger.table.events import ENVELOPE, EVENT_TYPES

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
        signed = event.get("approval") or {}
        for signature in signed.get("signatures", ()):
            typer.echo(f"  signed by {signature['principal']} (key {signature['key_id']})")
    if result.replayed:
        typer.echo("(already recorded under this command id: nothing appended)")
