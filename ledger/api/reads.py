"""Read endpoints over the projections' query layer (``projections.read.queries.ReadModel``).

Each read first brings the views up to date (one catch-up at a time per process; a read right
after a write sees it), then answers with the query's rows. Nothing here computes a view of its
own: hands, bankrolls, coverage, rake, jackpot and accounting are the projections' rows.

Who reads what: an auditor everything; accounting the money views (bankrolls, coverage, rake,
jackpot, accounting, designated-player results); admin the table list, configurations and the
projections' status; a device only its own tables in the table list.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from datetime import date
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Path, Query, Request, Response
from pydantic import AfterValidator

from ledger.api.accesslog import log_read
from ledger.api.auth import Principal, require
from ledger.api.commands import CODE_PATH
from ledger.api.errors import responses
from ledger.api.readmodels import ConfigRow, HandDetail, HandPage, TableRow
from ledger.app.application import LedgerApp
from ledger.app.fleet import Ledger, home_of
from ledger.store.availability import waiting_for
from ledger.store.errors import StoreError
from ledger.store.readstore import REPLAY_WAIT_S, views_position
from projections.db import Store
from projections.read.fleet import FleetReadModel, FleetRunner, each, read_model, runner
from projections.read.queries import MAX_LIMIT, ReadModel

Rows = list[dict[str, Any]]
POSITION_HEADER = "X-Ledger-Views-Position"
PRIMARY_POSITION_HEADER = "X-Ledger-Primary-Position"
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
    """The query layer of one API process, caught up (on the primary) before each read; the
    queries go to ``reader`` (the read store, a standby, when one is set; else the primary)."""

    def __init__(self, ledger: Ledger, reader: LedgerApp | None = None) -> None:
        self.ledger = ledger
        self.reader = reader
        self.runner = runner(ledger)
        self.model = read_model(reader or ledger, ensure_schema=reader is None)
        self._primary = None if reader is None else Store(home_of(ledger).recorder)
        self._lock = threading.Lock()

    def fresh(self) -> ReadModel:
        with waiting_for(self._lock, self.ledger.store_down, "the read models' catch-up"):
            if isinstance(self.runner, FleetRunner):
                self.runner.catch_up_live()  # a shard that is down is refused where routed
            else:
                self.runner.catch_up()
        return self.model

    def positions(self) -> dict[str, str]:
        """After :meth:`fresh`: the answer's headers, how far the views that answer have read
        the event log (a notification id). On a read store, the primary's position too, after
        waiting up to ``REPLAY_WAIT_S`` for the standby to replay the catch-up: an answer
        whose two positions differ may miss the events between them."""
        if self._primary is None:  # the stores themselves (a fleet's: summed, as its head)
            models = (self.model.live_models() if isinstance(self.model, FleetReadModel)
                      else each(self.model))
            total = sum(views_position(m.store) or 0 for m in models)
            return {POSITION_HEADER: str(total)}
        target = views_position(self._primary) or 0
        deadline = time.monotonic() + REPLAY_WAIT_S
        while True:
            found = views_position(self.model.store)
            if (found is not None and found >= target) or time.monotonic() >= deadline:
                break
            time.sleep(0.01)
        if found is None:
            raise StoreError("store_unavailable", "the read store has not replayed the views' "
                             "tables yet; try again in a moment")
        return {POSITION_HEADER: str(found), PRIMARY_POSITION_HEADER: str(target)}

    def lag(self) -> dict[str, int]:
        """Events not yet projected, per view (summed over a fleet's stores)."""
        lags: dict[str, int] = {}
        found = (self.runner.status_live() if isinstance(self.runner, FleetRunner)
                 else self.runner.status())
        for s in found:
            lags[s.view] = lags.get(s.view, 0) + s.lag
        return lags


def reads(request: Request, response: Response) -> ReadModel:
    """The views, caught up; the answer says how far they have read the event log (on a read
    store: as far as it has replayed the primary's catch-up)."""
    side: ReadSide = request.app.state.reads
    model = side.fresh()
    response.headers.update(side.positions())
    return model


router = APIRouter(tags=["reads"])


def _get(path: str, summary: str, roles: tuple[str, ...], *extra: int, model: Any = None
         ) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """A read route; ``model``: the answer's type (``ledger.api.readmodels``), which the
    document publishes and the answer is validated against."""
    return router.get(
        path,
        summary=summary,
        description=f"Token: {' or '.join(roles)}.",
        responses=responses(403, 404, *extra),
        **({"response_model": model} if model is not None else {}),
    )


@_get("/tables", "Every table", ("auditor", "accounting", "admin", "device"),
      model=list[TableRow])
def tables(
    who: Principal = Depends(require("auditor", "accounting", "admin", "device")),  # noqa: B008
    read: ReadModel = Depends(reads),  # noqa: B008
) -> Rows:
    """Code, game, currency, opening, configuration version, hands, last event (a device token
    sees its own tables)."""
    return [t for t in read.tables() if who.may_use_table(t["table_code"])]


@_get("/tables/{code}/configs", "Configuration history", ("auditor", "admin"),
      model=list[ConfigRow])
def configs(
    code: str = CODE_PATH,
    _: Principal = Depends(require("auditor", "admin")),  # noqa: B008
    read: ReadModel = Depends(reads),  # noqa: B008
) -> Rows:
    return read.table_configs(code)


@_get("/hands", "Hand search", ("auditor",), model=HandPage)
def hands(
    request: Request,
    table: str | None = TABLE,
    day: QueryDay = None,
    first: str | None = Query(None, alias="from", pattern=DAY_PATTERN,
                              description="First gaming day of a period (with `to`)."),
    last: str | None = Query(None, alias="to", pattern=DAY_PATTERN,
                             description="Last gaming day of a period (with `from`)."),
    month: str | None = Query(None, pattern=r"^\d{4}-\d{2}$",
                              description="A calendar month of gaming days, YYYY-MM."),
    game: str | None = Query(None, max_length=40),
    status: str | None = Query(None, max_length=40,
                               description="in_progress, settled, voided or cancelled."),
    player: str | None = Query(None, min_length=1, max_length=64),
    rule: str | None = Query(None, max_length=16, description="Hands whose ending paid under "
                             "this rule (a win, a jackpot award, a rake, a void: CSP-6 finds "
                             "the jackpot awards)."),
    cites: str | None = Query(None, max_length=16, description="Hands that cite this rule "
                              "anywhere (a wager, a decision, a loss)."),
    won_min: int | None = Query(None, ge=0, le=10**15, description="Some player (or the "
                                "player named) won at least this, in minor units."),
    lost_min: int | None = Query(None, ge=0, le=10**15, description="Some player (or the "
                                 "player named) lost at least this, in minor units."),
    limit: int = LIMIT,
    offset: int = OFFSET,
    _: Principal = Depends(require("auditor")),  # noqa: B008
    read: ReadModel = Depends(reads),  # noqa: B008
) -> dict[str, Any]:
    """The hands matching every filter given, a page of them (`items`, from `offset`), how
    many match in all (`total`) and the link to the next page (`next`, null on the last);
    `searched` names what was searched (a period that ends after today is searched up to
    today, and `note` says so). Without `player`: hand summaries without cards, by table then
    hand number; with `player`: that player's hands across tables, oldest first, with the
    seat, the wagers by kind and the player's result (`net_minor`, positive when the player
    won). Each row names its table's `currency`; amounts are integers of its minor unit. A
    period is one of `day`, `from`+`to` or `month`."""
    from urllib.parse import urlencode

    from projections.read.search import HandFilter, search_hands, today
    from projections.reports.periods import period

    chosen = None
    if any(v is not None for v in (day, first, last, month)):
        chosen = period(day, first, last, month)
    found = HandFilter(table=table, game=game or None, period=chosen, player=player,
                       rule=rule or None, cites=cites or None, status=status or None,
                       won_min=won_min, lost_min=lost_min)  # an empty field: any
    start = request.app.state.settings.gaming_day_start
    answer = search_hands(read, found, limit=limit, offset=offset, latest=today(read, start))
    following = offset + len(answer["items"])
    answer["next"] = None
    if answer["items"] and following < answer["total"]:
        query = [(k, v) for k, v in request.query_params.multi_items() if k != "offset"]
        answer["next"] = f"{request.url.path}?{urlencode([*query, ('offset', following)])}"
    return answer


@_get("/tables/{code}/hands/{hand_no}", "One hand in full", ("auditor",),
      model=HandDetail)
def hand(
    request: Request,
    code: str = CODE_PATH,
    hand_no: int = HAND_NO,
    who: Principal = Depends(require("auditor")),  # noqa: B008
    read: ReadModel = Depends(reads),  # noqa: B008
) -> dict[str, Any]:
    """Seats, cards by round (hole cards included), actions, reveals, result and deck. A read
    of a hand in progress (its face-down cards) is recorded in the access log."""
    found = read.hand(code, hand_no, show_hidden=True)
    if found.get("status") == "in_progress":
        log_read(request, who, "hand", table=str(found.get("table_code", code)), hand=hand_no)
    return found


@_get("/tables/{code}/hands/{hand_no}/replay", "Replay a hand with recomputation",
      ("auditor",))
def replay(
    request: Request,
    code: str = CODE_PATH,
    hand_no: int = HAND_NO,
    who: Principal = Depends(require("auditor")),  # noqa: B008
) -> dict[str, Any]:
    """The hand decision by decision: the recorded event, what the rules recompute for the
    same command, the rules behind it and whether they agree (the audit's hand replay), with
    the text of every rule cited (``rule_texts``). A replay of a hand in progress (its
    face-down cards) is recorded in the access log."""
    from dataclasses import asdict

    from ledger.domain.rulebook import cited
    from projections.audit.handreplay import hand_replay

    result = hand_replay(request.app.state.reader, code, hand_no)
    if result.in_progress:
        log_read(request, who, "hand_replay", table=result.table, hand=hand_no)
    data = asdict(result)
    data.pop("walked_whole", None)  # how the chain was checked, not what the hand is
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


@_get("/corrections", "Corrections of the record (COR-1..5)", MONEY)
def corrections(
    table: str | None = TABLE, day: QueryDay = None,
    hand: int | None = Query(None, ge=1, le=10**9, description="The hand corrected."),
    kind: Literal["hand", "movement", "seat", "owed"] | None = None,
    limit: int = LIMIT,
    offset: int = OFFSET,
    _: Principal = Depends(require(*MONEY)),  # noqa: B008
    read: ReadModel = Depends(reads),  # noqa: B008
) -> Rows:
    """Every correction, oldest first: what it corrects (the hand, the original event), the
    approvers and the reason, what it moved, the house's, rake's, cage's and owed accounts'
    change, and its detail (corrected cards, the settlement again, differences, transfers)."""
    return read.corrections(table=table, day=day, hand=hand, kind=kind, limit=limit,
                            offset=offset)


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

