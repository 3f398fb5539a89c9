"""The audit of one table's stream, from a snapshot of the store: its events replayed and re-decided
by the rules, its hash chain, its command log, its corrections, the read models' totals; the
scope of a gaming day or a hand. :func:`projections.audit.verify.verify` runs it for every table
(in worker processes with ``--jobs``, :mod:`projections.audit.parallel`); ``ledger audit hand``
runs it for one hand."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from datetime import datetime, time, timedelta
from typing import TYPE_CHECKING, Any, cast
from uuid import UUID

from ledger.domain import accounts
from ledger.domain import records as r
from ledger.domain.accounts import net_flows
from ledger.domain.errors import NotFound
from ledger.store.history import StorePast
from ledger.store.mapper import state_bytes
from ledger.store.schema import CORRECTION_TOPICS
from ledger.table.events import TableEvent, TableOpened, chain_digest, table_id
from ledger.table.state import TableState
from projections.audit.approvers import ApprovalCheck, register_state
from projections.audit.chain import ChainCheck, Copy, LogCopies, earlier_links, log_copies
from projections.audit.model import AuditReport, Discrepancy
from projections.audit.reader import SnapshotReader
from projections.audit.reconcile import (
    GamingDays,
    Totals,
)
from projections.audit.replay import Observer, Scope, TableAudit
from projections.db import iso
from projections.views.base import ancestry, field_of
from projections.views.context import TableInfo, gaming_day
from projections.views.unholdable import INT64_MAX, INT64_MIN, too_large

if TYPE_CHECKING:  # imported where used: one table's audit (ledger audit hand) needs neither

    from projections.audit.sealcheck import SealCheck


Progress = Callable[[int], None]
LOG_MARGIN = timedelta(hours=1)
"""How long before the end of the sealed day command-log rows are read in an incremental
audit (the events after the heads are of later days; the database's clock and the ledger's
may differ a little)."""


def audit_table(app: Any, reader: SnapshotReader, tid: UUID, report: AuditReport, *,
                scope: Scope | None = None, observer: Observer | None = None,
                progress: Progress | None = None, chain: bool = True,
                check: SealCheck | None = None,
                totals: tuple[Totals | None, Totals | None] = (None, None),
                begin: dict[str, Any] | None = None) -> str:
    """Audit one table (from ``begin``, a sealed head, when given); its label."""
    label = str(begin["table"]) if begin else _label(app, reader, tid)
    report.tables.append(label)

    def chain_report(kind: str, hand: int | None, expected: Any, recorded: Any) -> None:
        report.discrepancies.append(Discrepancy(label, hand, kind, expected, recorded))

    after = int(begin["version"]) if begin else 0
    log = LogCopies(_command_log(reader, tid, begin)) if chain else None
    wanted = check.wanted(tid) if check is not None else set()
    links = ChainCheck(tid, chain_report, log, wanted, earlier_link=earlier_links(app, tid))
    replay = TableAudit(label, report, scope=scope, observer=observer,
                        past=lambda upto: StorePast(app, tid, upto, snapshots=False,
                                                    checkpoints=replay.checkpoints),
                        approvers=ApprovalCheck(register_state(app)))
    walk = _Walk(wanted, totals)
    if begin is not None:
        _resume(reader, tid, begin, links, replay, walk, report)
    count = 0
    corrections: list[int] = []  # the versions of the correction events read
    for stored in reader.events(tid, gt=after):
        data = None
        if chain:
            data = links.feed(stored.originator_version, stored.topic, stored.state).data
            if stored.topic in CORRECTION_TOPICS:
                corrections.append(stored.originator_version)
        event = _decode(app, stored.event, label, None if replay.broken else report, data) \
            if data is not None or not chain else None
        walk.step(stored.position, stored.originator_version, event)
        if event is None:
            replay.broken = True
        elif not replay.broken:
            replay.feed(event)
        count += 1
        if progress is not None and count % 500 == 0:
            progress(500)
    if progress is not None:
        progress(count % 500)
    if chain:
        links.finish()
        _corrections_index(app, tid, label, after, links.last_version, corrections, report)
    replay.finish()
    for version, hand, why in walk.left_out:
        report.discrepancies.append(Discrepancy(
            label, hand, "unholdable_value",
            {"range": "a signed 64-bit integer, as the views hold"},
            {"version": version, "why": why + "; left out of the views"}))
    for account, (version, balance) in walk.unholdable.items():
        report.discrepancies.append(Discrepancy(
            label, None, "unholdable_value",
            {"account": account, "range": "a signed 64-bit integer, as the views hold"},
            {"version": version, "balance": balance}))
    if check is not None:
        report.discrepancies.extend(check.check_table(tid, label, links.digests,
                                                      links.last_version, walk.counts,
                                                      walk.balances_at))
        if walk.opened is not None:
            report.discrepancies.extend(check.unknown_table(tid, label, *walk.opened))
    return label


def _corrections_index(app: Any, tid: UUID, label: str, after: int, upto: int,
                       read: list[int], report: AuditReport) -> None:
    """``corrections_index`` when the corrections index does not give exactly the correction
    events read (after ``after``, up to ``upto``): a hand's replay reads only the index after
    the hand (``projections.read.correction_queries``), so an index made stale by hand would hide
    a hand's corrections from it, or show others, with every row and the chain intact."""
    from projections.read.correction_queries import indexed_corrections

    indexed = indexed_corrections(app, tid, after, upto)
    if indexed is not None and indexed != read:
        report.discrepancies.append(Discrepancy(label, None, "corrections_index",
                                                {"versions": read}, {"versions": indexed}))


class _Walk:
    """What the seals and the read models need from each event: running balances and counts
    at the sealed versions, and the views' totals."""

    def __init__(self, wanted: set[int], totals: tuple[Totals | None, Totals | None]) -> None:
        self.wanted = wanted
        self.totals = [t for t in totals if t is not None]
        self.days = GamingDays(self.totals[0].day_start if self.totals else time(6))
        self.info: TableInfo | None = None
        self.opened: tuple[datetime, str] | None = None
        """When and in which time zone the table opened (when its opening was read)."""
        self.balances: dict[str, int] = {}
        self.count = 0
        self.counts: dict[int, int] = {}
        self.balances_at: dict[int, dict[str, int]] = {}
        self.unholdable: dict[str, tuple[int, int]] = {}
        """Accounts whose balance left a signed 64-bit integer: the version and balance then."""
        self.left_out: list[tuple[int, int | None, str]] = []
        """Events holding a number no view can store (version, hand, where and what)."""

    def start(self, info: TableInfo, balances: dict[str, int], count: int) -> None:
        self.info, self.balances, self.count = info, dict(balances), count
        for totals in self.totals:
            totals.start(info.code, balances)

    def step(self, position: int, version: int, event: TableEvent | None) -> None:
        self.count += 1
        if event is not None:
            where = too_large(event)  # once an event: the totals are fed only what passes
            if where is not None:
                self.left_out.append((version, field_of(event, "hand_no"),
                                      f"{where} is outside a signed 64-bit integer"))
            if TableOpened in ancestry(event.__class__):
                opened = cast(TableOpened, event)
                self.info = TableInfo.of(opened)
                self.opened = (opened.timestamp, opened.timezone)
            transfers: tuple[r.Transfer, ...] = field_of(event, "transfers", ())
            flows = net_flows(transfers) if transfers else None  # once, for all below
            if flows:
                balances = self.balances
                for account, change in flows.items():
                    balance = balances.get(account, 0) + change
                    balances[account] = balance
                    if not INT64_MIN <= balance <= INT64_MAX and account not in self.unholdable:
                        self.unholdable[account] = (version, balance)
            if self.info is not None and where is None and self.totals:
                day = self.days(event.timestamp, self.info.timezone)
                for totals in self.totals:
                    totals.feed(position, event, self.info, screened=True,
                                day=day if totals.day_start == self.days.start else None,
                                flows=flows)
        if version in self.wanted:
            self.counts[version] = self.count
            self.balances_at[version] = {a: b for a, b in self.balances.items() if b}


def _resume(reader: SnapshotReader, tid: UUID, begin: dict[str, Any], links: ChainCheck,
            replay: TableAudit, walk: _Walk, report: AuditReport) -> None:
    """Start a table's audit at its sealed head: the head must still be there, unchanged."""
    version, label = int(begin["version"]), str(begin["table"])
    head = next(iter(reader.events(tid, gt=version - 1, lte=version)), None)
    if head is None:
        report.discrepancies.append(Discrepancy(label, None, "seal_truncated",
                                                {"version": version}, {"version": None}))
    links.resume(version, str(begin["digest"]))
    if head is not None:  # compared with the seal's digest with the other heads
        links.digests[version] = chain_digest(tid, version, head.topic, state_bytes(head.state))
    state = TableState.from_snapshot(begin["state"])
    replay.state = state
    replay.checkpoints[version] = begin["state"]  # corrections decide from the sealed state
    replay.conservation.bought = sum(b for a, b in state.balances.items()
                                     if a != accounts.CAGE)
    walk.start(TableInfo(tid, state.code, state.game.name, state.currency, state.timezone),
               begin["balances"], int(begin["events"]))
    walk.counts[version] = int(begin["events"])
    walk.balances_at[version] = {a: b for a, b in begin["balances"].items() if b}


def _command_log(reader: SnapshotReader, tid: UUID,
                 begin: dict[str, Any] | None) -> Iterator[tuple[int, Copy]]:
    """The command log's copies of a table's events, streamed in the audit's snapshot (after
    the sealed head only, when the audit starts there)."""
    if begin is None:
        return log_copies(reader.store, tid, tx=reader.tx)
    since = datetime.fromisoformat(begin["day_end"]) - LOG_MARGIN
    after = int(begin["version"])
    return ((v, d) for v, d in log_copies(reader.store, tid, tx=reader.tx, since=iso(since))
            if v > after)


def day_scope(day: str, start: time) -> Scope:
    """Decide again only what happened on gaming day ``day`` (hands by their start)."""

    def in_day(state: TableState | None, event: TableEvent) -> bool:
        zone = state.timezone if state is not None else getattr(event, "timezone", "UTC")
        return gaming_day(event.timestamp, zone, start) == day

    return in_day


def hand_scope(hand_no: int) -> Scope:
    """Decide again only the groups of one hand (and its corrections, COR-1)."""

    def in_hand(state: TableState | None, event: TableEvent) -> bool:
        if isinstance(event, r.HandCorrected):
            return event.hand == hand_no
        return isinstance(event, r.HandRecord) and event.hand_no == hand_no

    return in_hand


def _decode(app: Any, stored: Any, label: str, report: AuditReport | None,
            data: dict[str, Any] | None = None) -> TableEvent | None:
    """The event of a stored row (``data``: its JSON, when the chain check parsed it; None
    when it cannot be decoded: reported when ``report`` is given, i.e. while the table's
    replay still runs)."""
    try:
        event: TableEvent = (app.mapper.to_domain_event(stored) if data is None
                             else app.mapper.from_data(stored, dict(data)))
        return event
    except Exception as exc:
        if report is None:
            return None
        report.discrepancies.append(Discrepancy(
            label, None, "undecodable_event", "an event of a known type with valid fields",
            {"version": stored.originator_version, "error": str(exc).splitlines()[0]}))
        return None


def _label(app: Any, reader: SnapshotReader, tid: UUID) -> str:
    first = reader.first(tid)
    if first is not None:
        try:
            code = json.loads(first.state).get("code")
            if isinstance(code, str):
                return code
        except ValueError:
            pass
    return str(tid)


def existing_table(reader: Any, code: str) -> UUID:
    tid = table_id(code)
    if isinstance(reader, SnapshotReader):
        found = reader.first(tid) is not None
    else:  # the application
        found = bool(reader.recorder.select_events(tid, limit=1))
    if not found:
        raise NotFound("unknown_table", f"no table {code!r} in the store", table=code)
    return tid
