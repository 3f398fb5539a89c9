"""Every command that reads has ``--json`` (and so does every command a table's device sends
from the command line): a program never parses the text."""

from __future__ import annotations

from typing import Any

import typer.main

from ledger.cli import _register, app

READING = [
    "replay", "hands", "rules", "shards", "projections status", "audit verify", "audit hand",
    "export accounting", "export hands", "tokens list", "report paytable", "report hold",
    "report inventory", "report players", "principals list", "access list", "access verify",
    "keys show", "tables list", "tables show",
]
DEVICE = ["open", "configure", "seat", "leave", "buy-in", "cash-out", "start", "wager", "deal",
          "act", "reveal", "settle", "void", "count", "fill", "credit"]


def _commands() -> dict[str, Any]:
    _register()
    found: dict[str, Any] = {}

    def walk(command: Any, path: list[str]) -> None:
        subs = getattr(command, "commands", None)
        if subs:
            for name, sub in subs.items():
                walk(sub, [*path, name])
        else:
            found[" ".join(path)] = command

    walk(typer.main.get_command(app), [])
    return found


def test_every_reading_and_device_command_has_json() -> None:
    commands = _commands()
    for name in READING + [f"tables {d}" for d in DEVICE]:
        options = {o for p in commands[name].params for o in p.opts}
        assert "--json" in options, name
