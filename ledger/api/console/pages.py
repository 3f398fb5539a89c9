"""Sign-in and sign-out, the tables, the hand search and the hand replay."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from fastapi import APIRouter, Form, Path, Query, Request
from fastapi.responses import RedirectResponse, Response

from ledger.api.console import draw
from ledger.api.console.gateway import Api, Refused
from ledger.api.console.session import (
    MAX_TOKEN,
    Reader,
    authenticate,
    check_csrf,
    end_session,
    reader,
    set_csrf_cookie,
    sign_in_csrf,
    start_session,
)
from ledger.api.console.web import page, refusal, render
from ledger.api.errors import ApiError, error_response
from ledger.domain.errors import InvalidInput, LedgerError
from projections.exports.workbook import currency_decimals

router = APIRouter(prefix="/console", include_in_schema=False)
CODE = r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$"
PAGE_SIZE = 50
STATUSES = ("in_progress", "settled", "voided", "cancelled")
SEARCH_REFUSALS = frozenset({"unknown_rule", "day_not_started"})
"""Refusals of a hand search the form shows beside itself (with every 422: a bad value)."""
GAMES = ("caribbean-stud", "high-card-flush", "chinese-poker", "stud-hilo")


def _next(target: str | None) -> str:
    """Where to go after signing in: a console path of this site, nothing else."""
    if target and target.startswith("/console/") and not target.startswith("//") and (
            "\\" not in target):
        return target
    return "/console/"


# --- sign-in and sign-out ---------------------------------------------------------------------


@router.get("/sign-in")
async def sign_in_form(request: Request, next: str | None = Query(None, max_length=500)
                       ) -> Response:
    who = reader(request)
    if who is not None and who.by_cookie:
        return RedirectResponse(_next(next), status_code=303)
    return _sign_in_page(request, _next(next), None)


def _sign_in_page(request: Request, target: str, problem: str | None,
                  status: int = 200) -> Response:
    pre, value = sign_in_csrf(request)
    response = render(request, "sign_in.html", None, status=status, next=target,
                      problem=problem, csrf=value)
    set_csrf_cookie(response, pre)
    return response


@router.post("/sign-in")
async def sign_in(request: Request, token: str = Form("", max_length=MAX_TOKEN),
                  csrf: str = Form("", max_length=100),
                  next: str = Form("/console/", max_length=500)) -> Response:
    try:
        check_csrf(request, None, csrf)
    except LedgerError as exc:
        return refusal(request, None, exc, 403)
    who = authenticate(request, token.strip()) if token.strip() else None
    if who is None:
        error_response(request, ApiError("invalid_token", "sign-in with an unknown or revoked "
                                         "token"), 401)  # logged as the API logs refusals
        return _sign_in_page(request, _next(next), "That token is unknown or revoked.", 401)
    response = RedirectResponse(_next(next), status_code=303)
    start_session(response, request, who)
    return response


@router.post("/sign-out")
async def sign_out(request: Request, csrf: str = Form("", max_length=100)) -> Response:
    who = reader(request)
    try:
        check_csrf(request, who, csrf)
    except LedgerError as exc:
        return refusal(request, who, exc, 403)
    response = RedirectResponse("/console/sign-in", status_code=303)
    end_session(response, request)
    return response


# --- home and tables ------------------------------------------------------------------------


@router.get("/")
@page
async def home(request: Request, who: Reader, api: Api) -> Response:
    return render(request, "home.html", who)


async def _table_rows(api: Api) -> list[dict[str, Any]]:
    rows = []
    for table in await api.data("/tables"):
        answer = await api.get(f"/tables/{table['table_code']}", {"public": True})
        if not answer.ok:  # one table the ledger refuses to load: say so, show the others
            rows.append({"table": table, "state": None, "error": answer.error})
            continue
        state = answer.json()
        rows.append({"table": table, "state": state, "drawing": draw.live_picture(state)})
    return rows


@router.get("/tables")
@page
async def tables(request: Request, who: Reader, api: Api) -> Response:
    return render(request, "tables.html", who, rows=await _table_rows(api))


@router.get("/tables/live")
@page
async def tables_live(request: Request, who: Reader, api: Api) -> Response:
    return render(request, "_tables_live.html", who, rows=await _table_rows(api))


async def _table(api: Api, code: str, everything: bool) -> dict[str, Any]:
    state = await api.data(f"/tables/{code}", {"public": not everything})
    return {"state": state, "drawing": draw.live_picture(state), "everything": everything}


@router.get("/tables/{code}")
@page
async def table(request: Request, who: Reader, api: Api, code: str = Path(pattern=CODE),
                cards: str = Query("public", pattern="^(public|all)$")) -> Response:
    everything = cards == "all" and who.principal.role == "auditor"
    found = await _table(api, code, everything)
    recent = None
    hands = found["state"].get("hand_no") or 0
    if hands:
        page = await api.maybe("/hands", {"table": code, "offset": max(0, hands - 10),
                                          "limit": 10})
        recent = None if page is None else page["items"]
    return render(request, "table.html", who, code=found["state"]["code"], recent=recent,
                  **found)


@router.get("/tables/{code}/live")
@page
async def table_live(request: Request, who: Reader, api: Api, code: str = Path(pattern=CODE)
                     ) -> Response:
    return render(request, "_table_live.html", who, code=code, **await _table(api, code, False))


# --- hand search ----------------------------------------------------------------------------


@router.get("/hands")
@page
async def hands(request: Request, who: Reader, api: Api,
                table: str | None = Query(None, max_length=40),
                day: str | None = Query(None, max_length=10),
                first: str | None = Query(None, alias="from", max_length=10),
                last: str | None = Query(None, alias="to", max_length=10),
                game: str | None = Query(None, max_length=40),
                status: str | None = Query(None, max_length=40),
                player: str | None = Query(None, max_length=64),
                rule: str | None = Query(None, max_length=16),
                won: str | None = Query(None, max_length=24),
                lost: str | None = Query(None, max_length=24),
                page_no: int = Query(1, alias="page", ge=1, le=10**6)) -> Response:
    form = {"table": table, "day": day, "from": first, "to": last, "game": game,
            "status": status, "player": player, "rule": rule, "won": won, "lost": lost}
    form = {k: (v.strip() if v else None) or None for k, v in form.items()}
    tables_ = await api.maybe("/tables") or []
    params: dict[str, Any] = {k: form[k] for k in ("table", "day", "from", "to", "game",
                                                    "status", "player", "rule")}
    problem = None
    try:
        for key, name in (("won", "won_min"), ("lost", "lost_min")):
            typed = form[key]
            if typed is not None:
                params[name] = _amount(typed, form["table"], tables_)
    except InvalidInput as exc:
        problem = exc.message
    rows: list[dict[str, Any]] = []
    more = False
    total = None
    if problem is None:
        params.update(limit=PAGE_SIZE, offset=(page_no - 1) * PAGE_SIZE)
        answer = await api.get("/hands", params)
        if answer.status == 422 or answer.error.get("code") in SEARCH_REFUSALS:
            problem = str(answer.error.get("message"))
        elif not answer.ok:
            raise Refused(answer)
        else:
            found = answer.json()
            rows, total, more = found["items"], found["total"], found["next"] is not None
    currency = {t["table_code"]: t["currency"] for t in tables_}
    query = {k: v for k, v in form.items() if v}
    pages = {"previous": _page_link(query, page_no - 1) if page_no > 1 else None,
             "next": _page_link(query, page_no + 1) if more else None}
    return render(request, "hands.html", who, form=form, rows=rows, problem=problem,
                  tables=tables_, currency=currency, page_no=page_no, pages=pages,
                  total=total, first=(page_no - 1) * PAGE_SIZE + 1,
                  statuses=STATUSES, games=GAMES, status=422 if problem else 200)


def _page_link(query: dict[str, str], number: int) -> str:
    return "/console/hands?" + urlencode({**query, "page": number})


def _amount(text: str, table: str | None, tables_: list[dict[str, Any]]) -> int:
    """An amount typed in currency units, in minor units of the table's currency (or of the
    one currency every table uses)."""
    if table is not None:
        chosen = [t["currency"] for t in tables_ if t["table_code"].upper() == table.upper()]
    else:
        chosen = sorted({t["currency"] for t in tables_})
    decimals = {currency_decimals(c) for c in chosen}
    if len(decimals) > 1:
        raise InvalidInput("invalid_request", "the tables use currencies with different "
                           "decimals: choose a table to search by amount")
    try:
        return draw.parse_money(text, chosen[0] if chosen else None)
    except (ValueError, ArithmeticError):
        raise InvalidInput("invalid_request", f"{text!r} is not an amount: write it in "
                           "currency units, e.g. 250 or 12.50") from None


# --- one hand -------------------------------------------------------------------------------


@router.get("/tables/{code}/hands/{hand_no}")
@page
async def hand(request: Request, who: Reader, api: Api, code: str = Path(pattern=CODE),
               hand_no: int = Path(ge=1, le=10**9)) -> Response:
    answer = await api.get(f"/tables/{code}/hands/{hand_no}/replay")
    if answer.status == 403:
        return await _live_hand(request, who, api, code, hand_no, Refused(answer))
    if not answer.ok:
        raise Refused(answer)
    replay = answer.json()
    record = await api.data(f"/tables/{code}/hands/{hand_no}")
    tables_ = await api.data("/tables")
    currency = next((t["currency"] for t in tables_
                     if t["table_code"] == replay["table"]), None)
    steps = replay["steps"]
    pictures = draw.replay_pictures(steps)
    rules = await _rule_texts(request, api, sorted({r for s in steps for r in s["rules"]}))
    flagged = _flagged_versions(replay)
    return render(request, "hand.html", who, replay=replay, record=record, currency=currency,
                  steps=list(zip(steps, pictures, strict=True)), rules=rules, flagged=flagged,
                  code=replay["table"], hand_no=hand_no)


async def _live_hand(request: Request, who: Reader, api: Api, code: str, hand_no: int,
                     refused: Refused) -> Response:
    """A reader the replay refuses (a table's device) sees the hand in progress as the API
    shows it to that reader: hidden cards are not in the answer, so not in the page."""
    state = await api.maybe(f"/tables/{code}")
    if state is None or state.get("hand") is None or state.get("hand_no") != hand_no:
        raise refused
    return render(request, "live_hand.html", who, state=state, code=state["code"],
                  hand_no=hand_no, drawing=draw.live_picture(state))


RULES: dict[str, str | None] = {}


async def _rule_texts(request: Request, api: Api, ids: list[str]) -> dict[str, str | None]:
    """Each rule's text from the API's rule book (``GET /rules/{id}``), None when it has none."""
    found: dict[str, str | None] = {}
    for rule in ids:
        if rule not in RULES:
            data = await api.maybe(f"/rules/{rule}")
            text = data.get("text") if isinstance(data, dict) else None
            if text is None and data is None:
                found[rule] = None
                continue
            RULES[rule] = text
        found[rule] = RULES[rule]
    return found


def _flagged_versions(replay: dict[str, Any]) -> dict[int, list[dict[str, Any]]]:
    """Discrepancies by the version of the step they concern (steps that disagree too)."""
    out: dict[int, list[dict[str, Any]]] = {}
    versions = [s["version"] for s in replay["steps"]]
    problems = list(replay.get("discrepancies") or []) + list(
        replay.get("chain_problems") or [])
    for item in problems:
        version = _version_in(item, versions)
        out.setdefault(version if version is not None else -1, []).append(item)
    for step in replay["steps"]:
        if step.get("agrees") is False:
            out.setdefault(step["version"], [])
    return out


def _version_in(item: dict[str, Any], versions: list[int]) -> int | None:
    for side in ("recorded", "expected"):
        value = item.get(side)
        if (isinstance(value, dict) and isinstance(value.get("version"), int)
                and value["version"] in versions):
            return int(value["version"])
    return None

