"""Player ratings: per player over a period, across tables, what a host is shown; and the hands
of one player.

Per player: ``hands`` settled, ``tables``, ``seconds`` at the tables (per table and gaming day,
from the first hand's start to the last hand's end, summed), and the money per currency of the
tables played (``by_currency``: amounts of different currencies are never added together); per
table under it (``by_table``, each with its ``currency``): ``handle_minor`` (every wager; fees
are not wagers), ``average_wager_minor`` (handle / hands), ``result_minor`` (the player's result
over those hands) and ``theoretical_result_minor`` (the result the player is expected to have).

One sign convention, the player's side (as ``ledger hands`` shows a hand): a win is positive, a
loss negative. The theoretical result is minus the house edge of each wager at the
configuration in force when the hand was played (Caribbean Stud: the optimal strategy's edge on
the Ante, the house's expected share of the jackpot side wager); in games the players bank it is
minus the fee or rake the player is expected to pay (the hand's rake shared among its players).
Each player's ``columns`` give the same figures for the period, the month to date and the year
to date of its last day.
"""

from __future__ import annotations

import json
from datetime import datetime
from functools import partial
from typing import Any

from projections.read.fleet import by, each, fetch_all, for_table, paged_merge
from projections.reports.hold import FEES
from projections.reports.paytable import mathematics
from projections.reports.periods import Period, columns


def _edges(model: Any, code: str, game: str, version: int) -> dict[str, float]:
    """The house edge of each wager kind under the table's configuration ``version`` (the one
    in force when the hand was played, COM-4)."""
    if game != "caribbean-stud":
        return {}
    figures = mathematics(model.store, game, model.config(code, version))
    return {"ante": float(figures["strategies"][0]["house_edge"]),
            "jackpot": float(figures["jackpot"]["house_share_expected_per_wager"])}


COLUMN_KEYS = ("tables", "hands", "seconds", "by_currency", "by_table")
MONEY = ("handle_minor", "theoretical_result_minor", "result_minor")


def player_report(model: Any, chosen: Period, player: str | None = None) -> dict[str, Any]:
    """The ratings of the period's players (per player and per table under it), and for each
    player the period, the month to date and the year to date of its last day (``columns``,
    COMAR 36.05.03.25's columns)."""
    cols = columns(chosen)
    cache: dict[tuple[str, str], list[dict[str, Any]]] = {}
    found = []
    for col in cols:  # a month's month to date is the month itself: read once
        key = (col.first, col.last)
        if key not in cache:
            cache[key] = _ratings(model, col, player)
        found.append(cache[key])
    for entry in found[0]:
        entry["columns"] = []
        for col, ratings in zip(cols, found, strict=True):
            same = next((p for p in ratings if p["player"] == entry["player"]), None)
            entry["columns"].append({**col.as_dict(), **{
                k: (same[k] if same else ([] if k.startswith("by_") else 0))
                for k in COLUMN_KEYS}})
    return {"period": chosen.as_dict(), "columns": [c.as_dict() for c in cols],
            "players": found[0]}


def _ratings(model: Any, chosen: Period, player: str | None) -> list[dict[str, Any]]:
    where = "s.status = 'settled' AND s.gaming_day >= ? AND s.gaming_day <= ?"
    params: list[Any] = [chosen.first, chosen.last]
    if player is not None:
        where += " AND s.player = ?"
        params.append(player)
    rows = fetch_all(
        model, "SELECT s.table_code, s.hand_no, s.player, s.game, s.gaming_day, s.started_at, "
        "s.ended_at, s.wagered_minor, s.net_minor, s.kinds_json, h.rake_minor, h.players, "
        "h.config_version "
        "FROM {proj_seat_hands} s JOIN {proj_hands} h ON h.table_code = s.table_code AND "
        f"h.hand_no = s.hand_no WHERE {where} ORDER BY s.player, s.table_code, s.hand_no",
        tuple(params), by("player", "table_code", "hand_no"))
    edges: dict[tuple[str, int], dict[str, float]] = {}
    players: dict[str, dict[str, Any]] = {}
    sessions: dict[tuple[str, str, str], list[str]] = {}
    for row in rows:
        code = row["table_code"]
        version = (code, int(row["config_version"]))
        if version not in edges:
            edges[version] = _edges(model, code, row["game"], version[1])
        kinds = json.loads(row["kinds_json"])
        handle = sum(v for k, v in kinds.items() if k not in FEES)
        if edges[version]:
            theo = sum(edges[version].get(k, 0.0) * v for k, v in kinds.items())
        else:
            theo = int(row["rake_minor"]) / max(int(row["players"]), 1)
        entry = players.setdefault(row["player"], {"player": row["player"], "tables": {}})
        per_table = entry["tables"].setdefault(
            code, _blank(code, row["game"], model.table(code)["currency"]))
        per_table["hands"] += 1
        per_table["handle_minor"] += handle
        per_table["theoretical"] -= theo
        per_table["result_minor"] += int(row["net_minor"])
        span = sessions.setdefault((row["player"], code, row["gaming_day"]),
                                   [row["started_at"], row["ended_at"] or row["started_at"]])
        span[1] = max(span[1], row["ended_at"] or row["started_at"])
    for (name, code, _), (start, end) in sessions.items():
        players[name]["tables"][code]["seconds"] += _seconds(start, end)
    out = []
    for entry in players.values():
        tables = [_finish(t) for t in entry["tables"].values()]
        out.append({"player": entry["player"], "tables": len(tables),
                    "hands": sum(t["hands"] for t in tables),
                    "seconds": sum(t["seconds"] for t in tables),
                    "by_currency": by_currency(tables), "by_table": tables})
    return out


def by_currency(tables: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per-table figures summed per currency (in the order the currencies first come): a sum
    across currencies is never made."""
    out: dict[str, dict[str, Any]] = {}
    for t in tables:
        total = out.setdefault(t["currency"], {"currency": t["currency"], "tables": 0,
                                               "hands": 0, "seconds": 0,
                                               **dict.fromkeys(MONEY, 0)})
        total["tables"] += 1
        for key in ("hands", "seconds", *MONEY):
            total[key] += t[key]
    for total in out.values():
        total["average_wager_minor"] = (round(total["handle_minor"] / total["hands"])
                                        if total["hands"] else 0)
    return list(out.values())


def _blank(code: str, game: str, currency: str) -> dict[str, Any]:
    return {"table": code, "game": game, "currency": currency, "hands": 0, "seconds": 0,
            "handle_minor": 0, "theoretical": 0.0, "result_minor": 0}


def _finish(t: dict[str, Any]) -> dict[str, Any]:
    theo = t.pop("theoretical")
    t["theoretical_result_minor"] = round(theo)
    t["average_wager_minor"] = round(t["handle_minor"] / t["hands"]) if t["hands"] else 0
    return t


def _seconds(start: str, end: str) -> int:
    fmt = "%Y-%m-%dT%H:%M:%S.%fZ"
    return max(0, round((datetime.strptime(end, fmt) - datetime.strptime(start, fmt))
                        .total_seconds()))


def player_hands(model: Any, player: str, chosen: Period | None = None,
                 table: str | None = None, limit: int = 100,
                 offset: int = 0, *, game: str | None = None, status: str | None = None,
                 won_min: int | None = None,
                 lost_min: int | None = None) -> list[dict[str, Any]]:
    """The hands a player took part in, oldest first: table, hand, day, times, seat, status,
    wagered, the player's result and the hand's rules (``won_min`` / ``lost_min``: the player
    won / lost at least that many minor units)."""
    stores = each(model)
    if table is not None:
        model = for_table(model, table)
    elif len(stores) > 1:  # a fleet: each store's first hands, merged
        return paged_merge([partial(player_hands, m, player, chosen, None) for m in stores],
                           by("started_at", "table_code", "hand_no"), limit, offset, game=game,
                           status=status, won_min=won_min, lost_min=lost_min)
    where = "s.player = ?"
    params: list[Any] = [player]
    if chosen is not None:
        where += " AND s.gaming_day >= ? AND s.gaming_day <= ?"
        params += [chosen.first, chosen.last]
    if table is not None:
        where += " AND s.table_code = ?"
        params.append(model.table(table)["table_code"])
    for column, value in (("s.game", game), ("s.status", status)):
        if value is not None:
            where += f" AND {column} = ?"
            params.append(value)
    if won_min is not None:
        where += " AND s.net_minor >= ?"
        params.append(won_min)
    if lost_min is not None:
        where += " AND s.net_minor <= ?"
        params.append(-lost_min)
    limit = max(0, min(int(limit), 10_000))
    rows = model.store.fetchall(
        "SELECT s.table_code, s.hand_no, s.game, s.gaming_day, s.started_at, s.ended_at, "
        "s.status, s.seat, s.wagered_minor, s.net_minor, s.kinds_json, h.rules FROM "
        "{proj_seat_hands} s JOIN {proj_hands} h ON h.table_code = s.table_code AND "
        f"h.hand_no = s.hand_no WHERE {where} ORDER BY s.started_at, s.table_code, s.hand_no "
        f"LIMIT {limit} OFFSET {max(0, int(offset))}", tuple(params))
    for row in rows:
        row["wagers"] = json.loads(row.pop("kinds_json"))
        row["rules"] = [r for r in row["rules"].split(",") if r]
        row["player"] = player
    return list(rows)
