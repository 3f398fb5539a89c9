"""Accounting (a day, a month or a range of days per table, the hold against theory, the hold
chart of a month, the day's exports as downloads), the jackpot meters and movements, and HCF
coverage."""

from __future__ import annotations

from datetime import date
from typing import Any
from urllib.parse import urlencode

from fastapi import APIRouter, Path, Query, Request
from fastapi.responses import Response

from ledger.api.console.chart import hold_chart
from ledger.api.console.gateway import Api, Refused
from ledger.api.console.session import Reader
from ledger.api.console.web import page, render
from ledger.domain.errors import InvalidInput
from projections.reports.periods import parse_month, period

router = APIRouter(prefix="/console", include_in_schema=False)
DAY = r"^\d{4}-\d{2}-\d{2}$"
MONTH = r"^\d{4}-\d{2}$"
CODE = r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$"
SUMMED = ("drop_minor", "cash_outs_minor", "house_win_minor", "rake_minor",
          "jackpot_contributions_minor", "jackpot_awards_minor", "jackpot_seeds_minor",
          "dp_results_minor", "hands_settled", "hands_voided", "hands_cancelled",
          "corrections", "corrections_house_minor", "corrections_rake_minor",
          "corrections_cage_minor", "corrections_owed_minor")


def _period(day: str | None, month: str | None, first: str | None, last: str | None,
            days: list[str]) -> tuple[str, str, str]:
    """(first, last, label) of the chosen day, month or range of days (``from`` and ``to``);
    the latest day with activity when none is given."""
    if sum(x is not None for x in (day, month, first or last)) > 1:
        raise InvalidInput("invalid_period", "choose a day, a month or a range of days (from "
                           "and to), one of them")
    if month:
        start, end = parse_month(month)
        return start, end, month
    if first or last:
        if not (first and last):
            raise InvalidInput("invalid_period", "a range of days needs its first day (from) "
                               "and its last (to)")
        chosen = period(first=first, last=last)
        return chosen.first, chosen.last, f"{chosen.first} to {chosen.last}"
    when = day or (days[0] if days else date.today().isoformat())
    date.fromisoformat(when)
    return when, when, when


@router.get("/accounting")
@page
async def accounting(request: Request, who: Reader, api: Api,
                     day: str | None = Query(None, pattern=DAY),
                     month: str | None = Query(None, pattern=MONTH),
                     first: str | None = Query(None, alias="from", pattern=DAY),
                     last: str | None = Query(None, alias="to", pattern=DAY),
                     table: str | None = Query(None, pattern=CODE)) -> Response:
    day, month, first, last = (v or None for v in (day, month, first, last))
    days = await api.data("/accounting/days", {"table": table})
    start, end, label = _period(day, month, first, last, days)
    rows = [r for r in await api.data("/accounting", {"table": table})
            if start <= r["gaming_day"] <= end]
    per_table = _sum_by_table(rows)
    if month:
        chosen: dict[str, str] = {"month": month}
    elif start != end or first:
        chosen = {"from": start, "to": end}
    else:
        chosen = {"day": start}
    hold_query = urlencode({**chosen, **({"table": table} if table else {})})
    tables_ = await api.data("/tables")
    chart_month = month or end[:7]
    downloads = _downloads(start, who) if "day" in chosen else []
    workbook = "/console/exports/workbook?" + urlencode(chosen)
    return render(request, "accounting.html", who, rows=rows, per_table=per_table, days=days,
                  day=chosen.get("day"), month=month, first=chosen.get("from"),
                  last=chosen.get("to"), label=label, table=table, hold_query=hold_query,
                  tables=tables_, chart_month=chart_month, downloads=downloads,
                  workbook=workbook)


def _sum_by_table(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for row in rows:
        total = out.setdefault(row["table_code"], {
            "table_code": row["table_code"], "game": row["game"], "currency": row["currency"],
            "banking": row.get("banking"), "days": 0, **{k: None for k in SUMMED}})
        total["days"] += 1
        for key in SUMMED:
            if row.get(key) is not None:
                total[key] = (total[key] or 0) + int(row[key])
    for total in out.values():
        win, drop = total["house_win_minor"], total["drop_minor"]
        total["hold_pct"] = (f"{win * 100 / drop:.2f}" if win is not None and drop else None)
    return list(out.values())


def _downloads(day: str, who: Reader) -> list[tuple[str, str]]:
    links = [(f"/console/exports/accounting/{day}", f"accounting-{day}.zip (CSV and JSON "
              "Lines)")]
    if who.principal.role == "auditor":
        for fmt in ("jsonl", "phh", "ohh"):
            links.append((f"/console/exports/hands/{day}?format={fmt}",
                          f"hands-{day}-{fmt}.zip"))
    return links


@router.get("/accounting/hold")
@page
async def hold(request: Request, who: Reader, api: Api,
               day: str | None = Query(None, pattern=DAY),
               month: str | None = Query(None, pattern=MONTH),
               first: str | None = Query(None, alias="from", pattern=DAY),
               last: str | None = Query(None, alias="to", pattern=DAY),
               table: str | None = Query(None, pattern=CODE)) -> Response:
    report = await api.data("/reports/hold", {"day": day, "month": month, "from": first,
                                              "to": last, "table": table})
    return render(request, "_hold.html", who, hold=report)


@router.get("/accounting/chart")
@page
async def chart(request: Request, who: Reader, api: Api,
                table: str = Query(pattern=CODE), month: str = Query(pattern=MONTH)
                ) -> Response:
    report = await api.data("/reports/hold/days", {"table": table, "month": month})
    return render(request, "_chart.html", who, chart=hold_chart(report), report=report)


@router.get("/jackpot")
@page
async def jackpot(request: Request, who: Reader, api: Api,
                  table: str | None = Query(None, pattern=CODE),
                  day: str | None = Query(None, pattern=DAY)) -> Response:
    meters = await api.data("/jackpot")
    moves = await api.data("/jackpot/moves", {"table": table, "day": day, "limit": 500})
    tables_ = await api.data("/tables")
    currency = {t["table_code"]: t["currency"] for t in tables_}
    return render(request, "jackpot.html", who, meters=meters, moves=moves, table=table,
                  day=day, currency=currency)


@router.get("/coverage")
@page
async def coverage(request: Request, who: Reader, api: Api,
                   table: str | None = Query(None, pattern=CODE),
                   day: str | None = Query(None, pattern=DAY),
                   page_no: int = Query(1, alias="page", ge=1, le=10**6)) -> Response:
    size = 50
    hands = await api.data("/coverage", {"table": table, "day": day, "limit": size + 1,
                                         "offset": (page_no - 1) * size})
    tables_ = await api.data("/tables")
    currency = {t["table_code"]: t["currency"] for t in tables_}
    return render(request, "coverage.html", who, hands=hands[:size], more=len(hands) > size,
                  page_no=page_no, table=table, day=day, currency=currency,
                  tables=[t for t in tables_ if t["game"] == "high-card-flush"])


# --- downloads: the API's export files, with the session's token ----------------------------


async def _download(api: Api, path: str, params: dict[str, Any] | None = None) -> Response:
    answer = await api.get(path, params)
    if not answer.ok:
        raise Refused(answer)
    headers = {k: v for k, v in answer.headers.items() if k == "content-disposition"}
    return Response(answer.body, media_type=answer.headers.get("content-type"),
                    headers=headers)


@router.get("/exports/accounting/{day}")
@page
async def accounting_export(request: Request, who: Reader, api: Api,
                            day: str = Path(pattern=DAY)) -> Response:
    return await _download(api, f"/exports/accounting/{day}")


@router.get("/exports/hands/{day}")
@page
async def hands_export(request: Request, who: Reader, api: Api, day: str = Path(pattern=DAY),
                       fmt: str = Query("jsonl", alias="format", pattern="^(jsonl|phh|ohh)$"),
                       table: str | None = Query(None, pattern=CODE)) -> Response:
    return await _download(api, f"/exports/hands/{day}", {"format": fmt, "table": table})


@router.get("/exports/workbook")
@page
async def workbook_export(request: Request, who: Reader, api: Api,
                          day: str | None = Query(None, pattern=DAY),
                          month: str | None = Query(None, pattern=MONTH),
                          first: str | None = Query(None, alias="from", pattern=DAY),
                          last: str | None = Query(None, alias="to", pattern=DAY)
                          ) -> Response:
    return await _download(api, "/exports/workbook", {"day": day, "month": month,
                                                      "from": first, "to": last})
