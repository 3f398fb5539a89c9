"""``ledger export accounting --format xlsx``: one workbook per day or period (openpyxl).

Sheets, one per dataset: ``accounting`` (per table and gaming day of the period), ``hold`` (the
period, month to date and year to date per table, :mod:`projections.reports.hold`), ``rake``,
``jackpot``, ``dp-results``, ``players`` (ratings, :mod:`projections.reports.players`),
``inventory`` (the tray and the win by inventory, :mod:`projections.reports.inventory`),
``corrections`` (every correction of the period, in words) and, for a single day,
``bankrolls``.

What an accountant opens: each sheet is one Excel table (named, with its autofilter and a
frozen header row) with human headers; below it a totals row per currency (``Total EUR``: the
sums of its amounts and counts; amounts of different currencies are never added together).
Amounts are numbers in currency units in a currency format with the currency's decimals and
code (ISO 4217: ``#,##0.00 "EUR"``, ``#,##0 "JPY"``); percentages are fractions in a percent
format (a hold of 27.08% is the number 0.2708); gaming days are dates; times are the casino's
local time (the tables' time zone, named in the header; a ``Time zone`` column when tables of
several zones are in the workbook); time at the tables is in minutes, as on the command line.

The file is written beside its final name and then renamed over it, so a reader never opens
half a workbook.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from datetime import UTC, date, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from openpyxl import Workbook
from openpyxl.styles import Font
from openpyxl.utils import get_column_letter
from openpyxl.worksheet.table import Table, TableStyleInfo

from ledger.domain.errors import LedgerError
from ledger.domain.money import minor_units
from projections.exports.accounting import correction_text
from projections.exports.files import output_dir
from projections.read.queries import ReadModel
from projections.reports.hold import hold_report, theory
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


def _amount_format(decimals: int, currency: str | None = None) -> str:
    number = "#,##0" + ("." + "0" * decimals if decimals else "")
    return f'{number} "{currency}"' if currency else number


HEADERS = {"hold_pct": "Hold %", "hands_settled": "Hands settled", "dp_results": "DP results",
           "hand_no": "Hand", "z": "Z score", "sd": "Standard deviation", "low": "95% low",
           "high": "95% high", "flag_hands": "Hands that weigh most",
           "config_versions": "Configuration versions", "theoretical_result":
           "Theoretical result", "result": "Result", "seconds": "Minutes at the tables",
           "average_wager": "Average wager", "expected_rake": "Rake owed by the policy",
           "rake_variance": "Rake variance", "dp_result": "DP result",
           "dp_theory": "DP theoretical result", "meter_after": "Meter after",
           "inventory_win": "Win by inventory", "ledger_win": "Ledger win",
           "original_version": "Corrected version", "theoretical_win": "Theoretical win"}
PERCENT = "0.00%"
NOT_SUMMED = ("meter_after_minor", "sd_minor", "low_minor", "high_minor",
              "average_wager_minor", "opening_minor", "closing_minor")
"""Amounts a totals row leaves empty: a sum of them means nothing (a meter after each move, a
deviation, an interval's ends, an average, the tray's counts of different days)."""


def header(name: str, zone: str | None = None) -> str:
    """``gaming_day`` -> ``Gaming day``; a time column names its time zone."""
    key = name.removesuffix("_minor")
    text = HEADERS.get(key) or key.replace("_", " ").capitalize()
    return f"{text} ({zone})" if zone else text


class Sheet:
    """Rows of one dataset: columns, and how each is typed (amount, day, time, number, pct,
    minutes, text); on ``close`` an Excel table over them and the totals per currency."""

    def __init__(self, book: Workbook, title: str, columns: Sequence[tuple[str, str]],
                 zones: dict[str, str]) -> None:
        self.ws = book.create_sheet(title)
        self.title = title
        self.zones = zones
        self.one_zone = next(iter(set(zones.values()))) if len(set(zones.values())) == 1 else None
        times = any(kind == "time" for _, kind in columns)
        self.columns = list(columns) + ([("time_zone", "text")]
                                        if times and self.one_zone is None else [])
        self.ws.append([header(name, self.one_zone if kind == "time" else None)
                        for name, kind in self.columns])
        for cell in self.ws[1]:
            cell.font = Font(bold=True)
        self.ws.freeze_panes = "A2"
        self.rows = 0
        self.totals: dict[str, dict[str, Any]] = {}
        for i, (name, kind) in enumerate(self.columns, start=1):
            width = len(header(name, self.one_zone if kind == "time" else None)) + 4
            self.ws.column_dimensions[get_column_letter(i)].width = max(13, width)

    def add(self, row: dict[str, Any], currency: str | None, counted: bool = True) -> None:
        """One row; ``counted``: its figures go into the totals row."""
        decimals = currency_decimals(currency or "")
        zone = self.zones.get(row.get("table") or "", "UTC")
        row = {**row, "time_zone": zone}
        total = self.totals.setdefault(currency or "", {}) if counted else {}
        values = []
        formats = []
        for name, kind in self.columns:
            value = row.get(name)
            fmt = None
            if value is None:
                pass
            elif kind == "amount":
                amount = Decimal(int(value)).scaleb(-decimals)
                value = float(amount) if decimals else int(amount)
                fmt = _amount_format(decimals, currency)
                if name not in NOT_SUMMED:
                    total[name] = total.get(name, 0) + int(row[name])
            elif kind == "pct":  # text or number in percent -> a fraction
                value = float(Decimal(str(value)) / 100)
                fmt = PERCENT
            elif kind == "day":
                value = date.fromisoformat(str(value))
                fmt = "yyyy-mm-dd"
            elif kind == "time":
                moment = datetime.strptime(str(value), "%Y-%m-%dT%H:%M:%S.%fZ").replace(
                    tzinfo=UTC)
                value = moment.astimezone(ZoneInfo(zone)).replace(tzinfo=None)
                fmt = "yyyy-mm-dd hh:mm:ss"
            elif kind == "minutes":
                value = round(int(value) / 60, 1)
                fmt = "#,##0.0"
                total[name] = total.get(name, 0) + int(row[name])
            elif kind == "number":
                value = float(value) if isinstance(value, str) else value
                if name in ("hands", "hands_settled", "lines", "corrections", "days"):
                    total[name] = total.get(name, 0) + int(value or 0)
            values.append(value)
            formats.append(fmt)
        self.ws.append(values)
        self.rows += 1
        for column, fmt in enumerate(formats, start=1):
            if fmt is not None:
                self.ws.cell(row=self.rows + 1, column=column).number_format = fmt

    def close(self) -> None:
        """The Excel table over the rows (autofilter, banded rows), then a bold totals row
        per currency below it."""
        last = get_column_letter(len(self.columns))
        name = re.sub(r"[^A-Za-z0-9]", "", self.title.title())
        table = Table(displayName=name, ref=f"A1:{last}{self.rows + 1}")
        table.tableStyleInfo = TableStyleInfo(name="TableStyleMedium2", showRowStripes=True)
        self.ws.add_table(table)
        if not self.rows:
            return
        for currency, sums in sorted(self.totals.items()):
            line: list[Any] = []
            formats: list[str | None] = []
            decimals = currency_decimals(currency)
            for i, (column, kind) in enumerate(self.columns):
                fmt = None
                value: Any = None
                if i == 0:
                    value = f"Total {currency}".strip()
                elif column == "currency":
                    value = currency or None
                elif column in sums:
                    if kind == "amount":
                        amount = Decimal(sums[column]).scaleb(-decimals)
                        value = float(amount) if decimals else int(amount)
                        fmt = _amount_format(decimals, currency)
                    elif kind == "minutes":
                        value, fmt = round(sums[column] / 60, 1), "#,##0.0"
                    else:
                        value = sums[column]
                line.append(value)
                formats.append(fmt)
            self.ws.append(line)
            at = self.ws.max_row
            for i, fmt in enumerate(formats, start=1):
                cell = self.ws.cell(row=at, column=i)
                cell.font = Font(bold=True)
                if fmt is not None:
                    cell.number_format = fmt


ACCOUNTING = (("table", "text"), ("gaming_day", "day"), ("game", "text"), ("currency", "text"),
              ("hands_settled", "number"), ("hands_voided", "number"),
              ("hands_cancelled", "number"), ("drop_minor", "amount"),
              ("cash_outs_minor", "amount"), ("house_win_minor", "amount"),
              ("hold_pct", "pct"), ("rake_minor", "amount"),
              ("jackpot_contributions_minor", "amount"), ("jackpot_awards_minor", "amount"),
              ("jackpot_seeds_minor", "amount"), ("dp_results_minor", "amount"),
              ("corrections", "number"), ("corrections_house_minor", "amount"),
              ("corrections_rake_minor", "amount"), ("corrections_cage_minor", "amount"),
              ("corrections_owed_minor", "amount"))
HOLD = (("table", "text"), ("game", "text"), ("currency", "text"), ("label", "text"),
        ("from", "day"), ("to", "day"), ("hands", "number"), ("handle_minor", "amount"),
        ("drop_minor", "amount"), ("win_minor", "amount"), ("hold_pct", "pct"),
        ("theoretical_win_minor", "amount"), ("rake_minor", "amount"),
        ("expected_rake_minor", "amount"), ("rake_variance_minor", "amount"),
        ("dp_result_minor", "amount"), ("dp_theory_minor", "amount"), ("sd_minor", "amount"),
        ("low_minor", "amount"), ("high_minor", "amount"), ("z", "number"), ("flagged", "text"),
        ("flag_hands", "text"))
RAKE = (("table", "text"), ("gaming_day", "day"), ("game", "text"), ("currency", "text"),
        ("method", "text"), ("hands", "number"), ("lines", "number"), ("amount_minor", "amount"))
JACKPOT = (("table", "text"), ("gaming_day", "day"), ("currency", "text"),
           ("version", "number"), ("at", "time"), ("hand_no", "number"), ("kind", "text"),
           ("seat", "number"), ("line", "text"), ("source", "text"), ("amount_minor", "amount"),
           ("meter_after_minor", "amount"), ("rule", "text"))
DP = (("table", "text"), ("gaming_day", "day"), ("currency", "text"), ("player", "text"),
      ("hands", "number"), ("result_minor", "amount"))
PLAYERS = (("player", "text"), ("table", "text"), ("game", "text"), ("currency", "text"),
           ("hands", "number"), ("seconds", "minutes"), ("average_wager_minor", "amount"),
           ("handle_minor", "amount"), ("theoretical_result_minor", "amount"),
           ("result_minor", "amount"))
INVENTORY = (("table", "text"), ("gaming_day", "day"), ("currency", "text"),
             ("opening_minor", "amount"), ("fills_minor", "amount"), ("fills_count", "number"),
             ("credits_minor", "amount"), ("credits_count", "number"),
             ("closing_minor", "amount"),
             ("drop_minor", "amount"), ("inventory_win_minor", "amount"),
             ("ledger_win_minor", "amount"), ("variance_minor", "amount"), ("status", "text"))
CORRECTIONS = (("table", "text"), ("gaming_day", "day"), ("currency", "text"),
               ("version", "number"), ("at", "time"), ("kind", "text"), ("hand_no", "number"),
               ("original_version", "number"), ("rule", "text"), ("approvers", "text"),
               ("reason", "text"), ("moved_minor", "amount"), ("house_minor", "amount"),
               ("rake_minor", "amount"), ("cage_minor", "amount"), ("owed_minor", "amount"),
               ("detail", "text"))
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
    """:func:`_export_workbook`, every view read in one snapshot of the store. The paytable
    mathematics of every table's configurations are read (or computed and stored, once per
    paytable) before the snapshot is taken, so a second export computes none."""
    for table in read.tables():
        theory(read, table)
    with read.snapshot() as pinned:
        return _export_workbook(pinned, chosen, out)


def _export_workbook(read: ReadModel, chosen: Period, out: str | Path) -> tuple[Path, dict[str,
                                                                                        int]]:
    """Write the period's workbook into ``out``; its path and the rows of each sheet."""
    directory = output_dir(out)
    currency = {t["table_code"]: t["currency"] for t in read.tables()}
    zones = {t["table_code"]: t["timezone"] for t in read.tables()}
    book = Workbook()
    for sheet in list(book.worksheets):  # the empty default sheet
        book.remove(sheet)

    def fill(title: str, columns: Sequence[tuple[str, str]],
             rows: Iterable[dict[str, Any]]) -> None:
        sheet = Sheet(book, title, columns, zones)
        for row in rows:
            if "table_code" in row:
                row["table"] = row.pop("table_code")
            cur = row.get("currency") or currency.get(row.get("table") or "")
            row["currency"] = cur
            # the hold sheet's month and year to date repeat the period: one counted
            sheet.add(row, cur, counted=row.get("label") in (None, chosen.label))
        sheet.close()
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
    fill("corrections", CORRECTIONS, _corrections(read, chosen, currency))
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
            dp = col.get("dp") or {}
            yield {"table": table["table"], "game": table["game"],
                   "currency": table["currency"], **col, "low_minor": low, "high_minor": high,
                   "dp_result_minor": dp.get("result_minor"),
                   "dp_theory_minor": dp.get("theoretical_minor"),
                   "sd_minor": dp.get("sd_minor", col.get("sd_minor")),
                   "flagged": "yes" if col["flagged"] else "no", "flag_hands": hands or None}


def _corrections(read: ReadModel, chosen: Period,
                 currency: dict[str, str]) -> Iterable[dict[str, Any]]:
    for row in read.corrections(limit=10**9):
        if chosen.first <= row["gaming_day"] <= chosen.last:
            cur = currency.get(row["table_code"])
            yield {**row, "approvers": "; ".join(row["approvers"]),
                   "detail": correction_text(row["kind"], row["detail"], cur)}


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
            yield {"player": player["player"], **table}
