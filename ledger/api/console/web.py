"""What every console page shares: who is reading, the templates, refusals drawn as pages."""

from __future__ import annotations

import functools
import inspect
import json
from collections.abc import Awaitable, Callable, Iterator
from datetime import datetime
from typing import Any, ParamSpec
from urllib.parse import quote

from fastapi import Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from fastapi.routing import APIRoute
from jinja2 import Environment, PackageLoader, select_autoescape

from ledger.api.console import draw
from ledger.api.console.gateway import Api, Refused
from ledger.api.console.session import SESSION_COOKIE, Reader, end_session, reader
from ledger.api.errors import ApiError, error_response, status_for
from ledger.domain.errors import LedgerError

env = Environment(loader=PackageLoader("ledger.api.console", "templates"),
                  autoescape=select_autoescape(default=True, default_for_string=True),
                  trim_blocks=True, lstrip_blocks=True)
env.globals["money"] = draw.money
env.filters["money"] = draw.money

GAMES = {"caribbean-stud": "Caribbean Stud", "high-card-flush": "High Card Flush",
         "chinese-poker": "Chinese Poker", "stud-hilo": "Stud Hi/Lo"}
env.filters["game"] = lambda name: GAMES.get(str(name), str(name))


def _when(text: Any) -> str:
    """ISO-8601 UTC as ``2026-03-14 22:05:13 UTC``."""
    if not text:
        return "-"
    try:
        moment = datetime.fromisoformat(str(text).replace("Z", "+00:00"))
    except ValueError:
        return str(text)
    return moment.strftime("%Y-%m-%d %H:%M:%S UTC")


env.filters["when"] = _when
env.filters["json"] = lambda value: json.dumps(value, ensure_ascii=False, sort_keys=True)

NAV = (
    ("/console/tables", "Tables", "/tables"),
    ("/console/hands", "Hands", "/hands"),
    ("/console/audit", "Audit", "/audit/verify"),
    ("/console/accounting", "Accounting", "/accounting"),
    ("/console/jackpot", "Jackpot", "/jackpot"),
    ("/console/coverage", "Coverage", "/coverage"),
    ("/console/approvals", "Approvals", "/proposals"),
    ("/console/surveillance", "Surveillance", "/reports/surveillance"),
)
"""Each page and the API route it is drawn from: a page is offered to the roles that route
admits."""


def api_roles(request: Request, path: str) -> frozenset[str]:
    """The roles the API's ``GET path`` admits (read from the route's own role check)."""
    cache: dict[str, frozenset[str]] | None = getattr(request.app.state, "console_roles", None)
    if cache is None:
        cache = request.app.state.console_roles = {}
    if path not in cache:
        found: frozenset[str] = frozenset()
        for route in _routes(request.app.routes):
            if route.path == path and "GET" in (route.methods or ()):
                found = _roles(route.dependant)
                break
        cache[path] = found
    return cache[path]


def _routes(routes: Any) -> Iterator[APIRoute]:
    """Every API route, inside included routers too (FastAPI keeps them apart)."""
    for route in routes:
        if isinstance(route, APIRoute):
            yield route
        inner = getattr(route, "original_router", None)
        if inner is not None:
            yield from _routes(inner.routes)


def _roles(dependant: Any) -> frozenset[str]:
    for dep in dependant.dependencies:
        roles = getattr(dep.call, "roles", None)
        if roles is not None:
            return frozenset(roles)
        inner = _roles(dep)
        if inner:
            return inner
    return frozenset()


def may(request: Request, who: Reader, path: str) -> None:
    """Refuse (403 ``forbidden``) a reader whose role the API's ``GET path`` does not admit:
    for pages that start work before calling that route (the audit)."""
    allowed = api_roles(request, path)
    if who.principal.role not in allowed:
        raise ApiError("forbidden", f"this {who.principal.role} token may not do this; it "
                       f"takes: {', '.join(sorted(allowed))}", role=who.principal.role,
                       allowed=sorted(allowed))


def nav(request: Request, who: Reader) -> list[tuple[str, str]]:
    role = who.principal.role
    return [(href, label) for href, label, api in NAV if role in api_roles(request, api)]


def render(request: Request, template: str, who: Reader | None, status: int = 200,
           **context: Any) -> HTMLResponse:
    page = env.get_template(template).render(
        request=request, who=who, nav=nav(request, who) if who else [],
        csrf=who.csrf if who else context.pop("csrf", ""), path=request.url.path, **context)
    return HTMLResponse(page, status_code=status)


def refusal(request: Request, who: Reader | None, error: LedgerError,
            status: int | None = None) -> Response:
    """A refusal as a page (or as the API's JSON error for a fragment fetched by script)."""
    status = status or getattr(error, "status", None) or status_for(error)
    if status == 401 and not request.headers.get("authorization") and (
            who is None or who.by_cookie):
        return to_sign_in(request)
    if request.headers.get("x-console-fragment"):
        return error_response(request, error, status)
    if not isinstance(error, Refused):  # the API logged its own refusals; log the console's
        error_response(request, error, status)
    return render(request, "error.html", who, status=status, code=error.code,
                  message=error.message, status_code=status)


def to_sign_in(request: Request) -> Response:
    target = request.url.path
    if request.url.query:
        target += "?" + request.url.query
    response = RedirectResponse(f"/console/sign-in?next={quote(target, safe='')}",
                                status_code=303)
    if request.cookies.get(SESSION_COOKIE):
        end_session(response, request)
    return response


P = ParamSpec("P")
Page = Callable[..., Awaitable[Response]]


def page(handler: Callable[..., Awaitable[Response]]) -> Page:
    """A console page: the reader is found (else the sign-in page), refusals become pages."""

    @functools.wraps(handler)
    async def wrapped(request: Request, *args: Any, **kwargs: Any) -> Response:
        who = reader(request)
        if who is None:
            if request.headers.get("authorization"):
                return refusal(request, None, ApiError("invalid_token",
                                                       "the token is unknown or revoked"), 401)
            if request.headers.get("x-console-fragment"):
                return error_response(request, ApiError(
                    "missing_token", "the session has ended: sign in again"), 401)
            return to_sign_in(request)
        try:
            return await handler(request, who, Api.of(request, who), *args, **kwargs)
        except LedgerError as exc:
            return refusal(request, who, exc)

    params = list(inspect.signature(handler).parameters.values())
    del params[1:3]  # who and api come from the session, not from the request's parameters
    wrapped.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    del wrapped.__wrapped__
    return wrapped
