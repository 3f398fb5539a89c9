"""A rebuild spread over worker processes (``--jobs``) writes exactly the rows one process
writes, and leaves the views current at the log's head."""

from __future__ import annotations

import uuid

import pytest

from ledger.app.application import LedgerApp
from ledger.domain.errors import StateConflict
from projections.views import rebuild as parallel
from projections.views.registry import VIEW_TYPES
from projections.views.runner import Runner
from tests.integration.projections.conftest import dump_views
from tests.support.ranges import balance_past_the_range

ALL_TABLES = tuple(t for cls in VIEW_TYPES.values() for t in cls.tables)


def test_a_rebuild_in_workers_writes_what_one_process_writes(
    app: LedgerApp, played: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    runner = Runner(app, batch_size=97)  # batches that cut hands in two
    runner.rebuild()
    alone = dump_views(app, ALL_TABLES)
    assert not parallel.worth_it(runner, 2)  # a small store stays in one process
    monkeypatch.setattr(parallel, "MIN_EVENTS", 0)
    assert parallel.worth_it(runner, 2) and not parallel.worth_it(runner, 1)
    read = runner.rebuild(jobs=2)
    assert read == runner.head()
    assert dump_views(app, ALL_TABLES) == alone
    assert all(not s.outdated and s.lag == 0 for s in runner.status())


def test_views_being_built_by_workers_must_be_rebuilt_if_interrupted(
    app: LedgerApp, played: dict[str, str]
) -> None:
    runner = Runner(app)
    runner.reset(building=True)  # what a rebuild in workers leaves if it is stopped
    assert all(s.outdated for s in runner.status())
    with pytest.raises(StateConflict) as refused:
        runner.catch_up()
    assert refused.value.code == "projection_outdated"
    runner.rebuild()
    assert all(not s.outdated for s in runner.status())


def test_tables_are_shared_out_by_their_events() -> None:
    a, b, c, d = (uuid.uuid4() for _ in range(4))
    sizes = {a: 50, b: 30, c: 25, d: 5}
    shares = parallel.share_out(sizes, 2)
    assert sorted(sum(sizes[t] for t in share) for share in shares) == [55, 55]
    assert sorted(map(str, (t for share in shares for t in share))) == sorted(map(str, sizes))
    assert len(parallel.share_out(sizes, 9)) == 4


def test_a_rebuild_read_straight_through_writes_what_batch_by_batch_writes(
    app: LedgerApp, played: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """From ``MIN_EVENTS`` on, a rebuild in one process keeps the hands in progress and the
    running totals in memory between batches and makes the views' indexes after the rows:
    the rows are those a rebuild batch by batch writes, whatever the batches, and the indexes
    are all there again."""
    runner = Runner(app, batch_size=97)
    assert not parallel.through(runner)
    runner.rebuild()
    alone = dump_views(app, ALL_TABLES)

    def indexes() -> set[str]:
        if runner.store.postgres:
            rows = runner.store.fetchall(
                "SELECT indexname AS name FROM pg_indexes WHERE schemaname = ? AND "
                "indexname LIKE 'proj%%'", (runner.store.schema,))
        else:
            rows = runner.store.fetchall(
                "SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE 'proj%'")
        return {row["name"] for row in rows}

    made = indexes()
    assert "proj_transfers_src" in made
    monkeypatch.setattr(parallel, "MIN_EVENTS", 0)
    assert parallel.through(runner)
    for size in (5, 97, 10_000):
        through = Runner(app, batch_size=size)
        assert through.rebuild() == through.head()
        assert dump_views(app, ALL_TABLES) == alone, size
        assert all(not s.outdated and s.lag == 0 for s in through.status())
        assert indexes() == made
    monkeypatch.setattr("projections.views.base.KEEP_AT_MOST", 0)  # everything written each batch
    for module in ("hands", "wagers", "bankrolls", "accounting", "jackpot", "tables"):
        monkeypatch.setattr(f"projections.views.{module}.KEEP_AT_MOST", 0)
    Runner(app, batch_size=97).rebuild()
    assert dump_views(app, ALL_TABLES) == alone


def test_a_rebuild_read_straight_through_that_meets_a_total_past_the_range_starts_again(
    app: LedgerApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A total of the views past what its column holds stops the rebuild read straight
    through; it starts again batch by batch, which finds the event and leaves it out, and the
    views' indexes are all there."""
    second = balance_past_the_range(app)
    monkeypatch.setattr(parallel, "MIN_EVENTS", 0)
    runner = Runner(app)
    assert parallel.through(runner)
    runner.rebuild()
    assert [r.version for r in runner.rejected] == [second]
    assert all(not s.outdated and s.lag == 0 for s in runner.status())
    if not runner.store.postgres:
        names = {row["name"] for row in runner.store.fetchall(
            "SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE 'proj%'")}
        assert {"proj_transfers_src", "proj_hands_day", "proj_seat_hands_player"} <= names
