"""The jackpot view (RULES CSP-6, CSP-7): the meter of every table with a progressive jackpot,
and every movement of it: seeds, contributions, awards, resets to the seed; also the house's
share of the side wagers and the fixed awards the house pays, which do not move the meter.

``proj_jackpot_moves`` has one row per movement with the meter after it; ``kind`` is one of
``seed`` (the house funds the meter when the table opens or its configuration changes),
``contribution`` (a side wager's share into the meter), ``house_share`` (the rest of the side
wager, to the house), ``award`` (a JackpotLine: ``source`` ``meter`` or ``house``), ``reseed``
(the house refills the meter to the seed after a 100% award) and ``other`` (any other movement
of the meter account, e.g. a voided hand's reversal).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ledger.domain import accounts
from ledger.domain import records as r
from projections.views.base import KEEP_AT_MOST, Item, View, field_of

MOVES_DDL = (
    "CREATE TABLE IF NOT EXISTS {proj_jackpot_moves} ("
    "table_code TEXT NOT NULL, version BIGINT NOT NULL, seq INTEGER NOT NULL, "
    "at TEXT NOT NULL, gaming_day TEXT NOT NULL, hand_no BIGINT, kind TEXT NOT NULL, "
    "seat INTEGER, line TEXT, source TEXT, amount_minor BIGINT NOT NULL, "
    "meter_after_minor BIGINT NOT NULL, rule TEXT, PRIMARY KEY (table_code, version, seq))"
)
METERS_DDL = (
    "CREATE TABLE IF NOT EXISTS {proj_jackpot_meters} ("
    "table_code TEXT PRIMARY KEY, meter_minor BIGINT NOT NULL, last_version BIGINT NOT NULL)"
)
SIDE_WAGER = "jackpot"


class Jackpot(View):
    name = "jackpot"
    description = "progressive jackpot meters and their movements (CSP-6)"
    tables = ("proj_jackpot_moves", "proj_jackpot_meters")
    ddl = (
        MOVES_DDL,
        METERS_DDL,
        "CREATE INDEX IF NOT EXISTS proj_jackpot_day ON {proj_jackpot_moves} (gaming_day)",
    )

    def reset(self) -> None:
        self._rows: list[tuple[Any, ...]] = []
        self._meters: dict[str, list[int]] = {}

    def _meter(self, code: str) -> list[int]:
        meter = self._meters.get(code)
        if meter is None:
            row = self.tx.fetchone(
                "SELECT meter_minor, last_version FROM {proj_jackpot_meters} "
                "WHERE table_code = ?", (code,),
            )
            meter = [0, 0] if row is None else [int(row["meter_minor"]), 0]
            self._meters[code] = meter
        return meter

    def handle(self, item: Item) -> None:
        event = item.event
        transfers = item.transfers
        lines: tuple[r.JackpotLine, ...] = field_of(event, "jackpot", ())
        if not lines:
            for t in transfers:
                if _touches(t):
                    break
            else:
                return
        meter = self._meter(item.code)
        meter_lines = iter([j for j in lines if j.source == "meter" and j.amount])
        seq = 0
        for kind, t in _classified(event, transfers):
            if t.dst == accounts.JACKPOT:
                meter[0] += t.amount
            elif t.src == accounts.JACKPOT:
                meter[0] -= t.amount
            seat, line, source = _detail(kind, t, meter_lines)
            self._rows.append((item.code, item.version, seq, item.at, item.day, item.hand_no,
                               kind, seat, line, source, t.amount, meter[0], t.rule))
            seq += 1
        for j in lines:
            if j.source == "house" and j.amount:
                self._rows.append((item.code, item.version, seq, item.at, item.day,
                                   item.hand_no, "award", j.seat, j.line, "house", j.amount,
                                   meter[0], j.rule))
                seq += 1
        meter[1] = item.version

    def flush(self) -> None:
        self.tx.insert("proj_jackpot_moves", (
            "table_code", "version", "seq", "at", "gaming_day", "hand_no", "kind", "seat",
            "line", "source", "amount_minor", "meter_after_minor", "rule"), self._rows)
        if self.keeping and len(self._meters) <= KEEP_AT_MOST:
            return  # the meters, written once at the end
        self.tx.executemany(
            "INSERT INTO {proj_jackpot_meters} AS cur (table_code, meter_minor, last_version) "
            "VALUES (?,?,?) ON CONFLICT (table_code) DO UPDATE SET "
            "meter_minor = excluded.meter_minor, last_version = excluded.last_version",
            [(code, m, v) for code, (m, v) in self._meters.items() if v],
        )
        self._meters = {}

    def kept(self) -> None:
        self._rows = []


def _touches(t: r.Transfer) -> bool:
    return accounts.JACKPOT in (t.src, t.dst) or (
        accounts.is_spot(t.src) and accounts.spot_kind(t.src) == SIDE_WAGER
        and t.dst == accounts.HOUSE
    )


def _classified(
    event: object, transfers: tuple[r.Transfer, ...]
) -> Iterator[tuple[str, r.Transfer]]:
    hand_event = isinstance(event, r.HandRecord)
    for t in transfers:
        if not _touches(t):
            continue
        if t.dst == accounts.JACKPOT and accounts.is_spot(t.src):
            yield "contribution", t
        elif t.dst == accounts.HOUSE:
            yield "house_share", t
        elif t.src == accounts.HOUSE and t.dst == accounts.JACKPOT:
            yield ("reseed" if hand_event else "seed"), t
        elif t.src == accounts.JACKPOT and accounts.is_player(t.dst):
            yield "award", t
        else:
            yield "other", t


def _detail(
    kind: str, t: r.Transfer, meter_lines: Iterator[r.JackpotLine]
) -> tuple[int | None, str | None, str | None]:
    if kind == "award":
        line = next(meter_lines, None)
        return (line.seat, line.line, "meter") if line else (None, None, "meter")
    if accounts.is_spot(t.src):
        return accounts.spot_seat(t.src), None, None
    return None, None, None
