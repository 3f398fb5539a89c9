"""Hand search: the hands view filtered by table, game, gaming day or period, player, rule,
status and the amount a player won or lost, with paging and the number of hands found
(``ledger hands``, ``GET /hands``, the console's hand search).

:func:`search_hands` answers ``{"total", "items", "limit", "offset", "searched"}``: ``total`` is
how many hands (with a player: how many of that player's hands) match every filter, ``items``
the page of them from ``offset``, ``searched`` what was searched (the period as it was run).

- Without a player the items are hand summaries (``HAND_SUMMARY``), by table then hand
  number; with one, that player's hands oldest first, with the seat, the wagers by kind and the
  player's result (``net_minor``, from the player's side: positive when the player won).
- ``rule``: the hands whose ending paid under that rule (``proj_hand_paid_rules``,
  :func:`projections.views.hands.paid_rules`: a wager won, a designated player's net win,
  winnings a cap withheld, wagers given back to a dead hand or an uncalled bet, a jackpot
  award, a rake taken, a void). Every Caribbean Stud hand with a jackpot wager cites CSP-6 for
  the wager it lost; ``rule="CSP-6"`` finds the hands that paid a jackpot award. ``cites``: the
  hands that cite the rule anywhere (a wager, a decision, a settlement line).
- ``won_min`` keeps the hands in which some player (the player named) won at least that many
  minor units over the hand, ``lost_min`` those in which one lost at least that many.
- The period never runs past today (the latest gaming day begun at any table): a period that
  ends later is searched up to today (``searched`` says so); one that starts later is
  ``day_not_started``.

Every row carries its table's ``currency``: amounts are minor units of that currency.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from datetime import UTC, datetime, time
from functools import partial
from typing import Any

from ledger.domain.errors import InvalidInput, StateConflict
from projections.read.fleet import by, each, for_table, paged_merge
from projections.read.queries import HAND_SUMMARY, MAX_LIMIT, ReadModel, _rules
from projections.reports.periods import Period
from projections.views.context import current_gaming_day

MAX_AMOUNT = 10**15
"""The largest amount a filter takes (minor units; every balance is within it)."""
MAX_OFFSET = 10**9
STATUSES = ("in_progress", "settled", "voided", "cancelled")
PLAYER_COLUMNS = ("table_code", "hand_no", "game", "gaming_day", "started_at", "ended_at",
                  "status", "seat", "wagered_minor", "net_minor")


def check_amount(name: str, value: int | None) -> int | None:
    if value is not None and not 0 <= value <= MAX_AMOUNT:
        raise InvalidInput("invalid_request", f"{name} must be between 0 and {MAX_AMOUNT}",
                           parameter=name)
    return value


@dataclass(frozen=True)
class HandFilter:
    """What a hand search keeps (every field optional; none: every hand)."""

    table: str | None = None
    game: str | None = None
    period: Period | None = None
    player: str | None = None
    rule: str | None = None
    cites: str | None = None
    status: str | None = None
    won_min: int | None = None
    lost_min: int | None = None

    def checked(self) -> HandFilter:
        """The filter with its values checked and written as the views hold them: a rule id
        the rule book has (``unknown_rule``), a game the ledger knows (``unknown_game``), a
        status of a hand, amounts in range (``invalid_request``)."""
        from ledger.domain.rulebook import rule as book_rule
        from ledger.games.registry import get_game

        check_amount("won_min", self.won_min)
        check_amount("lost_min", self.lost_min)
        if self.status is not None and self.status not in STATUSES:
            raise InvalidInput("invalid_request", f"no hand status {self.status!r}; statuses: "
                               f"{', '.join(STATUSES)}", parameter="status")
        if self.game is not None:
            get_game(self.game)
        rule = None if self.rule is None else book_rule(self.rule).id
        cites = None if self.cites is None else book_rule(self.cites).id
        return replace(self, rule=rule, cites=cites)

    def searched(self) -> dict[str, Any]:
        """The filters as the answer names them (what was searched)."""
        out: dict[str, Any] = {k: v for k, v in (
            ("table", self.table), ("game", self.game), ("player", self.player),
            ("rule", self.rule), ("cites", self.cites), ("status", self.status),
            ("won_min", self.won_min), ("lost_min", self.lost_min)) if v is not None}
        if self.period is not None:
            out["from"], out["to"] = self.period.first, self.period.last
        return out


def today(model: ReadModel, day_start: time, now: datetime | None = None) -> str:
    """The latest gaming day that has begun at any table (in any time zone when there is no
    table yet: UTC+14 is the first to reach a day)."""
    now = now or datetime.now(UTC)
    zones = {t["timezone"] for t in model.tables()}
    if not zones:
        return current_gaming_day("Etc/GMT-14", day_start, now)
    return max(current_gaming_day(zone, day_start, now) for zone in zones)


def up_to_today(chosen: Period | None, latest: str) -> tuple[Period | None, str | None]:
    """The period cut at ``latest`` (today), and a note when it was cut; a period that starts
    after today is ``day_not_started``."""
    if chosen is None:
        return None, None
    if chosen.first > latest:
        raise StateConflict("day_not_started", f"gaming day {chosen.first} has not started "
                            f"yet at any table (today is {latest}): no hand can match",
                            gaming_day=chosen.first, today=latest)
    if chosen.last <= latest:
        return chosen, None
    cut = replace(chosen, last=latest)
    return cut, f"the period ends after today: searched {chosen.first} to {latest}"


def search_hands(model: ReadModel, found: HandFilter | None = None, *, limit: int = 100,
                 offset: int = 0, latest: str | None = None) -> dict[str, Any]:
    """The hands matching every filter of ``found``, a page of them and their number (see
    the module). ``latest``: today's gaming day (:func:`today`), the end of every period."""
    wanted = (found or HandFilter()).checked()
    note = None
    if latest is not None:
        period, note = up_to_today(wanted.period, latest)
        wanted = replace(wanted, period=period)
    limit = max(0, min(int(limit), MAX_LIMIT))
    offset = max(0, min(int(offset), MAX_OFFSET))
    stores = each(model)
    if wanted.table is not None:
        stores = [for_table(model, wanted.table)]
        wanted = replace(wanted, table=str(stores[0].table(wanted.table)["table_code"]))
    key = by("started_at", "table_code", "hand_no") if wanted.player else \
        by("table_code", "hand_no")
    total = sum(_count(m, wanted) for m in stores)
    if len(stores) == 1:
        items = _items(stores[0], wanted, limit=limit, offset=offset)
    else:  # a fleet: each store's first rows, merged
        items = paged_merge([partial(_items, m, wanted) for m in stores], key, limit, offset)
    answer: dict[str, Any] = {"total": total, "limit": limit, "offset": offset,
                              "items": items, "searched": wanted.searched()}
    if note:
        answer["note"] = note
    return answer


def _where(f: HandFilter) -> tuple[str, list[Any]]:
    """The WHERE clause over ``h`` (the hands view) and, with a player, ``s`` (their seats)."""
    where: list[str] = []
    params: list[Any] = []
    if f.player is not None:
        where.append("s.player = ?")
        params.append(f.player)
    if f.table is not None:
        where.append("h.table_code = ?")
        params.append(f.table)
    if f.period is not None:
        if f.period.first == f.period.last:
            where.append("h.gaming_day = ?")
            params.append(f.period.first)
        else:
            where.append("h.gaming_day >= ? AND h.gaming_day <= ?")
            params += [f.period.first, f.period.last]
    for column, value in (("h.game", f.game), ("h.status", f.status)):
        if value is not None:
            where.append(f"{column} = ?")
            params.append(value)
    if f.cites is not None:  # a whole id of the comma-separated list
        where.append("(',' || h.rules || ',') LIKE ?")
        params.append(f"%,{f.cites},%")
    if f.rule is not None:
        where.append("EXISTS (SELECT 1 FROM {proj_hand_paid_rules} p WHERE p.table_code = "
                     "h.table_code AND p.hand_no = h.hand_no AND p.rule = ?)")
        params.append(f.rule)
    for bound, test in ((f.won_min, ">= ?"), (f.lost_min, "<= ?")):
        if bound is None:
            continue
        signed = bound if test == ">= ?" else -bound
        if f.player is not None:
            where.append(f"s.net_minor {test}")
        else:
            where.append("EXISTS (SELECT 1 FROM {proj_seat_hands} x WHERE x.table_code = "
                         f"h.table_code AND x.hand_no = h.hand_no AND x.net_minor {test})")
        params.append(signed)
    return (f" WHERE {' AND '.join(where)}" if where else ""), params


def _source(f: HandFilter) -> str:
    if f.player is None:
        return "{proj_hands} h"
    return ("{proj_seat_hands} s JOIN {proj_hands} h ON h.table_code = s.table_code AND "
            "h.hand_no = s.hand_no")


def _count(model: ReadModel, f: HandFilter) -> int:
    where, params = _where(f)
    rows = model.store.fetchall(f"SELECT COUNT(*) AS n FROM {_source(f)}{where}", tuple(params))
    return int(rows[0]["n"] or 0)


def _items(model: ReadModel, f: HandFilter, *, limit: int, offset: int) -> list[dict[str, Any]]:
    where, params = _where(f)
    if f.player is None:
        columns = ", ".join("h." + c for c in HAND_SUMMARY)
        order = "h.table_code, h.hand_no"
    else:
        columns = ", ".join("s." + c for c in PLAYER_COLUMNS) + \
            ", s.kinds_json, h.rules"
        order = "s.started_at, s.table_code, s.hand_no"
    rows = model.store.fetchall(
        f"SELECT {columns}, t.currency FROM {_source(f)} JOIN {{proj_tables}} t ON "
        f"t.table_code = h.table_code{where} ORDER BY {order} "
        f"LIMIT {max(0, min(int(limit), MAX_LIMIT))} OFFSET {max(0, int(offset))}",
        tuple(params))
    paid = _paid_rules(model, rows)
    for row in rows:
        row["rules"] = _rules(row["rules"])
        row["paid_rules"] = paid.get((row["table_code"], row["hand_no"]), [])
        if f.player is not None:
            row["wagers"] = json.loads(row.pop("kinds_json"))
            row["player"] = f.player
    return list(rows)


def _paid_rules(model: ReadModel, rows: list[dict[str, Any]]
                ) -> dict[tuple[str, int], list[str]]:
    """The rules each of ``rows``' hands paid under, read per table over the range of hand
    numbers the rows span."""
    spans: dict[str, tuple[int, int]] = {}
    for row in rows:
        low, high = spans.get(row["table_code"], (row["hand_no"], row["hand_no"]))
        spans[row["table_code"]] = (min(low, row["hand_no"]), max(high, row["hand_no"]))
    wanted = {(row["table_code"], row["hand_no"]) for row in rows}
    found: dict[tuple[str, int], list[str]] = {}
    for code, (low, high) in spans.items():
        for p in model.store.fetchall(
                "SELECT hand_no, rule FROM {proj_hand_paid_rules} WHERE table_code = ? AND "
                "hand_no >= ? AND hand_no <= ? ORDER BY hand_no, rule", (code, low, high)):
            key = (code, int(p["hand_no"]))
            if key in wanted:
                found.setdefault(key, []).append(p["rule"])
    return found
