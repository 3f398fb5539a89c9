"""Report endpoints: the paytable mathematics of a table, hold against theory, player ratings.

They translate only: the reports are :mod:`projections.reports`. A period is exactly one of
``day``, ``from`` + ``to`` or ``month`` (``invalid_period``, ``invalid_day``,
``invalid_month`` otherwise).
"""

from __future__ import annotations

from typing import Any

from fastapi import Depends, Query

from ledger.api.auth import Principal, require
from ledger.api.commands import CODE_PATH
from ledger.api.reads import DAY_PATTERN, MONEY, TABLE, QueryDay, _get, reads
from projections.protection.report import surveillance as surveillance_report
from projections.read.queries import ReadModel
from projections.reports.hold import hold_report
from projections.reports.hold_days import hold_days
from projections.reports.inventory import inventory_report
from projections.reports.paytable import table_report
from projections.reports.periods import period
from projections.reports.players import player_report

FROM = Query(None, alias="from", pattern=DAY_PATTERN, description="First gaming day.")
TO = Query(None, alias="to", pattern=DAY_PATTERN, description="Last gaming day.")
MONTH = Query(None, pattern=r"^\d{4}-\d{2}$", description="A month, YYYY-MM.")
PLAYER = Query(None, min_length=1, max_length=64, description="A player's id.")
REPORTS = ("auditor", "accounting", "admin")


@_get("/tables/{code}/paytable", "The mathematics of a table's configuration", REPORTS)
def paytable(
    code: str = CODE_PATH,
    _: Principal = Depends(require(*REPORTS)),  # noqa: B008
    read: ReadModel = Depends(reads),  # noqa: B008
) -> dict[str, Any]:
    """Every configuration version with its approval and digest, the current configuration's
    exact figures (computed on the first request for a configuration, then cached by its
    digest) and, for player-banked games, the rake."""
    return table_report(read, code)


@_get("/reports/hold", "Expected against actual hold, with 95% flags", MONEY)
def hold(
    table: str | None = TABLE, day: QueryDay = None, first: str | None = FROM,
    last: str | None = TO, month: str | None = MONTH,
    _: Principal = Depends(require(*MONEY)),  # noqa: B008
    read: ReadModel = Depends(reads),  # noqa: B008
) -> dict[str, Any]:
    """Per table: the period, month to date and year to date (COMAR 36.05.03.25)."""
    return hold_report(read, period(day, first, last, month), table)


@_get("/reports/hold/days", "Hold against theory day by day over a month", MONEY)
def hold_by_day(
    table: str = Query(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$", description="Table code."),
    month: str = Query(pattern=r"^\d{4}-\d{2}$", description="A month, YYYY-MM."),
    _: Principal = Depends(require(*MONEY)),  # noqa: B008
    read: ReadModel = Depends(reads),  # noqa: B008
) -> dict[str, Any]:
    """Each gaming day of the month at one table: the hold report's day column (hands, drop,
    win, hold %, theoretical win, its standard deviation and 95% interval; the rake against
    the expected rake for player-banked games), with the theoretical hold and its interval as
    percentages of the day's drop for house-banked tables."""
    return hold_days(read, month, table)


@_get("/reports/players", "Player ratings across tables", MONEY)
def players(
    player: str | None = PLAYER, day: QueryDay = None, first: str | None = FROM,
    last: str | None = TO, month: str | None = MONTH,
    _: Principal = Depends(require(*MONEY)),  # noqa: B008
    read: ReadModel = Depends(reads),  # noqa: B008
) -> dict[str, Any]:
    return player_report(read, period(day, first, last, month), player)


@_get("/reports/inventory", "The win by inventory against the ledger (INV-4)", MONEY)
def inventory(
    table: str | None = TABLE, day: QueryDay = None, first: str | None = FROM,
    last: str | None = TO, month: str | None = MONTH,
    _: Principal = Depends(require(*MONEY)),  # noqa: B008
    read: ReadModel = Depends(reads),  # noqa: B008
) -> dict[str, Any]:
    """Per house-banked table and gaming day: opening and closing counts, fills, credits,
    drop, the win by inventory, the ledger's house win and the variance."""
    return inventory_report(read, period(day, first, last, month), table)


@_get("/reports/surveillance", "Game protection: players, pairs and dealers flagged",
      ("auditor",))
def surveillance(
    table: str | None = TABLE, day: QueryDay = None, first: str | None = FROM,
    last: str | None = TO, month: str | None = MONTH,
    rate: float = Query(0.05, gt=0, lt=1, description="The false discovery rate of the flags "
                        "(Benjamini-Hochberg)."),
    every: bool = Query(False, alias="all", description="Every test, not only the flags."),
    _: Principal = Depends(require("auditor")),  # noqa: B008
    read: ReadModel = Depends(reads),  # noqa: B008
) -> list[dict[str, Any]]:
    """The flags of the period (``ledger report surveillance``): each with ``kind``,
    ``table``, ``players`` (one, or two for a pair), ``dealer`` (a dealer flag), ``statistic``,
    ``p_value`` (adjusted), ``decisions`` or ``hands_tested``, and ``hands`` (the most
    telling, each with its replay); with ``all=true`` every test, flagged or not."""
    report = surveillance_report(read, period(day, first, last, month), table, rate=rate)
    found: list[dict[str, Any]] = report["all"] if every else report["flags"]
    return found
