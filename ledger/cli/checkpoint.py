"""``ledger checkpoint``: sign a checkpoint of every chain head now (for cron; ``ledger serve``
makes one every ``LEDGER_CHECKPOINT_MINUTES``)."""

from __future__ import annotations

import json

import typer

from ledger.cli import app
from ledger.cli.common import DATABASE_OPTION, handle_errors, ledger_app


@app.command("checkpoint")
def checkpoint(
    as_json: bool = typer.Option(False, "--json", help='Print the signed checkpoint: {"format",'
                                 ' "key_id", "seq", "created_at", "previous", "heads": {"tables",'
                                 ' "register", "tokens", "access_log"}, "signature"}.'),
    database_url: str | None = DATABASE_OPTION,
) -> None:
    """Sign a checkpoint of every chain head of the store (each table's last version and chain
    digest, the register of principals, the tokens' chain, the access log) with the signing
    key (`ledger keys create`), linked to the checkpoint before it; it is kept in the store and
    appended to LEDGER_CHECKPOINT_SINK when set. `ledger audit verify` holds the store against
    the latest: a table rewritten after it, even with every chain recomputed, is reported
    (checkpoint_mismatch) without any daily seal."""
    from projections.audit import keys
    from projections.audit.checkpoint import make_checkpoint

    with ledger_app(database_url) as ledger, handle_errors(ledger.settings):
        key = keys.signing_key(ledger.settings)
        made = make_checkpoint(ledger, key, sink=ledger.settings.checkpoint_sink)
    if as_json:
        typer.echo(json.dumps(made))
        return
    heads = made["heads"]
    typer.echo(f"checkpoint {made['seq']} signed by key {made['key_id']}: "
               f"{len(heads['tables'])} tables, register at {heads['register']['version']}, "
               f"tokens at {heads['tokens']['version']}, access log at "
               f"{heads['access_log']['rows']} rows")
