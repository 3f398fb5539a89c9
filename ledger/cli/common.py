"""Shared plumbing of the CLI commands: settings, the application, errors, progress."""

from __future__ import annotations

import contextlib
import errno
import os
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, NoReturn, cast

import typer

from ledger.domain.errors import LedgerError

if TYPE_CHECKING:  # imported where used: `ledger --help` needs neither settings nor pydantic
    from pydantic import ValidationError
    from rich.console import Console

    from ledger.settings import Settings


class _ErrorConsole:
    """rich's console on standard error, made when first printed to: most commands print
    nothing there, and rich's console is a good part of a short command's start."""

    _console: Console | None = None

    def __getattr__(self, name: str) -> Any:
        if self._console is None:
            from rich.console import Console

            self._console = Console(stderr=True)
        return getattr(self._console, name)


err_console = cast("Console", _ErrorConsole())
WIDE = 1_000
"""Columns a table may take when the output is not a terminal: rows are printed whole (a pipe
or a file gets every character, no row cut at 80 columns, no date wrapped mid-string)."""


def out_console() -> Console:
    """The console for standard output: the terminal's width (or ``COLUMNS`` when set), or
    whole rows for a pipe or a file."""
    from rich.console import Console

    if sys.stdout.isatty() or os.environ.get("COLUMNS"):
        return Console()
    return Console(width=WIDE, soft_wrap=True)

def minute(stamp: str | None) -> str:
    """``2026-03-14T21:34:36.123Z`` as ``2026-03-14 21:34`` (it wraps at the space)."""
    return (stamp or "")[:16].replace("T", " ")


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
    from pydantic import ValidationError

    from ledger.logs import configure
    from ledger.settings import get_settings

    try:
        settings = get_settings()
    except ValidationError as exc:
        fail(invalid_setting(exc))
    if database_url:
        settings = settings.model_copy(update={"database_url": database_url})
    configure(settings.log_level, settings.log_format)
    return settings


SECRET_SETTINGS = {"deck_key", "seal_key", "signing_key", "database_url", "shards",
                   "read_database_url"}
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
def ledger_app(database_url: str | None, *, allow_seeded: bool = False,
               reading: bool = False) -> Iterator[Any]:
    """The application for the chosen store (or the fleet of ``LEDGER_SHARDS``, see
    ``ledger.app.fleet``), closed on exit; domain errors and store failures end the command.
    ``allow_seeded``: the simulations' seeded tables may be played (COM-8).
    ``reading``: a command that only reads (views, audit, exports) uses the read store
    (``LEDGER_READ_DATABASE_URL``) when one is set, and reads the views as they stand there."""
    from ledger.app.fleet import open_ledger
    from ledger.store.readstore import open_reader, read_settings

    settings = settings_for(database_url)
    replica = read_settings(settings) if reading else None
    with handle_errors(replica or settings):
        app = (open_reader(settings) if replica else None) or \
            open_ledger(settings, allow_seeded=allow_seeded)
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
        from ledger.store.errors import store_error

        found = store_error(exc, settings) if settings is not None else None
        if found is None:
            raise
        fail(found)


def run(command: Any) -> None:
    """Run the ``ledger`` command line; whatever ends a command other than its own exit is one
    ``error [code] message`` line on standard error and exit status 2, never a traceback:

    - a :class:`LedgerError` (the commands' own, raised outside :func:`handle_errors` too);
    - a usage error (a bad option or argument): ``invalid_argument``;
    - a store failure (:func:`ledger.store.errors.store_error`: ``store_corrupt``,
      ``store_unavailable``, ``store_permission_denied``, ...);
    - an operating-system error on a path (a file under a regular file, a directory where a
      file was meant, an unreadable file): ``invalid_path`` or ``permission_denied``;
    - anything else: ``internal_error`` naming the error's class and where the ledger's code
      raised it (``LEDGER_CLI_TRACEBACK=1`` shows the whole traceback instead, for a developer).
    """
    try:
        from typer._click import exceptions as click
    except ImportError:  # pragma: no cover - a typer that uses click itself
        from click import exceptions as click  # type: ignore[no-redef]

    try:
        status = command(standalone_mode=False)
    except click.UsageError as exc:
        if isinstance(exc, click.NoArgsIsHelpError):
            from typer import rich_utils

            rich_utils.rich_format_error(exc)  # the help, as without arguments always
            status = exc.exit_code
        else:
            hint = f" (see `{exc.ctx.command_path} --help`)" if exc.ctx is not None else ""
            _print_error("invalid_argument", exc.format_message() + hint)
            status = 2
    except click.ClickException as exc:
        exc.show()
        status = exc.exit_code
    except click.Abort:
        typer.echo("Aborted!", err=True)
        status = 1
    except OSError as exc:  # EPIPE: the reader of the output went away (| head)
        status = 1 if exc.errno == errno.EPIPE else _unexpected(exc)
    except LedgerError as exc:
        _print_error(exc.code, exc.message)
        status = 2
    except Exception as exc:
        status = _unexpected(exc)
    sys.exit(status if isinstance(status, int) else 0)


def _unexpected(exc: Exception) -> int:
    if os.environ.get("LEDGER_CLI_TRACEBACK", "") not in ("", "0"):
        raise exc
    found = cli_error(exc)
    _print_error(found.code, found.message)
    return 2


def cli_error(exc: BaseException) -> LedgerError:
    """An error no command handled, as a coded error (see :func:`run`)."""
    from pydantic import ValidationError

    from ledger.logs import frames
    from ledger.store.errors import sqlite_failure, store_error

    settings = _settings_or_none()
    found = store_error(exc, settings) if settings is not None else None
    if found is None:
        cause: BaseException | None = exc
        for _ in range(6):  # the driver's error behind the library's wrappers
            if cause is None:
                break
            if type(cause).__module__ == "sqlite3" or type(cause).__name__ == "DatabaseError":
                found = sqlite_failure(_store_path(settings), cause)
                if found is not None:
                    break
            cause = cause.__cause__ or cause.__context__
    if found is not None:
        return found
    if isinstance(exc, ValidationError):  # a value given on the command line, refused
        return LedgerError("invalid_argument", "; ".join(
            f"{'.'.join(map(str, e['loc'])) or 'value'}: {e['msg']}"
            for e in exc.errors(include_url=False)))
    if isinstance(exc, PermissionError):
        return LedgerError("permission_denied", f"{exc.strerror or 'permission denied'}: "
                           f"{exc.filename or ''}".rstrip(": "), path=str(exc.filename))
    if isinstance(exc, OSError) and exc.errno in (
            errno.ENOTDIR, errno.EISDIR, errno.ENOENT, errno.EEXIST, errno.ENAMETOOLONG,
            errno.EINVAL, errno.ELOOP, errno.EROFS, errno.ENOSPC):
        return LedgerError("invalid_path", f"{exc.strerror or exc}: {exc.filename or ''}"
                           .rstrip(": "), path=str(exc.filename))
    where = ", ".join(frames(exc.__traceback__)) or "?"
    return LedgerError("internal_error", f"an unexpected {type(exc).__name__} at {where} "
                       "(set LEDGER_CLI_TRACEBACK=1 to see the traceback)",
                       error_class=type(exc).__name__)


def _settings_or_none() -> Settings | None:
    try:
        from ledger.settings import get_settings

        return get_settings()
    except Exception:
        return None


def _store_path(settings: Settings | None) -> str:
    from ledger.store.urls import sqlite_path

    url = settings.database_url.strip() if settings is not None else ""
    return sqlite_path(url) if url.startswith("sqlite:") else "the store"


def _print_error(code: str, message: str) -> None:
    """``error [code] message`` on one line: control characters of the message (a table code
    given with an escape sequence, say) are shown escaped, never sent to the terminal."""
    from rich.markup import escape

    shown = CONTROL.sub(lambda m: repr(m.group())[1:-1], message.encode(
        "utf-8", "backslashreplace").decode("utf-8"))  # a lone surrogate as \udfff
    err_console.print(f"[bold red]error[/] {escape(f'[{code}]')} {escape(shown)}",
                      highlight=False, soft_wrap=True)


CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def fail(exc: LedgerError) -> NoReturn:
    """Print ``error [code] message`` on standard error and exit with status 2."""
    _print_error(exc.code, exc.message)
    raise typer.Exit(code=2)


@contextmanager
def progress_bar(total: int, label: str) -> Iterator[Any]:
    """A progress bar on a terminal; silent otherwise. Yields ``advance(n)``."""
    if not sys.stderr.isatty():
        yield lambda n=1: None
        return
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )

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
    from ledger.store.readstore import is_replica
    from projections.read.fleet import read_model, runner

    if not is_replica(ledger):  # a read store's views are as the primary's catch-up left them
        with contextlib.suppress(Exception):  # a role that may only read: the views as they are
            runner(ledger).catch_up()
    read = read_model(ledger, ensure_schema=False)
    tables = {r["table_code"] for r in read.accounting(day=day, table=table)}
    return len(tables), read.count_hands(day=day, table=table)


def report_day(ledger: Any, day: str, table: str | None = None) -> None:
    """Say on standard error how much gaming day ``day`` holds; warn when it holds nothing (a
    day with no activity gives a clean result, which may be a typo in the day)."""
    from rich.markup import escape

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
