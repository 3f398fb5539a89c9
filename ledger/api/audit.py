"""The audit and the exports over HTTP: ``projections.audit`` and ``projections.exports`` as
they are, their files handed over as one zip download."""

from __future__ import annotations

import io
import json
import tempfile
import zipfile
from pathlib import Path as FilePath
from typing import Any

from fastapi import APIRouter, Depends, Path, Query, Request
from fastapi.responses import Response

from ledger.access.probes import RefusedProbe
from ledger.api.accesslog import log_read
from ledger.api.auth import Principal, require
from ledger.api.errors import responses
from ledger.api.reads import DAY_PATTERN, TABLE, PathDay, QueryDay, ReadSide
from ledger.app.fleet import Ledger
from ledger.domain.bounds import MAX_AMOUNT

router = APIRouter()
TABLE_CODE = Path(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$", description="Table code.")
ZIP: dict[int | str, dict[str, Any]] = {
    200: {"content": {"application/zip": {"schema": {"type": "string", "format": "binary"}}},
          "description": "A zip of the export's files."}
}


@router.get("/audit/verify", tags=["audit"], summary="Verify the record",
            description="Token: auditor. The hash chain and command-log copies of every table "
            "(or one), every command decided again by the rules in force, chip conservation. "
            "`ok` is true when nothing is wrong.", responses=responses(403, 404))
def verify(
    request: Request,
    table: str | None = TABLE,
    day: QueryDay = None,
    _: Principal = Depends(require("auditor")),  # noqa: B008
) -> dict[str, Any]:
    from projections.audit import verify as run

    # The console runs the audit through this route and follows it: its in-process request
    # carries a progress callback in the request's state (no HTTP client can set it).
    progress = getattr(request.state, "audit_progress", None)
    report = run(request.app.state.reader, table=table, day=day, progress=progress)
    return {**report.as_dict(), "ok": report.ok, "hands_checked": report.hands_checked,
            "events_checked": report.events_checked, "hands_open": report.hands_open}


@router.get("/tables/{code}/probes", tags=["audit"], summary="Refusals that probed hidden cards",
            description="Token: auditor or admin. Every refusal of the table that depended on "
            "a seat's hidden cards, made to a caller who could not see them, oldest first "
            "(optionally of one hand).", responses=responses(403),
            response_model=list[RefusedProbe])
def probes(
    request: Request,
    code: str = TABLE_CODE,
    hand: int | None = Query(default=None, ge=1, le=MAX_AMOUNT),
    _: Principal = Depends(require("auditor", "admin")),  # noqa: B008
) -> list[RefusedProbe]:
    found: list[RefusedProbe] = request.app.state.probes.find(code, hand)
    return found


@router.get("/exports/accounting/{day}", tags=["exports"], summary="Accounting files of a day",
            description="Token: accounting or auditor. accounting, rake, jackpot, bankrolls and "
            "dp-results of the gaming day, each as CSV and JSON Lines, in one zip.",
            response_class=Response, responses={**ZIP, **responses(403)})
def accounting_export(
    request: Request,
    day: PathDay,
    _: Principal = Depends(require("accounting", "auditor")),  # noqa: B008
) -> Response:
    from projections.exports.accounting import export_accounting

    side: ReadSide = request.app.state.reads
    read = side.fresh()
    position = side.positions()
    with tempfile.TemporaryDirectory(prefix="ledger-export-") as out:
        export_accounting(read, day, out)
        return _zip(FilePath(out), f"accounting-{day}.zip", position)


XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"


@router.get("/exports/workbook", tags=["exports"], summary="Accounting workbook of a period",
            description="Token: accounting or auditor. One xlsx workbook for a gaming day, a "
            "range of days or a month (exactly one of `day`, `from` + `to`, `month`), a sheet "
            "per dataset (accounting, hold, rake, jackpot, dp-results, players, inventory; "
            "bankrolls for a day).",
            response_class=Response,
            responses={200: {"content": {XLSX: {"schema": {"type": "string",
                                                           "format": "binary"}}},
                             "description": "The workbook."}, **responses(403)})
def workbook_export(
    request: Request,
    day: QueryDay = None,
    first: str | None = Query(None, alias="from", pattern=DAY_PATTERN),
    last: str | None = Query(None, alias="to", pattern=DAY_PATTERN),
    month: str | None = Query(None, pattern=r"^\d{4}-\d{2}$"),
    _: Principal = Depends(require("accounting", "auditor")),  # noqa: B008
) -> Response:
    from projections.exports.workbook import export_workbook
    from projections.reports.periods import period

    chosen = period(day, first, last, month)
    side: ReadSide = request.app.state.reads
    read = side.fresh()
    position = side.positions()
    with tempfile.TemporaryDirectory(prefix="ledger-export-") as out:
        path, _sheets = export_workbook(read, chosen, out)
        return Response(path.read_bytes(), media_type=XLSX, headers={
            "Content-Disposition": f'attachment; filename="{path.name}"', **position})


@router.get("/exports/hands/{day}", tags=["exports"], summary="Hand histories of a day",
            description="Token: auditor. The hands that started on the gaming day: JSON Lines "
            "(every game), PHH or Open Hand History (the games they fit), in one zip named "
            "`hands-[TABLE-]DAY-FORMAT.zip`, with `manifest.json`: the files, the hands written, "
            "those skipped (games the format cannot describe, voided or cancelled hands), those "
            "still in progress, and for PHH/OHH how many standard tools replay and, for the "
            "others, the rules that prevent it. Every export is recorded in the access log.",
            response_class=Response, responses={**ZIP, **responses(403, 404)})
def hands_export(
    request: Request,
    day: PathDay,
    fmt: str = Query("jsonl", alias="format", pattern="^(jsonl|phh|ohh)$"),
    table: str | None = TABLE,
    who: Principal = Depends(require("auditor")),  # noqa: B008
) -> Response:
    from projections.exports.hands import export_hands

    side: ReadSide = request.app.state.reads
    read = side.fresh()
    position = side.positions()
    ledger: Ledger = request.app.state.reader
    with tempfile.TemporaryDirectory(prefix="ledger-export-") as out:
        result = export_hands(ledger, read, day, fmt, out, table=table)
        code = None if table is None else str(read.table(table)["table_code"])
        manifest = result.manifest(fmt, day, code)
        log_read(request, who, "hands_export", table=code, day=day, format=fmt,
                 hands=result.hands)
        (FilePath(out) / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n",
                                                     encoding="utf-8")
        stem = f"hands-{day}" if code is None else f"hands-{code}-{day}"
        return _zip(FilePath(out), f"{stem}-{fmt}.zip", position)


def _zip(directory: FilePath, name: str, position: dict[str, str]) -> Response:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(p for p in directory.rglob("*") if p.is_file()):
            archive.write(path, path.relative_to(directory).as_posix())
    return Response(buffer.getvalue(), media_type="application/zip",
                    headers={"Content-Disposition": f'attachment; filename="{name}"',
                             **position})
