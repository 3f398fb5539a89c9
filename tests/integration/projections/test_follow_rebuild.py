"""A follower (``ledger projections update --follow``) while ``ledger projections rebuild``
has the views marked as being built: it says so once, writes nothing and waits, and follows
again once the rebuild has marked them current. A one-shot update is refused at once
(``projection_rebuilding``)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import pytest

from ledger.app.application import LedgerApp
from ledger.cli.projections import follow
from ledger.domain.errors import StateConflict
from projections.db import Store
from projections.views import rebuild as parallel
from projections.views.registry import VIEW_TYPES
from projections.views.runner import Runner

from .conftest import dump_views

ALL_TABLES = tuple(t for cls in VIEW_TYPES.values() for t in cls.tables)


def _until(condition: Callable[[], bool], seconds: float = 60.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def _tracking(app: LedgerApp) -> list[dict[str, object]]:
    rows = Store(app.recorder).fetchall("SELECT view, position, fingerprint FROM {proj_tracking}")
    return sorted(rows, key=lambda r: str(r["view"]))


class _Follower:
    def __init__(self, app: LedgerApp) -> None:
        self.lines: list[str] = []
        self.stop = threading.Event()
        self.error: BaseException | None = None
        self.total = 0
        runner = Runner(app, batch_size=97)
        runner.setup()  # as the follower has long before a rebuild starts
        self.thread = threading.Thread(target=self._run, args=(runner,))
        self.thread.start()

    def _run(self, runner: Runner) -> None:
        try:
            self.total = follow(runner, self.stop, 0.05, self.lines.append)
        except BaseException as exc:
            self.error = exc

    def said(self, word: str) -> bool:
        return any(word in line for line in self.lines) or self.error is not None

    def end(self) -> None:
        self.stop.set()
        self.thread.join(60)
        assert not self.thread.is_alive()


def test_a_one_shot_update_during_a_rebuild_is_refused_at_once(
    app: LedgerApp, played: dict[str, str]
) -> None:
    Runner(app).rebuild()
    rebuilding = Runner(app)
    with rebuilding.rebuild_running():  # a rebuild read straight through under way
        rebuilding.reset(building=True)
        before = _tracking(app)
        with pytest.raises(StateConflict) as refused:
            Runner(app).catch_up()
    assert refused.value.code == "projection_rebuilding"
    assert "being built by `ledger projections rebuild`" in refused.value.message
    assert sorted(refused.value.details["views"]) == sorted(VIEW_TYPES)
    assert _tracking(app) == before


def test_a_follower_waits_for_a_rebuild_and_follows_again_once_it_ends(
    app: LedgerApp, played: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from ledger.domain.commands import BuyIn, OpenTable, SeatPlayer

    Runner(app).rebuild()
    monkeypatch.setattr(parallel, "MIN_EVENTS", 0)
    follower = _Follower(app)
    calls = 0
    seen: list[list[dict[str, object]]] = []

    def meanwhile(_: int) -> None:  # the rebuild paused while the follower looks
        nonlocal calls
        calls += 1
        if calls == 2:
            _until(lambda: follower.said("projections_rebuilding"))
            seen.append(_tracking(app))
            time.sleep(0.3)  # several polls: the follower writes nothing
            seen.append(_tracking(app))

    try:
        Runner(app, batch_size=97).rebuild(progress=meanwhile)
        assert follower.error is None, follower.error
        assert seen[0] == seen[1]
        assert all(str(r["fingerprint"]).startswith("building;") for r in seen[0])
        waiting = [line for line in follower.lines if "projections_rebuilding" in line]
        assert len(waiting) == 1
        assert all(name in waiting[0] for name in VIEW_TYPES)
        _until(lambda: follower.said("projections_rebuilt"))
        app.execute(OpenTable(command_id="o", table="T9", game="caribbean-stud"))
        app.execute(SeatPlayer(command_id="s", table="T9", seat=1, player="p9"))
        app.execute(BuyIn(command_id="b", table="T9", seat=1, amount=700))
        _until(lambda: Runner(app).lag() == 0 and follower.said("updated"))
    finally:
        follower.end()
    assert follower.error is None, follower.error
    assert all(not s.outdated and s.lag == 0 for s in Runner(app).status())
    followed = dump_views(app, ALL_TABLES)
    assert any(row["table_code"] == "T9" for row in followed["proj_transfers"])
    Runner(app, batch_size=89).rebuild()
    assert dump_views(app, ALL_TABLES) == followed


def test_a_follower_overtaken_by_a_rebuild_within_a_batch_waits_too(
    app: LedgerApp, played: dict[str, str]
) -> None:
    """The rebuild marks the views after the follower's check, before its batch is written:
    the batch is not written (``projection_outdated`` inside), and the follower waits."""
    runner = Runner(app, batch_size=97)
    runner.rebuild()
    from ledger.domain.commands import OpenTable

    app.execute(OpenTable(command_id="o", table="T9", game="caribbean-stud"))
    checked = runner._check_fingerprints
    marked = False

    rebuilding = Runner(app)

    def then_marked() -> None:
        nonlocal marked
        checked()
        if not marked:
            marked = True
            rebuilding.reset(building=True)

    runner._check_fingerprints = then_marked  # type: ignore[method-assign]
    runner._check_rebuilding = lambda: None  # type: ignore[method-assign]
    stop = threading.Event()
    lines: list[str] = []

    def say(line: str) -> None:
        lines.append(line)
        stop.set()

    with rebuilding.rebuild_running():
        assert follow(runner, stop, 0.05, say) == 0
    assert marked and len(lines) == 1 and "projections_rebuilding" in lines[0]
    assert all(int(str(r["position"])) == 0 for r in _tracking(app))


def test_a_follower_of_views_outdated_otherwise_still_stops(
    app: LedgerApp, played: dict[str, str]
) -> None:
    Runner(app).rebuild()
    with Store(app.recorder).transaction() as tx:
        tx.execute("UPDATE {proj_tracking} SET fingerprint = 'v0;day_start=06:00:00'")
    with pytest.raises(StateConflict) as stopped:
        follow(Runner(app), threading.Event(), 0.05, lambda _: None)
    assert stopped.value.code == "projection_outdated"


def test_views_a_rebuild_that_died_left_marked_are_outdated_and_said_so(
    app: LedgerApp, played: dict[str, str]
) -> None:
    """The rebuild's process is gone (its lock with it), its mark left on the views: the
    one-shot update and the follower stop with ``projection_outdated`` saying it was
    interrupted (not that the views were built by another version)."""
    Runner(app).rebuild()
    Runner(app).reset(building=True)  # the first step of a rebuild killed at once
    def one_shot() -> int:
        return Runner(app).catch_up()

    def following() -> int:
        return follow(Runner(app), threading.Event(), 0.05, lambda _: None)

    for attempt in (one_shot, following):
        with pytest.raises(StateConflict) as stopped:
            attempt()
        assert stopped.value.code == "projection_outdated"
        assert "interrupted" in stopped.value.message
        assert "another version" not in stopped.value.message
        assert "`ledger projections rebuild`" in stopped.value.message


def test_a_follower_waiting_for_a_rebuild_that_dies_stops_as_outdated(
    app: LedgerApp, played: dict[str, str]
) -> None:
    Runner(app).rebuild()
    rebuilding = Runner(app)
    follower = _Follower(app)
    try:
        with rebuilding.rebuild_running():
            rebuilding.reset(building=True)
            _until(lambda: follower.said("projections_rebuilding"))
            assert follower.error is None, follower.error
        # the rebuild is gone without marking the views current
        follower.thread.join(60)
        assert not follower.thread.is_alive()
    finally:
        follower.end()
    assert isinstance(follower.error, StateConflict)
    assert follower.error.code == "projection_outdated"
    assert "interrupted" in follower.error.message
    assert all(s.outdated for s in Runner(app).status())
