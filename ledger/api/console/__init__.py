"""The auditor's and accountant's console: web pages served by ``ledger serve`` under
``/console/``, drawn from the API's own answers (:mod:`.gateway`).

Pages are rendered on the server (Jinja2 templates, package data under ``templates/``) with one
small script and one stylesheet of the package's own (``static/``): no CDN, no build step. Every
answer under ``/console`` carries a Content-Security-Policy without inline scripts or styles,
``X-Frame-Options: DENY``, ``Referrer-Policy: same-origin`` and ``Cache-Control: no-store``.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import RedirectResponse
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
    from ledger.api.console import audit_pages, money_pages, pages

    app.include_router(pages.router)
    app.include_router(money_pages.router)
    app.include_router(audit_pages.router)
    app.mount("/console/static", StaticFiles(directory=HERE / "static"), name="console-static")

    @app.get("/", include_in_schema=False)
    def root() -> RedirectResponse:
        return RedirectResponse("/console/", status_code=303)

    app.add_middleware(_Headers)


class _Headers:
    """Security headers on every answer under ``/console`` (pages, fragments, assets)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "") if scope["type"] == "http" else ""
        if not (path == "/console" or path.startswith("/console/")):
            await self.app(scope, receive, send)
            return
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
