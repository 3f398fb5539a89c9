"""The runner: exactly once, restartable, never skipping; rebuilt equals incremental."""

from __future__ import annotations

from datetime import time

import pytest

from ledger.app.application import LedgerApp
from ledger.domain.errors import LedgerError, NotFound
from projections.views import decode
from projections.views.base import Item, View
from projections.views.registry import VIEW_TYPES
from projections.views.runner import Runner, _Moved

from .conftest import HANDS, dump_views, play

ALL_TABLES = tuple(t for view in VIEW_TYPES.values() for t in view.tables)
FEW = {game: max(2, n // 3) for game, n in HANDS.items()}


def test_a_rebuilt_view_equals_the_incrementally_built_one(app: LedgerApp) -> None:
    runner = Runner(app, batch_size=64)
    play(app, FEW, seed=1)
    runner.catch_up()
    play(app, FEW, seed=2)
    runner.catch_up()
    play(app, FEW, seed=3)
    assert runner.lag() > 0
    runner.catch_up()
    assert runner.lag() == 0
    incremental = dump_views(app, ALL_TABLES)
    assert all(incremental[t] for t in ("proj_hands", "proj_transfers", "proj_coverage",
                                        "proj_rake", "proj_jackpot_moves", "proj_accounting"))
    Runner(app, batch_size=1_000).rebuild()
    assert dump_views(app, ALL_TABLES) == incremental


def test_an_interrupted_rebuild_resumes_without_double_counting(app: LedgerApp,
                                                                monkeypatch: pytest.MonkeyPatch
                                                                ) -> None:
    play(app, FEW)
    Runner(app).catch_up()
    clean = dump_views(app, ALL_TABLES)

    stopped = Runner(app, batch_size=50)
    assert stopped.rebuild(max_batches=2) == 100
    assert {s.position for s in stopped.status()} == {100}

    # a crash in the middle of a batch: nothing of that batch is kept
    calls = {"n": 0}
    hands_view = VIEW_TYPES["hands"]
    original = hands_view.handle

    def failing(self: View, item: Item) -> None:
        calls["n"] += 1
        if calls["n"] == 30:
            raise RuntimeError("power cut")
        original(self, item)

    monkeypatch.setattr(hands_view, "handle", failing)
    with pytest.raises(RuntimeError):
        Runner(app, batch_size=50).catch_up()
    assert {s.position for s in Runner(app).status()} == {100}
    monkeypatch.setattr(hands_view, "handle", original)

    resumed = Runner(app, batch_size=50)
    resumed.catch_up()
    assert resumed.lag() == 0
    assert dump_views(app, ALL_TABLES) == clean


def test_views_at_different_positions_catch_up_together(app: LedgerApp) -> None:
    play(app, FEW)
    Runner(app, ["bankrolls"]).catch_up()
    Runner(app, ["hands"], batch_size=30).catch_up(max_batches=1)
    together = Runner(app, batch_size=70)
    together.catch_up()
    assert {s.lag for s in together.status()} == {0}
    after = dump_views(app, ALL_TABLES)
    Runner(app).rebuild()
    assert dump_views(app, ALL_TABLES) == after


def test_a_batch_read_at_a_stale_position_is_refused(app: LedgerApp) -> None:
    """Two runners at once: the one whose tracking row moved under it writes nothing."""
    play(app, FEW)
    slow, fast = Runner(app, batch_size=40), Runner(app, batch_size=40)
    slow.setup()
    positions = {v.name: 0 for v in slow.views}
    rows = decode.select(slow.store, 0, 40)
    items = slow._decode_rows(rows)
    fast.catch_up(max_batches=1)
    before = dump_views(app, ALL_TABLES)
    with pytest.raises(_Moved):
        slow._apply(items, positions, int(rows[-1][0]))
    assert dump_views(app, ALL_TABLES) == before
    slow.catch_up()
    after = dump_views(app, ALL_TABLES)
    Runner(app).rebuild()
    assert dump_views(app, ALL_TABLES) == after


def test_a_view_built_with_another_gaming_day_start_must_be_rebuilt(app: LedgerApp) -> None:
    play(app, FEW)
    Runner(app).catch_up()
    other = LedgerApp(app.settings.model_copy(update={"gaming_day_start": time(4, 0)}))
    try:
        runner = Runner(other)
        assert all(s.outdated for s in runner.status())
        with pytest.raises(LedgerError) as err:
            runner.catch_up()
        assert err.value.code == "projection_outdated"
        runner.rebuild()
        assert not any(s.outdated for s in runner.status())
    finally:
        other.close()


def test_an_unknown_view_is_a_coded_error(app: LedgerApp) -> None:
    with pytest.raises(NotFound) as err:
        Runner(app, ["hands", "nope"])
    assert err.value.code == "unknown_view"


def test_status_shows_position_head_and_lag(app: LedgerApp) -> None:
    play(app, FEW)
    runner = Runner(app, ["hands", "rake"])
    head = runner.head()
    assert [(s.view, s.position, s.head, s.lag) for s in runner.status()] == [
        ("hands", 0, head, head), ("rake", 0, head, head)]
    assert runner.catch_up() == head
    assert {(s.position, s.lag) for s in runner.status()} == {(head, 0)}
    assert runner.catch_up() == 0
