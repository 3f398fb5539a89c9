"""The auditor's and accountant's console: web pages served by ``ledger serve`` under
``/console/``, drawn from the API's own answers (:mod:`.gateway`).

Pages are rendered on the server (Jinja2 templates, package data under ``templates/``) with one
small script and one stylesheet of the package's own (``static/``): no CDN, no build step. Every
answer under ``/console`` carries a Content-Security-Policy without inline scripts or styles,
``X-Frame-Options: DENY``, ``Referrer-Policy: same-origin`` and ``Cache-Control: no-store``.

A page's filter form is a GET form: a browser sends every field of it, the empty ones too
(``?day=&month=&table=``). Under ``/console`` an empty query field is a filter not chosen: it
is dropped before the page's parameters are checked, so that a field left empty is never refused
as malformed. A malformed field is refused as a page (422, the API's code and words), or as the
API's JSON error for a fragment fetched by the page's script.

It may use what the API may use; it reads through the API's own answers, not the store.
"""

from __future__ import annotations

import inspect
import json
from pathlib import Path
from urllib.parse import parse_qsl, urlencode

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import RedirectResponse, Response
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

HERE = Path(__file__).resolve().parent
CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
HEADERS = (
    (b"content-security-policy", CSP.encode()),
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),
    (b"cross-origin-opener-policy", b"same-origin"),
)


def install(app: FastAPI) -> None:
    """Add the console's pages, its assets and its security headers to the API."""
    from ledger.api.console import (
        approval_pages,
        audit_pages,
        money_pages,
        pages,
        protection_pages,
    )

    app.include_router(pages.router)
    app.include_router(approval_pages.router)
    app.include_router(money_pages.router)
    app.include_router(audit_pages.router)
    app.include_router(protection_pages.router)
    app.mount("/console/static", StaticFiles(directory=HERE / "static"), name="console-static")

    @app.get("/", include_in_schema=False)
    def root() -> RedirectResponse:
        return RedirectResponse("/console/", status_code=303)

    app.add_middleware(_Headers)
    api_handler = app.exception_handlers[RequestValidationError]

    async def invalid(request: Request, exc: Exception) -> Response:
        """The API's answer (and log line) to a malformed field; under ``/console``, drawn as
        a page for a browser that navigated there."""
        found = api_handler(request, exc)
        answer: Response = await found if inspect.isawaitable(found) else found
        if not _is_console(request.url.path) or request.headers.get("x-console-fragment"):
            return answer
        from ledger.api.console.session import reader
        from ledger.api.console.web import render

        error = json.loads(bytes(answer.body)).get("error") or {}
        return render(request, "error.html", reader(request), status=answer.status_code,
                      code=error.get("code", "invalid_request"),
                      message=error.get("message", ""), status_code=answer.status_code)

    app.add_exception_handler(RequestValidationError, invalid)


def _is_console(path: str) -> bool:
    return path == "/console" or path.startswith("/console/")


def _without_empty_fields(query: bytes) -> bytes:
    """``a=&b=2&c=`` -> ``b=2``: the fields of a GET form the reader left empty."""
    fields = parse_qsl(query.decode("latin-1"), keep_blank_values=True)
    kept = [(k, v) for k, v in fields if v.strip() != ""]
    if len(kept) == len(fields):
        return query
    return urlencode(kept).encode("latin-1")


class _Headers:
    """Security headers on every answer under ``/console`` (pages, fragments, assets)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "") if scope["type"] == "http" else ""
        if not _is_console(path):
            await self.app(scope, receive, send)
            return
        if scope.get("method") == "GET" and scope.get("query_string"):
            scope = {**scope, "query_string": _without_empty_fields(scope["query_string"])}
        static = path.startswith("/console/static/")

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [h for h in message.get("headers", [])
                           if h[0].lower() != b"cache-control"]
                headers.extend(HEADERS)
                headers.append((b"cache-control",
                                b"public, max-age=3600" if static else b"no-store"))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, with_headers)
