"""Shared plumbing of the CLI commands: settings, the application, errors, progress."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, NoReturn

import typer
from pydantic import ValidationError
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from ledger.errors import LedgerError
from ledger.logs import configure
from ledger.settings import Settings, get_settings

err_console = Console(stderr=True)
WIDE = 1_000
"""Columns a table may take when the output is not a terminal: rows are printed whole (a pipe
or a file gets every character, no row cut at 80 columns, no date wrapped mid-string)."""


def out_console() -> Console:
    """The console for standard output: the terminal's width (or ``COLUMNS`` when set), or
    whole rows for a pipe or a file."""
    if sys.stdout.isatty() or os.environ.get("COLUMNS"):
        return Console()
    return Console(width=WIDE, soft_wrap=True)

DATABASE_OPTION = typer.Option(
    None,
    "--database-url",
    envvar="LEDGER_DATABASE_URL",
    help="Event store: sqlite:///path or postgresql://user@host/db (default: LEDGER_DATABASE_URL,"
    " else sqlite:///var/ledger.sqlite3).",
    show_envvar=False,
)


def settings_for(database_url: str | None) -> Settings:
    """The settings from ``LEDGER_*`` (and ``--database-url``); a bad value ends the command
    with ``invalid_setting``."""
    try:
        settings = get_settings()
    except ValidationError as exc:
        fail(invalid_setting(exc))
    if database_url:
        settings = settings.model_copy(update={"database_url": database_url})
    configure(settings.log_level, settings.log_format)
    return settings


SECRET_SETTINGS = {"deck_key", "seal_key", "database_url"}
"""Settings whose value is never repeated in an error (keys, a URL with a password)."""


def invalid_setting(exc: ValidationError) -> LedgerError:
    """A pydantic error about the settings as ``invalid_setting``, naming each variable."""
    problems = []
    for error in exc.errors(include_url=False):
        field = str(error["loc"][0]) if error["loc"] else ""
        variable = f"LEDGER_{field.upper()}"
        shown = "" if field in SECRET_SETTINGS or "input" not in error else \
            f"={error['input']!r}"
        problems.append({"variable": variable, "problem": error["msg"],
                         "text": f"{variable}{shown}: {error['msg']}"})
    return LedgerError("invalid_setting", "; ".join(p["text"] for p in problems),
                       problems=[{k: p[k] for k in ("variable", "problem")} for p in problems])


@contextmanager
def ledger_app(database_url: str | None, *, allow_seeded: bool = False) -> Iterator[Any]:
    """The application for the chosen store, closed on exit; domain errors and store failures
    end the command. ``allow_seeded``: the simulations' seeded tables may be played (COM-8)."""
    from ledger.application import LedgerApp

    settings = settings_for(database_url)
    with handle_errors(settings):
        app = LedgerApp(settings, allow_seeded=allow_seeded)
        try:
            yield app
        finally:
            app.close()


@contextmanager
def handle_errors(settings: Settings | None = None) -> Iterator[None]:
    """End the command with ``error [code] message`` (exit 2) on a :class:`LedgerError`, and
    on a store failure the store layer knows (with ``settings``: unreachable, permission)."""
    try:
        yield
    except LedgerError as exc:
        fail(exc)
    except Exception as exc:
        from ledger.persistence import store_error

        found = store_error(exc, settings) if settings is not None else None
        if found is None:
            raise
        fail(found)


def fail(exc: LedgerError) -> NoReturn:
    """Print ``error [code] message`` on standard error and exit with status 2."""
    err_console.print(
        f"[bold red]error[/] {escape(f'[{exc.code}]')} {escape(exc.message)}", highlight=False,
        soft_wrap=True,
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


def day_activity(ledger: Any, day: str, table: str | None = None) -> tuple[int, int]:
    """(tables with activity, hands started) on gaming day ``day``, from the projections
    (brought up to date first when this role may; else as they stand)."""
    from projections.queries import ReadModel
    from projections.runner import Runner

    with contextlib.suppress(Exception):  # a role that may only read: the views as they are
        Runner(ledger).catch_up()
    read = ReadModel(ledger, ensure_schema=False)
    tables = {r["table_code"] for r in read.accounting(day=day, table=table)}
    return len(tables), read.count_hands(day=day, table=table)


def report_day(ledger: Any, day: str, table: str | None = None) -> None:
    """Say on standard error how much gaming day ``day`` holds; warn when it holds nothing (a
    day with no activity gives a clean result, which may be a typo in the day)."""
    tables, hands = day_activity(ledger, day, table)
    where = f" at table {table}" if table else ""
    if not tables and not hands:
        err_console.print(f"[yellow]warning[/]: gaming day {day} has no activity{escape(where)}: "
                          "no table moved a chip and no hand started (is the day right?)",
                          highlight=False, soft_wrap=True)
        return
    err_console.print(f"gaming day {day}{escape(where)}: {tables} table"
                      f"{'' if tables == 1 else 's'} with activity, {hands} hand"
                      f"{'' if hands == 1 else 's'} started", highlight=False, soft_wrap=True)
