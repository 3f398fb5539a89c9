"""``ledger backup``: a consistent copy of the store, taken while tables play."""

from __future__ import annotations

from pathlib import Path

import typer

from ledger.cli import app
from ledger.cli.common import DATABASE_OPTION, handle_errors, settings_for

OUT_OPTION = typer.Option(..., "--out", help="Directory for the copy and its backup.json.")


@app.command("backup")
def backup_command(out: Path = OUT_OPTION, database_url: str | None = DATABASE_OPTION) -> None:
    """Copy the store while it runs: SQLite's online backup into a new file, or pg_dump of the
    ledger's schema (custom format, for pg_restore). backup.json beside it records the file's
    SHA-256 and the head of the log. The deck key and the signing key are not copied: back
    them up apart (docs/operations/backup.md)."""
    from ledger.store.backup import backup

    settings = settings_for(database_url)
    with handle_errors(settings):
        manifest = backup(settings, out)
    typer.echo(f"backed up the {manifest['store']} store -> {out / manifest['file']} "
               f"(sha256 {manifest['sha256'][:16]}...); back up the deck key and the signing "
               "key apart")
