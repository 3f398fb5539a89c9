"""``ledger tokens``: create, list and revoke the API's bearer tokens."""

from __future__ import annotations

import json

import typer
from rich.table import Table

from ledger.cli import app
from ledger.cli.common import DATABASE_OPTION, ledger_app, minute, out_console

tokens_app = typer.Typer(help="Bearer tokens of the HTTP API (stored hashed).",
                         no_args_is_help=True)
app.add_typer(tokens_app, name="tokens")


@tokens_app.command("create")
def create(
    role: str = typer.Option(..., "--role",
                             metavar="[device|auditor|accounting|admin|approver]",
                             help="What the token may do (docs/api/index.md: tokens and roles)."),
    tables: list[str] = typer.Option(  # noqa: B008
        [], "--table", help="Device tokens: a table code it may use (repeat for more)."
    ),
    seat: int | None = typer.Option(None, "--seat", help="Device tokens: bind to this seat."),
    label: str = typer.Option("", "--label", help="Who or what holds the token."),
    principal: str | None = typer.Option(None, "--principal", help="Approver tokens: the "
                                         "principal of the register it is bound to."),
    as_json: bool = typer.Option(
        False, "--json", help="Print the token and its record as JSON (errors stay `error [code]"
        " message` on standard error, exit status 2)."),
    database_url: str | None = DATABASE_OPTION,
) -> None:
    """Create a token and print it. It is shown this once: only its SHA-256 is stored."""
    from ledger.access.tokens import TokenStore
    from ledger.app.fleet import home_of

    with ledger_app(database_url) as ledger:
        if principal is not None:
            home_of(ledger).principals.get(principal)
        token, info = TokenStore.of(home_of(ledger)).create(
            role, tables=tables or None, seat=seat, label=label, principal=principal
        )
    if as_json:
        typer.echo(json.dumps({**info.as_dict(), "token": token}))
        return
    typer.echo(token)
    scope = f" tables {', '.join(info.tables)}" if info.tables else ""
    scope += f" seat {info.seat}" if info.seat is not None else ""
    scope += f" for principal {info.principal}" if info.principal is not None else ""
    typer.echo(f"token {info.token_id}: {info.role}{scope} (shown once; store it now)", err=True)


@tokens_app.command("list")
def list_tokens(
    as_json: bool = typer.Option(False, "--json", help="One JSON object per token."),
    database_url: str | None = DATABASE_OPTION,
) -> None:
    """List tokens (never their secrets), revoked ones included."""
    from ledger.access.tokens import TokenStore
    from ledger.app.fleet import home_of

    with ledger_app(database_url) as ledger:
        found = TokenStore.of(home_of(ledger)).all()
    if as_json:
        for info in found:
            typer.echo(json.dumps(info.as_dict()))
        return
    # The id is what `revoke` takes: never shortened or wrapped, whatever the width; the
    # other columns fold instead.
    table = Table()
    table.add_column("id", no_wrap=True, overflow="fold",
                     min_width=max((len(i.token_id) for i in found), default=2))
    table.add_column("role", no_wrap=True, min_width=max((len(i.role) for i in found),
                                                          default=4))
    for column in ("tables", "seat", "label", "created", "revoked"):
        table.add_column(column, overflow="fold")
    for info in found:
        table.add_row(info.token_id, info.role, ", ".join(info.tables or ()),
                      "" if info.seat is None else str(info.seat), info.label,
                      minute(info.created_at), minute(info.revoked_at))
    out_console().print(table)


@tokens_app.command("revoke")
def revoke(
    token_id: str = typer.Argument(..., metavar="TOKEN_ID",
                                   help="The token's id (from `ledger tokens list`)."),
    database_url: str | None = DATABASE_OPTION,
) -> None:
    """Revoke a token: from now on it gets 401 (within LEDGER_API_TOKEN_CACHE_SECONDS in a
    running server)."""
    from ledger.access.sessions import SessionStore
    from ledger.access.tokens import TokenStore
    from ledger.app.fleet import home_of

    with ledger_app(database_url) as ledger:
        info = TokenStore.of(home_of(ledger)).revoke(token_id)
        SessionStore(home_of(ledger).recorder).end_for_token(token_id)  # its console sessions
    typer.echo(f"token {info.token_id} ({info.role}) revoked at {info.revoked_at}")
