"""``ledger principals``: the register of the people whose names approve and sign."""

from __future__ import annotations

import json

import typer
from rich.table import Table

from ledger.cli import app
from ledger.cli.common import DATABASE_OPTION, ledger_app, minute, out_console

principals_app = typer.Typer(
    help="Principals: the floor staff, supervisors and admins whose names approve "
    "configuration changes and voids and sign for the tray.", no_args_is_help=True)
app.add_typer(principals_app, name="principals")


@principals_app.command("add")
def add(
    principal_id: str = typer.Argument(..., metavar="ID", help="The id commands name (e.g. "
                                       "floor-ben): letters, digits, _.@-, at most 64."),
    name: str = typer.Option(..., "--name", help="The person's name."),
    role: str = typer.Option(..., "--role", metavar="[floor|supervisor|admin|dealer]",
                             help="floor signs for the tray; supervisor and admin also approve "
                             "configuration changes and voids; dealer, floor and supervisor "
                             "sign in to deal at a table (DLR-1)."),
    as_json: bool = typer.Option(False, "--json", help="Print the record as JSON."),
    database_url: str | None = DATABASE_OPTION,
) -> None:
    """Register a principal (who added them is recorded: --actor, LEDGER_ACTOR or the OS user)."""
    with ledger_app(database_url) as ledger:
        found = ledger.principals.add(principal_id, name, role, by=ledger.actor.id)
    if as_json:
        typer.echo(json.dumps(found.as_dict()))
        return
    typer.echo(f"principal {found.principal_id}: {found.name}, {found.role}")


@principals_app.command("list")
def list_principals(
    as_json: bool = typer.Option(False, "--json", help="One JSON object per principal."),
    database_url: str | None = DATABASE_OPTION,
) -> None:
    """List the principals, revoked ones included."""
    with ledger_app(database_url) as ledger:
        found = ledger.principals.all()
    if as_json:
        for principal in found:
            typer.echo(json.dumps(principal.as_dict()))
        return
    table = Table()
    table.add_column("id", no_wrap=True, min_width=max((len(p.principal_id) for p in found),
                                                      default=2))
    for column in ("name", "role", "added", "by", "revoked", "by"):
        table.add_column(column, overflow="fold")
    for p in found:
        table.add_row(p.principal_id, p.name, p.role, minute(p.created_at), p.created_by,
                      minute(p.revoked_at), p.revoked_by or "")
    out_console().print(table)


@principals_app.command("revoke")
def revoke(
    principal_id: str = typer.Argument(..., metavar="ID", help="The principal's id."),
    database_url: str | None = DATABASE_OPTION,
) -> None:
    """Revoke a principal: their name approves and signs nothing from now on (what they
    approved before stays recorded)."""
    with ledger_app(database_url) as ledger:
        found = ledger.principals.revoke(principal_id, by=ledger.actor.id)
    typer.echo(f"principal {found.principal_id} ({found.role}) revoked at {found.revoked_at}")
