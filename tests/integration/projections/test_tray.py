"""The tray of a house-banked table (INV-1..4) on both stores: counts, fills and credits are
decided by the rules, re-decided by the audit, projected, and the win by inventory reconciles
with the ledger's house result; a wrong closing count shows as a variance, in the report and in
the workbook's inventory sheet (read back with openpyxl)."""

from __future__ import annotations

from pathlib import Path

import openpyxl
import pytest

from ledger.app.application import LedgerApp
from ledger.domain.commands import CountInventory, Credit, Fill, StartHand
from ledger.domain.errors import LedgerError
from ledger.sim.runner import simulate
from ledger.sim.tray import count, fill, register_signers, tray_now
from projections.audit import verify
from projections.exports.workbook import export_workbook
from projections.read.queries import ReadModel
from projections.reports.inventory import inventory_report
from projections.reports.periods import period
from projections.views.context import current_gaming_day
from projections.views.runner import Runner


def test_the_win_by_inventory_reconciles_and_a_wrong_count_is_a_variance(
        app: LedgerApp, tmp_path: Path) -> None:
    register_signers(app)
    simulate(app, "caribbean-stud", "CSP-1", 0, seed=3)
    count(app, "CSP-1", "opening", 5_000_000, "open-count")
    simulate(app, "caribbean-stud", "CSP-1", 8, seed=3)
    fill(app, "CSP-1", 1_000_000, "fill-1")
    simulate(app, "caribbean-stud", "CSP-1", 8, seed=4)
    app.execute(Credit(command_id="credit-1", table="CSP-1", chips={2_500: 40},
                       signers=("cage-cleo", "floor-ben")))
    count(app, "CSP-1", "closing", tray_now(app, "CSP-1"), "close-count")
    Runner(app).catch_up()
    model = ReadModel(app)
    day = current_gaming_day("Europe/Amsterdam", app.settings.gaming_day_start)
    (row,) = inventory_report(model, period(day=day))["rows"]
    assert row["status"] == "reconciled", row
    assert (row["opening_minor"], row["fills_minor"], row["credits_minor"]) == (
        5_000_000, 1_000_000, 100_000)
    assert row["inventory_win_minor"] == row["ledger_win_minor"]
    accounting = model.accounting(day=day, table="CSP-1")[0]
    assert row["ledger_win_minor"] == accounting["house_win_minor"]
    assert row["drop_minor"] == accounting["drop_minor"] > 0
    report = verify(app)
    assert report.ok, report.discrepancies

    # A closing count short by 123.45: the later count is the day's, and it shows.
    count(app, "CSP-1", "closing", tray_now(app, "CSP-1") - 12_345, "recount")
    Runner(app).catch_up()
    short = inventory_report(model, period(day=day))
    (row,) = short["rows"]
    assert (row["status"], row["variance_minor"]) == ("variance", -12_345)
    (totals,) = short["totals"]  # the day, the month and the year to date (COMAR)
    assert [c["label"] for c in totals["columns"]] == ["day", "month_to_date", "year_to_date"]
    for column in totals["columns"]:
        assert (column["days"], column["variance_days"], column["variance_minor"]) == (
            1, 1, -12_345)
        assert column["inventory_win_minor"] == row["inventory_win_minor"]
    book = openpyxl.load_workbook(export_workbook(model, period(day=day), tmp_path)[0])
    sheet = book["inventory"]
    header = [c.value for c in sheet[1]]
    values, totals_row = sheet.iter_rows(min_row=2, values_only=True)  # the table, its totals
    found = dict(zip(header, values, strict=True))
    total = dict(zip(header, totals_row, strict=True))
    assert (found["Table"], found["Status"], found["Currency"]) == ("CSP-1", "variance", "EUR")
    assert len(set(header)) == len(header)  # every column named once
    assert found["Opening"] == 50_000 and found["Fills"] == 10_000 and found["Credits"] == 1_000
    assert (found["Fills count"], found["Credits count"]) == (1, 1)
    assert found["Variance"] == pytest.approx(-123.45)
    assert isinstance(found["Win by inventory"], float)
    assert total["Table"] == "Total EUR" and total["Variance"] == pytest.approx(-123.45)
    assert total["Opening"] is None  # a count of the tray is not summed
    cell = sheet.cell(row=2, column=header.index("Variance") + 1)
    assert "#,##0.00" in cell.number_format
    moves = model.store.fetchall("SELECT kind, amount_minor, signer_1, signer_2, rule FROM "
                                 "{proj_tray} ORDER BY version")
    assert [m["kind"] for m in moves] == ["opening", "fill", "credit", "closing", "closing"]
    assert moves[1]["rule"] == "INV-2" and moves[1]["signer_1"] == "cage-cleo"


@pytest.mark.parametrize(("command", "code"), [
    (CountInventory(command_id="x", table="CSP-1", moment="opening", chips={100: 1},
                    signers=("floor-ben", "floor-ben")), "signers_not_distinct"),
    (Fill(command_id="x", table="CSP-1", chips={100: 1}, signers=("player-01", "floor-ben")),
     "signer_is_player"),
    (Fill(command_id="x", table="CSP-1", chips={100: 0}, signers=("cage-cleo", "floor-ben")),
     "nothing_to_move"),
    (Fill(command_id="x", table="HCF-1", chips={100: 1}, signers=("cage-cleo", "floor-ben")),
     "inventory_not_house_banked"),
])
def test_tray_commands_are_refused_with_a_code(app: LedgerApp, command: object,
                                               code: str) -> None:
    simulate(app, "caribbean-stud", "CSP-1", 0, seed=1)
    simulate(app, "high-card-flush", "HCF-1", 0, seed=1)
    with pytest.raises(LedgerError) as caught:
        app.execute(command)  # type: ignore[arg-type]
    assert caught.value.code == code


def test_no_tray_movement_during_a_hand(app: LedgerApp) -> None:
    simulate(app, "caribbean-stud", "CSP-1", 1, seed=1)
    app.execute(StartHand(command_id="h", table="CSP-1"))
    with pytest.raises(LedgerError) as caught:
        fill(app, "CSP-1", 100, "f")
    assert caught.value.code == "hand_in_progress"
