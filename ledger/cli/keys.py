"""``ledger keys``: the Ed25519 key that signs the daily seals."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from ledger.cli import app
from ledger.cli.common import handle_errors, settings_for

keys_app = typer.Typer(help="The signing key of the daily seals (Ed25519): make one, show its "
                       "public key.", no_args_is_help=True)
app.add_typer(keys_app, name="keys")
OUT_OPTION = typer.Option(
    None, "--out", help="Private key file to write (mode 600; never overwritten). Default: "
    "LEDGER_SIGNING_KEY_FILE, else signing.key beside a SQLite store, else var/signing.key.")


def _print(public: str, key_id: str, path: Path | None, as_json: bool) -> None:
    if as_json:
        typer.echo(json.dumps({"public_key": public, "key_id": key_id,
                               "private_key_file": None if path is None else str(path)}))
        return
    if path is not None:
        typer.echo(f"private key: {path} (mode 600: back it up, keep it away from the store)")
    typer.echo(f"public key:  {public}")
    typer.echo(f"key id:      {key_id}")


@keys_app.command("create")
def create(
    out: Path | None = OUT_OPTION,
    as_json: bool = typer.Option(False, "--json", help='Print {"public_key", "key_id", '
                                 '"private_key_file"}.'),
    database_url: str | None = typer.Option(None, "--database-url", envvar="LEDGER_DATABASE_URL",
                                            help="The store the key goes beside (default "
                                            "LEDGER_DATABASE_URL).", show_envvar=False),
) -> None:
    """Make a new signing key: the private key goes to a file only its owner may read; the
    public key (give it to whoever checks the seals: `ledger audit verify --public-key`) and
    its key id are printed. To keep the private key in an environment variable instead, set
    LEDGER_SIGNING_KEY to the 64 hex digits after `ed25519-private:` in the file."""
    from projections.audit import keys

    settings = settings_for(database_url)
    with handle_errors(settings):
        path = out or keys.default_key_file(settings)
        key = keys.create_key(path)
    public = key.public_key()
    _print(keys.public_text(public), keys.key_id(public), path, as_json)


@keys_app.command("show")
def show(
    as_json: bool = typer.Option(False, "--json", help='Print {"public_key", "key_id"}.'),
    database_url: str | None = typer.Option(None, "--database-url", envvar="LEDGER_DATABASE_URL",
                                            help="The store whose key to use.",
                                            show_envvar=False),
) -> None:
    """Print the public key and key id of the signing key in use (LEDGER_SIGNING_KEY or its
    file)."""
    from projections.audit import keys

    settings = settings_for(database_url)
    with handle_errors(settings):
        public = keys.signing_key(settings).public_key()
    _print(keys.public_text(public), keys.key_id(public), None, as_json)
