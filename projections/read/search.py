"""Hand search: the hands view filtered by table, gaming day or period, game, status, player and
the amount a player won or lost, with paging (``GET /hands``, the console's hand search).

Without a player the rows are the hand summaries of :meth:`ReadModel.hands`, by table then hand
number. ``won_min`` keeps the hands in which some player's result (the change of their stack over
the hand, the wagers view) is at least that many minor units; ``lost_min`` those in which some
player lost at least that many. With a player both filters apply to that player's result, and
the rows are :func:`projections.reports.players.player_hands`'s (with the seat, the wagers by
kind and the player's result).
"""

from __future__ import annotations

from functools import partial
from typing import Any

from ledger.domain.errors import InvalidInput
from projections.read.fleet import by, each, for_table, paged_merge
from projections.read.queries import HAND_SUMMARY, MAX_LIMIT, ReadModel, _rules
from projections.reports.periods import Period

MAX_AMOUNT = 10**15
"""The largest amount a filter takes (minor units; every balance is within it)."""


def check_amount(name: str, value: int | None) -> int | None:
    if value is not None and not 0 <= value <= MAX_AMOUNT:
        raise InvalidInput("invalid_request", f"{name} must be between 0 and {MAX_AMOUNT}",
                           parameter=name)
    return value


def search_hands(model: ReadModel, *, table: str | None = None, day: str | None = None,
                 chosen: Period | None = None, game: str | None = None,
                 status: str | None = None, won_min: int | None = None,
                 lost_min: int | None = None, limit: int = 100,
                 offset: int = 0) -> list[dict[str, Any]]:
    """Hand summaries matching every filter given (none: every hand), by table and hand."""
    check_amount("won_min", won_min)
    check_amount("lost_min", lost_min)
    stores = each(model)
    if table is not None:
        model = for_table(model, table)
    elif len(stores) > 1:  # a fleet: each store's first hands, merged
        return paged_merge([partial(search_hands, m) for m in stores],
                           by("table_code", "hand_no"), max(0, min(int(limit), MAX_LIMIT)),
                           offset, day=day, chosen=chosen, game=game, status=status,
                           won_min=won_min, lost_min=lost_min)
    where: list[str] = []
    params: list[Any] = []
    if table is not None:
        where.append("h.table_code = ?")
        params.append(model.table(table)["table_code"])
    if day is not None:
        where.append("h.gaming_day = ?")
        params.append(day)
    if chosen is not None:
        where.append("h.gaming_day >= ? AND h.gaming_day <= ?")
        params += [chosen.first, chosen.last]
    for column, value in (("game", game), ("status", status)):
        if value is not None:
            where.append(f"h.{column} = ?")
            params.append(value)
    for amount, test in ((won_min, "s.net_minor >= ?"), (lost_min, "s.net_minor <= ?")):
        if amount is not None:
            where.append("EXISTS (SELECT 1 FROM {proj_seat_hands} s WHERE s.table_code = "
                         f"h.table_code AND s.hand_no = h.hand_no AND {test})")
            params.append(amount if test.endswith(">= ?") else -amount)
    clause = f" WHERE {' AND '.join(where)}" if where else ""
    limit = max(0, min(int(limit), MAX_LIMIT))
    rows = model.store.fetchall(
        f"SELECT {', '.join('h.' + c for c in HAND_SUMMARY)} FROM {{proj_hands}} h{clause} "
        f"ORDER BY h.table_code, h.hand_no LIMIT {limit} OFFSET {max(0, int(offset))}",
        tuple(params))
    for row in rows:
        row["rules"] = _rules(row["rules"])
    return list(rows)
