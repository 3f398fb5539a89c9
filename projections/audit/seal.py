"""Daily seals: what the store held at the end of a gaming day, signed with Ed25519.

``ledger audit seal --day D`` writes, for every table open by the end of gaming day D (in the
table's own time zone, the day starting at ``LEDGER_GAMING_DAY_START``):

- its head: the last version recorded before that instant and that event's chain digest;
- ``events``: how many events the stream holds up to the head;
- ``balances``: every account's balance at the head, and ``state``: the table's whole state
  there (what an incremental audit of the next day starts from);

and, for the store as a whole, ``projections``: a digest of each view's totals of day D
recomputed from the events (:mod:`projections.audit.reconcile`), and ``previous``: the gaming
day and the digest of the previous day's seal, so that seals form a chain in which a missing
day shows; ``access_log``: the access log's last row at sealing (its sequence number and
digest, :func:`ledger.access.accesslog.access_head`), so that a cut or rewritten access log shows.
The whole is signed with the private key (:mod:`projections.audit.keys`) and names
its key id; ``ledger audit verify --seal FILE --public-key KEY`` needs only the public key.

Kept outside the database (sent to the regulator, printed, archived), seals let the audit
name a rewritten history (``seal_mismatch``, ``seal_balances``), a cut tail
(``seal_truncated``), a deleted table (``seal_missing_table``) and a missing day
(``seal_day_missing``) even when whoever changed the store recomputed every chain.

Seals of the first format (``table-ledger seal v1``, HMAC-SHA256 under ``LEDGER_SEAL_KEY``)
are still checked with that key: their heads hold as before, but they carry no balances, no
link to the previous day, and anyone who can check them could have made them.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from datetime import UTC, date, datetime, time, timedelta, timezone
from pathlib import Path
from typing import Any
from uuid import UUID

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from ledger.access.accesslog import access_head
from ledger.domain.errors import InvalidInput, LedgerError, StateConflict
from ledger.store.fleet import StoreFleet, not_across_shards
from ledger.store.mapper import state_bytes
from ledger.table.events import TableOpened, chain_digest
from ledger.table.state import TableState
from projections.audit import keys
from projections.audit.reader import SnapshotReader, consistent_read
from projections.audit.reconcile import Totals
from projections.views.context import TableInfo, day_bounds, parse_day

FORMAT_V1 = "table-ledger seal v1"
FORMAT = "table-ledger seal v2"
ALGORITHM = "Ed25519"
SEALED_VIEWS = ("accounting", "hands", "bankrolls")
"""Views whose totals of the day a seal holds a digest of (balances are in the heads)."""


def body(payload: dict[str, Any]) -> bytes:
    """The bytes a seal's signature covers: its canonical JSON without the signature."""
    return json.dumps({k: v for k, v in payload.items() if k != "signature"},
                      sort_keys=True, separators=(",", ":")).encode()


def seal_digest(payload: dict[str, Any]) -> str:
    """The digest the next day's seal records for this one (signature included)."""
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def make_seal(app: Any, day: str, key: Ed25519PrivateKey, *,
              previous: dict[str, Any] | None = None,
              now: datetime | None = None) -> dict[str, Any]:
    """The signed state of every table at the end of gaming day ``day``.

    With ``previous`` (the seal of an earlier day, signed by the same key) only the events
    after its heads are read, and the new seal links to it. A day that has not started yet at
    any table is ``day_not_started``. A day still in progress somewhere is sealed with the
    heads as they are now; see :func:`unfinished`.
    """
    if isinstance(app, StoreFleet):
        raise not_across_shards("sealing a gaming day")
    day = parse_day(day)
    start: time = app.settings.gaming_day_start
    now = now or datetime.now(UTC)
    public = key.public_key()
    if previous is not None:
        _check_previous(previous, day, public)
    before = {h["table_id"]: h for h in (previous or {}).get("tables", [])}
    totals = Totals(start)
    heads = []
    with consistent_read(app) as reader:
        tables = table_infos(app, reader)
        _check_started(day, start, [info.timezone for info in tables], now)
        for info in tables:
            end = day_bounds(day, info.timezone, start)[1]
            head = _fold(app, reader, info, end, before.get(str(info.table_id)), totals)
            if head is not None:
                heads.append(head)
    payload: dict[str, Any] = {
        "format": FORMAT, "algorithm": ALGORITHM, "key_id": keys.key_id(public),
        "gaming_day": day, "gaming_day_start": start.isoformat(), "created_at": now.isoformat(),
        "previous": None if previous is None else {"gaming_day": previous["gaming_day"],
                                                   "digest": seal_digest(previous)},
        "tables": heads,
        "projections": {view: totals.digest(view, day) for view in SEALED_VIEWS},
        "access_log": access_head(app),
    }
    payload["signature"] = keys.sign(key, body(payload))
    return payload


def _check_previous(previous: dict[str, Any], day: str, public: Any) -> None:
    if previous.get("format") != FORMAT:
        raise InvalidInput("invalid_seal", "the previous seal is not a v2 seal: seal without "
                           "it (a new chain starts)")
    if not keys.valid(public, body(previous), str(previous.get("signature", ""))):
        raise InvalidInput("invalid_seal", f"the seal of {previous.get('gaming_day')} is not "
                           "signed by this signing key: it cannot be the previous link")
    if str(previous.get("gaming_day", "")) >= day:
        raise InvalidInput("invalid_seal", f"the previous seal ({previous.get('gaming_day')}) "
                           f"is not of a day before {day}")


def _fold(app: Any, reader: SnapshotReader, info: TableInfo, end: datetime,
          before: dict[str, Any] | None, totals: Totals) -> dict[str, Any] | None:
    """Fold a table's events recorded before ``end`` (after ``before``'s head, if given)."""
    tid = info.table_id
    state = TableState.from_snapshot(before["state"]) if before else None
    version = int(before["version"]) if before else 0
    digest = before["digest"] if before else None
    count = int(before["events"]) if before else 0
    if before:
        totals.start(info.code, before["balances"])
    for stored in reader.events(tid, gt=version):
        event = app.mapper.to_domain_event(stored.event)
        if event.timestamp >= end:
            break
        if digest is not None and json.loads(stored.state).get("prev_hash") != digest:
            raise LedgerError("table_chain_broken", f"table {info.code}: version "
                              f"{stored.originator_version} does not follow the one before it; "
                              "run `ledger audit verify` (with the last seal) before sealing",
                              table=info.code, version=stored.originator_version)
        if isinstance(event, TableOpened):
            state = TableState(event)
        elif state is not None:
            state.apply(event)
        totals.feed(stored.position, event, info)
        version, count = stored.originator_version, count + 1
        digest = chain_digest(tid, version, stored.topic, state_bytes(stored.state))
    if state is None or digest is None:
        return None
    return {"table": info.code, "table_id": str(tid), "timezone": info.timezone,
            "day_end": end.isoformat(), "version": version, "digest": digest,
            "events": count, "balances": dict(sorted(state.balances.items())),
            "state": state.to_snapshot()}


def table_infos(app: Any, reader: SnapshotReader) -> list[TableInfo]:
    """Every table, from the opening event of its stream."""
    tables = []
    for tid in reader.table_ids():
        first = reader.first(tid)
        data = json.loads(first.state) if first else {}
        if data.get("code") is None or data.get("timezone") is None or first is None:
            raise LedgerError("corrupt_stream", f"stream {tid} does not begin with the "
                              "opening of a table; run `ledger audit verify`")
        tables.append(TableInfo.of(app.mapper.to_domain_event(first.event)))
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
    with consistent_read(app) as reader:
        tables = table_infos(app, reader)
    found = []
    for info in tables:
        end = day_bounds(day, info.timezone, start)[1]
        if now < end:
            found.append((info.code, end))
    return found


def read_seal(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise InvalidInput("unreadable_seal", f"cannot read the seal {path}: {exc.strerror}",
                           path=str(path)) from None
    except ValueError:
        raise InvalidInput("invalid_seal", f"{path} is not a seal (not JSON)") from None
    if not isinstance(data, dict) or data.get("format") not in (FORMAT, FORMAT_V1):
        raise InvalidInput("invalid_seal", f"{path} is not a {FORMAT} (or v1) file")
    return data


def read_seals(paths: list[Path]) -> list[dict[str, Any]]:
    """The seals in the files given; a directory gives every ``seal-*.json`` in it."""
    found: list[dict[str, Any]] = []
    for path in paths:
        if path.is_dir():
            found.extend(read_seal(p) for p in sorted(path.glob("seal-*.json")))
        else:
            found.append(read_seal(path))
    return sorted(found, key=lambda s: str(s.get("gaming_day")))


def previous_for(day: str, directory: Path) -> dict[str, Any] | None:
    """The seal of the day before ``day`` in ``directory`` (``seal-YYYY-MM-DD.json``)."""
    before = (date.fromisoformat(day) - timedelta(days=1)).isoformat()
    path = directory / f"seal-{before}.json"
    return read_seal(path) if path.exists() else None


# --- the first format: HMAC-SHA256 under a shared key ---------------------------------------


def seal_key(settings: Any) -> bytes:
    secret = settings.seal_key
    if secret is None or not secret.get_secret_value():
        raise LedgerError("seal_key_missing", "no seal key: set LEDGER_SEAL_KEY to check "
                          "seals of the first format (HMAC)")
    return bytes(secret.get_secret_value().encode())


def hmac_signature(payload: dict[str, Any], key: bytes) -> str:
    return hmac.new(key, body(payload), hashlib.sha256).hexdigest()


def make_hmac_seal(app: Any, day: str, key: bytes, *,
                   now: datetime | None = None) -> dict[str, Any]:
    """A seal of the first format (heads only); kept so that old seals can be tested."""
    day = parse_day(day)
    start: time = app.settings.gaming_day_start
    now = now or datetime.now(UTC)
    totals = Totals(start)
    heads = []
    with consistent_read(app) as reader:
        for info in table_infos(app, reader):
            end = day_bounds(day, info.timezone, start)[1]
            head = _fold(app, reader, info, end, None, totals)
            if head is not None:
                heads.append({k: head[k] for k in ("table", "table_id", "timezone", "day_end",
                                                   "version", "digest")})
    payload: dict[str, Any] = {
        "format": FORMAT_V1, "gaming_day": day, "gaming_day_start": start.isoformat(),
        "created_at": now.isoformat(), "algorithm": "HMAC-SHA256", "tables": heads,
    }
    payload["signature"] = hmac_signature(payload, key)
    return payload


def table_uuid(head: dict[str, Any]) -> UUID:
    return UUID(str(head["table_id"]))
