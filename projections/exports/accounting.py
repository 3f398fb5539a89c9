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
  event it corrects, approvers (``a; b``), reason, what it moved, each account's change and the
  detail in words, amounts in the table's currency (``seat 3: recorded 7h, was 6h; player:p2
  -5.00 EUR, player:p3 +5.00 EUR``; COR-1..5). In the CSV every cell is a plain value (no JSON);
  the JSON Lines keep ``approvers`` as a list and add ``detail_data``, the detail's structure
  with its amounts in currency units.

Every row of every file names its ``currency``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ledger.domain.money import format_amount, to_decimal
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
        ("corrections", CORRECTIONS, rows(lambda: [
            _correction(c, currency.get(c["table_code"]))
            for c in read.corrections(day=day, limit=10**9)])),
    ]
    written = []
    for name, columns, produce in datasets:
        csv_path = directory / f"{name}-{day}.csv"
        written.append(Written(csv_path, write_csv(csv_path, columns, (
            {**row, "approvers": "; ".join(row["approvers"])} if name == "corrections" else row
            for row in produce()))))
        jsonl_path = directory / f"{name}-{day}.jsonl"
        keys = (*columns, "detail_data") if name == "corrections" else columns
        written.append(Written(jsonl_path, write_jsonl(
            jsonl_path, ({c: row.get(c) for c in keys} for row in produce()))))
    return written


def _correction(row: dict[str, Any], currency: str | None) -> dict[str, Any]:
    """A correction for the files: its detail in words (``detail``) and as data with amounts in
    currency units (``detail_data``)."""
    detail = row["detail"]
    return {**row, "detail": correction_text(row["kind"], detail, currency),
            "detail_data": in_units(detail, currency)}


def _signed(amount: int, currency: str | None) -> str:
    return f"{'+' if amount > 0 else '-' if amount < 0 else ''}" \
        f"{format_amount(abs(amount), currency, code=True)}"


def correction_text(kind: str, detail: dict[str, Any], currency: str | None) -> str:
    """What a correction changed, in words, amounts in the table's currency."""
    if kind == "hand":
        fixes = ", ".join(f"{_target(f['target'])}: recorded {f['recorded']}, was {f['actual']}"
                          for f in detail.get("fixes", []))
        moved = ", ".join(f"{d['account']} {_signed(int(d['amount']), currency)}"
                          for d in detail.get("differences", []))
        return f"{fixes}; {moved or 'no chips moved'}"
    if kind == "movement":
        return (f"{detail['movement']}{' of ' + detail['player'] if detail.get('player') else ''}"
                f": recorded {format_amount(int(detail['recorded_minor']), currency, code=True)}"
                f", was {format_amount(int(detail['amount_minor']), currency, code=True)}")
    if kind == "seat":
        return (f"seat {detail['seat']} was {detail['player']}, recorded as "
                f"{detail['recorded_player']} (hands {detail['from_hand']} to "
                f"{detail['to_hand']})")
    moved = ", ".join(
        f"{t['src']} -> {t['dst']} {format_amount(int(t['amount']), currency, code=True)}"
        for t in detail.get("transfers", []))
    return f"{kind}{' of ' + detail['player'] if detail.get('player') else ''}: {moved}"


def _target(target: Any) -> str:
    return f"seat {target}" if isinstance(target, int) else str(target)


def in_units(value: Any, currency: str | None, key: str = "") -> Any:
    """``value`` with every amount (a key ending ``_minor``, or ``amount``, ``stake``,
    ``winnings``) in currency units as text, the ``_minor`` suffix dropped."""
    if isinstance(value, dict):
        return {k.removesuffix("_minor"): in_units(v, currency, k) for k, v in value.items()}
    if isinstance(value, list):
        return [in_units(v, currency, key) for v in value]
    if isinstance(value, int) and not isinstance(value, bool) and (
            key.endswith("_minor") or key in MONEY_KEYS):
        return str(to_decimal(value, currency))
    return value


MONEY_KEYS = ("amount", "stake", "winnings", "withheld", "high_amount", "low_amount", "rake",
              "paid_in", "paid")


def _all_moves(read: ReadModel, day: str) -> Iterator[dict[str, Any]]:
    offset = 0
    while True:
        page = read.jackpot_moves(day=day, limit=1_000, offset=offset)
        yield from page
        if len(page) < 1_000:
            return
        offset += len(page)
