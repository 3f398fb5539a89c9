"""The docs cannot drift from the code: the generated pages (games and their settings, the
command line, the HTTP API) are what ``ops/docs/gen_reference.py`` makes of the code now, and
the hand-written lists name what the code has (every setting, every view)."""

from __future__ import annotations

import importlib
import re
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
# ops/ is scripts, not a package mypy follows: imported by name (the repository's root is on
# the path, as for ``python -m ops.docs.gen_reference``).
gen_reference: Any = importlib.import_module("ops.docs.gen_reference")


def test_the_generated_pages_are_those_of_the_code() -> None:
    printed: list[str] = []
    status = gen_reference.main(["--check"], out=printed.append)
    assert status == 0, "\n".join(printed)


def test_the_games_reference_names_every_setting_with_its_default() -> None:
    from ledger.games.registry import GAMES

    page = (DOCS / "reference" / "games.md").read_text(encoding="utf-8")
    for game in GAMES.values():
        for name in game.config_type.model_fields:
            assert f"`{name}`" in page or name == "game", (game.name, name)
    assert "| `timezone` | string | `\"Europe/Amsterdam\"` |" in page
    assert "| `card_source` |" in page and "`\"recorded\"`" in page


def test_a_changed_default_is_seen() -> None:
    """The check compares whole pages: a page that differs by one default is reported."""
    made = gen_reference.games_page()
    changed = made.replace('`"Europe/Amsterdam"`', '`"Europe/London"`')
    assert changed != made
    assert gen_reference.differences({"reference/games.md": changed})
    assert not gen_reference.differences({"reference/games.md": made})


def test_every_setting_is_documented() -> None:
    from ledger.settings import SettingsFields

    page = (DOCS / "operations" / "configuration.md").read_text(encoding="utf-8")
    documented = set(re.findall(r"^\| `LEDGER_([A-Z_]+)`", page, re.MULTILINE))
    fields = {name.upper() for name in SettingsFields.model_fields}
    assert fields - documented == set(), "settings the configuration page leaves out"
    options = {envvar.removeprefix("LEDGER_") for envvar in _cli_envvars()}
    assert documented - fields - options == set(), "rows for settings that do not exist"


def _cli_envvars() -> set[str]:
    """The variables the command line's options read (``audit verify --public-key``)."""
    import typer.main

    from ledger.cli import _register, app

    _register()
    found: set[str] = set()
    stack = [typer.main.get_command(app)]
    while stack:
        command = stack.pop()
        stack.extend(getattr(command, "commands", {}).values())
        found.update(str(p.envvar) for p in command.params if getattr(p, "envvar", None))
    return found


def test_every_view_is_listed() -> None:
    from projections.views.registry import VIEW_TYPES

    page = (DOCS / "architecture" / "projections.md").read_text(encoding="utf-8")
    listed = re.findall(r"^\| `([a-z_]+)` \| `proj_", page, re.MULTILINE)
    assert listed == list(VIEW_TYPES)
    for view in VIEW_TYPES.values():
        for table in view.tables:
            assert f"`{table}`" in page, table


def test_the_readme_is_a_first_page_that_links_into_the_docs() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 300
    links = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", readme)
    local = [link for link in links if not link.startswith(("http://", "https://"))]
    assert any(link.startswith("docs/") for link in local)
    missing = [link for link in local if not (ROOT / link).exists()]
    assert not missing, missing


def test_the_cli_page_does_not_depend_on_what_was_imported_first() -> None:
    """A process that imported some command modules before (as a test run does) writes the
    same page: the top-level commands follow the help's order, not the import order."""
    import subprocess
    import sys

    script = (
        "import importlib, sys; sys.path.insert(0, '.');"
        "import ledger.cli.tables, ledger.cli.replay, ledger.cli.serve;"
        "gen = importlib.import_module('ops.docs.gen_reference');"
        "from pathlib import Path;"
        "sys.exit(0 if gen.cli_page() == Path('docs/reference/cli.md').read_text() else 1)"
    )
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run([sys.executable, "-c", script], cwd=root, capture_output=True,
                          text=True, check=False)
    assert done.returncode == 0, done.stderr
