"""The HTTP service: FastAPI routes that translate requests into application calls or
read-model queries, bearer-token roles, one error shape, OpenAPI and Prometheus metrics."""

from ledger.api.app import create_app

__all__ = ["create_app"]
