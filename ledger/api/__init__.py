"""The HTTP service: FastAPI routes that translate requests into application calls or
read-model queries, bearer-token roles, one error shape, OpenAPI and Prometheus metrics.

It may use every layer below it (the application, access, the store, the table, the
rules, the vocabulary) and the read side (``projections``) for the read routes; it only
translates: no rule is decided here.
"""

from ledger.api.app import create_app

__all__ = ["create_app"]
