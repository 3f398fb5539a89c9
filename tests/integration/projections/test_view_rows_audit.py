"""Every stored column of every view reconciled by the audit (``view_row_mismatch``): a row of
any ``proj_*`` table edited, deleted or added by hand is reported naming the view, its table,
the row's key and the column, and the view is marked outdated (``projections status``); on
SQLite and PostgreSQL. The insider case of issue 25: a hand's ``result_json`` emptied, a
correction's reason (COR-1) rewritten."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ledger.app.application import LedgerApp
from ledger.domain.commands import BuyIn, CorrectMovement, CountInventory, Fill, SeatPlayer
from ledger.settings import Settings
from projections.audit import verify
from projections.audit.viewrows import KIND, ScratchStore
from projections.db import Store
from projections.views.registry import VIEW_TYPES
from projections.views.runner import Runner
from tests.integration.projections.conftest import play
from tests.support.cli import run_cli
from tests.support.driver import Driver

HANDS = {"caribbean-stud": 6, "high-card-flush": 6, "chinese-poker": 4, "stud-hilo": 4}
BOSS, DEPUTY = "sup-anna", "sup-bram"
TABLES = sorted({(view, table) for view, cls in VIEW_TYPES.items() for table in cls.tables})
"""Every table of every view (``proj_rejects`` and ``proj_tracking`` are the runner's own)."""


@pytest.fixture
def ledger(store_settings: Settings) -> Iterator[LedgerApp]:
    app = LedgerApp(store_settings)
    play(app, HANDS)
    t = Driver(app, "ROW-C", "caribbean-stud", {})
    t.do(CountInventory, moment="opening", chips={10_000: 100}, signers=(BOSS, DEPUTY))
    t.do(SeatPlayer, seat=1, player="p1")
    t.do(BuyIn, seat=1, amount=100_000)
    t.do(CorrectMovement, version=t.version, amount=50_000, approvers=(BOSS,),
         reason="keyed 1,000.00 for 500.00")
    t.do(Fill, chips={10_000: 10}, signers=(BOSS, DEPUTY))
    Runner(app).catch_up()
    yield app
    app.close()


def _keys(table: str, tmp: Path) -> tuple[list[str], list[str]]:
    scratch = ScratchStore(tmp / f"{table}.sqlite3")
    try:
        view = next(cls for cls in VIEW_TYPES.values() if table in cls.tables)()
        with scratch.transaction() as tx:
            for statement in view.ddl:
                tx.execute(statement)
        return scratch.columns(table)
    finally:
        scratch.close()


def _tamper(app: LedgerApp, table: str, tmp: Path) -> tuple[dict[str, Any], str | None]:
    """Change one non-key column of the first row of ``table``: its key and the column (a
    table made of its key only has its last key column changed: the row is gone, another is
    there; the column is None)."""
    columns, key = _keys(table, tmp)
    store = Store(app.recorder)
    rows = store.fetchall(f"SELECT * FROM {{{table}}} ORDER BY {', '.join(key)}")
    assert rows, f"{table} is empty: the test's store must give every view a row"
    row = rows[0]
    column = next((c for c in columns if c not in key and c != "table_code"), key[-1])
    value = row[column]
    changed: Any = value + 7 if isinstance(value, int) else "tampered"
    where = " AND ".join(f"{k} = ?" for k in key)
    with store.transaction() as tx:
        assert tx.execute(f"UPDATE {{{table}}} SET {column} = ? WHERE {where}",
                          (changed, *(row[k] for k in key))) == 1
    return {k: row[k] for k in key}, None if column in key else column


def _row_findings(app: LedgerApp, **scope: Any) -> list[dict[str, Any]]:
    report = verify(app, **scope)
    return [d.as_dict() for d in report.discrepancies if d.kind == KIND]


def test_a_clean_store_has_no_row_finding(ledger: LedgerApp) -> None:
    report = verify(ledger)
    assert report.ok, [d.as_dict() for d in report.discrepancies][:3]


def test_a_column_edited_in_every_view_table_is_reported_by_view_row_and_column(
        ledger: LedgerApp, tmp_path: Path) -> None:
    tampered = {table: _tamper(ledger, table, tmp_path) for _, table in TABLES}
    found = _row_findings(ledger)
    seen = {(f["expected"]["table"], f["expected"]["column"]): f for f in found
            if f["expected"]["value"] is not None}
    for view, table in TABLES:
        key, column = tampered[table]
        finding = seen.get((table, column))
        assert finding is not None, (table, column, found)
        assert finding["expected"]["view"] == view
        assert finding["expected"]["row"] == key
        assert finding["recorded"]["value"] != finding["expected"]["value"]
    keys_only = sum(1 for key, column in tampered.values() if column is None)
    assert len(found) == len(TABLES) + keys_only  # such a row is missing, and another added
    runner = Runner(ledger)
    assert {s.view for s in runner.status() if s.outdated} == set(VIEW_TYPES)


def test_an_emptied_hand_result_and_a_rewritten_correction_reason_are_reported(
        ledger: LedgerApp, store_settings: Settings) -> None:
    """Issue 25, case 4: ``UPDATE proj_hands SET result_json='{}'`` and a correction's reason
    (COR-1) edited in ``proj_corrections``; a seat's wager and a deleted and an added row."""
    store = Store(ledger.recorder)
    with store.transaction() as tx:
        hands = tx.execute("UPDATE {proj_hands} SET result_json = ?", ("{}",))
        tx.execute("UPDATE {proj_corrections} SET reason = 'typo'")
        tx.execute("UPDATE {proj_seat_hands} SET wagered_minor = wagered_minor + 1 "
                   "WHERE table_code = 'CSP-1' AND hand_no = 2")
        tx.execute("DELETE FROM {proj_transfers} WHERE table_code = 'ROW-C' AND version = 4")
        tx.execute("INSERT INTO {proj_hand_paid_rules} (table_code, hand_no, rule) "
                   "VALUES ('CSP-1', 1, 'CSP-99')")
    found = _row_findings(ledger)
    by_column: dict[tuple[str, str | None], list[dict[str, Any]]] = {}
    for f in found:
        by_column.setdefault((f["expected"]["table"], f["expected"]["column"]), []).append(f)
    assert len(by_column[("proj_hands", "result_json")]) == hands
    assert all(f["recorded"]["value"] == "{}" for f in by_column[("proj_hands", "result_json")])
    [reason] = by_column[("proj_corrections", "reason")]
    assert reason["table"] == "ROW-C"
    assert (reason["expected"]["value"], reason["recorded"]["value"]) == (
        "keyed 1,000.00 for 500.00", "typo")
    assert by_column[("proj_seat_hands", "wagered_minor")]
    missing = by_column[("proj_transfers", None)]
    assert {(f["expected"]["value"], f["recorded"]["value"]) for f in missing} == {("row", None)}
    [extra] = by_column[("proj_hand_paid_rules", None)]
    assert extra["expected"]["row"]["rule"] == "CSP-99"
    assert (extra["expected"]["value"], extra["recorded"]["value"]) == (None, "row")
    done = run_cli(store_settings, "audit", "verify")
    assert done.returncode == 1 and KIND in done.stdout, done.stdout + done.stderr
    status = run_cli(store_settings, "projections", "status", "--json")
    assert {"hands", "corrections", "wagers", "bankrolls"} <= {
        v["view"] for v in map(json.loads, status.stdout.splitlines()) if v["outdated"]}, \
        status.stdout
    # one table's audit compares that table's rows only
    one = _row_findings(ledger, table="ROW-C")
    assert {f["table"] for f in one} == {"ROW-C"}
    assert any(f["expected"]["column"] == "reason" for f in one)


def test_a_view_behind_the_log_is_compared_at_its_own_position(ledger: LedgerApp) -> None:
    """Events the views have not seen yet are no finding: the rebuild stops where each view
    stands."""
    t = Driver.__new__(Driver)
    t.app, t.code = ledger, "ROW-C"
    t.do(BuyIn, seat=1, amount=5_000)
    assert _row_findings(ledger) == []
