"""Game protection in the console: the surveillance report's flags for a period (``GET
/reports/surveillance``, auditors), each with its statistic, its adjusted p-value and links to
the hands that weigh most, each opening the hand's replay."""

from __future__ import annotations

from datetime import date

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response

from ledger.api.console.gateway import Api
from ledger.api.console.session import Reader
from ledger.api.console.web import page, render

router = APIRouter(prefix="/console", include_in_schema=False)
DAY = r"^\d{4}-\d{2}-\d{2}$"
MONTH = r"^\d{4}-\d{2}$"
CODE = r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$"


@router.get("/surveillance")
@page
async def surveillance(request: Request, who: Reader, api: Api,
                       day: str | None = Query(None, pattern=DAY),
                       month: str | None = Query(None, pattern=MONTH),
                       first: str | None = Query(None, alias="from", pattern=DAY),
                       last: str | None = Query(None, alias="to", pattern=DAY),
                       table: str | None = Query(None, pattern=CODE),
                       rate: float = Query(0.05, gt=0, lt=1),
                       every: bool = Query(False, alias="all")) -> Response:
    day, month, first, last, table = (v or None for v in (day, month, first, last, table))
    if not (day or month or first or last):
        days = await api.data("/accounting/days", {"table": table})
        day = days[0] if days else date.today().isoformat()
    flags = await api.data("/reports/surveillance", {
        "day": day, "month": month, "from": first, "to": last, "table": table, "rate": rate,
        "all": "true" if every else None})
    tables = await api.data("/tables")
    return render(request, "surveillance.html", who, flags=flags, day=day, month=month,
                  first=first, last=last, table=table, rate=rate, every=every, tables=tables)
