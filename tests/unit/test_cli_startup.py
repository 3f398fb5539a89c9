"""The ``ledger`` command imports only the module of the command it runs (its start is most of
a short command's time); ``--help`` and anything it cannot name import them all."""

from __future__ import annotations

import json
import subprocess
import sys

from ledger.cli import _COMMAND_MODULES, _COMMAND_OWNERS, _command_named, _register, app


def test_every_command_is_owned_by_the_module_that_registers_it() -> None:
    _register()
    found = {(c.name or c.callback.__name__.replace("_", "-")): c.callback.__module__
             for c in app.registered_commands if c.callback is not None}
    for group in app.registered_groups:
        typer_instance = group.typer_instance
        assert typer_instance is not None
        name = group.name or typer_instance.info.name
        modules = {c.callback.__module__ for c in typer_instance.registered_commands
                   if c.callback is not None}
        assert len(modules) == 1, (name, modules)
        found[str(name)] = modules.pop()
    assert {k: f"ledger.cli.{v}" for k, v in _COMMAND_OWNERS.items()} == found
    assert set(_COMMAND_OWNERS.values()) == set(_COMMAND_MODULES)


def test_the_command_is_the_first_argument_that_is_not_a_root_option() -> None:
    assert _command_named(["replay", "CSP-1", "2"]) == "replay"
    assert _command_named(["--actor", "eve", "audit", "hand"]) == "audit"
    assert _command_named(["--actor=eve", "hands", "--player", "p"]) == "hands"
    assert _command_named(["--help"]) is None and _command_named([]) is None
    assert _command_named(["--version", "replay"]) is None


def _imported(args: list[str]) -> list[str]:
    code = ("import json, sys; from ledger.cli import _register; _register(sys.argv[1:]); "
            "print(json.dumps(sorted(m for m in sys.modules if m.startswith('ledger.cli.') "
            "or m in ('psycopg', 'ledger.evaluation'))))")
    done = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                          check=True)
    found: list[str] = json.loads(done.stdout)
    return found


def test_a_command_imports_its_own_module_only() -> None:
    assert _imported(["replay", "CSP-1", "2"]) == ["ledger.cli.common", "ledger.cli.replay"]
    assert _imported(["--actor", "eve", "hands", "--player", "p"]) == [
        "ledger.cli.common", "ledger.cli.report"]


def test_help_and_unknown_commands_import_them_all() -> None:
    for args in (["--help"], ["no-such-command"], []):
        found = _imported(args)
        assert {f"ledger.cli.{m}" for m in _COMMAND_MODULES} <= set(found), args
