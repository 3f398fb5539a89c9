"""Daily seals: each table's chain head at the end of a gaming day, signed with HMAC-SHA256.

``ledger audit seal --day D`` writes, for every table open by the end of gaming day D (in the
table's own time zone, the day starting at ``LEDGER_GAMING_DAY_START``), the last version
recorded before that instant and that event's chain digest, and signs the whole with the key
in ``LEDGER_SEAL_KEY`` (its UTF-8 bytes). Kept outside the database (sent to the regulator,
printed, archived), a seal lets ``ledger audit verify --seal FILE`` prove that nothing up to
that head was rewritten, even by someone who recomputed the whole chain, and that the stream
was not cut short (a truncated tail has no event at the sealed version).
"""

from __future__ import annotations

import hashlib
import hmac
import json
from datetime import UTC, date, datetime, time, timedelta, timezone
from pathlib import Path
from typing import Any
from uuid import UUID

from ledger.errors import InvalidInput, LedgerError, StateConflict
from ledger.persistence import state_bytes
from ledger.table import chain_digest
from projections.audit.chain import stored_rows, table_ids
from projections.audit.model import Discrepancy
from projections.context import day_bounds, parse_day
from projections.db import Store

FORMAT = "table-ledger seal v1"
ALGORITHM = "HMAC-SHA256"


def seal_key(settings: Any) -> bytes:
    secret = settings.seal_key
    if secret is None or not secret.get_secret_value():
        raise LedgerError("seal_key_missing", "no seal key: set LEDGER_SEAL_KEY to sign and "
                          "check seals")
    return bytes(secret.get_secret_value().encode())


def signature(payload: dict[str, Any], key: bytes) -> str:
    body = json.dumps({k: v for k, v in payload.items() if k != "signature"},
                      sort_keys=True, separators=(",", ":")).encode()
    return hmac.new(key, body, hashlib.sha256).hexdigest()


def make_seal(app: Any, day: str, key: bytes, *, now: datetime | None = None) -> dict[str, Any]:
    """The signed heads of every table at the end of gaming day ``day``.

    A day that has not started yet at any table is ``day_not_started`` (there is nothing to
    seal). A day still in progress somewhere is sealed with the heads as they are now; see
    :func:`unfinished`.
    """
    day = parse_day(day)
    start: time = app.settings.gaming_day_start
    now = now or datetime.now(UTC)
    tables = table_zones(app)
    _check_started(day, start, [zone for _, _, zone in tables], now)
    heads = []
    for tid, code, zone in tables:
        head = _head(app, tid, code, zone, day_bounds(day, zone, start)[1])
        if head is not None:
            heads.append(head)
    payload: dict[str, Any] = {
        "format": FORMAT, "gaming_day": day, "gaming_day_start": start.isoformat(),
        "created_at": now.isoformat(), "algorithm": ALGORITHM,
        "tables": heads,
    }
    payload["signature"] = signature(payload, key)
    return payload


def table_zones(app: Any) -> list[tuple[UUID, str, str]]:
    """``(table id, code, time zone)`` of every table, from the opening event of its stream."""
    tables = []
    for tid in table_ids(Store(app.recorder)):
        first = app.recorder.select_events(tid, lte=1)
        data = json.loads(first[0].state) if first else {}
        code, zone = data.get("code"), data.get("timezone")
        if code is None or zone is None:
            raise LedgerError("corrupt_stream", f"stream {tid} does not begin with the "
                              "opening of a table; run `ledger audit verify`")
        tables.append((tid, str(code), str(zone)))
    return tables


def _check_started(day: str, start: time, zones: list[str], now: datetime) -> None:
    """``day_not_started`` unless gaming day ``day`` has begun in at least one time zone (any
    zone when there is no table yet: UTC+14 is the first to reach a day)."""
    begins = [day_bounds(day, zone, start)[0] for zone in zones] or [datetime.combine(
        date.fromisoformat(day), start, tzinfo=timezone(timedelta(hours=14)))]
    first = min(begins)
    if now < first:
        raise StateConflict(
            "day_not_started",
            f"gaming day {day} has not started yet at any table (it starts at "
            f"{first.isoformat()} at the earliest): a seal can only cover a day that has begun",
            gaming_day=day, starts_at=first.isoformat())


def unfinished(app: Any, day: str, *,
               now: datetime | None = None) -> list[tuple[str, datetime]]:
    """``(table, local end)`` of the tables at which gaming day ``day`` has not ended yet: a
    seal made now holds their heads as they are now, not at the end of the day."""
    day = parse_day(day)
    start: time = app.settings.gaming_day_start
    now = now or datetime.now(UTC)
    found = []
    for _, code, zone in table_zones(app):
        end = day_bounds(day, zone, start)[1]
        if now < end:
            found.append((code, end))
    return found


def _head(app: Any, tid: UUID, code: str, zone: str, end: datetime) -> dict[str, Any] | None:
    """The last event of the table recorded before ``end`` (None if there is none)."""
    last = None
    for stored in stored_rows(app, tid):
        data = json.loads(stored.state)
        if datetime.fromisoformat(data["timestamp"]) >= end:
            break
        last = stored
    if last is None:
        return None
    return {"table": code, "table_id": str(tid), "timezone": zone,
            "day_end": end.isoformat(), "version": last.originator_version,
            "digest": chain_digest(tid, last.originator_version, last.topic,
                                   state_bytes(last.state))}


def read_seal(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise InvalidInput("unreadable_seal", f"cannot read the seal {path}: {exc.strerror}",
                           path=str(path)) from None
    except ValueError:
        raise InvalidInput("invalid_seal", f"{path} is not a seal (not JSON)") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise InvalidInput("invalid_seal", f"{path} is not a {FORMAT} file")
    return data


def check_signature(seal: dict[str, Any], key: bytes) -> Discrepancy | None:
    expected = signature(seal, key)
    if hmac.compare_digest(expected, str(seal.get("signature", ""))):
        return None
    return Discrepancy("*", None, "seal_signature",
                       {"signature": "HMAC-SHA256 of the seal under LEDGER_SEAL_KEY"},
                       {"signature": seal.get("signature"), "gaming_day": seal.get("gaming_day")})


def check_heads(seal: dict[str, Any], table_id: UUID, label: str, digests: dict[int, str],
                last_version: int) -> list[Discrepancy]:
    """Compare one table's stored stream with its sealed head."""
    found = []
    for head in seal.get("tables", []):
        if head.get("table_id") != str(table_id):
            continue
        version = int(head["version"])
        if last_version < version:
            found.append(Discrepancy(label, None, "seal_truncated",
                                     {"version": version, "gaming_day": seal["gaming_day"]},
                                     {"last_version": last_version}))
        elif digests.get(version) != head["digest"]:
            found.append(Discrepancy(label, None, "seal_mismatch",
                                     {"version": version, "digest": head["digest"]},
                                     {"version": version, "digest": digests.get(version)}))
    return found


def sealed_versions(seal: dict[str, Any] | None, table_id: UUID) -> set[int]:
    if seal is None:
        return set()
    return {int(h["version"]) for h in seal.get("tables", [])
            if h.get("table_id") == str(table_id)}


def missing_tables(seal: dict[str, Any], seen: set[str]) -> list[Discrepancy]:
    return [Discrepancy(h.get("table", "?"), None, "seal_missing_table",
                        {"table_id": h.get("table_id"), "version": h.get("version")},
                        None)
            for h in seal.get("tables", []) if h.get("table_id") not in seen]
