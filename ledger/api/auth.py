"""Who is asking: bearer tokens to principals, and the checks each route declares.

Every route but ``/health`` and ``/ready`` depends on :func:`principal`; a missing, unknown or
revoked token is a 401 (``missing_token`` / ``invalid_token``; unknown and revoked look alike to
the client, the log tells them apart). A role that may not use a route gets a 403 ``forbidden``;
a device token naming another table gets ``table_not_in_scope``, a seat-bound one naming another
seat ``seat_not_in_scope``.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Any

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from starlette.concurrency import run_in_threadpool

from ledger.access.tokens import TokenStore
from ledger.api.errors import ApiError, log

_bearer = HTTPBearer(auto_error=False, description="`Authorization: Bearer ltk_...`")


@dataclass(frozen=True)
class Principal:
    token_id: str
    role: str
    tables: frozenset[str] | None
    seat: int | None
    label: str
    principal: str | None = None
    """The register's principal an ``approver`` token is bound to."""

    def may_use_table(self, code: str) -> bool:
        if self.role != "device":
            return True
        return self.tables is not None and code.strip().upper() in self.tables

    @property
    def seats(self) -> frozenset[int]:
        """Seats whose face-down cards this principal may see (all for None)."""
        return frozenset() if self.seat is None else frozenset({self.seat})

    @property
    def sees_everything(self) -> bool:
        return self.role == "auditor"


async def principal(
    request: Request,
    credentials: HTTPAuthorizationCredentials | None = Depends(_bearer),  # noqa: B008
) -> Principal:
    known = request.scope.get("state", {}).get("principal")
    if isinstance(known, Principal):  # authenticated before its body was read (api.guard)
        return known
    return await authenticated(request)


async def authenticated(request: Request) -> Principal:
    """:func:`authenticate` on the event loop when the token's lookup is cached (no thread
    hop), else in a worker thread, so that a slow or unreachable store never stalls the
    other requests."""
    scheme, _, credentials = request.headers.get("authorization", "").partition(" ")
    store: TokenStore = request.app.state.tokens
    if scheme.lower() != "bearer" or store.cached(credentials.strip())[0]:
        return authenticate(request)
    return await run_in_threadpool(authenticate, request)


def authenticate(request: Request) -> Principal:
    """The principal of ``request``'s bearer token, or a 401 ``missing_token`` /
    ``invalid_token``."""
    scheme, _, credentials = request.headers.get("authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not credentials.strip():
        raise ApiError("missing_token", "send Authorization: Bearer <token>")
    store: TokenStore = request.app.state.tokens
    info = store.authenticate(credentials.strip())
    if info is None or not info.active:
        if info is not None:
            log.warning("revoked_token_used", token_id=info.token_id, path=request.url.path)
        raise ApiError("invalid_token", "the token is unknown or revoked")
    found = Principal(
        token_id=info.token_id,
        role=info.role,
        tables=None if info.tables is None else frozenset(info.tables),
        seat=info.seat,
        label=info.label,
        principal=info.principal,
    )
    request.state.principal = found
    return found


def require(*roles: str) -> Callable[..., Coroutine[Any, Any, Principal]]:
    """A dependency that admits only ``roles``."""

    async def check(who: Principal = Depends(principal)) -> Principal:  # noqa: B008
        if who.role not in roles:
            raise ApiError(
                "forbidden",
                f"this {who.role} token may not do this; it takes: {', '.join(roles)}",
                role=who.role,
                allowed=list(roles),
            )
        return who

    check.roles = frozenset(roles)  # type: ignore[attr-defined]
    """Read by the console to show only the pages the API would serve this role."""
    return check


async def plain_parameters(request: Request) -> None:
    """Every route: no query parameter twice (none of them is a list) and no NUL character in
    the path or the query (PostgreSQL refuses NUL in text)."""
    from ledger.domain.bounds import text_problem
    from ledger.domain.errors import InvalidInput

    query = request.query_params
    repeated = sorted({k for k in query if len(query.getlist(k)) > 1})
    if repeated:
        raise InvalidInput("invalid_request", f"query parameters given more than once: "
                           f"{', '.join(repeated)}", parameters=repeated)
    texts = [request.url.path, *query.keys(), *query.values()]
    problem = next((p for p in map(text_problem, texts) if p is not None), None)
    if problem is not None:  # NUL (PostgreSQL refuses it in text), controls, surrogates
        raise InvalidInput("invalid_request", f"the path or query holds a character no "
                           f"parameter takes: {problem}")


def check_table(who: Principal, code: str) -> None:
    if not who.may_use_table(code):
        raise ApiError(
            "table_not_in_scope",
            f"this device token is not bound to table {code}",
            table=code,
        )


def check_seat(who: Principal, seat: int | None) -> None:
    """A seat-bound device acts for its own seat only."""
    if who.seat is not None and seat != who.seat:
        raise ApiError(
            "seat_not_in_scope",
            f"this device token acts for seat {who.seat} only",
            seat=seat,
            bound_seat=who.seat,
        )
