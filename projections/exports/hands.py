"""``ledger export hands``: the hand histories of a gaming day.

- ``jsonl`` (every game): ``hands-D.jsonl``, one object per ended hand, as
  :meth:`projections.read.queries.ReadModel.hand` returns it plus the table's currency: table, hand,
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

from ledger.domain.errors import InvalidInput
from projections.exports import poker
from projections.exports.accounting import Written
from projections.exports.files import output_dir, write_jsonl
from projections.read.queries import ReadModel
from projections.views.context import parse_day

FORMATS = ("jsonl", "phh", "ohh")
HandWriter = Callable[[Any, ReadModel, list[dict[str, Any]], Path, str], list[Written]]
"""``writer(app, read, hands, directory, stem)``: the files written for these settled hands,
named after ``stem`` (``hands-D`` or ``hands-TABLE-D``)."""

WRITERS: dict[str, dict[str, HandWriter]] = {
    "phh": {poker.STUD: poker.write_phh},
    "ohh": {poker.STUD: poker.write_ohh},
}
"""Format -> game -> writer, for the formats that only some games fit."""


@dataclass
class HandsExport:
    written: list[Written] = field(default_factory=list)
    hands: int = 0
    """Hands written."""
    skipped: dict[str, int] = field(default_factory=dict)
    """Hands of games the format cannot describe, by game."""
    unplayed: dict[str, int] = field(default_factory=dict)
    """Voided or cancelled hands of a game the format describes (phh, ohh), by game: those
    formats record hands that were played out."""
    in_progress: int = 0
    """Hands that started on the day and have not ended: never exported (unfinished)."""
    replayable: int = 0
    """Of the hands written as PHH or OHH, those standard tools replay to the same stacks."""
    not_replayable: dict[str, int] = field(default_factory=dict)
    """The others, by the rule that prevents a replay (a hand may count under several)."""

    def manifest(self, fmt: str, day: str, table: str | None) -> dict[str, Any]:
        """What the export holds and what it left out (``manifest.json`` of the zip)."""
        data: dict[str, Any] = {
            "format": fmt, "gaming_day": day, "table": table, "hands": self.hands,
            "files": [w.path.name for w in self.written],
            "skipped": dict(self.skipped), "voided_or_cancelled": dict(self.unplayed),
            "in_progress": self.in_progress,
        }
        if fmt != "jsonl":
            data["replayable"] = self.replayable
            data["not_replayable"] = self.hands - self.replayable
            data["not_replayable_by_rule"] = dict(sorted(self.not_replayable.items()))
        return data


def export_hands(app: Any, read: ReadModel, day: str, fmt: str, out: str | Path, *,
                 table: str | None = None) -> HandsExport:
    """:func:`_export_hands`, every view read in one snapshot of the store."""
    with read.snapshot() as pinned:
        return _export_hands(app, pinned, day, fmt, out, table=table)


def _export_hands(app: Any, read: ReadModel, day: str, fmt: str, out: str | Path, *,
                  table: str | None = None) -> HandsExport:
    """Write the ended hands that started on ``day`` (of ``table``, or of every table).

    The files are named ``hands-D...`` (``hands-TABLE-D...`` for one table) and replace those
    of an earlier export of the same day and tables, even when there is nothing to write: a
    ``phh`` directory then holds no file of an earlier run.
    """
    day = parse_day(day)
    if fmt not in FORMATS:
        raise InvalidInput("unknown_format", f"no hand-history format {fmt!r}; formats: "
                           f"{', '.join(FORMATS)}", format=fmt)
    directory = output_dir(out)
    code = None if table is None else str(read.table(table)["table_code"])
    stem = f"hands-{day}" if code is None else f"hands-{code}-{day}"
    hands = read.hands_full(day=day, table=code)
    result = HandsExport(in_progress=read.count_hands(day=day, table=code,
                                                      status="in_progress"))
    if fmt == "jsonl":
        currency = {t["table_code"]: t["currency"] for t in read.tables()}
        path = directory / f"{stem}.jsonl"
        rows = ({"currency": currency.get(h["table_code"]), **h} for h in hands)
        result.written.append(Written(path, write_jsonl(path, rows)))
        result.hands = len(hands)
        return result
    writers = WRITERS[fmt]
    by_game: dict[str, list[dict[str, Any]]] = {game: [] for game in writers}
    for hand in hands:
        by_game.setdefault(hand["game"], []).append(hand)
    for game, group in sorted(by_game.items()):
        writer = writers.get(game)
        if writer is None:
            result.skipped[game] = len(group)
            continue
        settled = [h for h in group if h["status"] == "settled"]
        if len(settled) < len(group):
            result.unplayed[game] = len(group) - len(settled)
        files = writer(app, read, settled, directory, stem)
        result.written.extend(files)
        result.hands += len(settled)
        for w in files:
            result.replayable += w.replayable
            for rule, count in w.blocked:
                result.not_replayable[rule] = result.not_replayable.get(rule, 0) + count
    return result


def formats_for(fmt: str) -> list[str]:
    """The games a format can describe."""
    return sorted(WRITERS.get(fmt, {})) if fmt != "jsonl" else ["every game"]
