"""``ledger export accounting``: the day's accounting, rake, jackpot, bankroll and
designated-player files, each as CSV and as JSON Lines (see :mod:`projections.exports.files`).

Files, for gaming day D (one row per table unless said otherwise):

- ``accounting-D``: table, gaming_day, game, currency, hands_settled, hands_voided,
  hands_cancelled, drop, cash_outs, house_win and hold_pct (house-banked games only; hold % =
  house win / drop, in percent), rake, jackpot_contributions, jackpot_awards, jackpot_seeds,
  dp_results (designated-player games only); the day's correction line: corrections (how
  many), corrections_house, corrections_rake, corrections_cage, corrections_owed (each
  account's change through them, COR-1..5);
- ``rake-D``: per table, game and method: hands, lines, amount;
- ``jackpot-D``: every jackpot movement: version, time, hand, kind, seat, line, source,
  amount, meter_after, rule;
- ``bankrolls-D``: per table and account: opening, in, out, closing;
- ``dp-results-D``: per table and designated player: hands, result (HCF-14);
- ``corrections-D``: every correction recorded that day: version, time, kind, the hand and the
  event it corrects, approvers, reason, what it moved, each account's change and the detail
  (corrected cards and settlement, differences, transfers; COR-1..5).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from projections.exports.files import output_dir, units, write_csv, write_jsonl
from projections.read.queries import ReadModel
from projections.views.context import parse_day

ACCOUNTING = ("table", "gaming_day", "game", "currency", "hands_settled", "hands_voided",
              "hands_cancelled", "drop", "cash_outs", "house_win", "hold_pct", "rake",
              "jackpot_contributions", "jackpot_awards", "jackpot_seeds", "dp_results",
              "corrections", "corrections_house", "corrections_rake", "corrections_cage",
              "corrections_owed")
RAKE = ("table", "gaming_day", "game", "currency", "method", "hands", "lines", "amount")
JACKPOT = ("table", "gaming_day", "currency", "version", "at", "hand_no", "kind", "seat",
           "line", "source", "amount", "meter_after", "rule")
BANKROLLS = ("table", "gaming_day", "currency", "account", "opening", "in", "out", "closing")
DP_RESULTS = ("table", "gaming_day", "currency", "player", "hands", "result")
CORRECTIONS = ("table", "gaming_day", "currency", "version", "at", "kind", "hand_no",
               "original_version", "approvers", "reason", "moved", "house", "rake", "cage",
               "owed", "rule", "detail")


@dataclass(frozen=True)
class Written:
    path: Path
    rows: int
    replayable: int = 0
    """Of the hands written in a poker format, those standard tools replay (PHH, OHH)."""
    blocked: tuple[tuple[str, int], ...] = ()
    """Hands standard tools do not replay, by the rule that prevents it (a hand may count
    under several rules)."""


def export_accounting(read: ReadModel, day: str, out: str | Path) -> list[Written]:
    """:func:`_export_accounting`, every view read in one snapshot of the store."""
    with read.snapshot() as pinned:
        return _export_accounting(pinned, day, out)


def _export_accounting(read: ReadModel, day: str, out: str | Path) -> list[Written]:
    """Write the six files of gaming day ``day`` as CSV and JSON Lines into ``out``."""
    day = parse_day(day)
    directory = output_dir(out)
    currency = {t["table_code"]: t["currency"] for t in read.tables()}

    def rows(fetch: Callable[[], list[dict[str, Any]]]) -> Callable[[], Iterator[dict[str,
                                                                                     Any]]]:
        def produce() -> Iterator[dict[str, Any]]:
            for row in fetch():
                code = row.get("currency") or currency.get(row["table_code"])
                data = units(row, code)
                data["table"] = data.pop("table_code")
                data["currency"] = code
                yield data
        return produce

    datasets: list[tuple[str, tuple[str, ...], Callable[[], Iterator[dict[str, Any]]]]] = [
        ("accounting", ACCOUNTING, rows(lambda: read.accounting(day=day))),
        ("rake", RAKE, rows(lambda: read.rake_totals(day=day))),
        ("jackpot", JACKPOT, rows(lambda: list(_all_moves(read, day)))),
        ("bankrolls", BANKROLLS, rows(lambda: read.bankroll_day(day))),
        ("dp-results", DP_RESULTS, rows(lambda: read.dp_results(day=day))),
        ("corrections", CORRECTIONS, rows(lambda: read.corrections(day=day, limit=10**9))),
    ]
    written = []
    for name, columns, produce in datasets:
        csv_path = directory / f"{name}-{day}.csv"
        written.append(Written(csv_path, write_csv(csv_path, columns, produce())))
        jsonl_path = directory / f"{name}-{day}.jsonl"
        written.append(Written(jsonl_path, write_jsonl(
            jsonl_path, ({c: row.get(c) for c in columns} for row in produce()))))
    return written


def _all_moves(read: ReadModel, day: str) -> Iterator[dict[str, Any]]:
    offset = 0
    while True:
        page = read.jackpot_moves(day=day, limit=1_000, offset=offset)
        yield from page
        if len(page) < 1_000:
            return
        offset += len(page)
