"""``ledger export hands``: the hand histories of a gaming day.

- ``jsonl`` (every game): ``hands-D.jsonl``, one object per ended hand, as
  :meth:`projections.queries.ReadModel.hand` returns it plus the table's currency: table, hand,
  game, times, status, seats, cards by round, actions, reveals, result (outcomes with rule ids,
  transfers, jackpot, coverage, pots, points, rake), revealed deck, totals. Amounts here are
  integer minor units (keys ending ``_minor``, and ``amount``/``stake``/``withheld`` inside the
  result), cards are text (``As``).
- ``phh`` and ``ohh``: the poker hand-history formats, for the games they can describe (see
  :data:`WRITERS`); hands of other games are counted as skipped.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ledger.errors import InvalidInput
from projections.context import parse_day
from projections.exports import poker
from projections.exports.accounting import Written
from projections.exports.files import output_dir, write_jsonl
from projections.queries import ReadModel

FORMATS = ("jsonl", "phh", "ohh")
HandWriter = Callable[[Any, ReadModel, list[dict[str, Any]], Path, str], list[Written]]
"""``writer(app, read, hands, directory, day)``: the files written for these hands."""

WRITERS: dict[str, dict[str, HandWriter]] = {
    "phh": {poker.STUD: poker.write_phh},
    "ohh": {poker.STUD: poker.write_ohh},
}
"""Format -> game -> writer, for the formats that only some games fit."""


@dataclass
class HandsExport:
    written: list[Written] = field(default_factory=list)
    hands: int = 0
    skipped: dict[str, int] = field(default_factory=dict)
    """Hands of games the format cannot describe, by game."""


def export_hands(app: Any, read: ReadModel, day: str, fmt: str, out: str | Path, *,
                 table: str | None = None) -> HandsExport:
    day = parse_day(day)
    if fmt not in FORMATS:
        raise InvalidInput("unknown_format", f"no hand-history format {fmt!r}; formats: "
                           f"{', '.join(FORMATS)}", format=fmt)
    directory = output_dir(out)
    hands = read.hands_full(day=day, table=table)
    currency = {t["table_code"]: t["currency"] for t in read.tables()}
    result = HandsExport()
    if fmt == "jsonl":
        path = directory / (f"hands-{day}.jsonl" if table is None else
                            f"hands-{table}-{day}.jsonl")
        rows = ({"currency": currency.get(h["table_code"]), **h} for h in hands)
        result.written.append(Written(path, write_jsonl(path, rows)))
        result.hands = len(hands)
        return result
    writers = WRITERS[fmt]
    by_game: dict[str, list[dict[str, Any]]] = {}
    for hand in hands:
        by_game.setdefault(hand["game"], []).append(hand)
    for game, group in sorted(by_game.items()):
        writer = writers.get(game)
        if writer is None:
            result.skipped[game] = len(group)
            continue
        result.written.extend(writer(app, read, group, directory, day))
        result.hands += len(group)
    return result


def formats_for(fmt: str) -> list[str]:
    """The games a format can describe."""
    return sorted(WRITERS.get(fmt, {})) if fmt != "jsonl" else ["every game"]
