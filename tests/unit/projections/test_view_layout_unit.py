"""The layout a view's DDL makes (:mod:`projections.views.layout`), compared with a SQLite
store's tables: a missing table, a missing, changed or extra column each named; columns a view
adds to older tables (``added_columns``) not a difference while missing."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from projections.views.layout import difference, expected
from projections.views.registry import VIEW_TYPES


class _Tx:
    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def fetchall(self, sql: str, params: tuple[Any, ...] = ()) -> list[dict[str, Any]]:
        cursor = self.conn.execute(sql, params)
        names = [d[0] for d in cursor.description]
        return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


class _Store:
    postgres = False

    def exists(self, tx: _Tx, table: str) -> bool:
        return bool(tx.fetchall("SELECT 1 FROM sqlite_master WHERE type = 'table' AND "
                                "name = ?", (table,)))


def made(tmp_path: Path, view: str) -> sqlite3.Connection:
    conn = sqlite3.connect(tmp_path / "views.sqlite3")
    for statement in VIEW_TYPES[view]().ddl:
        conn.execute(statement.replace("{", "").replace("}", ""))
    return conn


def test_every_view_as_its_ddl_makes_it_has_no_difference(tmp_path: Path) -> None:
    for name in VIEW_TYPES:
        conn = made(tmp_path, name)
        assert difference(_Store(), _Tx(conn), VIEW_TYPES[name]()) is None, name  # type: ignore[arg-type]


def test_missing_changed_and_extra_columns_and_tables_are_named(tmp_path: Path) -> None:
    view = VIEW_TYPES["accounting"]()
    assert expected(view)["proj_accounting"]["rake_minor"] == "bigint"
    conn = made(tmp_path, "accounting")
    conn.execute("ALTER TABLE proj_accounting DROP COLUMN rake_minor")
    conn.execute("ALTER TABLE proj_accounting ADD COLUMN extra TEXT")
    conn.execute("DROP TABLE proj_dp_hands")
    why = difference(_Store(), _Tx(conn), view)  # type: ignore[arg-type]
    assert why is not None
    assert "proj_accounting lacks column rake_minor" in why
    assert "proj_accounting has column extra" in why
    assert "table proj_dp_hands is missing" in why


def test_a_column_a_view_adds_later_is_not_a_difference_while_missing(tmp_path: Path) -> None:
    view = VIEW_TYPES["hands"]()
    table, column, _ = view.added_columns[0]
    conn = made(tmp_path, "hands")
    conn.execute(f"ALTER TABLE {table} DROP COLUMN {column}")
    assert difference(_Store(), _Tx(conn), view) is None  # type: ignore[arg-type]
