"""The audit spread over processes, one table at a time (``ledger audit verify --jobs N``).

A table's audit depends on that table's stream and command log only, so tables are audited
independently: each worker process opens the store once and audits the tables it is handed,
streaming their rows as the single-process audit does (no table is loaded whole), and returns
that table's part of the report. The parts are put together in the order of the tables, so the
report is the same as the one a single process writes. Processes are started fresh
(``spawn``), never forked from a process holding open database connections.

Below ``MIN_EVENTS`` events in the store the audit stays in one process: starting workers
costs more than it saves.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from typing import Any
from uuid import UUID

from projections.audit.model import AuditReport
from projections.audit.reconcile import Totals

MIN_EVENTS = 20_000
"""Stores with fewer events are audited in one process."""

_worker_app: Any = None


def default_jobs() -> int:
    """One job per core this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - platforms without affinity
        return max(1, os.cpu_count() or 1)


def worth_it(app: Any, jobs: int, tables: int, min_events: int | None = None) -> bool:
    """Whether to audit in ``jobs`` processes rather than this one."""
    if jobs < 2 or tables < 2:
        return False
    least = MIN_EVENTS if min_events is None else min_events
    return int(app.recorder.max_notification_id() or 0) >= least


def audit_tables(
    app: Any, tids: Sequence[UUID], *, jobs: int, day: str | None,
    positions: dict[str, int], left_out: frozenset[int] = frozenset(),
    progress: Callable[[int], None] | None = None, sizes: dict[UUID, int] | None = None,
) -> list[tuple[AuditReport, Totals]]:
    """Each table's part of the report and of the read models' totals (counting, for each
    view, the events up to its ``positions``), in the order of ``tids``.

    ``sizes`` (events per table): the largest tables are handed out first, so that the last
    to finish is a small one; otherwise the order of ``tids`` can leave one worker with the
    largest table alone at the end while the others idle."""
    context = multiprocessing.get_context("spawn")
    sizes = sizes or {}
    order = sorted(tids, key=lambda tid: -sizes.get(tid, 0))
    with ProcessPoolExecutor(max_workers=min(jobs, len(tids)), mp_context=context,
                             initializer=_open, initargs=(app.settings,)) as pool:
        futures: dict[UUID, Future[tuple[AuditReport, Totals, int]]] = {
            tid: pool.submit(_audit_one, tid, day, positions, left_out) for tid in order
        }
        for future in as_completed(futures.values()):
            rows = future.result()[2]
            if progress is not None:
                progress(rows)
        return [futures[tid].result()[:2] for tid in tids]


def _open(settings: Any) -> None:
    global _worker_app
    from ledger.logs import configure
    from ledger.store.base import LedgerStore

    configure(settings.log_level)
    _worker_app = LedgerStore(settings)


def _audit_one(tid: UUID, day: str | None, positions: dict[str, int],
               left_out: frozenset[int] = frozenset()) -> tuple[AuditReport, Totals, int]:
    from projections.audit.reader import consistent_read
    from projections.audit.tables import audit_table, day_scope

    app = _worker_app
    report = AuditReport()
    scope = day_scope(day, app.settings.gaming_day_start) if day else None
    rows = [0]

    def count(n: int) -> None:
        rows[0] += n

    totals = Totals(app.settings.gaming_day_start, positions=dict(positions),
                    left_out=left_out)
    with consistent_read(app) as reader:  # one snapshot per table: its events and its log
        audit_table(app, reader, tid, report, scope=scope, totals=(totals, None),
                    progress=count)
        report.events_read = reader.rows_read
    return report, totals, rows[0]
