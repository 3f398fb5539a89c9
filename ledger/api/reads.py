"""Read endpoints over the projections' query layer (``projections.queries.ReadModel``).

Each read first brings the views up to date (one catch-up at a time per process; a read right
after a write sees it), then answers with the query's rows. Nothing here computes a view of its
own: hands, bankrolls, coverage, rake, jackpot and accounting are the projections' rows.

Who reads what: an auditor everything; accounting the money views (bankrolls, coverage, rake,
jackpot, accounting, designated-player results); admin the table list, configurations and the
projections' status; a device only its own tables in the table list.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import date
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Query, Request
from pydantic import AfterValidator

from ledger.api.auth import Principal, require
from ledger.api.commands import CODE_PATH
from ledger.api.errors import responses
from ledger.application import LedgerApp
from projections.queries import MAX_LIMIT, ReadModel
from projections.runner import Runner

Rows = list[dict[str, Any]]
MONEY = ("auditor", "accounting")
DAY_PATTERN = r"^\d{4}-\d{2}-\d{2}$"


def _calendar_day(value: str | None) -> str | None:
    """A day of the calendar (2026-02-30 matches the pattern but is none): else ``invalid_day``."""
    if value is not None:
        date.fromisoformat(value)
    return value


QueryDay = Annotated[
    str | None,
    Query(pattern=DAY_PATTERN, description="Gaming day, YYYY-MM-DD."),
    AfterValidator(_calendar_day),
]
PathDay = Annotated[
    str,
    Path(pattern=DAY_PATTERN, description="Gaming day, YYYY-MM-DD."),
    AfterValidator(_calendar_day),
]
TABLE = Query(None, pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$", description="Table code.")
LIMIT = Query(100, ge=1, le=MAX_LIMIT)
OFFSET = Query(0, ge=0, le=10**9)
HAND_NO = Path(ge=1, le=10**9, description="Hand number (1 is the table's first hand).")


class ReadSide:
    """The query layer of one API process, caught up before each read."""

    def __init__(self, ledger: LedgerApp) -> None:
        self.ledger = ledger
        self.runner = Runner(ledger)
        self.model = ReadModel(ledger)
        self._lock = threading.Lock()

    def fresh(self) -> ReadModel:
        with self._lock:
            self.runner.catch_up()
        return self.model

    def lag(self) -> dict[str, int]:
        return {s.view: s.lag for s in self.runner.status()}


def reads(request: Request) -> ReadModel:
    side: ReadSide = request.app.state.reads
    return side.fresh()


router = APIRouter(tags=["reads"])


def _get(path: str, summary: str, roles: tuple[str, ...], *extra: int
         ) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    return router.get(
        path,
        summary=summary,
        description=f"Token: {' or '.join(roles)}.",
        responses=responses(403, 404, *extra),
    )


@_get("/tables", "Every table", ("auditor", "accounting", "admin", "device"))
def tables(
    who: Principal = Depends(require("auditor", "accounting", "admin", "device")),  # noqa: B008
    read: ReadModel = Depends(reads),  # noqa: B008
) -> Rows:
    """Code, game, currency, opening, configuration version, hands, last event (a device token
    sees its own tables)."""
    return [t for t in read.tables() if who.may_use_table(t["table_code"])]


@_get("/tables/{code}/configs", "Configuration history", ("auditor", "admin"))
def configs(
    code: str = CODE_PATH,
    _: Principal = Depends(require("auditor", "admin")),  # noqa: B008
    read: ReadModel = Depends(reads),  # noqa: B008
) -> Rows:
    return read.table_configs(code)


@_get("/hands", "Hand summaries", ("auditor",))
def hands(
    table: str | None = TABLE,
    day: QueryDay = None,
    game: str | None = Query(None, max_length=40),
    status: str | None = Query(None, max_length=40),
    player: str | None = Query(None, min_length=1, max_length=64),
    first: str | None = Query(None, alias="from", pattern=DAY_PATTERN),
    last: str | None = Query(None, alias="to", pattern=DAY_PATTERN),
    won_min: int | None = Query(None, ge=0, le=10**15, description="Some player (or the "
                                "player named) won at least this, in minor units."),
    lost_min: int | None = Query(None, ge=0, le=10**15, description="Some player (or the "
                                 "player named) lost at least this, in minor units."),
    limit: int = LIMIT,
    offset: int = OFFSET,
    _: Principal = Depends(require("auditor")),  # noqa: B008
    read: ReadModel = Depends(reads),  # noqa: B008
) -> Rows:
    """Summaries without cards, by table then hand number; ``from``/``to`` bound the gaming days
    (instead of ``day``). With ``player``: that player's hands across tables, oldest first, with
    the seat, the wagers by kind and the player's result."""
    from projections.reports.periods import period
    from projections.search import search_hands

    chosen = None
    if first is not None or last is not None:
        chosen = period(None, first, last) if day is None else period(day, first, last)
    if player is not None:
        from projections.reports.players import player_hands

        if day is not None:
            chosen = period(day)
        return player_hands(read, player, chosen, table, limit, offset, game=game,
                            status=status, won_min=won_min, lost_min=lost_min)
    return search_hands(read, table=table, day=day, chosen=chosen, game=game, status=status,
                        won_min=won_min, lost_min=lost_min, limit=limit, offset=offset)


@_get("/tables/{code}/hands/{hand_no}", "One hand in full", ("auditor",))
def hand(
    code: str = CODE_PATH,
    hand_no: int = HAND_NO,
    _: Principal = Depends(require("auditor")),  # noqa: B008
    read: ReadModel = Depends(reads),  # noqa: B008
) -> dict[str, Any]:
    """Seats, cards by round (hole cards included), actions, reveals, result and deck."""
    return read.hand(code, hand_no, show_hidden=True)


@_get("/tables/{code}/hands/{hand_no}/replay", "Replay a hand with recomputation",
      ("auditor",))
def replay(
    request: Request,
    code: str = CODE_PATH,
    hand_no: int = HAND_NO,
    _: Principal = Depends(require("auditor")),  # noqa: B008
) -> dict[str, Any]:
    """The hand decision by decision: the recorded event, what the rules recompute for the
    same command, the rules behind it and whether they agree (the audit's hand replay), with
    the text of every rule cited (``rule_texts``)."""
    from dataclasses import asdict

    from ledger.rulebook import cited
    from projections.audit.handreplay import hand_replay

    result = hand_replay(request.app.state.ledger, code, hand_no)
    data = asdict(result)
    data["ok"] = result.ok
    data["rule_texts"] = {r.id: r.text for r in cited({x for s in result.steps for x in s.rules})}
    return data


@_get("/bankrolls", "Account balances", MONEY)
def bankrolls(
    table: str | None = TABLE,
    prefix: str | None = Query(None, max_length=80, description="e.g. player: or spot:"),
    nonzero: bool = False,
    _: Principal = Depends(require(*MONEY)),  # noqa: B008
    read: ReadModel = Depends(reads),  # noqa: B008
) -> Rows:
    return read.balances(table=table, prefix=prefix, nonzero=nonzero)


@_get("/bankrolls/players", "Each player's chips over every table", MONEY)
def players(
    _: Principal = Depends(require(*MONEY)),  # noqa: B008
    read: ReadModel = Depends(reads),  # noqa: B008
) -> Rows:
    return read.player_totals()


@_get("/bankrolls/days/{day}", "Opening, in, out and closing per account for a day", MONEY)
def bankroll_day(
    day: PathDay,
    table: str | None = TABLE,
    _: Principal = Depends(require(*MONEY)),  # noqa: B008
    read: ReadModel = Depends(reads),  # noqa: B008
) -> Rows:
    return read.bankroll_day(day, table)


@_get("/tables/{code}/accounts/{account}/movements", "An account's movements", MONEY)
def movements(
    code: str = CODE_PATH,
    account: str = Path(max_length=120, description="e.g. player:p1, house, jackpot"),
    limit: int = LIMIT,
    offset: int = OFFSET,
    after_version: int = Query(0, ge=0, le=10**12),
    _: Principal = Depends(require(*MONEY)),  # noqa: B008
    read: ReadModel = Depends(reads),  # noqa: B008
) -> Rows:
    return read.movements(code, account, limit=limit, offset=offset,
                          after_version=after_version)


@_get("/coverage", "Designated-player coverage (HCF-12)", MONEY)
def coverage(
    table: str | None = TABLE, day: QueryDay = None, limit: int = LIMIT, offset: int = OFFSET,
    _: Principal = Depends(require(*MONEY)),  # noqa: B008
    read: ReadModel = Depends(reads),  # noqa: B008
) -> Rows:
    return read.coverage(table=table, day=day, limit=limit, offset=offset)


@_get("/rake", "Rake totals", MONEY)
def rake(
    table: str | None = TABLE, day: QueryDay = None,
    _: Principal = Depends(require(*MONEY)),  # noqa: B008
    read: ReadModel = Depends(reads),  # noqa: B008
) -> Rows:
    return read.rake_totals(table=table, day=day)


@_get("/rake/lines", "Rake lines", MONEY)
def rake_lines(
    table: str | None = TABLE, day: QueryDay = None, limit: int = LIMIT, offset: int = OFFSET,
    _: Principal = Depends(require(*MONEY)),  # noqa: B008
    read: ReadModel = Depends(reads),  # noqa: B008
) -> Rows:
    return read.rake_lines(table=table, day=day, limit=limit, offset=offset)


@_get("/jackpot", "Jackpot meters", MONEY)
def jackpot(
    _: Principal = Depends(require(*MONEY)),  # noqa: B008
    read: ReadModel = Depends(reads),  # noqa: B008
) -> Rows:
    return read.jackpot_meters()


@_get("/jackpot/moves", "Jackpot movements (CSP-6)", MONEY)
def jackpot_moves(
    table: str | None = TABLE, day: QueryDay = None,
    kind: str | None = Query(None, max_length=40), limit: int = LIMIT, offset: int = OFFSET,
    _: Principal = Depends(require(*MONEY)),  # noqa: B008
    read: ReadModel = Depends(reads),  # noqa: B008
) -> Rows:
    return read.jackpot_moves(table=table, day=day, kind=kind, limit=limit, offset=offset)


@_get("/accounting", "Drop, win, hold, rake, jackpot per table and gaming day", MONEY)
def accounting(
    table: str | None = TABLE, day: QueryDay = None,
    _: Principal = Depends(require(*MONEY)),  # noqa: B008
    read: ReadModel = Depends(reads),  # noqa: B008
) -> Rows:
    return read.accounting(day=day, table=table)


@_get("/accounting/days", "Gaming days with activity", MONEY)
def days(
    table: str | None = TABLE,
    _: Principal = Depends(require(*MONEY)),  # noqa: B008
    read: ReadModel = Depends(reads),  # noqa: B008
) -> list[str]:
    return read.gaming_days(table)


@_get("/accounting/dp-results", "Designated players' results (HCF-14)", MONEY)
def dp_results(
    table: str | None = TABLE, day: QueryDay = None,
    _: Principal = Depends(require(*MONEY)),  # noqa: B008
    read: ReadModel = Depends(reads),  # noqa: B008
) -> Rows:
    return read.dp_results(day=day, table=table)


@_get("/projections", "The views' positions and lag", ("auditor", "admin"))
def projections_status(
    request: Request,
    _: Principal = Depends(require("auditor", "admin")),  # noqa: B008
) -> Rows:
    side: ReadSide = request.app.state.reads
    return [s.as_dict() for s in side.runner.status()]

