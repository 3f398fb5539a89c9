"""The ``ledger`` command line.

Each sub-command lives in its own module and is registered here; every command has ``--help``.
A face like the API: it may use every layer (the application, access, the store, the read side,
the simulator, and ``ledger.api`` to serve it) and only translates arguments into their calls
and results into text or JSON; no rule is decided here.
"""

from __future__ import annotations

import typer

from ledger import __version__

app = typer.Typer(
    name="ledger",
    help="The table ledger: an event-sourced ledger for casino card tables.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode="markdown",  # docstrings' wrapped lines are joined into paragraphs
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"ledger {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version and exit."
    ),
    actor: str | None = typer.Option(
        None, "--actor", help="Who runs this command: the events it records name cli:ACTOR, "
        "shown as unauthenticated (default: LEDGER_ACTOR, else the operating-system user); "
        "approvals are signed with keys (--key), never taken from this name."),
) -> None:
    """The table ledger: an event-sourced ledger for casino card tables."""
    if actor is not None:
        import os

        from ledger.settings import get_settings

        os.environ["LEDGER_ACTOR"] = actor
        get_settings.cache_clear()


def _register(argv: list[str] | None = None) -> None:
    """Import the command modules; each adds its commands to ``app``.

    With ``argv`` (the arguments after ``ledger``), only the module of the command named there
    is imported when one is (``ledger replay ...`` does not import what ``ledger serve`` or
    ``ledger evaluate`` need: a short command's time is mostly its start); anything else
    (``--help``, no command, a name no module owns) imports them all, in the order the help
    lists them."""
    import importlib

    name = _command_named(argv) if argv is not None else None
    for module in [_COMMAND_OWNERS[name]] if name in _COMMAND_OWNERS else _COMMAND_MODULES:
        importlib.import_module(f"ledger.cli.{module}")


def _command_named(argv: list[str]) -> str | None:
    """The command an argument list names (its first argument that is not a root option)."""
    args = iter(argv)
    for arg in args:
        if arg == "--actor":
            next(args, None)
        elif arg.startswith("--actor="):
            continue
        elif arg.startswith("-"):
            return None  # --help, --version or an unknown option: typer answers it
        else:
            return arg
    return None


_COMMAND_MODULES: list[str] = [
    "demo", "simulate", "replay", "evaluate", "tables", "projections", "audit", "export", "serve",
    "tokens", "report", "hands", "rules", "correct", "principals", "approve", "access", "keys",
    "backup", "shards", "checkpoint",
]
_COMMAND_OWNERS: dict[str, str] = {
    "demo": "demo", "simulate": "simulate", "replay": "replay", "evaluate": "evaluate",
    "tables": "tables",
    "projections": "projections", "audit": "audit", "export": "export", "serve": "serve",
    "tokens": "tokens", "report": "report", "hands": "hands", "rules": "rules",
    "correct": "correct", "principals": "principals", "approve": "approve",
    "proposals": "approve", "access": "access", "keys": "keys",
    "backup": "backup", "shards": "shards", "checkpoint": "checkpoint",
}
"""The module that registers each top-level command (``tests/unit/cli/test_cli_startup.py``
checks it against what the modules register)."""


def main() -> None:
    """The ``ledger`` entry point: every error ends as one ``error [code] message`` line and
    exit status 2, never a traceback (``ledger.cli.common.run``)."""
    import sys

    from ledger import startup

    startup.command_process()
    with startup.held():  # the command's modules: objects that live as long as the process
        from ledger.cli.common import run

        _register(sys.argv[1:])
    run(app)
