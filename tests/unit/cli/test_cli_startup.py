"""The ``ledger`` command imports only the module of the command it runs (its start is most of
a short command's time); ``--help`` and anything it cannot name import them all."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

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
        "ledger.cli.common", "ledger.cli.hands"]


def test_help_and_unknown_commands_import_them_all() -> None:
    for args in (["--help"], ["no-such-command"], []):
        found = _imported(args)
        assert {f"ledger.cli.{m}" for m in _COMMAND_MODULES} <= set(found), args


#: What only a PostgreSQL store needs: the driver, its pool, the library's PostgreSQL recorders
#: and the ledger's.
POSTGRES_MODULES = ("psycopg", "psycopg_pool", "eventsourcing.postgres", "ledger.store.postgres")

# Runs `ledger ARGS...` (without ARGS: builds the HTTP API as `ledger serve` does) and, at exit,
# writes the PostgreSQL modules imported by then to the file named first.
_LIST_POSTGRES_MODULES = f"""
import atexit, json, sys

listing, args = sys.argv[1], sys.argv[2:]

def listed():
    found = sorted(m for m in sys.modules
                   if any(m == p or m.startswith(p + ".") for p in {POSTGRES_MODULES!r}))
    with open(listing, "w") as f:
        json.dump(found, f)

atexit.register(listed)
if args:
    from ledger.cli import main
    sys.argv = ["ledger", *args]
    main()
else:
    from ledger.api import create_app
    from ledger.settings import Settings
    create_app(Settings())
"""


def test_a_sqlite_store_never_imports_postgresql(tmp_path: Path) -> None:
    """Commands on SQLite start without psycopg and the PostgreSQL store (a tenth of a second
    of every command's start)."""
    env = {**os.environ, "LEDGER_DATABASE_URL": f"sqlite:///{tmp_path}/ledger.sqlite3",
           "LEDGER_DECK_KEY_FILE": str(tmp_path / "deck.key"), "LEDGER_LOG_LEVEL": "WARNING"}
    env.pop("LEDGER_READ_DATABASE_URL", None)
    env.pop("LEDGER_SHARDS", None)
    listing = tmp_path / "modules.json"

    def imported(*args: str) -> list[str]:
        listing.unlink(missing_ok=True)
        done = subprocess.run([sys.executable, "-c", _LIST_POSTGRES_MODULES, str(listing),
                               *args], cwd=tmp_path, env=env, capture_output=True, text=True)
        assert done.returncode == 0, (args, done.stdout, done.stderr)
        found: list[str] = json.loads(listing.read_text())
        return found

    assert imported("simulate", "--game", "stud-hilo", "--hands", "2", "--seed", "3",
                    "--table", "T") == []
    for args in (["replay", "T", "1"], ["audit", "hand", "T", "1"], ["audit", "verify"],
                 ["projections", "update"], ["projections", "status"],
                 ["projections", "rebuild"], ["tokens", "list"], ["hands", "--player", "p"],
                 ["export", "hands", "--day", "2026-01-01", "--out", str(tmp_path / "out")],
                 []):
        assert imported(*args) == [], args


#: What a command about one hand, or the help, does not need: the HTTP API and its server, the
#: PostgreSQL driver, the seals' and sealed decks' cryptography, structlog (no line is logged),
#: rich (nothing is printed on standard error), the numeric reports, the whole-store audit's
#: seal check and process pool, the rules of the games the table does not play, and the ISO 4217
#: package (``ledger.domain.money`` holds its table of minor units), and pydantic-settings and what
#: it imports (asyncio, dotenv: without a ``.env`` file ``ledger.settings`` reads the environment).
NOT_FOR_ONE_HAND = ("fastapi", "starlette", "uvicorn", "psycopg", "cryptography", "structlog",
                    "rich", "numpy", "multiprocessing", "ledger.api", "ledger.store.postgres",
                    "projections.audit.sealcheck", "projections.audit.parallel",
                    "ledger.games.caribbean", "ledger.games.hcf", "ledger.games.chinese",
                    "iso4217", "pydantic_settings", "dotenv", "asyncio")
#: What ``ledger --help`` does not need besides: pydantic, the settings, the store, the events,
#: the games and the read side.
NOT_FOR_HELP = ("fastapi", "psycopg", "cryptography", "structlog", "numpy", "pydantic",
                "pydantic_core", "pydantic_settings", "eventsourcing", "ledger.settings",
                "ledger.table.events", "ledger.domain.records", "ledger.games", "projections")

# Runs `ledger ARGS...` and, at exit, writes the modules imported by then to the file named
# first, whether any of the high hand's rank table was worked out, and whether it was built
# whole.
_LIST_MODULES = """
import atexit, json, sys

listing, args = sys.argv[1], sys.argv[2:]

def listed():
    tables = sys.modules.get("ledger.evaluation._high_tables")
    built = tables is not None and dict.__len__(tables.RANK_STRENGTH) > 0
    whole = tables is not None and tables.RANK_STRENGTH.whole
    with open(listing, "w") as f:
        json.dump({"modules": sorted(sys.modules), "rank_table": built, "whole": whole}, f)

atexit.register(listed)
from ledger.cli import main
sys.argv = ["ledger", *args]
main()
"""


def test_one_hand_and_the_help_import_only_what_they_use(tmp_path: Path) -> None:
    """``ledger --help``, ``ledger replay`` and ``ledger audit hand`` of one hand on SQLite
    start without what they do not use (their start is most of their time)."""
    env = {**os.environ, "LEDGER_DATABASE_URL": f"sqlite:///{tmp_path}/ledger.sqlite3",
           "LEDGER_DECK_KEY_FILE": str(tmp_path / "deck.key"), "LEDGER_LOG_LEVEL": "WARNING",
           "COLUMNS": "100"}
    for name in ("LEDGER_READ_DATABASE_URL", "LEDGER_SHARDS", "LEDGER_CLI_TRACEBACK"):
        env.pop(name, None)
    listing = tmp_path / "modules.json"

    def imported(*args: str) -> tuple[set[str], bool]:
        listing.unlink(missing_ok=True)
        done = subprocess.run([sys.executable, "-c", _LIST_MODULES, str(listing), *args],
                              cwd=tmp_path, env=env, capture_output=True, text=True)
        assert done.returncode == 0, (args, done.stdout, done.stderr)
        found = json.loads(listing.read_text())
        assert not found["whole"], args  # one hand's few evaluations are worked out alone
        return set(found["modules"]), bool(found["rank_table"])

    def among(modules: set[str], names: tuple[str, ...]) -> list[str]:
        return sorted(m for m in modules
                      if any(m == n or m.startswith(n + ".") for n in names))

    modules, rank_table = imported("--help")
    assert among(modules, NOT_FOR_HELP) == [] and not rank_table
    assert "ledger.cli.evaluate" in modules  # every command is listed, none run
    subprocess.run([sys.executable, "-c", "from ledger.cli import main; main()", "simulate",
                    "--game", "stud-hilo", "--hands", "3", "--seed", "5", "--table", "T"],
                   cwd=tmp_path, env=env, capture_output=True, check=True)
    for args in (["replay", "T", "2"], ["audit", "hand", "T", "2"]):
        modules, _ = imported(*args)
        assert among(modules, NOT_FOR_ONE_HAND) == [], args
    assert "ledger.games.stud8" in modules  # audit hand: the table's own game decides again
