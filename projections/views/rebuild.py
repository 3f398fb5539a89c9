"""A rebuild of the views spread over processes, by table (``ledger projections rebuild
--jobs N``).

Every row of every view belongs to one table (its keys start with the table's code), so the
tables' rows can be written side by side. The views are emptied and marked as being built (a
view so marked reports ``projection_rebuilding`` while the rebuild runs, which holds
:meth:`projections.views.runner.Runner.rebuild_running` for as long, and ``projection_outdated``
once it no longer does, so a rebuild interrupted here must be run again: ``update`` cannot go
on from it); the head of the log is noted; each worker process
reads the log up to that head, decodes only its tables' events and writes their rows, one
transaction per batch, streaming; the tables are shared out by their number of events. Once
every worker is done the views are tracked at the head and marked current in one transaction,
and the events appended since are caught up as usual.

Below ``MIN_EVENTS`` events, or with a single table, the rebuild stays in one process.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from typing import Any
from uuid import UUID

MIN_EVENTS = 20_000
"""Stores with fewer events are rebuilt in one process."""
MAX_STREAMS_READ = 500
"""On SQLite, a worker with at most this many tables reads only their events (``IN`` in the
statement, the log still read in order); one with more, and every worker on PostgreSQL (whose
plan for such a statement depends on its statistics: without them it read every event of the
tables at each batch), reads every event and keeps its tables'."""

_worker_app: Any = None


def worth_it(runner: Any, jobs: int, min_events: int | None = None) -> bool:
    if jobs < 2:
        return False
    least = MIN_EVENTS if min_events is None else min_events
    if runner.head() < least:
        return False
    return len(_sizes(runner)) > 1


def through(runner: Any, min_events: int | None = None) -> bool:
    """Whether a rebuild in one process is made as the workers make theirs (the views marked
    as being built, the log read straight through, the rows later events change kept in
    memory and written once): from ``MIN_EVENTS`` on; a small store is rebuilt batch by
    batch, each batch tracked."""
    return bool(runner.head() >= (MIN_EVENTS if min_events is None else min_events))


def rebuild(runner: Any, jobs: int, progress: Callable[[int], None] | None = None) -> int:
    """Empty the runner's views and build them again with ``jobs`` worker processes (in this
    one when ``jobs`` is 1)."""
    runner.setup()
    with runner.rebuild_running():  # a follower waits while it runs (Runner.rebuild_alive)
        runner.reset(building=True)
        head = runner.head()
        indexes = runner.drop_indexes()
        try:
            done = _replay(runner, jobs, head, progress)
        finally:
            runner.make_indexes(indexes)
        runner.built(head)
    return done + int(runner.catch_up(progress))


def _replay(runner: Any, jobs: int, head: int, progress: Callable[[int], None] | None) -> int:
    """Write every view row of the events up to log position ``head``."""
    if jobs < 2:
        return int(runner.replay_streams(None, head, progress))
    counts = _counts(runner, head)
    shares = share_out({tid: n for tid, (_, n) in counts.items()}, jobs)
    views = [view.name for view in runner.views]
    context = multiprocessing.get_context("spawn")
    done = 0
    with ProcessPoolExecutor(max_workers=len(shares), mp_context=context, initializer=_open,
                             initargs=(runner.app.settings,)) as pool:
        futures: list[Future[int]] = [
            pool.submit(_build, type(runner), views, share, head, runner.batch_size,
                        runner._building,
                        [counts[tid][0] for tid in share]
                        if len(share) <= MAX_STREAMS_READ and not runner.store.postgres
                        else None)
            for share in shares
        ]
        for future in as_completed(futures):
            written = future.result()
            done += written
            if progress is not None:
                progress(written)
    return done


def share_out(sizes: dict[UUID, int], jobs: int) -> list[list[UUID]]:
    """The tables in ``jobs`` shares of about equal events (largest first, to the lightest)."""
    shares: list[tuple[int, list[UUID]]] = [(0, []) for _ in range(min(jobs, len(sizes)))]
    for tid, count in sorted(sizes.items(), key=lambda item: (-item[1], str(item[0]))):
        load, members = min(shares, key=lambda share: share[0])
        shares.remove((load, members))
        shares.append((load + count, [*members, tid]))
    return [members for _, members in shares if members]


def _sizes(runner: Any, head: int | None = None) -> dict[UUID, int]:
    return {tid: n for tid, (_, n) in _counts(runner, head).items()}


def _counts(runner: Any, head: int | None = None) -> dict[UUID, tuple[Any, int]]:
    """Each table's stream id as stored and its number of events (up to ``head``)."""
    store = runner.store
    column, table = store.notification_column, store.name(store.events_table)
    where = "" if head is None else f" WHERE {column} <= ?"
    rows = store.fetchall(f"SELECT originator_id, COUNT(*) AS n FROM {table}{where} "
                          "GROUP BY originator_id", () if head is None else (head,))
    return {_uuid(row["originator_id"]): (row["originator_id"], int(row["n"])) for row in rows}


def _uuid(value: Any) -> UUID:
    return value if isinstance(value, UUID) else UUID(str(value))


def _open(settings: Any) -> None:
    global _worker_app
    from ledger.logs import configure
    from ledger.store.base import LedgerStore

    configure(settings.log_level)
    _worker_app = LedgerStore(settings)


def _build(runner_class: Any, views: list[str], share: list[UUID], head: int, batch_size: int,
           building: str | None, stored: list[Any] | None) -> int:
    """A worker's share: the runner's own class (passed by name, so this module needs no import
    of the runner, which imports it) writes the views' rows of the tables in ``share``."""
    runner = runner_class(_worker_app, views, batch_size=batch_size)
    return int(runner.replay_streams(set(share), head, stored=stored, building=building))
