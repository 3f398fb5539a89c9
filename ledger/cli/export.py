"""``ledger export``: the day's accounting files and hand histories."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from ledger.cli import app
from ledger.cli.common import DATABASE_OPTION, ledger_app, report_day

export_app = typer.Typer(
    name="export",
    help="Files for accounting and auditors: CSV (Excel-friendly) and JSON Lines of the "
    "accounting views; hand histories as JSON Lines, PHH or Open Hand History.",
    no_args_is_help=True,
)
app.add_typer(export_app)
OUT_OPTION = typer.Option(Path("out"), "--out", help="Directory to write into.")


@export_app.command("accounting")
def accounting(
    day: str | None = typer.Option(None, "--day", help="Gaming day (YYYY-MM-DD)."),
    first: str | None = typer.Option(None, "--from", help="First gaming day (xlsx, with --to)."),
    last: str | None = typer.Option(None, "--to", help="Last gaming day (xlsx, with --from)."),
    month: str | None = typer.Option(None, "--month", help="A month, YYYY-MM (xlsx)."),
    fmt: str = typer.Option("csv", "--format", metavar="[csv|xlsx]",
                            help="csv (CSV and JSON Lines of one day) or xlsx (one workbook of "
                            "a day or period, a sheet per dataset)."),
    out: Path = OUT_OPTION,
    as_json: bool = typer.Option(False, "--json", help='Print what was written as one object: '
                                 '{"period": {"from", "to"}, "format", "files": [{"path", '
                                 '"rows"}]} (xlsx: the sheets with their rows).'),
    database_url: str | None = DATABASE_OPTION,
) -> None:
    """Write accounting-D, rake-D, jackpot-D, bankrolls-D and dp-results-D, each as .csv
    (UTF-8 with BOM, one header row, amounts in currency units with the currency's ISO 4217
    decimals) and .jsonl
    (the same columns, amounts as "12.50" strings). With --format xlsx: one workbook for the
    day (--day), a range (--from/--to) or a month (--month), a sheet per dataset (accounting,
    hold, rake, jackpot, dp-results, players, inventory, corrections, and bankrolls for a day),
    each one Excel table with a totals row per currency, amounts in currency formats,
    percentages in percent formats, days as dates, times in the tables' local time. Paytable
    mathematics are computed once per paytable and kept in the store (a line on stderr says
    so while they are computed). The projections are brought up to date first."""
    from ledger.cli.common import fail
    from ledger.cli.projections import catch_up
    from ledger.domain.errors import InvalidInput
    from projections.exports.accounting import export_accounting
    from projections.read.fleet import read_model
    from projections.reports.periods import period
    from projections.views.context import parse_day

    kind = fmt.lower()
    if kind not in ("csv", "xlsx"):
        fail(InvalidInput("invalid_format", f"unknown format {fmt!r}: csv or xlsx"))
    with ledger_app(database_url, reading=True) as ledger:
        chosen = period(day, first, last, month)
        if kind == "xlsx":
            from ledger.cli.common import err_console
            from projections.exports.workbook import export_workbook
            from projections.reports.paytable import PROGRESS

            def tell(text: str) -> None:
                err_console.print(text, highlight=False, soft_wrap=True)

            catch_up(ledger)
            PROGRESS.append(tell)  # a line on stderr while paytable mathematics are computed
            try:
                path, sheets = export_workbook(read_model(ledger), chosen, out)
            finally:
                PROGRESS.remove(tell)
            if as_json:
                typer.echo(json.dumps({"period": {"from": chosen.first, "to": chosen.last},
                                       "format": "xlsx", "files": [{
                                           "path": str(path), "sheets": dict(sheets)}]}))
                return
            typer.echo(f"{path}  " + ", ".join(f"{k} {v} rows" for k, v in sheets.items()))
            return
        if day is None:
            fail(InvalidInput("invalid_period", "the CSV files are per day: give --day D (a "
                              "period needs --format xlsx)"))
        day = parse_day(day)
        catch_up(ledger)
        report_day(ledger, day)
        written = export_accounting(read_model(ledger), day, out)
    if as_json:
        typer.echo(json.dumps({"period": {"from": day, "to": day}, "format": "csv", "files": [
            {"path": str(w.path), "rows": w.rows} for w in written]}))
        return
    for w in written:
        typer.echo(f"{w.path}  {w.rows} rows")


@export_app.command("hands")
def hands(
    day: str = typer.Option(..., "--day", help="Gaming day (YYYY-MM-DD) the hands started."),
    fmt: str = typer.Option(
        "jsonl", "--format", metavar="[jsonl|phh|ohh]",
        help="jsonl (every game), phh (Seven Card Stud Hi/Lo, PHH TOML) or "
        "ohh (Open Hand History; Seven Card Stud Hi/Lo)."),
    out: Path = OUT_OPTION,
    table: str | None = typer.Option(None, "--table", help="Only this table."),
    as_json: bool = typer.Option(False, "--json", help='Print the summary as one object, the '
                                 "manifest of the console's download: format, gaming_day, "
                                 "table, hands, files (each with its path and hands), skipped, "
                                 "voided_or_cancelled, in_progress and, for PHH and OHH, "
                                 "replayable, not_replayable, not_replayable_by_rule."),
    database_url: str | None = DATABASE_OPTION,
) -> None:
    """Write the hand histories of the hands that started on a gaming day and have ended. JSON
    Lines cover every game (house-banked games included); PHH and OHH describe poker hands
    played out, so they cover the games they fit (settled hands) and count the others as
    skipped. Hands still in progress are left out and counted in the summary. The files
    replace those of an earlier export of the same day (and --table): a PHH directory holds
    this export's files and no others. The projections are brought up to date first."""
    from ledger.access.accesslog import record_access
    from ledger.cli.projections import catch_up
    from ledger.store.fleet import table_guard
    from ledger.store.readstore import primary_of
    from projections.exports.hands import export_hands
    from projections.read.fleet import read_model
    from projections.views.context import parse_day

    with ledger_app(database_url, reading=True) as ledger, table_guard(ledger, table):
        day = parse_day(day)
        catch_up(ledger)
        report_day(ledger, day, table)
        result = export_hands(ledger, read_model(ledger), day, fmt.lower(), out, table=table)
        with primary_of(ledger) as writer:  # the access log: on the primary
            record_access(writer, who=ledger.actor.id, what="hands_export",
                          table=table and table.upper(),
                          detail={"day": day, "format": fmt.lower(), "hands": result.hands,
                                  "out": str(out)})
    if as_json:
        summary = result.manifest(fmt.lower(), day, table and table.upper())
        summary["files"] = [{"path": str(w.path), "hands": w.rows} for w in result.written]
        typer.echo(json.dumps(summary))
        return
    files = len(result.written)
    shown = result.written if files <= 10 else result.written[:3]
    for w in shown:
        typer.echo(f"{w.path}  {w.rows} hands")
    if files > len(shown):
        typer.echo(f"... {files} files in {shown[0].path.parent}")
    typer.echo(f"{result.hands} hands exported as {fmt}")
    if fmt.lower() != "jsonl" and result.hands:
        rules = ", ".join(f"{rule}: {n}" for rule, n in sorted(result.not_replayable.items()))
        typer.echo(f"{result.replayable} replayable in standard tools, "
                   f"{result.hands - result.replayable} not" + (f" ({rules})" if rules else ""))
    for game, count in result.skipped.items():
        typer.echo(f"skipped {count} {game} hands: {fmt} cannot describe that game "
                   "(use --format jsonl)")
    for game, count in result.unplayed.items():
        typer.echo(f"{_hands(count, f'voided or cancelled {game}')} not exported: {fmt} "
                   "records hands played out (use --format jsonl)")
    if result.in_progress:
        typer.echo(f"{_hands(result.in_progress)} in progress not exported (unfinished; "
                   "export the day again once they have ended)")


def _hands(count: int, kind: str = "") -> str:
    """``1 hand``, ``2 voided stud-hilo hands``."""
    return f"{count} {kind + ' ' if kind else ''}hand{'' if count == 1 else 's'}"
