"""``ledger shards``: where each table lives when the tables are spread over stores."""

from __future__ import annotations

import json

import typer
from rich.markup import escape
from rich.table import Table as RichTable

from ledger.cli import app
from ledger.cli.common import (
    DATABASE_OPTION,
    fail,
    ledger_app,
    out_console,
    settings_for,
)
from ledger.domain.errors import LedgerError


@app.command("shards")
def shards(
    as_json: bool = typer.Option(False, "--json", help='One object per table: {"table", '
                                 '"held_by", "mapped_to", "in_place"}.'),
    database_url: str | None = DATABASE_OPTION,
) -> None:
    """Check LEDGER_SHARDS against the stores: list every table with the shard whose store
    holds it and the shard the map names for it. Exit status 0 when every table is where the
    map places it; 1 when one is not (such a table is refused, `table_moved`, until the map
    is restored: a table never moves); 2 when the map itself is faulty (`invalid_shards`) or
    no map is set."""
    from ledger.app.fleet import Fleet
    from projections.read.fleet import placement

    # Refused before any store is opened: nothing is made at LEDGER_DATABASE_URL for it.
    if not settings_for(database_url).shards.strip():
        fail(LedgerError("no_shards", "LEDGER_SHARDS is not set: every table lives in the "
                         "one store of LEDGER_DATABASE_URL"))
    with ledger_app(database_url) as ledger:
        assert isinstance(ledger, Fleet)
        rows = placement(ledger)
        names = list(ledger.apps)
    if as_json:
        for row in rows:
            typer.echo(json.dumps(row))
    else:
        table = RichTable(title=f"Tables over {len(names)} shards ({', '.join(names)})")
        for column in ("table", "held by", "map says", "state"):
            table.add_column(column)
        for row in rows:
            state = "in place" if row["in_place"] else "[red]OUT OF PLACE: refused[/]"
            table.add_row(escape(row["table"]), row["held_by"], row["mapped_to"] or "-", state)
        out_console().print(table)
    raise typer.Exit(0 if all(r["in_place"] for r in rows) else 1)
