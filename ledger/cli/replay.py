"""``ledger replay``: one hand, event by event, as an auditor reads it."""

from __future__ import annotations

import json
from datetime import datetime
from typing import cast
from zoneinfo import ZoneInfo

import typer

from ledger.cli import app
from ledger.cli.common import DATABASE_OPTION, ledger_app


def stamp(moment: datetime, zone: str) -> str:
    """``2026-03-14 22:05:13Z (23:05:13 Europe/Amsterdam)``: UTC with its mark, and the table's
    local time (the date too when it differs)."""
    utc = moment.strftime("%Y-%m-%d %H:%M:%S") + "Z"
    local = moment.astimezone(ZoneInfo(zone))
    shown = local.strftime("%H:%M:%S") if local.date() == moment.date() else \
        local.strftime("%Y-%m-%d %H:%M:%S")
    return f"{utc} ({shown} {zone})"


@app.command()
def replay(
    table: str = typer.Argument(..., metavar="TABLE", help="Table code."),
    hand_no: int = typer.Argument(..., metavar="HAND_NO",
                                  help="Hand number (1 is the table's first hand)."),
    as_json: bool = typer.Option(False, "--json", help="One JSON object per event instead."),
    transfers: bool = typer.Option(True, "--transfers/--no-transfers", help="List chip movements."),
    rule_texts: bool = typer.Option(False, "--rules", help="End with the text of every rule the "
                                    "hand cites (the rule book, docs/rules.md)."),
    database_url: str | None = DATABASE_OPTION,
) -> None:
    """Print hand HAND_NO of TABLE event by event: the time (UTC and the table's local time),
    what happened, the rule behind each decision and every chip movement in the table's
    currency; Caribbean Stud hands name each hand's rank. A settled hand ends with each seat's
    result. The deck is shown only once the hand has ended."""
    from ledger.cards import verify_commitment
    from ledger.describe import describe, results_lines, transfer_line
    from ledger.history import hand_events
    from ledger.records import HAND_ENDINGS, HandStarted, Record
    from ledger.results import hand_results
    from ledger.rulebook import cited
    from projections.audit.handreplay import rules_of

    with ledger_app(database_url) as ledger:
        events = hand_events(ledger, table, hand_no)
        state = ledger.load(table).state
    if as_json:
        for e in events:
            data = e.model_dump(mode="json", exclude={"originator_id", "sealed_deck"})
            data["type"] = type(e).__name__
            typer.echo(json.dumps(data))
        return
    currency, zone, game = state.currency, state.timezone, state.game.name
    typer.echo(f"table {state.code} hand {hand_no}: {game}, amounts in {currency}, "
               f"times UTC (Z) and {zone}")
    commitment = None
    cites: set[str] = set()
    for e in events:
        lines = describe(e, currency, game)
        typer.echo(f"v{e.originator_version:<6} {stamp(e.timestamp, zone)}  "
                   f"{type(e).__name__:<15} {lines[0]}")
        indent = " " * 8
        for line in lines[1:]:
            typer.echo(f"{indent}{line}")
        if transfers:
            for t in getattr(e, "transfers", ()):
                typer.echo(f"{indent}  {transfer_line(t, currency)}")
        cites.update(rules_of(e))
        if isinstance(e, HandStarted):
            commitment = e.deck_commitment
        deck, salt = getattr(e, "deck", None), getattr(e, "salt", None)
        if commitment and deck is not None and salt is not None:
            ok = verify_commitment(deck, salt, commitment)
            typer.echo(f"{indent}deck commitment {'verified' if ok else 'DOES NOT MATCH'} "
                       "(COM-8)")
    if events and isinstance(events[-1], HAND_ENDINGS):
        results = hand_results(cast(list[Record], events))
        if results is not None:
            for line in results_lines(results, currency):
                typer.echo(line)
    if rule_texts:
        typer.echo("")
        for rule in cited(cites):
            typer.echo(f"{rule.id}: {rule.text.replace('**', '')}")
