"""``ledger audit verify``: every table, from its raw stored rows, checked three ways at once.

Everything is read through one consistent snapshot of the store
(:mod:`projections.audit.reader`), so tables playing meanwhile cause no false alarm. For each
table, in one pass over its stored rows in version order: the hash chain and the command-log
copies (:mod:`projections.audit.chain`), then the decoded events through a fresh table with
every command decided again (:mod:`projections.audit.replay`), with conservation checked on
the way; the totals the read models must hold are recomputed on the way too and compared with
the stored views (:mod:`projections.audit.reconcile`); finally the signed seals when given
(:mod:`projections.audit.sealcheck`); and, auditing every table, the access log's hash
chain (:mod:`ledger.access.accesslog`). Nothing is read from snapshots: the audit depends on the
events and the rules only.

``day`` limits the re-decision to the hands that started on that gaming day (and the other
events of that day). ``jobs`` spreads the tables over processes
(:mod:`projections.audit.parallel`; each reads its tables in a snapshot of its own, and the
read models are compared with the events each view had seen at the position read in this
process's snapshot, so the parts still fit together). Without a seal the chain, the command
log and conservation are checked over the whole stream. With the seal of the day before
(signature valid), the audit is incremental: each table starts from the state, balances and
chain digest sealed at its head and reads only the events after it (and the head itself, to
see it is still there).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from datetime import datetime, time, timedelta
from typing import TYPE_CHECKING, Any, cast
from uuid import UUID

from ledger.access.principals import PrincipalStore
from ledger.domain import accounts
from ledger.domain import records as r
from ledger.domain.accounts import net_flows
from ledger.domain.errors import NotFound
from ledger.store.fleet import StoreFleet, not_across_shards
from ledger.store.history import StorePast
from ledger.store.mapper import state_bytes
from ledger.store.schema import CORRECTION_TOPICS
from ledger.table.events import TableEvent, TableOpened, chain_digest, table_id
from ledger.table.state import TableState
from projections.audit.approvers import ApproverCheck
from projections.audit.chain import ChainCheck, Copy, LogCopies, earlier_links, log_copies
from projections.audit.model import AuditReport, Discrepancy
from projections.audit.reader import SnapshotReader, consistent_read
from projections.audit.reconcile import (
    VIEWS,
    GamingDays,
    Totals,
    compare,
    left_out_by_views,
    mark_outdated,
    view_positions,
)
from projections.audit.replay import Observer, Scope, TableAudit
from projections.db import iso
from projections.views.base import ancestry, field_of
from projections.views.context import TableInfo, gaming_day, parse_day
from projections.views.unholdable import INT64_MAX, INT64_MIN, too_large

if TYPE_CHECKING:  # imported where used: one table's audit (ledger audit hand) needs neither
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    from projections.audit.sealcheck import SealCheck

Progress = Callable[[int], None]
LOG_MARGIN = timedelta(hours=1)
"""How long before the end of the sealed day command-log rows are read in an incremental
audit (the events after the heads are of later days; the database's clock and the ledger's
may differ a little)."""


def verify(app: Any, *, table: str | None = None, day: str | None = None,
           seal: dict[str, Any] | None = None, seals: Sequence[dict[str, Any]] = (),
           public_key: Ed25519PublicKey | None = None, seal_key: bytes | None = None,
           progress: Progress | None = None, jobs: int = 1) -> AuditReport:
    """Audit the store (or one table); the report lists every discrepancy found.

    ``seals`` (or one ``seal``): signed seals to check the store against (``public_key`` for
    the current format, ``seal_key`` for the first, HMAC, format). ``jobs``: processes to
    spread the tables over (a small store, or an audit with seals, runs in this process).
    ``app`` may be a fleet (``ledger.store.fleet``): each store is audited, into one report."""
    if isinstance(app, StoreFleet):
        return _verify_fleet(app, table=table, day=day, sealed=bool(seals) or seal is not None,
                             progress=progress, jobs=jobs)
    from projections.audit import parallel
    from projections.audit.sealcheck import SealCheck

    report = AuditReport()
    if day is not None:
        day = parse_day(day)
    given = [*seals, *([seal] if seal is not None else [])]
    check = SealCheck(sorted(given, key=lambda s: str(s.get("gaming_day"))), public_key,
                      seal_key) if given else None
    if check is not None:
        report.discrepancies.extend(check.signatures())
        report.discrepancies.extend(check.chain())
    start = check.start_for(day) if check is not None and day is not None else None
    report.incremental_from = start["gaming_day"] if start else None
    day_start: time = app.settings.gaming_day_start
    scope = day_scope(day, day_start) if day else None
    with consistent_read(app) as reader:
        tids = [_existing(reader, table)] if table else reader.table_ids()
        rejects = left_out_by_views(reader)
        totals = Totals(day_start, positions=view_positions(reader, _fingerprints(app)),
                        left_out=frozenset(rejects))
        sealed = Totals(day_start, limits=check.limits()) \
            if check is not None and start is None else None
        begins = {h["table_id"]: h for h in start["tables"]} if start else {}
        labels: set[str] = set()
        if check is None and parallel.worth_it(app, jobs, len(tids)):
            for part, part_totals in parallel.audit_tables(
                    app, tids, jobs=jobs, day=day, positions=totals.positions,
                    left_out=totals.left_out, progress=progress,
                    sizes=reader.table_sizes()):
                report.merge(part)
                totals.merge(part_totals)
                labels.update(part.tables)
        else:
            for tid in tids:
                labels.add(audit_table(app, reader, tid, report, scope=scope, check=check,
                                       totals=(totals, sealed), begin=begins.get(str(tid)),
                                       progress=progress))
        found = compare(reader, totals, tables=labels if table else None,
                        since=day if start else None)
        report.discrepancies.extend(found)
        report.discrepancies.extend(_left_out(report, rejects, labels))
        if check is not None and table is None:
            report.discrepancies.extend(check.missing_tables({str(t) for t in tids}))
        if sealed is not None:
            report.discrepancies.extend(check.projections(sealed, labels if table else None)
                                        if check is not None else [])
        report.events_read += reader.rows_read
    if table is None:
        report.discrepancies.extend(access_log_breaks(app))
        if check is not None:
            report.discrepancies.extend(check.access_log(app))
    mark_outdated(app, {d.expected["view"] for d in found})
    return report


def _verify_fleet(fleet: StoreFleet[Any], *, table: str | None, day: str | None, sealed: bool,
                  progress: Progress | None, jobs: int) -> AuditReport:
    """A fleet's audit: one table in the store that holds it, or every store, one report."""
    if sealed:
        raise not_across_shards("checking seals")
    if table is not None:
        return verify(fleet.app_for(table), table=table, day=day, progress=progress, jobs=jobs)
    report = AuditReport()
    for one in fleet.apps.values():
        report.merge(verify(one, day=day, progress=progress, jobs=jobs))
    return report


def access_log_breaks(app: Any) -> list[Discrepancy]:
    """The access log's hash chain walked from its first row (``ledger.access.accesslog``): an
    edited, deleted or inserted row is ``access_log_broken``, naming the row, what the chain
    expected and what was found."""
    from ledger.access.accesslog import verify_access_log

    return [Discrepancy("access-log", None, "access_log_broken",
                        {"row": p["seq"], "problem": p["kind"], "value": p["expected"]},
                        p["found"])
            for p in verify_access_log(app)]


def _left_out(report: AuditReport, rejects: dict[int, tuple[str, int, str]],
              labels: set[str]) -> list[Discrepancy]:
    """The events the views left out that the audit did not find past the range itself."""
    seen = {(d.table, d.recorded.get("version")) for d in report.discrepancies
            if d.kind == "unholdable_value" and "why" in d.recorded}
    return [Discrepancy(code, None, "unholdable_value",
                        {"range": "a signed 64-bit integer, as the views hold"},
                        {"version": version, "why": why + "; left out of the views"})
            for code, version, why in rejects.values()
            if code in labels and (code, version) not in seen]


def _fingerprints(app: Any) -> dict[str, str]:
    from projections.views.runner import Runner

    runner = Runner(app, list(VIEWS))
    return {view.name: runner.fingerprint(view) for view in runner.views}


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
                        approvers=ApproverCheck(PrincipalStore(app.recorder).find))
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


def _existing(reader: Any, code: str) -> UUID:
    tid = table_id(code)
    if isinstance(reader, SnapshotReader):
        found = reader.first(tid) is not None
    else:  # the application
        found = bool(reader.recorder.select_events(tid, limit=1))
    if not found:
        raise NotFound("unknown_table", f"no table {code!r} in the store", table=code)
    return tid
