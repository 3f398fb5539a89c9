"""The wagers view: what each player put in action and won or lost, hand by hand and by kind.

``proj_seat_hands``, one row per (table, hand, player): seat, game, gaming day (of the hand's
start), start and end times, status, ``wagered_minor`` (chips moved from the player's stack to
a wager spot: Ante, Play, Raise, bonus and jackpot wagers, bets, stakes), ``kinds_json`` (the
same by wager kind, ``{"ante": 1000, "play": 2000}``) and ``net_minor`` (the change of the
player's stack over the hand's events: positive when the player won). Buy-ins and cash-outs are
not hand events and do not count.

``proj_wager_days``, one row per (table, gaming day, wager kind) over settled hands: the number
of seat-hands with that wager, the amount and the sum of the squared amounts (what the hold
report needs for the standard deviation of the win when wagers differ in size). Voided and
cancelled hands return every wager and are left out.

A seat correction (COR-3) puts the player who really sat there on the seat's rows of its
hands, and a hand correction (COR-1) adds what it gives or takes to the players' results, so
ratings and a player's hands follow the corrections.

Everything is read from the balanced transfers the events carry (``player:<id>`` to
``spot:<seat>:<kind>``), so it is reconcilable with the bankrolls view.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from ledger.domain import accounts
from ledger.domain import records as r
from projections.views.base import KEEP_AT_MOST, Item, View, dumps_ints

SEAT_HANDS_DDL = (
    "CREATE TABLE IF NOT EXISTS {proj_seat_hands} ("
    "table_code TEXT NOT NULL, hand_no BIGINT NOT NULL, player TEXT NOT NULL, "
    "seat INTEGER, game TEXT NOT NULL, gaming_day TEXT NOT NULL, started_at TEXT NOT NULL, "
    "ended_at TEXT, status TEXT NOT NULL, wagered_minor BIGINT NOT NULL, "
    "net_minor BIGINT NOT NULL, kinds_json TEXT NOT NULL, "
    "PRIMARY KEY (table_code, hand_no, player))"
)
WAGER_DAYS_DDL = (
    "CREATE TABLE IF NOT EXISTS {proj_wager_days} ("
    "table_code TEXT NOT NULL, gaming_day TEXT NOT NULL, kind TEXT NOT NULL, "
    "wagers BIGINT NOT NULL, amount_minor BIGINT NOT NULL, square_minor BIGINT NOT NULL, "
    "PRIMARY KEY (table_code, gaming_day, kind))"
)
COLUMNS = ("table_code", "hand_no", "player", "seat", "game", "gaming_day", "started_at",
           "ended_at", "status", "wagered_minor", "net_minor", "kinds_json")
ENDINGS = {r.HandSettled: "settled", r.HandVoided: "voided", r.HandCancelled: "cancelled"}


class Wagers(View):
    name = "wagers"
    description = "per player and hand: wagers by kind and result; handle per day and kind"
    tables = ("proj_seat_hands", "proj_wager_days")
    ddl = (
        SEAT_HANDS_DDL,
        WAGER_DAYS_DDL,
        "CREATE INDEX IF NOT EXISTS proj_seat_hands_player ON {proj_seat_hands} "
        "(player, gaming_day)",
        "CREATE INDEX IF NOT EXISTS proj_seat_hands_day ON {proj_seat_hands} "
        "(gaming_day, table_code)",
    )

    def reset(self) -> None:
        self._hands: dict[tuple[str, int], dict[str, dict[str, Any]]] = {}
        self._new: set[tuple[str, int, str]] = set()
        self._days: dict[tuple[str, str, str], list[int]] = {}
        self._seated: list[tuple[Any, ...]] = []
        self._corrected: list[tuple[Any, ...]] = []
        self._carried: dict[tuple[str, int], dict[str, dict[str, Any]]] = {}
        """The new rows of hands in progress that a flush while keeping left unwritten."""
        self._days_carried = False

    def handle(self, item: Item) -> None:
        isa = item.isa
        if r.HandRecord not in isa:
            event: Any = item.event
            if r.SeatCorrected in isa:  # COR-3: who really sat there, for ratings
                self._seated.append((event.player, item.code, event.seat, event.from_hand,
                                     event.to_hand, event.recorded_player))
            elif r.HandCorrected in isa:  # COR-1: the player's result as corrected
                self._corrected.extend(
                    (d.amount, item.code, event.hand, accounts.player_id(d.account))
                    for d in event.differences if accounts.is_player(d.account))
            return
        event = item.event
        key: tuple[str, int] = (item.code, event.hand_no)
        if r.HandStarted in isa:
            self._hands[key] = {}
            for entry in event.seats:
                self._row(key, item, entry.player, entry.seat)
        rows = self._hands.get(key)
        if rows is None:
            rows = self._load(key)
            if rows is None:  # a hand event without its start: the audit reports the stream
                return
        for t in item.transfers:
            src, dst, amount = t.src, t.dst, t.amount
            if src.startswith("player:"):
                player = src.split(":", 1)[1]
                row = rows.get(player) or self._row(key, item, player, None)
                row["net_minor"] -= amount
            if dst.startswith("player:"):
                player = dst.split(":", 1)[1]
                row = rows.get(player) or self._row(key, item, player, None)
                row["net_minor"] += amount
            if src.startswith("player:") and dst.startswith("spot:"):
                row = rows[src.split(":", 1)[1]]
                kind = dst.split(":", 2)[2]
                kinds = row["kinds_json"]
                kinds[kind] = kinds.get(kind, 0) + amount
                row["wagered_minor"] += amount
        ending = _ending(event.__class__)
        if ending is None:
            return
        for row in rows.values():
            row["status"] = ending
            row["ended_at"] = item.at
            if ending != "settled":
                continue
            for kind, amount in row["kinds_json"].items():
                day = self._days.setdefault((item.code, row["gaming_day"], kind), [0, 0, 0])
                day[0] += 1
                day[1] += amount
                day[2] += amount * amount

    def _row(self, key: tuple[str, int], item: Item, player: str,
             seat: int | None) -> dict[str, Any]:
        rows = self._hands.setdefault(key, {})
        first = next(iter(rows.values()), None)
        row: dict[str, Any] = {
               "table_code": key[0], "hand_no": key[1], "player": player, "seat": seat,
               "game": item.table.game,
               "gaming_day": first["gaming_day"] if first else item.day,
               "started_at": first["started_at"] if first else item.at, "ended_at": None,
               "status": "in_progress", "wagered_minor": 0, "net_minor": 0, "kinds_json": {}}
        rows[player] = row
        self._new.add((key[0], key[1], player))
        return row

    def _load(self, key: tuple[str, int]) -> dict[str, dict[str, Any]] | None:
        found = self.tx.fetchall(f"SELECT {', '.join(COLUMNS)} FROM {{proj_seat_hands}} "
                                 "WHERE table_code = ? AND hand_no = ?", key)
        if not found:
            return None
        rows = {}
        for row in found:
            row["kinds_json"] = json.loads(row["kinds_json"])
            rows[row["player"]] = row
        self._hands[key] = rows
        return rows

    def flush(self) -> None:
        # the corrections' updates must find every row of the batch written
        keep = self.keeping and not self._seated and not self._corrected \
            and len(self._hands) <= KEEP_AT_MOST
        new = self._new
        inserts, updates = [], []
        for key, rows in self._hands.items():
            if keep and rows and all(
                    row["status"] == "in_progress" and (*key, player) in new
                    for player, row in rows.items()):
                self._carried[key] = rows  # written once, when the hand has ended
                continue
            for row in rows.values():
                values = [dumps_ints(row[c]) if c == "kinds_json" else row[c] for c in COLUMNS]
                if (row["table_code"], row["hand_no"], row["player"]) in self._new:
                    inserts.append(values)
                else:
                    updates.append(values[3:] + values[:3])
        self.tx.insert("proj_seat_hands", COLUMNS, inserts)
        assignments = ", ".join(f"{c} = ?" for c in COLUMNS[3:])
        self.tx.executemany(
            f"UPDATE {{proj_seat_hands}} SET {assignments} WHERE table_code = ? AND "
            "hand_no = ? AND player = ?", updates)
        self._days_carried = self.keeping and len(self._days) <= KEEP_AT_MOST
        if not self._days_carried:  # else the totals are written once, at the end
            self._write_days()
        self.tx.executemany(
            "UPDATE {proj_seat_hands} SET player = ? WHERE table_code = ? AND seat = ? AND "
            "hand_no >= ? AND hand_no <= ? AND player = ?", self._seated)
        self.tx.executemany(
            "UPDATE {proj_seat_hands} SET net_minor = net_minor + ? WHERE table_code = ? AND "
            "hand_no = ? AND player = ?", self._corrected)

    def _write_days(self) -> None:
        self.tx.executemany(
            "INSERT INTO {proj_wager_days} AS cur (table_code, gaming_day, kind, wagers, "
            "amount_minor, square_minor) VALUES (?,?,?,?,?,?) ON CONFLICT (table_code, "
            "gaming_day, kind) DO UPDATE SET wagers = cur.wagers + excluded.wagers, "
            "amount_minor = cur.amount_minor + excluded.amount_minor, "
            "square_minor = cur.square_minor + excluded.square_minor",
            [(code, day, kind, *v) for (code, day, kind), v in self._days.items()])

    def kept(self) -> None:
        carried, days = self._carried, self._days if self._days_carried else {}
        self.reset()
        self._hands = carried
        self._new = {(*key, player) for key, rows in carried.items() for player in rows}
        self._days = days


@cache
def _ending(cls: type) -> str | None:
    """The status a hand ends with at an event of class ``cls`` (None: it goes on)."""
    return next((s for c, s in ENDINGS.items() if issubclass(cls, c)), None)
