"""The shape of the code: the layers declared in pyproject.toml (import-linter contracts) hold,
and breaking one is caught; no import cycles; few modules on the ledger's top floor; no module
too long; every package says what it is and what it may use."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import grimp
import pytest

ROOT = Path(__file__).resolve().parents[1]
LINT = Path(sys.executable).parent / "lint-imports"


def _lint(tree: Path) -> subprocess.CompletedProcess[str]:
    env = {"PYTHONPATH": str(tree), "PATH": "/usr/bin:/bin"}
    return subprocess.run([str(LINT), "--no-cache"], cwd=tree, env=env, capture_output=True,
                          text=True, check=False)


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the packages and the contracts, to break on purpose."""
    tree = tmp_path_factory.mktemp("layers")
    for package in ("ledger", "projections"):
        shutil.copytree(ROOT / package, tree / package,
                        ignore=shutil.ignore_patterns("__pycache__", "*.html", "static"))
    shutil.copy(ROOT / "pyproject.toml", tree)
    return tree


def test_the_contracts_hold() -> None:
    done = _lint(ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broken" in done.stdout


@pytest.mark.parametrize(("module", "line", "contract"), [
    ("projections/views/hands.py", "from ledger.app.application import LedgerApp",
     "the read side never imports the application"),
    ("ledger/games/hcf/settlement.py", "import sqlite3",
     "the rules (vocabulary, evaluation, games) import no storage"),
    ("ledger/store/history.py", "from ledger.access.principals import PrincipalStore",
     "ledger layers"),
    ("ledger/domain/cards.py", "from ledger.logs import get_logger",
     "the rules (vocabulary, evaluation, games) import no storage"),
], ids=["view imports the application", "rules import sqlite3", "store imports access",
        "vocabulary imports logging"])
def test_breaking_a_contract_fails(scratch: Path, module: str, line: str, contract: str) -> None:
    path = scratch / module
    before = path.read_text()
    head, sep, rest = before.partition("from __future__ import annotations\n")
    path.write_text(head + sep + line + "  # noqa\n" + rest)
    try:
        done = _lint(scratch)
    finally:
        path.write_text(before)
    assert done.returncode != 0, done.stdout
    assert "BROKEN" in done.stdout
    broken = [b for b in done.stdout.split("\n\n") if "BROKEN" in b]
    assert any(contract in " ".join(b.split()) for b in broken), done.stdout


def test_no_import_cycles() -> None:
    graph = grimp.build_graph("ledger", "projections")
    cycles = []
    for module in sorted(graph.modules):
        for imported in graph.find_modules_directly_imported_by(module):
            if graph.chain_exists(imported, module):
                cycles.append((module, imported))
    assert not cycles, cycles[:10]


def test_the_top_floor_and_the_size_of_modules() -> None:
    top = sorted(p.name for p in (ROOT / "ledger").glob("*.py"))
    assert len(top) <= 12, top
    long = {str(p.relative_to(ROOT)): n for p in [*(ROOT / "ledger").rglob("*.py"),
                                                  *(ROOT / "projections").rglob("*.py")]
            if (n := len(p.read_text().splitlines())) > 800}
    assert not long, long


def test_every_package_says_what_it_may_use() -> None:
    inits = [*(ROOT / "ledger").rglob("__init__.py"), *(ROOT / "projections").rglob("__init__.py")]
    assert len(inits) >= 20
    for init in inits:
        text = init.read_text()
        package = init.parent.relative_to(ROOT)
        assert text.lstrip().startswith('"""'), f"{package} has no docstring"
        doc = text.split('"""')[1]
        assert "TODO" not in doc and len(doc.split()) >= 25, f"{package}: {doc!r}"
        assert " may " in " ".join(doc.split()), f"{package} does not say what it may use"
