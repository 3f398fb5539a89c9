"""``ledger export accounting --format xlsx``: one workbook per day or period (openpyxl).

Sheets, one per dataset: ``accounting`` (per table and gaming day of the period), ``hold`` (the
period, month to date and year to date per table, :mod:`projections.reports.hold`), ``rake``,
``jackpot``, ``dp-results``, ``players`` (ratings, :mod:`projections.reports.players`),
``inventory`` (the tray and the win by inventory, :mod:`projections.reports.inventory`) and, for
a single day, ``bankrolls``. Amounts are numbers in currency units, formatted with the currency's
decimals (ISO 4217: two for most, none for JPY or KRW, three for BHD, KWD, ...); gaming days are
dates and times are date-times (UTC), so a spreadsheet in any locale reads them as numbers and
dates, never as text. Percentages are numbers (``hold_pct`` 12.5 means 12.5%).

The file is written beside its final name and then renamed over it, so a reader never opens
half a workbook.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from datetime import date, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

from openpyxl import Workbook
from openpyxl.utils import get_column_letter

from ledger.domain.errors import LedgerError
from ledger.domain.money import minor_units
from projections.exports.files import output_dir
from projections.read.queries import ReadModel
from projections.reports.hold import hold_report
from projections.reports.inventory import inventory_report
from projections.reports.periods import Period
from projections.reports.players import player_report


def currency_decimals(code: str) -> int:
    """The minor-unit exponent of an ISO 4217 currency (``ledger.domain.money``, the one table); 2
    for a code it does not know (a table opened before unknown codes were refused)."""
    try:
        return minor_units(code)
    except LedgerError:
        return 2


def _amount_format(decimals: int) -> str:
    return "#,##0" + ("." + "0" * decimals if decimals else "")


class Sheet:
    """Rows of one dataset: columns, and how each is typed (amount, day, time, number, text)."""

    def __init__(self, book: Workbook, title: str, columns: Sequence[tuple[str, str]]) -> None:
        self.ws = book.create_sheet(title)
        self.columns = columns
        self.ws.append([name.removesuffix("_minor") for name, _ in columns])
        self.ws.freeze_panes = "A2"
        self.rows = 0
        for i, (name, _) in enumerate(columns, start=1):
            self.ws.column_dimensions[get_column_letter(i)].width = max(12, len(name) + 2)

    def add(self, row: dict[str, Any], currency: str | None) -> None:
        decimals = currency_decimals(currency or "")
        values = []
        formats = []
        for name, kind in self.columns:
            value = row.get(name)
            fmt = None
            if value is None:
                pass
            elif kind == "amount":
                value = Decimal(int(value)).scaleb(-decimals)
                value = float(value) if decimals else int(value)
                fmt = _amount_format(decimals)
            elif kind == "day":
                value = date.fromisoformat(str(value))
                fmt = "yyyy-mm-dd"
            elif kind == "time":
                value = datetime.strptime(str(value), "%Y-%m-%dT%H:%M:%S.%fZ")
                fmt = "yyyy-mm-dd hh:mm:ss"
            elif kind == "number":
                value = float(value) if isinstance(value, str) else value
            values.append(value)
            formats.append(fmt)
        self.ws.append(values)
        self.rows += 1
        for column, fmt in enumerate(formats, start=1):
            if fmt is not None:
                self.ws.cell(row=self.rows + 1, column=column).number_format = fmt


ACCOUNTING = (("table", "text"), ("gaming_day", "day"), ("game", "text"), ("currency", "text"),
              ("hands_settled", "number"), ("hands_voided", "number"),
              ("hands_cancelled", "number"), ("drop_minor", "amount"),
              ("cash_outs_minor", "amount"), ("house_win_minor", "amount"),
              ("hold_pct", "number"), ("rake_minor", "amount"),
              ("jackpot_contributions_minor", "amount"), ("jackpot_awards_minor", "amount"),
              ("jackpot_seeds_minor", "amount"), ("dp_results_minor", "amount"),
              ("corrections", "number"), ("corrections_house_minor", "amount"),
              ("corrections_rake_minor", "amount"), ("corrections_cage_minor", "amount"),
              ("corrections_owed_minor", "amount"))
HOLD = (("table", "text"), ("game", "text"), ("currency", "text"), ("label", "text"),
        ("from", "day"), ("to", "day"), ("hands", "number"), ("handle_minor", "amount"),
        ("drop_minor", "amount"), ("win_minor", "amount"), ("hold_pct", "number"),
        ("theoretical_win_minor", "amount"), ("rake_minor", "amount"),
        ("expected_rake_minor", "amount"), ("sd_minor", "amount"), ("low_minor", "amount"),
        ("high_minor", "amount"), ("z", "number"), ("flagged", "text"), ("flag_hands", "text"))
RAKE = (("table", "text"), ("gaming_day", "day"), ("game", "text"), ("currency", "text"),
        ("method", "text"), ("hands", "number"), ("lines", "number"), ("amount_minor", "amount"))
JACKPOT = (("table", "text"), ("gaming_day", "day"), ("currency", "text"),
           ("version", "number"), ("at", "time"), ("hand_no", "number"), ("kind", "text"),
           ("seat", "number"), ("line", "text"), ("source", "text"), ("amount_minor", "amount"),
           ("meter_after_minor", "amount"), ("rule", "text"))
DP = (("table", "text"), ("gaming_day", "day"), ("currency", "text"), ("player", "text"),
      ("hands", "number"), ("result_minor", "amount"))
PLAYERS = (("player", "text"), ("table", "text"), ("game", "text"), ("currency", "text"),
           ("hands", "number"), ("seconds", "number"), ("average_wager_minor", "amount"),
           ("handle_minor", "amount"), ("theoretical_win_minor", "amount"),
           ("actual_win_minor", "amount"))
INVENTORY = (("table", "text"), ("gaming_day", "day"), ("currency", "text"),
             ("opening_minor", "amount"), ("fills_minor", "amount"), ("fills_count", "number"),
             ("credits_minor", "amount"), ("credits_count", "number"),
             ("closing_minor", "amount"),
             ("drop_minor", "amount"), ("inventory_win_minor", "amount"),
             ("ledger_win_minor", "amount"), ("variance_minor", "amount"), ("status", "text"))
BANKROLLS = (("table", "text"), ("gaming_day", "day"), ("currency", "text"),
             ("account", "text"), ("opening_minor", "amount"), ("in_minor", "amount"),
             ("out_minor", "amount"), ("closing_minor", "amount"))


def workbook_name(chosen: Period) -> str:
    if chosen.label == "day":
        return f"accounting-{chosen.first}.xlsx"
    if chosen.label == "month":
        return f"accounting-{chosen.first[:7]}.xlsx"
    return f"accounting-{chosen.first}_{chosen.last}.xlsx"


def export_workbook(read: ReadModel, chosen: Period, out: str | Path) -> tuple[Path, dict[str,
                                                                                        int]]:
    """:func:`_export_workbook`, every view read in one snapshot of the store."""
    with read.snapshot() as pinned:
        return _export_workbook(pinned, chosen, out)


def _export_workbook(read: ReadModel, chosen: Period, out: str | Path) -> tuple[Path, dict[str,
                                                                                        int]]:
    """Write the period's workbook into ``out``; its path and the rows of each sheet."""
    directory = output_dir(out)
    currency = {t["table_code"]: t["currency"] for t in read.tables()}
    book = Workbook()
    for sheet in list(book.worksheets):  # the empty default sheet
        book.remove(sheet)

    def fill(title: str, columns: Sequence[tuple[str, str]],
             rows: Iterable[dict[str, Any]]) -> None:
        sheet = Sheet(book, title, columns)
        for row in rows:
            if "table_code" in row:
                row["table"] = row.pop("table_code")
            cur = row.get("currency") or currency.get(row.get("table") or "")
            row.setdefault("currency", cur)
            sheet.add(row, cur)
        counts[title] = sheet.rows

    counts: dict[str, int] = {}
    in_period = [r for r in read.accounting() if chosen.first <= r["gaming_day"] <= chosen.last]
    fill("accounting", ACCOUNTING, in_period)
    fill("hold", HOLD, _hold_rows(read, chosen))
    fill("rake", RAKE, [r for r in read.rake_totals()
                        if chosen.first <= r["gaming_day"] <= chosen.last])
    fill("jackpot", JACKPOT, _moves(read, chosen))
    fill("dp-results", DP, [r for r in read.dp_results()
                            if chosen.first <= r["gaming_day"] <= chosen.last])
    fill("players", PLAYERS, _player_rows(read, chosen, currency))
    fill("inventory", INVENTORY, ({**r, "fills_count": r["fills"], "credits_count": r["credits"]}
                                  for r in inventory_report(read, chosen)["rows"]))
    if chosen.label == "day":
        fill("bankrolls", BANKROLLS, read.bankroll_day(chosen.first))
    path = directory / workbook_name(chosen)
    temporary = directory / f".{path.name}.{os.getpid()}.tmp"
    book.save(temporary)
    os.replace(temporary, path)
    return path, counts


def _hold_rows(read: ReadModel, chosen: Period) -> Iterable[dict[str, Any]]:
    for table in hold_report(read, chosen)["tables"]:
        for col in table["columns"]:
            low, high = col["interval_minor"]
            hands = ", ".join(f"#{h['hand_no']}" for h in col["flag_hands"])
            yield {"table": table["table"], "game": table["game"],
                   "currency": table["currency"], **col, "low_minor": low, "high_minor": high,
                   "flagged": "yes" if col["flagged"] else "no", "flag_hands": hands or None}


def _moves(read: ReadModel, chosen: Period) -> Iterable[dict[str, Any]]:
    offset = 0
    while True:
        page = read.jackpot_moves(limit=1_000, offset=offset)
        yield from (m for m in page if chosen.first <= m["gaming_day"] <= chosen.last)
        if len(page) < 1_000:
            return
        offset += len(page)


def _player_rows(read: ReadModel, chosen: Period,
                 currency: dict[str, str]) -> Iterable[dict[str, Any]]:
    for player in player_report(read, chosen)["players"]:
        for table in player["by_table"]:
            yield {"player": player["player"], **table,
                   "currency": currency.get(table["table"])}
