"""``ledger audit verify``: every table, from its raw stored rows, checked three ways at once.

Everything is read through one consistent snapshot of the store
(:mod:`projections.audit.reader`), so tables playing meanwhile cause no false alarm. For each
table, in one pass over its stored rows in version order: the hash chain and the command-log
copies (:mod:`projections.audit.chain`), then the decoded events through a fresh table with
every command decided again (:mod:`projections.audit.replay`), with conservation checked on
the way; the totals the read models must hold are recomputed on the way too and compared with
the stored views (:mod:`projections.audit.reconcile`), and every view is built again from
the events in a scratch database and compared with the stored one row by row, column by column
(:mod:`projections.audit.viewrows`); finally the signed seals when given
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

from collections.abc import Sequence
from datetime import time
from typing import TYPE_CHECKING, Any

from ledger.store.fleet import StoreFleet, not_across_shards
from projections.audit import writers
from projections.audit.model import AuditReport, Discrepancy
from projections.audit.reader import consistent_read
from projections.audit.reconcile import (
    VIEWS,
    Totals,
    compare,
    left_out_by_views,
    mark_outdated,
    view_positions,
)
from projections.audit.tables import Progress, audit_table, day_scope, existing_table
from projections.views.context import parse_day

if TYPE_CHECKING:  # imported where used: one table's audit (ledger audit hand) needs neither
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey




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
        tids = [existing_table(reader, table)] if table else reader.table_ids()
        rejects = left_out_by_views(reader)
        positions = view_positions(reader, _fingerprints(app))
        differ, outdated = writers.layout_findings(app, list(positions))
        report.discrepancies.extend(outdated)  # their totals cannot be compared: named
        positions = {view: at for view, at in positions.items() if view not in differ}
        totals = Totals(day_start, positions=positions, left_out=frozenset(rejects))
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
        # The views' code (every game) is loaded only by a whole audit, not by one hand's.
        from projections.audit.viewrows import row_discrepancies
        found.extend(row_discrepancies(app, reader, left_out=frozenset(rejects), table=table))
        report.discrepancies.extend(found)
        report.discrepancies.extend(_left_out(report, rejects, labels))
        if check is not None and table is None:
            report.discrepancies.extend(check.missing_tables({str(t) for t in tids}))
        if sealed is not None:
            report.discrepancies.extend(check.projections(sealed, labels if table else None)
                                        if check is not None else [])
        report.events_read += reader.rows_read
    report.discrepancies.extend(snapshot_discrepancies(app, tids))
    if table is None:
        report.discrepancies.extend(writers.commands_without_events(app, {str(t) for t in tids}))
        report.discrepancies.extend(access_log_breaks(app))
        report.discrepancies.extend(register_discrepancies(app))
        report.discrepancies.extend(token_discrepancies(app))
        report.discrepancies.extend(checkpoint_discrepancies(app, public_key))
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
    report.discrepancies.extend(writers.moved_tables(fleet))
    return report


def access_log_breaks(app: Any) -> list[Discrepancy]:
    """The access log's hash chain walked from its first row (``ledger.access.accesslog``): an
    edited, deleted or inserted row is ``access_log_broken``, naming the row, what the chain
    expected and what was found."""
    from ledger.access.accesslog import verify_access_log

    return [Discrepancy("access-log", None, "access_log_broken",
                        {"row": p["seq"], "problem": p["kind"], "value": p["expected"]},
                        p["found"])
            for p in verify_access_log(app, checkpointed=False)]


def token_discrepancies(app: Any) -> list[Discrepancy]:
    """The tokens' chain and the tokens' table against it (``ledger.access.tokenchain``): an
    edited, deleted, inserted or forged chain row, or a token whose stored role, tables, seat,
    principal or revocation is not what its chain says, is ``tokens_broken``, naming the row
    or the token."""
    from ledger.access.tokenchain import chain_problems
    from ledger.access.tokens import chain_of
    from ledger.store.fleet import home_store_of

    return [Discrepancy("tokens", None, "tokens_broken",
                        {("row" if "seq" in p else "token"): p.get("seq", p.get("token")),
                         "problem": p["kind"], "value": p["expected"]}, p["found"])
            for p in chain_problems(chain_of(home_store_of(app)))]


def snapshot_discrepancies(app: Any, tids: Sequence[Any]) -> list[Discrepancy]:
    """Every snapshot of the tables held against their chain (``projections.audit.checkpoint``):
    one whose keyed signature does not verify, or whose chain digest is not that of the stored
    event at its version, is ``snapshot_mismatch``."""
    from projections.audit.checkpoint import snapshot_problems

    return snapshot_problems(app, tids)


def checkpoint_discrepancies(app: Any, key: Ed25519PublicKey | None) -> list[Discrepancy]:
    """The signed checkpoints (``projections.audit.checkpoint``): their signatures (with
    ``key``, else the public half of the signing key when this process has it) and chain, what
    the sink (``LEDGER_CHECKPOINT_SINK``) holds that the store lost, and the store held against
    the latest (``checkpoint_*``)."""
    from projections.audit.checkpoint import check_checkpoints, public_key_for

    settings = app.settings
    return check_checkpoints(app, public_key_for(settings, key), sink=settings.checkpoint_sink)


def register_discrepancies(app: Any) -> list[Discrepancy]:
    """The register of principals' chain and signatures (``projections.audit.approvers``): a
    row that does not hold is ``register_broken``, naming the register version."""
    from projections.audit.approvers import register_breaks

    return [Discrepancy("register", None, "register_broken",
                        {"version": p["version"], "problem": p["kind"], "value": p["expected"]},
                        p["found"]) for p in register_breaks(app)]


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


