"""Shared plumbing of the CLI commands: settings, the application, errors, progress."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, NoReturn

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from ledger.errors import LedgerError
from ledger.logs import configure
from ledger.settings import Settings, get_settings

err_console = Console(stderr=True)

DATABASE_OPTION = typer.Option(
    None,
    "--database-url",
    envvar="LEDGER_DATABASE_URL",
    help="Event store: sqlite:///path or postgresql://user@host/db (default: LEDGER_DATABASE_URL,"
    " else sqlite:///var/ledger.sqlite3).",
    show_envvar=False,
)


def settings_for(database_url: str | None) -> Settings:
    settings = get_settings()
    if database_url:
        settings = settings.model_copy(update={"database_url": database_url})
    configure(settings.log_level, settings.log_format)
    return settings


@contextmanager
def ledger_app(database_url: str | None) -> Iterator[Any]:
    """The application for the chosen store, closed on exit; domain errors end the command."""
    from ledger.application import LedgerApp

    settings = settings_for(database_url)
    with handle_errors():
        app = LedgerApp(settings)
        try:
            yield app
        finally:
            app.close()


@contextmanager
def handle_errors(as_json: bool = False) -> Iterator[None]:
    try:
        yield
    except LedgerError as exc:
        fail(exc, as_json)


def fail(exc: LedgerError, as_json: bool = False) -> NoReturn:
    if as_json:
        typer.echo(json.dumps({"error": exc.as_dict()}))
    else:
        err_console.print(
            f"[bold red]error[/] {escape(f'[{exc.code}]')} {escape(exc.message)}", highlight=False
        )
    raise typer.Exit(code=2)


@contextmanager
def progress_bar(total: int, label: str) -> Iterator[Any]:
    """A progress bar on a terminal; silent otherwise. Yields ``advance(n)``."""
    if not sys.stderr.isatty():
        yield lambda n=1: None
        return
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=err_console,
        transient=True,
    ) as progress:
        task = progress.add_task(label, total=total)
        yield lambda n=1: progress.advance(task, n)
