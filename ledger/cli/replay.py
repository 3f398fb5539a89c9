"""``ledger replay``: one hand, event by event, as an auditor reads it."""

from __future__ import annotations

import json

import typer

from ledger.cli import app
from ledger.cli.common import DATABASE_OPTION, ledger_app


@app.command()
def replay(
    table: str = typer.Argument(..., help="Table code."),
    hand_no: int = typer.Argument(..., help="Hand number (1 is the table's first hand)."),
    as_json: bool = typer.Option(False, "--json", help="One JSON object per event instead."),
    transfers: bool = typer.Option(True, "--transfers/--no-transfers", help="List chip movements."),
    database_url: str | None = DATABASE_OPTION,
) -> None:
    """Print hand HAND_NO of TABLE event by event: version, time, what happened, the rule behind
    each decision and every chip movement. The deck is shown only once the hand has ended."""
    from ledger.cards import verify_commitment
    from ledger.describe import describe, transfer_line
    from ledger.history import hand_events
    from ledger.records import HandStarted

    with ledger_app(database_url) as ledger:
        events = hand_events(ledger, table, hand_no)
    if as_json:
        for e in events:
            data = e.model_dump(mode="json", exclude={"originator_id", "sealed_deck"})
            data["type"] = type(e).__name__
            typer.echo(json.dumps(data))
        return
    commitment = None
    for e in events:
        lines = describe(e)
        stamp = e.timestamp.strftime("%Y-%m-%d %H:%M:%S")
        typer.echo(f"v{e.originator_version:<6} {stamp}  {type(e).__name__:<15} {lines[0]}")
        for line in lines[1:]:
            typer.echo(f"{'':<37}{line}")
        if transfers:
            for t in getattr(e, "transfers", ()):
                typer.echo(f"{'':<37}  {transfer_line(t)}")
        if isinstance(e, HandStarted):
            commitment = e.deck_commitment
        deck, salt = getattr(e, "deck", None), getattr(e, "salt", None)
        if commitment and deck is not None and salt is not None:
            ok = verify_commitment(deck, salt, commitment)
            typer.echo(f"{'':<37}deck commitment {'verified' if ok else 'DOES NOT MATCH'} (COM-8)")
