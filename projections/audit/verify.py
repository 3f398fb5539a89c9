"""``ledger audit verify``: every table, from its raw stored rows, checked three ways at once.

For each table, in one pass over its stored rows in version order: the hash chain and the
command-log copies (:mod:`projections.audit.chain`), then the decoded events through a fresh
table with every command decided again (:mod:`projections.audit.replay`), with conservation
checked on the way; finally the sealed heads when a seal is given
(:mod:`projections.audit.seal`). Nothing is read from the projections or from snapshots: the
audit depends on the events and the rules only.

``day`` limits the re-decision to the hands that started on that gaming day (and the other
events of that day); the chain, the command log and conservation are always checked over the
whole stream, since a day's records are only as good as the chain that leads to them.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import time
from typing import Any
from uuid import UUID

from ledger import records as r
from ledger.errors import NotFound
from ledger.table import TableEvent, table_id
from ledger.tablestate import TableState
from projections.audit.chain import ChainCheck, command_log, stored_rows, table_ids
from projections.audit.model import AuditReport, Discrepancy
from projections.audit.replay import Observer, Scope, TableAudit
from projections.audit.seal import (
    check_heads,
    check_signature,
    missing_tables,
    sealed_versions,
)
from projections.context import gaming_day, parse_day
from projections.db import Store

Progress = Callable[[int], None]


def verify(app: Any, *, table: str | None = None, day: str | None = None,
           seal: dict[str, Any] | None = None, seal_key: bytes | None = None,
           progress: Progress | None = None) -> AuditReport:
    """Audit the store (or one table); the report lists every discrepancy found."""
    store = Store(app.recorder)
    report = AuditReport()
    if day is not None:
        day = parse_day(day)
    tids = [_existing(app, table)] if table else table_ids(store)
    if seal is not None and seal_key is not None:
        bad = check_signature(seal, seal_key)
        if bad is not None:
            report.discrepancies.append(bad)
    scope = day_scope(day, app.settings.gaming_day_start) if day else None
    seen: set[str] = set()
    for tid in tids:
        audit_table(app, store, tid, report, scope=scope, seal=seal, progress=progress)
        seen.add(str(tid))
    if seal is not None and table is None:
        report.discrepancies.extend(missing_tables(seal, seen))
    return report


def audit_table(app: Any, store: Store, tid: UUID, report: AuditReport, *,
                scope: Scope | None = None, seal: dict[str, Any] | None = None,
                observer: Observer | None = None, progress: Progress | None = None,
                chain: bool = True) -> None:
    label = _label(app, tid)
    report.tables.append(label)

    def chain_report(kind: str, hand: int | None, expected: Any, recorded: Any) -> None:
        report.discrepancies.append(Discrepancy(label, hand, kind, expected, recorded))

    check = ChainCheck(tid, chain_report, command_log(store, tid) if chain else None,
                       sealed_versions(seal, tid))
    replay = TableAudit(label, report, scope=scope, observer=observer)
    count = 0
    for stored in stored_rows(app, tid):
        if chain:
            row = check.feed(stored.originator_version, stored.topic, stored.state)
            if row.data is None:
                replay.broken = True
        if not replay.broken:
            event = _decode(app, stored, label, report)
            if event is None:
                replay.broken = True
            else:
                replay.feed(event)
        count += 1
        if progress is not None and count % 500 == 0:
            progress(500)
    if progress is not None:
        progress(count % 500)
    if chain:
        check.finish()
    replay.finish()
    if seal is not None:
        report.discrepancies.extend(check_heads(seal, tid, label, check.digests,
                                                check.last_version))


def day_scope(day: str, start: time) -> Scope:
    """Decide again only what happened on gaming day ``day`` (hands by their start)."""

    def in_day(state: TableState | None, event: TableEvent) -> bool:
        zone = state.timezone if state is not None else getattr(event, "timezone", "UTC")
        return gaming_day(event.timestamp, zone, start) == day

    return in_day


def hand_scope(hand_no: int) -> Scope:
    """Decide again only the groups of one hand."""

    def in_hand(state: TableState | None, event: TableEvent) -> bool:
        return isinstance(event, r.HandRecord) and event.hand_no == hand_no

    return in_hand


def _decode(app: Any, stored: Any, label: str, report: AuditReport) -> TableEvent | None:
    try:
        event: TableEvent = app.mapper.to_domain_event(stored)
        return event
    except Exception as exc:
        report.discrepancies.append(Discrepancy(
            label, None, "undecodable_event", "an event of a known type with valid fields",
            {"version": stored.originator_version, "error": str(exc).splitlines()[0]}))
        return None


def _label(app: Any, tid: UUID) -> str:
    first = app.recorder.select_events(tid, lte=1)
    if first:
        try:
            code = json.loads(first[0].state).get("code")
            if isinstance(code, str):
                return code
        except ValueError:
            pass
    return str(tid)


def _existing(app: Any, code: str) -> UUID:
    tid = table_id(code)
    if not app.recorder.select_events(tid, limit=1):
        raise NotFound("unknown_table", f"no table {code!r} in the store", table=code)
    return tid
