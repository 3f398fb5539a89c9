"""The audit from the console: ``GET /audit/verify`` run for a table or a gaming day in the
background, its progress followed by the page, its discrepancies listed with links to the hands
and the steps they concern.

The audit runs as the API's own route with the reader's token (so only a role the API lets
audit can start one), in this process; the page polls ``/console/audit/jobs/{id}/progress``.
The same audit sent again while it runs is that one (a double click starts one), and a token
runs two audits at most at once (``audits_running``, 409). A job belongs to the token that
started it and is kept in memory (the last few per process): behind a load balancer, follow a
job on the instance that runs it (sticky sessions), or run ``ledger audit verify`` for long
audits.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from dataclasses import dataclass, field
from typing import Any

from fastapi import APIRouter, Form, Path, Request
from fastapi.responses import JSONResponse, RedirectResponse, Response

from ledger.api.console.gateway import Api
from ledger.api.console.session import Reader, check_csrf
from ledger.api.console.web import may, page, render
from ledger.api.errors import ApiError
from ledger.domain.errors import InvalidInput, StateConflict

router = APIRouter(prefix="/console", include_in_schema=False)
KEEP = 20
MAX_RUNNING = 2
"""Audits one token may have running at once: each runs in one of the service's worker threads,
and a POST returns at once, so without a bound one client could take every worker."""
JOB_ID = r"^[A-Za-z0-9_-]{16,32}$"


@dataclass
class Job:
    id: str
    owner: str
    """The token id that started it: nobody else sees it."""
    table: str | None
    day: str | None
    total: int
    started: float = field(default_factory=time.monotonic)
    checked: int = 0
    finished: float | None = None
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    status: int | None = None
    task: asyncio.Task[None] | None = None

    def progress(self, events: int) -> None:
        self.checked += events

    def as_dict(self) -> dict[str, Any]:
        return {"id": self.id, "table": self.table, "day": self.day, "total": self.total,
                "checked": min(self.checked, self.total) if self.total else self.checked,
                "done": self.finished is not None,
                "seconds": round((self.finished or time.monotonic()) - self.started, 1),
                "ok": None if self.result is None else bool(self.result.get("ok")),
                "error": self.error}


JOBS: dict[str, Job] = {}


def _job(who: Reader, job_id: str) -> Job:
    job = JOBS.get(job_id)
    if job is None or job.owner != who.principal.token_id:
        raise ApiError("not_found", "no such audit: it may have been started by another token, "
                       "on another instance, or be too old to keep")
    return job


@router.get("/audit")
@page
async def audit_form(request: Request, who: Reader, api: Api) -> Response:
    may(request, who, "/audit/verify")
    tables = await api.data("/tables")
    mine = [j.as_dict() for j in JOBS.values() if j.owner == who.principal.token_id]
    return render(request, "audit.html", who, tables=tables, jobs=list(reversed(mine)),
                  problem=None)


@router.post("/audit")
@page
async def audit_start(request: Request, who: Reader, api: Api,
                      table: str = Form("", max_length=40), day: str = Form("", max_length=10),
                      csrf: str = Form("", max_length=100)) -> Response:
    check_csrf(request, who, csrf)
    may(request, who, "/audit/verify")
    code, chosen = table.strip() or None, day.strip() or None
    tables = await api.data("/tables")
    if code is not None and not any(t["table_code"].upper() == code.upper() for t in tables):
        raise InvalidInput("unknown_table", f"no table {code!r}", table=code)
    running = [j for j in JOBS.values()
               if j.owner == who.principal.token_id and j.finished is None]
    for job in running:  # the same audit sent again (a double click): follow the one running
        if (job.table or "").upper() == (code or "").upper() and job.day == chosen:
            return RedirectResponse(f"/console/audit/jobs/{job.id}", status_code=303)
    if len(running) >= MAX_RUNNING:
        raise StateConflict("audits_running", f"{len(running)} audits started with this token "
                            "are running: wait for one of them to end ("
                            + ", ".join(f"/console/audit/jobs/{j.id}" for j in running) + ")",
                            running=[j.id for j in running])
    total = sum(int(t.get("last_version") or 0) for t in tables
                if code is None or t["table_code"].upper() == code.upper())
    job = Job(id=secrets.token_urlsafe(12), owner=who.principal.token_id, table=code,
              day=chosen, total=total)
    job.task = asyncio.create_task(_run(job, api))
    JOBS[job.id] = job
    for old in list(JOBS.values())[:-KEEP]:
        if old.finished is not None:
            JOBS.pop(old.id, None)
    return RedirectResponse(f"/console/audit/jobs/{job.id}", status_code=303)


async def _run(job: Job, api: Api) -> None:
    try:
        answer = await api.get("/audit/verify", {"table": job.table, "day": job.day},
                               state={"audit_progress": job.progress})
        if answer.ok:
            job.result = answer.json()
        else:
            job.error, job.status = answer.error, answer.status
    except Exception as exc:  # the API logged it; the page says it failed
        job.error = {"code": "internal_error", "message": type(exc).__name__}
    finally:
        job.finished = time.monotonic()


@router.get("/audit/jobs/{job_id}")
@page
async def audit_job(request: Request, who: Reader, api: Api,
                    job_id: str = Path(pattern=JOB_ID)) -> Response:
    job = _job(who, job_id)
    result = job.result
    items = []
    if result is not None:
        for d in result.get("discrepancies", []):
            items.append({**d, "version": _version(d)})
    return render(request, "audit_job.html", who, job=job.as_dict(), result=result,
                  items=items)


@router.get("/audit/jobs/{job_id}/progress")
@page
async def audit_progress(request: Request, who: Reader, api: Api,
                         job_id: str = Path(pattern=JOB_ID)) -> Response:
    return JSONResponse(_job(who, job_id).as_dict())


def _version(item: dict[str, Any]) -> int | None:
    for side in ("recorded", "expected"):
        value = item.get(side)
        if isinstance(value, dict) and isinstance(value.get("version"), int):
            return int(value["version"])
    return None

