"""``ledger access``: who saw hidden cards (the access log, ``ledger.access.accesslog``)."""

from __future__ import annotations

import json
from typing import Any

import typer
from rich.table import Table

from ledger.cli import app
from ledger.cli.common import DATABASE_OPTION, ledger_app, out_console

access_app = typer.Typer(
    help="The access log: every read that showed face-down cards of a hand in progress and "
    "every export of hole cards (who, when, what), in a hash chain.", no_args_is_help=True)
app.add_typer(access_app, name="access")


def _broken(problems: list[dict[str, Any]]) -> None:
    for p in problems[:20]:
        typer.echo(f"ACCESS LOG BROKEN at row {p['seq']}: {p['kind']} (expected "
                   f"{p['expected']}, found {p['found']})")
    if len(problems) > 20:
        typer.echo(f"... and {len(problems) - 20} more")


@access_app.command("list")
def list_access(
    table: str | None = typer.Option(None, "--table", help="Only this table's rows."),
    who: str | None = typer.Option(None, "--who", help="Only this actor's rows (token:ID, "
                                   "cli:NAME)."),
    what: str | None = typer.Option(None, "--what", help="Only rows of this kind (table_state, "
                                    "hand, hand_replay, hands_export)."),
    since: str | None = typer.Option(None, "--since", help="Only rows at or after this time "
                                     "(ISO-8601: 2026-03-14T06:00:00Z, an offset, or a day; "
                                     "without an offset, UTC)."),
    after: int = typer.Option(0, "--after", min=0, help="Only rows after this sequence "
                              "number."),
    limit: int = typer.Option(1_000, "--limit", min=1, help="At most this many rows."),
    as_json: bool = typer.Option(False, "--json", help="One JSON object per row, then one "
                                 "with the chain's verdict."),
    database_url: str | None = DATABASE_OPTION,
) -> None:
    """The rows of the access log in order: when, who, what, the table and hand, the details
    (route or command). The log's hash chain is checked too: exit status 1 when a row was
    edited, deleted or inserted."""
    from ledger.access.accesslog import access_rows, verify_access_log

    with ledger_app(database_url) as ledger:
        rows = access_rows(ledger, table=table, who=who, what=what, since=since, after=after,
                           limit=limit)
        problems = verify_access_log(ledger)
    if as_json:
        for row in rows:
            typer.echo(json.dumps(row.as_dict()))
        typer.echo(json.dumps({"chain_ok": not problems, "problems": problems}))
    else:
        shown = Table()
        for column in ("seq", "at", "who", "what", "table", "hand", "detail"):
            shown.add_column(column, overflow="fold")
        for row in rows:
            detail = ", ".join(f"{k}={v}" for k, v in row.detail.items() if v is not None)
            who = f"{row.who} (unauthenticated)" if row.who.startswith("cli:") else row.who
            shown.add_row(str(row.seq), row.at[:19].replace("T", " "), who, row.what,
                          row.table or "", "" if row.hand is None else str(row.hand), detail)
        out_console().print(shown)
        if problems:
            _broken(problems)
        else:
            typer.echo("access log chain intact")
    if problems:
        raise typer.Exit(1)


@access_app.command("verify")
def verify_access(
    as_json: bool = typer.Option(False, "--json", help="The verdict as one JSON object."),
    database_url: str | None = DATABASE_OPTION,
) -> None:
    """Walk the access log's hash chain from its first row: every row edited (row_edited),
    deleted (row_missing) or inserted out of the chain (row_unlinked) is named. Exit status 1
    when the chain does not hold."""
    from ledger.access.accesslog import access_rows, verify_access_log

    with ledger_app(database_url) as ledger:
        problems = verify_access_log(ledger)
        last = access_rows(ledger, after=0, limit=None, last=True)
    head = last[0] if last else None
    if as_json:
        typer.echo(json.dumps({"chain_ok": not problems, "problems": problems,
                               "rows": head.seq if head else 0,
                               "head": head.row_hash if head else None}))
    elif problems:
        _broken(problems)
    else:
        typer.echo(f"access log chain intact: {head.seq if head else 0} rows, head "
                   f"{head.row_hash[:16] if head else '-'}")
    if problems:
        raise typer.Exit(1)
