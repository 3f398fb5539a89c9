"""The access log over HTTP: recording the API's reads of hidden cards, and the auditor's route
that reads the log (``ledger.access.accesslog``)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, Query, Request

from ledger.access.accesslog import access_rows, record_access, verify_access_log
from ledger.api.auth import Principal, require
from ledger.api.errors import responses
from ledger.app.application import LedgerApp

router = APIRouter(tags=["audit"])


def log_read(request: Request, who: Principal, what: str, *, table: str | None = None,
             hand: int | None = None, **detail: Any) -> None:
    """Record that ``who`` was shown hidden cards (or hole cards in an export)."""
    ledger: LedgerApp = request.app.state.ledger
    record_access(ledger, who=f"token:{who.token_id}", what=what, table=table, hand=hand,
                  detail={"role": who.role, "label": who.label, "path": request.url.path,
                          **detail})


@router.get("/access-log", summary="Who saw hidden cards",
            description="Token: auditor or admin. The access log in order: every read that showed "
            "face-down cards of a hand in progress and every export of hole cards (who, when, "
            "what, table, hand, details), with `chain_ok` and any break of the log's hash "
            "chain. Filters: `table`, `who` (e.g. `token:3f2a9c0d1e4b`, `cli:anna`), `what`, "
            "`since` (ISO-8601), `after` (a sequence number), `limit`.",
            responses=responses(403))
def access_log(
    request: Request,
    table: str | None = Query(None, max_length=40),
    who: str | None = Query(None, max_length=200),
    what: str | None = Query(None, max_length=40),
    since: str | None = Query(None, max_length=40),
    after: int = Query(0, ge=0),
    limit: int = Query(1_000, ge=1, le=10_000),
    _: Principal = Depends(require("auditor", "admin")),  # noqa: B008
) -> dict[str, Any]:
    ledger: LedgerApp = request.app.state.ledger
    rows = access_rows(ledger, table=table, who=who, what=what, since=since, after=after,
                       limit=limit)
    problems = verify_access_log(ledger)
    return {"rows": [r.as_dict() for r in rows], "chain_ok": not problems,
            "problems": problems}
