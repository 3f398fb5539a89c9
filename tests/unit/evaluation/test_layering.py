"""``ledger.evaluation`` is pure: it imports nothing from the ledger but cards and errors."""

from __future__ import annotations

import ast
from pathlib import Path

import ledger.evaluation

PACKAGE = Path(ledger.evaluation.__file__).parent
ALLOWED_LEDGER = {"ledger.domain.cards", "ledger.domain.errors"}
FORBIDDEN = {"logging", "structlog", "os", "sys", "io", "pathlib", "socket", "sqlite3", "random"}


def imported_modules(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def test_evaluation_imports_only_cards_and_errors_from_the_ledger() -> None:
    modules = sorted(PACKAGE.glob("*.py"))
    assert len(modules) >= 6
    for path in modules:
        for name in imported_modules(path):
            top = name.split(".")[0]
            assert top not in FORBIDDEN, f"{path.name} imports {name}"
            if top == "ledger" and not name.startswith("ledger.evaluation"):
                assert any(name == a or name.startswith(a + ".") for a in ALLOWED_LEDGER), (
                    f"{path.name} imports {name}"
                )


def test_evaluation_modules_stay_small() -> None:
    for path in PACKAGE.glob("*.py"):
        assert len(path.read_text().splitlines()) <= 500, path.name
