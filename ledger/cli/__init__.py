"""The ``ledger`` command line.

Each sub-command lives in its own module and is registered here; every command has ``--help``.
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
) -> None:
    """The table ledger: an event-sourced ledger for casino card tables."""


def _register() -> None:
    """Import the command modules; each adds its commands to ``app``."""
    import importlib

    for name in _COMMAND_MODULES:
        importlib.import_module(f"ledger.cli.{name}")


_COMMAND_MODULES: list[str] = [
    "demo", "simulate", "replay", "evaluate", "projections", "audit", "export", "serve", "tokens",
    "report", "rules",
]


def main() -> None:
    _register()
    app()
