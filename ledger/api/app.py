"""The application factory: ``create_app(settings)`` gives the FastAPI app of the ledger."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import structlog
from fastapi import Depends, FastAPI, Request
from fastapi.responses import JSONResponse, Response
from starlette.types import ASGIApp, Receive, Scope, Send

from ledger import __version__
from ledger.access.probes import ProbeLog
from ledger.access.sessions import SessionStore
from ledger.access.tokens import TokenStore
from ledger.api import (  # noqa: F401 - reports adds its routes to reads.router
    accesslog,
    admin,
    approvals,
    audit,
    commands,
    errors,
    reads,
    reports,
    rules,
    tables,
)
from ledger.api.auth import Principal, plain_parameters, principal
from ledger.api.guard import Guard
from ledger.api.metrics import CONTENT_TYPE, Metrics
from ledger.api.schemas import nullable_cards
from ledger.app.fleet import Ledger, home_of, open_ledger
from ledger.logs import configure
from ledger.settings import Settings, get_settings
from ledger.store.availability import budget
from ledger.store.readstore import open_reader

DESCRIPTION = """\
The table ledger over HTTP: table devices send commands, auditors and accountants read.

Every route but `/health` and `/ready` takes `Authorization: Bearer <token>` (tokens are made with
`ledger tokens create` or `POST /tokens`). Every error is
`{"error": {"code": ..., "message": ..., "details": {...}}}` with a stable code.
"""


def create_app(settings: Settings | None = None, *, ledger: Ledger | None = None) -> FastAPI:
    """The HTTP API over one ledger application, or over the fleet of ``LEDGER_SHARDS``
    (made from ``settings`` unless given)."""
    settings = settings or get_settings()
    if not structlog.is_configured():  # e.g. under `uvicorn --factory`: never the defaults,
        configure(settings.log_level, settings.log_format)  # which print tracebacks' locals
    owned = ledger is None
    ledger = ledger or open_ledger(settings)
    replica = open_reader(settings)  # LEDGER_READ_DATABASE_URL: a standby, or None

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        yield
        if replica is not None:
            replica.close()
        if owned:
            ledger.close()

    app = FastAPI(
        title="Table ledger",
        version=__version__,
        description=DESCRIPTION,
        openapi_url=None,
        docs_url=None,
        redoc_url=None,
        lifespan=lifespan,
        dependencies=[Depends(plain_parameters)],
    )
    app.state.settings = settings
    app.state.ledger = ledger
    app.state.reader = replica or ledger  # where the read routes read
    app.state.replica = replica
    app.state.tokens = TokenStore.of(home_of(ledger), settings.api_token_cache_seconds)
    app.state.sessions = SessionStore(home_of(ledger).recorder)  # the console's
    app.state.probes = ProbeLog(home_of(ledger).recorder)
    app.state.metrics = metrics = Metrics()
    app.state.reads = read_side = reads.ReadSide(ledger, replica)
    metrics.lag_source = read_side.lag
    errors.install(app)
    app.add_middleware(_Timing, metrics=metrics)
    app.add_middleware(Guard)  # request id, token before body, body limit, 500s
    app.add_middleware(_WaitBudget, seconds=float(settings.connect_timeout))  # around all
    app.include_router(admin.router)
    app.include_router(approvals.router)
    app.include_router(accesslog.router)
    app.include_router(commands.router())
    app.include_router(tables.router)
    app.include_router(reads.router)
    app.include_router(audit.router)
    app.include_router(rules.router)

    generate = app.openapi

    def typed_openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = finish_document(generate())
        return app.openapi_schema

    app.openapi = typed_openapi  # type: ignore[method-assign]
    from ledger.api import console

    console.install(app)

    @app.get("/openapi.json", include_in_schema=False)
    def openapi(_: Principal = Depends(principal)) -> JSONResponse:  # noqa: B008
        return JSONResponse(app.openapi())

    @app.get(
        "/metrics",
        tags=["service"],
        summary="Prometheus metrics",
        description="Token: any. Commands by name and outcome, errors by code, request latency, "
        "projection lag.",
        response_class=Response,
        responses={200: {"content": {CONTENT_TYPE: {"schema": {"type": "string"}}},
                         "description": "Prometheus text format."},
                   **errors.responses()},
    )
    def metrics_text(request: Request, _: Principal = Depends(principal)) -> Response:  # noqa: B008
        return Response(metrics.render(), media_type=CONTENT_TYPE)

    return app


def finish_document(doc: dict[str, Any]) -> dict[str, Any]:
    """The generated document with the configuration schemas of the request bodies among the
    components, and every card "a card, or null when hidden" (``ledger.api.schemas``)."""
    components = doc.setdefault("components", {}).setdefault("schemas", {})

    def lift(node: Any) -> Any:
        if isinstance(node, dict):
            for name, schema in node.pop("x-config-defs", {}).items():
                components.setdefault(name, schema)
            return {k: lift(v) for k, v in node.items()}
        if isinstance(node, list):
            return [lift(v) for v in node]
        return node

    lifted: dict[str, Any] = lift(doc)
    finished: dict[str, Any] = nullable_cards(lifted)
    return finished


class _Timing:
    """The metrics' timing middleware in the form ``add_middleware`` takes."""

    def __init__(self, app: ASGIApp, metrics: Metrics) -> None:
        self.timed = metrics.middleware(app)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self.timed(scope, receive, send)


class _WaitBudget:
    """Each request may wait LEDGER_CONNECT_TIMEOUT seconds in all for the store (a pooled
    connection, a table's lock, retries): ``ledger.store.availability``."""

    def __init__(self, app: ASGIApp, seconds: float) -> None:
        self.app = app
        self.seconds = seconds

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        with budget(self.seconds):
            await self.app(scope, receive, send)


def factory() -> Any:
    """For ``uvicorn --factory ledger.api.app:factory`` (settings from the environment)."""
    return create_app()
