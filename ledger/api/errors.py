"""One error shape for every refusal, and the one table from error codes to HTTP statuses.

Every response that is not a success is ``{"error": {"code", "message", "details"}}``: domain
errors (:class:`~ledger.domain.errors.LedgerError` with their stable codes), request validation,
missing or refused credentials, unknown routes and methods, and a last-resort ``internal_error``
(logged with its traceback). Each refusal is logged in one line.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field
from starlette.exceptions import HTTPException as StarletteHTTPException

from ledger.domain.bounds import safe_text
from ledger.domain.commands import classify_problems
from ledger.domain.errors import (
    ConcurrencyError,
    InvalidInput,
    LedgerError,
    NotFound,
    RuleViolation,
    StateConflict,
)
from ledger.logs import frames, get_logger

log = get_logger("ledger.api")


class ErrorDetail(BaseModel):
    code: str = Field(description="Stable snake_case code (docs/api/index.md, Errors).")
    message: str = Field(description="For people; may change.")
    details: dict[str, Any] = Field(default_factory=dict)


class ErrorBody(BaseModel):
    """The body of every error response."""

    error: ErrorDetail


# --- codes -> HTTP statuses: the one table ---------------------------------------------------

STATUS_BY_CODE: dict[str, int] = {
    # credentials and permissions
    "missing_token": 401,
    "invalid_token": 401,
    "token_chain_broken": 401,
    "forbidden": 403,
    "csrf_failed": 403,
    "table_not_in_scope": 403,
    "seat_not_in_scope": 403,
    # routing and request shape
    "not_found": 404,
    "method_not_allowed": 405,
    "invalid_request": 422,
    "invalid_command": 422,
    "duplicate_key": 422,
    "body_too_large": 413,
    "internal_error": 500,
    "store_unavailable": 503,
    "view_overflow": 503,
    "store_permission_denied": 503,
    "store_schema_missing": 503,
    "store_schema_outdated": 503,
    # domain codes whose class default does not fit an HTTP request
    "unknown_table": 404,
    "unknown_hand": 404,
    "unknown_token": 404,
    "unknown_principal": 404,
    "principal_exists": 409,
    "unknown_proposal": 404,
    "own_proposal": 403,
    "not_an_approver": 403,
    "proposal_closed": 409,
    "approval_expired": 409,
    "proposal_outdated": 409,
    "register_changed": 409,
    "register_broken": 409,
    "register_bootstrapped": 409,
    "table_chain_broken": 409,
    "undecodable_event": 409,
    "unknown_rule": 404,
    "unknown_game": 422,
    "seat_empty": 409,
    "command_id_reused": 409,
    "table_exists": 409,
    "concurrent_updates": 409,
}
"""Status per code; codes not listed take their class's status below."""

STATUS_BY_CLASS: tuple[tuple[type[LedgerError], int], ...] = (
    (InvalidInput, 422),
    (RuleViolation, 422),
    (NotFound, 404),
    (StateConflict, 409),
    (ConcurrencyError, 409),
    (LedgerError, 422),
)

# Refusal codes the API itself raises (the domain's own codes come with LedgerError).
ERROR_CODES_BY_STATUS: Mapping[int, str] = {
    401: "missing_token, invalid_token, token_chain_broken",
    403: "forbidden, table_not_in_scope, seat_not_in_scope",
    404: "not_found, unknown_table, unknown_hand, unknown_token",
    405: "method_not_allowed",
    413: "body_too_large (the body is refused before it is read further)",
    409: "the table's state forbids it now: seat_taken, hand_in_progress, table_exists, "
    "command_id_reused, concurrent_updates, ...",
    422: "invalid_request, invalid_command, unknown_card, and the rules' refusals: out_of_turn, "
    "wager_below_minimum, insufficient_chips, ...",
    500: "internal_error",
    503: "the event store cannot serve the request: store_unavailable, "
    "store_permission_denied, store_schema_missing, store_schema_outdated",
}


def status_for(exc: LedgerError) -> int:
    status = STATUS_BY_CODE.get(exc.code)
    if status is not None:
        return status
    for cls, code_status in STATUS_BY_CLASS:
        if isinstance(exc, cls):
            return code_status
    return 422  # pragma: no cover - LedgerError is last in the table


class ApiError(LedgerError):
    """A refusal made by the API layer itself (credentials, scope, routing)."""


def responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI ``responses`` declaring the error model for ``statuses`` (plus 401, 422, 500
    and 503)."""
    declared = sorted({*statuses, 401, 422, 500, 503})
    return {
        s: {"model": ErrorBody, "description": f"Error: {ERROR_CODES_BY_STATUS.get(s, '')}"}
        for s in declared
    }


# --- handlers --------------------------------------------------------------------------------


def error_response(request: Request, exc: LedgerError, status: int | None = None) -> JSONResponse:
    status = status or status_for(exc)
    log.warning(
        "request_refused",
        method=request.method,
        path=request.url.path,
        status=status,
        code=exc.code,
        token_id=_token_id(request),
        request_id=_request_id(request),
        client=request.client.host if request.client else None,
    )
    metrics = getattr(request.app.state, "metrics", None)
    if metrics is not None:
        metrics.error(exc.code)
    headers = {"WWW-Authenticate": "Bearer"} if status == 401 else None
    body = {"error": {"code": exc.code, "message": safe_text(exc.message),
                      "details": _jsonable(exc.details)}}
    return JSONResponse(body, status_code=status, headers=headers)


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [_jsonable(v) for v in value]
    if isinstance(value, str):  # an echoed input may hold a lone surrogate: never fail on it
        return safe_text(value)
    if value is None or isinstance(value, bool | int | float):
        return value
    return safe_text(str(value))


def _token_id(request: Request) -> str | None:
    principal = request.scope.get("state", {}).get("principal")
    token_id = getattr(principal, "token_id", None)
    return token_id if isinstance(token_id, str) else None


def _request_id(request: Request) -> str | None:
    found = request.scope.get("state", {}).get("request_id")
    return found if isinstance(found, str) else None


async def _ledger_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, LedgerError)
    return error_response(request, exc)


async def _validation_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    problems = []
    for e in exc.errors():
        loc = [str(p) for p in e.get("loc", ()) if p != "body"]
        problems.append({"field": ".".join(loc), "problem": str(e.get("msg", "invalid"))})
    command = getattr(request.scope.get("route"), "name", "")
    is_command = command.startswith("command:")
    code = classify_problems(problems) if is_command else "invalid_request"
    days = [e for e in exc.errors() if [str(p) for p in e.get("loc", ())][-1:] == ["day"]]
    if not is_command and days:
        # one code and the CLI's words for a bad day, in a path or a query
        given = days[0].get("input")
        error = InvalidInput("invalid_day", f"{given!r} is not a day: write YYYY-MM-DD, e.g. "
                             "2026-03-14", day=given, problems=problems)
        return error_response(request, error, 422)
    what = f"invalid {command.split(':', 1)[1]}" if is_command else "invalid request"
    summary = "; ".join(f"{p['field'] or 'body'}: {p['problem']}" for p in problems)
    error = InvalidInput(code, f"{what}: {summary}", problems=problems)
    return error_response(request, error, 422)


def _invalid_code(request: Request) -> str:
    route = getattr(request.scope.get("route"), "name", "")
    return "invalid_command" if route.startswith("command:") else "invalid_request"


async def _http_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StarletteHTTPException)
    if exc.status_code == 400:  # a body that is not JSON at all: one status for bad input
        error = InvalidInput(_invalid_code(request), f"unreadable request body: {exc.detail}")
        return error_response(request, error, 422)
    codes = {404: "not_found", 405: "method_not_allowed", 401: "missing_token", 403: "forbidden"}
    code = codes.get(exc.status_code, "invalid_request")
    message = str(exc.detail) if exc.detail else code.replace("_", " ")
    if exc.status_code == 404:
        message = f"no such resource: {request.method} {request.url.path}"
    elif exc.status_code == 405:
        message = f"{request.method} is not allowed on {request.url.path}"
    response = error_response(request, ApiError(code, message), exc.status_code)
    if exc.headers:
        response.headers.update(exc.headers)
    if exc.status_code == 405:
        response.headers["Allow"] = ", ".join(allowed_methods(request.app, request.url.path))
    return response


def allowed_methods(app: FastAPI, path: str) -> list[str]:
    """Every method the OpenAPI document lists for ``path`` (routes may be split by method)."""
    table = getattr(app.state, "allow_table", None)
    if table is None:
        table = []
        for template, operations in app.openapi()["paths"].items():
            pattern = re.sub(r"\\{[^/]+?\\}", "[^/]+", re.escape(template))
            table.append((re.compile(f"^{pattern}$"), sorted(m.upper() for m in operations)))
        app.state.allow_table = table
    return sorted({m for pattern, methods in table if pattern.match(path) for m in methods})


async def _internal_error(request: Request, exc: Exception) -> JSONResponse:
    return internal_error_response(request, exc)


def internal_error_response(request: Request, exc: Exception) -> JSONResponse:
    """The answer to an unexpected failure, logged in one line: the error's class, where it
    was raised in the ledger's code, the request id, the route and the token id. Never the
    error's message or a traceback (their values would print cards and secrets)."""
    store = _store_failure(request, exc)
    if store is not None:  # the store is down or refuses: the operator's problem, not a bug
        # No traceback: the store's own message says it all, and a traceback's locals would
        # print the events of the failed batch.
        log.error("store_failure", method=request.method, path=request.url.path,
                  code=store.code, error=store.message, exception=type(exc).__name__)
        status = status_for(store)  # 503 store_unavailable ..., 409 concurrent_updates
        message = store.message if status != 503 else (
            "the event store cannot serve this request now; the failure is logged")
        return error_response(request, ApiError(store.code, message), status)
    route = getattr(request.scope.get("route"), "path", None)
    log.error(
        "internal_error",
        method=request.method,
        route=route,
        path=None if route else request.url.path,
        request_id=_request_id(request),
        token_id=_token_id(request),
        error_class=type(exc).__name__,
        at=frames(exc.__traceback__),
    )
    error = ApiError("internal_error", "the ledger failed to answer; the failure is logged "
                     "under this request id", request_id=_request_id(request))
    return error_response(request, error, 500)


def _store_failure(request: Request, exc: Exception) -> LedgerError | None:
    """``exc`` as the store's coded failure (``store_unavailable``, ...), or None."""
    from ledger.store.errors import store_error

    ledger = getattr(request.app.state, "ledger", None)
    if ledger is None:
        return None
    try:
        return store_error(exc, ledger.settings)
    except Exception:  # classifying must never hide the first failure
        return None


def install(app: FastAPI) -> None:
    app.add_exception_handler(LedgerError, _ledger_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(StarletteHTTPException, _http_error)
    app.add_exception_handler(Exception, _internal_error)
