"""Prometheus metrics of one API process (its own registry, so apps in tests do not collide).

``ledger_commands_total{command,outcome}``   commands by name: appended, replayed or rejected
``ledger_errors_total{code}``                every error response by its code
``ledger_http_request_duration_seconds``     latency by method, route template and status
``ledger_projection_lag_events{projection}`` events recorded but not yet projected
"""

from __future__ import annotations

import time
from collections.abc import Callable

from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    disable_created_metrics,
    generate_latest,
)
from starlette.types import ASGIApp, Message, Receive, Scope, Send

disable_created_metrics()  # type: ignore[no-untyped-call]
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"


class Metrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        self.commands = Counter(
            "ledger_commands",
            "Commands received, by command and outcome (appended, replayed, rejected).",
            ["command", "outcome"],
            registry=self.registry,
        )
        self.errors = Counter(
            "ledger_errors", "Error responses by error code.", ["code"], registry=self.registry
        )
        self.latency = Histogram(
            "ledger_http_request_duration_seconds",
            "Request latency by method, route and status.",
            ["method", "route", "status"],
            buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0),
            registry=self.registry,
        )
        self.projection_lag = Gauge(
            "ledger_projection_lag_events",
            "Events recorded but not yet processed, by projection.",
            ["projection"],
            registry=self.registry,
        )
        self.lag_source: Callable[[], dict[str, int]] | None = None

    def command(self, name: str, outcome: str) -> None:
        self.commands.labels(name, outcome).inc()

    def error(self, code: str) -> None:
        self.errors.labels(code).inc()

    def render(self) -> bytes:
        if self.lag_source is not None:
            for name, lag in self.lag_source().items():
                self.projection_lag.labels(name).set(lag)
        return generate_latest(self.registry)

    def middleware(self, app: ASGIApp) -> ASGIApp:
        """Times every HTTP request by method, route template and status (pure ASGI)."""

        async def timed(scope: Scope, receive: Receive, send: Send) -> None:
            if scope["type"] != "http":
                await app(scope, receive, send)
                return
            started = time.perf_counter()
            status = [500]

            async def sending(message: Message) -> None:
                if message["type"] == "http.response.start":
                    status[0] = message["status"]
                await send(message)

            try:
                await app(scope, receive, sending)
            finally:
                template = getattr(scope.get("route"), "path", "unmatched")
                self.latency.labels(scope["method"], template, str(status[0])).observe(
                    time.perf_counter() - started
                )

        return timed
