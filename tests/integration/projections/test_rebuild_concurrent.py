"""A rebuild read straight through (its views marked as being built, rows kept in memory
between batches) that another rebuild overtakes while it runs leaves the other's rows as they
are: it stops instead of writing what it kept on top of them."""

from __future__ import annotations

import pytest

from ledger.app.application import LedgerApp
from ledger.domain.errors import StateConflict
from projections.views import rebuild as parallel
from projections.views.registry import VIEW_TYPES
from projections.views.runner import Runner
from tests.integration.projections.conftest import dump_views

ALL_TABLES = tuple(t for cls in VIEW_TYPES.values() for t in cls.tables)


def test_a_rebuild_overtaken_by_another_stops_and_leaves_its_rows(
    app: LedgerApp, played: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    Runner(app, batch_size=97).rebuild()
    alone = dump_views(app, ALL_TABLES)
    monkeypatch.setattr(parallel, "MIN_EVENTS", 0)
    first = Runner(app, batch_size=97)
    calls = 0

    def meanwhile(_: int) -> None:  # a second operator's rebuild, run to its end
        nonlocal calls
        calls += 1
        if calls == 3:
            assert Runner(app, batch_size=89).rebuild() == first.head()

    with pytest.raises(StateConflict) as stopped:
        first.rebuild(progress=meanwhile)
    assert stopped.value.code == "projection_rebuilt_meanwhile"
    assert dump_views(app, ALL_TABLES) == alone
    assert all(not s.outdated and s.lag == 0 for s in Runner(app).status())


def test_a_rebuild_whose_views_another_started_over_does_not_mark_them_current(
    app: LedgerApp, played: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another rebuild empties the views after this one's last batch was read, and is killed
    at once: this one's last write would put only the rows it kept in the empty views and
    mark them current."""
    monkeypatch.setattr(parallel, "MIN_EVENTS", 0)
    first = Runner(app, batch_size=97)
    head, read = first.head(), 0

    def meanwhile(n: int) -> None:
        nonlocal read
        read += n
        if read == head:  # the other rebuild's first step, then it is killed
            Runner(app).reset(building=True)

    with pytest.raises(StateConflict) as stopped:
        first.rebuild(progress=meanwhile)
    assert stopped.value.code == "projection_rebuilt_meanwhile"
    assert all(s.outdated for s in Runner(app).status())


def test_a_catch_up_that_a_rebuild_overtakes_stops_as_outdated(
    app: LedgerApp, played: dict[str, str]
) -> None:
    """A follower (``projections update --follow``) checked the views' fingerprints just before
    a rebuild marked them as being built: its batch finds their positions moved and does not
    write into the views being built."""
    follower = Runner(app, batch_size=97)
    follower.rebuild()
    Runner(app).reset(building=True)  # a rebuild starts, after the follower's check
    with pytest.raises(StateConflict) as stopped:
        follower._catch_up(None, 1)
    assert stopped.value.code == "projection_outdated"


def test_events_written_during_a_rebuild_read_straight_through_are_in_its_views_once(
    app: LedgerApp, played: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from ledger.domain.commands import BuyIn, OpenTable, SeatPlayer

    monkeypatch.setattr(parallel, "MIN_EVENTS", 0)
    calls = 0

    def meanwhile(_: int) -> None:  # a table opened and a buy-in while the rebuild runs
        nonlocal calls
        calls += 1
        if calls == 3:
            app.execute(OpenTable(command_id="o", table="T9", game="caribbean-stud"))
            app.execute(SeatPlayer(command_id="s", table="T9", seat=1, player="p9"))
        if calls == 5:
            app.execute(BuyIn(command_id="b", table="T9", seat=1, amount=700))

    runner = Runner(app, batch_size=97)
    runner.rebuild(progress=meanwhile)
    assert calls > 5
    assert all(not s.outdated and s.lag == 0 for s in runner.status())
    during = dump_views(app, ALL_TABLES)
    Runner(app, batch_size=89).rebuild()
    assert dump_views(app, ALL_TABLES) == during
    assert any(row["table_code"] == "T9" for row in during["proj_transfers"])


def test_a_rebuild_read_straight_through_leaves_out_what_batch_by_batch_leaves_out(
    app: LedgerApp, played: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Numbers past 64 bits and hostile names (quotes, escapes, unicode) in the events: the rows
    and the events left out are those of a rebuild batch by batch."""
    from ledger.domain.commands import BuyIn, OpenTable, SeatPlayer

    app.execute(OpenTable(command_id="o", table="T8", game="caribbean-stud"))
    for seat, player in ((1, 'p"\\\u00e9\u2028'), (2, "p\U0001f600/<")):
        app.execute(SeatPlayer.model_construct(command_id=f"s{seat}", table="T8", seat=seat,
                                               player=player))
    app.execute(BuyIn.model_construct(command_id="huge", table="T8", seat=1, amount=2**70,
                                      kind="buy_in"))
    app.execute(BuyIn(command_id="b", table="T8", seat=2, amount=500))
    batch = Runner(app, batch_size=7)
    batch.rebuild()
    alone, rejected = dump_views(app, ALL_TABLES), [r.position for r in batch.left_out()]
    assert rejected
    monkeypatch.setattr(parallel, "MIN_EVENTS", 0)
    through = Runner(app, batch_size=97)
    through.rebuild()
    assert dump_views(app, ALL_TABLES) == alone
    assert [r.position for r in through.left_out()] == rejected


def test_a_rebuild_starting_over_waits_for_a_write_under_way_and_empties_its_rows(
    app: LedgerApp, played: dict[str, str]
) -> None:
    """A rebuild's write is under way (its transaction open, the mark checked) when another
    rebuild starts over: that one empties the views after the write has committed, not before
    (on PostgreSQL a DELETE does not wait for rows not yet committed: they were left in the
    views the other then built)."""
    import threading
    import time

    first = Runner(app)
    first.reset(building=True)
    second = Runner(app)
    second.setup()  # set up already (its tables' DDL would wait for the write)
    started = threading.Event()

    def start_over() -> None:
        started.set()
        second.reset(building=True)

    with first.store.transaction() as tx:
        first._own(tx)
        tx.execute("INSERT INTO {proj_tables} (table_code, table_id, game, currency, timezone, "
                   "opened_at, opened_by, config_version, hands, last_version, last_event_at) "
                   "VALUES ('Z1', 'z', 'g', 'EUR', 'UTC', 'a', 'b', 1, 0, 1, 'c')")
        other = threading.Thread(target=start_over)
        other.start()
        started.wait()
        time.sleep(0.5)  # the other's reset is waiting (or has emptied the views already)
    other.join()
    assert first.store.fetchall("SELECT table_code FROM {proj_tables}") == []
