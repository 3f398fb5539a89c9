"""The ledger application on a real store (SQLite and PostgreSQL, the same assertions)."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

from ledger.app.application import LedgerApp
from ledger.domain import accounts
from ledger.domain.cards import parse_cards
from ledger.domain.commands import (
    Act,
    BuyIn,
    ChangeConfig,
    DealCards,
    OpenTable,
    PlaceWager,
    Reveal,
    SeatPlayer,
    Settle,
    StartHand,
    command_from,
)
from ledger.domain.errors import ConcurrencyError, LedgerError
from ledger.settings import Settings
from ledger.store.postgres import LedgerPostgresRecorder
from ledger.store.sqlite import LedgerSQLiteRecorder
from ledger.table.events import table_id
from tests.support.driver import with_supervisors


@pytest.fixture
def app(store_settings: Settings) -> Iterator[LedgerApp]:
    ledger = LedgerApp(store_settings)
    yield ledger
    ledger.close()


def open_csp(app: LedgerApp, code: str = "CSP-1", recorded: bool = True, players: int = 2) -> None:
    config = {"card_source": "recorded"} if recorded else {}
    app.execute(
        OpenTable(command_id=f"{code}-open", table=code, game="caribbean-stud", config=config)
    )
    for seat in range(1, players + 1):
        app.execute(
            SeatPlayer(command_id=f"{code}-seat-{seat}", table=code, seat=seat, player=f"p{seat}")
        )
        app.execute(BuyIn(command_id=f"{code}-buy-{seat}", table=code, seat=seat, amount=40_000))


def version(app: LedgerApp, code: str) -> int:
    return len(app.recorder.select_events(table_id(code)))


def test_a_full_hand_is_recorded_and_settled(app: LedgerApp) -> None:
    open_csp(app)
    app.execute(StartHand(command_id="h1", table="CSP-1"))
    app.execute(PlaceWager(command_id="w1", table="CSP-1", seat=1, kind="ante", amount=1_000))
    app.execute(PlaceWager(command_id="w2", table="CSP-1", seat=2, kind="ante", amount=1_000))
    app.execute(PlaceWager(command_id="w3", table="CSP-1", seat=1, kind="jackpot", amount=100))
    app.execute(
        DealCards(
            command_id="d1",
            table="CSP-1",
            cards={
                "1": parse_cards("2h 6h 9h Jh Kh"),
                "2": parse_cards("2d 4c 7s 9c Qd"),
                "dealer": parse_cards("8c 8d 3h 5s Kc"),
            },
        )
    )
    app.execute(Act(command_id="a1", table="CSP-1", seat=1, action="play"))
    app.execute(Act(command_id="a2", table="CSP-1", seat=2, action="play"))
    app.execute(Reveal(command_id="r1", table="CSP-1"))
    result = app.execute(Settle(command_id="s1", table="CSP-1"))
    assert [e["type"] for e in result.events] == ["HandSettled"]
    with app.reading("CSP-1") as table:
        balances = table.state.balances
        assert balances[accounts.player("p1")] == 40_000 + 1_000 + 10_000 - 100 + 5_000
        assert balances[accounts.player("p2")] == 40_000 - 3_000
        assert sum(balances.values()) == 0
        assert not [a for a in balances if accounts.is_hand_scoped(a)]
    # a fresh application (no cache) rebuilds the same state from the store
    fresh = LedgerApp(app.settings)
    try:
        assert fresh.load("CSP-1").state.to_snapshot() == app.load("CSP-1").state.to_snapshot()
    finally:
        fresh.close()


@pytest.mark.parametrize(
    ("name", "fields", "code"),
    [
        ("deal", {"cards": {"1": ["As", "Ks", "Qs", "Js", "Xx"]}}, "unknown_card"),
        (
            "deal",
            {
                "cards": {
                    "1": ["As", "Ks", "Qs", "Js", "9h"],
                    "2": ["As", "2c", "3c", "4c", "5c"],
                    "dealer": ["6c", "7c", "8c", "9c", "Tc"],
                }
            },
            "duplicate_card",
        ),
        ("place_wager", {"seat": 3, "kind": "ante", "amount": 100}, "wager_below_minimum"),
        ("place_wager", {"seat": 3, "kind": "ante", "amount": 10_000_000}, "wager_above_maximum"),
        ("place_wager", {"seat": 3, "kind": "ante", "amount": 50_000}, "insufficient_chips"),
        ("act", {"seat": 2, "action": "play"}, "not_allowed_now"),
        (
            "change_config",
            {"config": {"max_aggregate_payout": 100}, "approver": "pit"},
            "config_change_mid_hand",
        ),
        ("start_hand", {}, "hand_in_progress"),
    ],
)
def test_bad_input_is_refused_with_a_code_and_appends_nothing(
    app: LedgerApp, name: str, fields: dict[str, object], code: str
) -> None:
    open_csp(app, players=3)
    app.execute(StartHand(command_id="h1", table="CSP-1"))
    app.execute(PlaceWager(command_id="w1", table="CSP-1", seat=1, kind="ante", amount=1_000))
    app.execute(PlaceWager(command_id="w2", table="CSP-1", seat=2, kind="ante", amount=1_000))
    before = version(app, "CSP-1")
    with pytest.raises(LedgerError) as err:
        app.execute(command_from(name, {"command_id": "bad", "table": "CSP-1", **fields}))
    assert err.value.code == code
    assert version(app, "CSP-1") == before
    assert isinstance(app.recorder, LedgerSQLiteRecorder | LedgerPostgresRecorder)
    assert app.recorder.select_command(str(table_id("CSP-1")), "bad") is None


def test_play_not_double_the_ante_and_out_of_turn_are_refused(app: LedgerApp) -> None:
    open_csp(app)
    for cmd in (
        StartHand(command_id="h1", table="CSP-1"),
        PlaceWager(command_id="w1", table="CSP-1", seat=1, kind="ante", amount=1_000),
        PlaceWager(command_id="w2", table="CSP-1", seat=2, kind="ante", amount=1_000),
        DealCards(
            command_id="d1",
            table="CSP-1",
            cards={
                "1": parse_cards("2h 6h 9h Jh Kh"),
                "2": parse_cards("2d 4c 7s 9c Qd"),
                "dealer": parse_cards("8c 8d 3h 5s Kc"),
            },
        ),
    ):
        app.execute(cmd)
    before = version(app, "CSP-1")
    with pytest.raises(LedgerError) as err:
        app.execute(Act(command_id="x1", table="CSP-1", seat=1, action="play", amount=1_500))
    assert err.value.code == "play_must_be_double_ante"
    with pytest.raises(LedgerError) as err:
        app.execute(Act(command_id="x2", table="CSP-1", seat=2, action="fold"))
    assert err.value.code == "out_of_turn"
    assert version(app, "CSP-1") == before


def test_unknown_table_is_refused(app: LedgerApp) -> None:
    with pytest.raises(LedgerError) as err:
        app.execute(StartHand(command_id="h1", table="NOPE"))
    assert err.value.code == "unknown_table"


def test_a_repeated_command_id_appends_nothing_and_returns_the_first_answer(app: LedgerApp) -> None:
    open_csp(app)
    first = app.execute(StartHand(command_id="same", table="CSP-1"))
    before = version(app, "CSP-1")
    again = app.execute(StartHand(command_id="same", table="CSP-1"))
    assert again.replayed and not first.replayed
    assert again.events == first.events
    assert version(app, "CSP-1") == before
    # the same id with other content is an error, not a replay
    with pytest.raises(LedgerError) as err:
        app.execute(PlaceWager(command_id="same", table="CSP-1", seat=1, kind="ante", amount=1_000))
    assert err.value.code == "command_id_reused"
    # a repeated open appends nothing either
    assert app.execute(
        OpenTable(
            command_id="CSP-1-open",
            table="CSP-1",
            game="caribbean-stud",
            config={"card_source": "recorded"},
        )
    ).replayed


def test_command_ids_are_per_table(app: LedgerApp) -> None:
    """Two tables' devices may both count from c-1: an id is only a repeat on its own table."""
    open_csp(app, "CSP-1")
    open_csp(app, "CSP-2")
    one = app.execute(StartHand(command_id="c-1", table="CSP-1"))
    two = app.execute(StartHand(command_id="c-1", table="CSP-2"))
    assert not one.replayed and not two.replayed and one.table != two.table
    assert app.execute(StartHand(command_id="c-1", table="CSP-2")).replayed
    with pytest.raises(LedgerError) as err:
        app.execute(PlaceWager(command_id="c-1", table="CSP-2", seat=1, kind="ante",
                               amount=1_000))
    assert err.value.code == "command_id_reused"


def test_opening_a_table_twice_is_refused(app: LedgerApp) -> None:
    open_csp(app)
    with pytest.raises(LedgerError) as err:
        app.execute(OpenTable(command_id="again", table="csp-1", game="caribbean-stud"))
    assert err.value.code == "table_exists"


def test_config_change_records_the_approver_and_bumps_the_version(app: LedgerApp) -> None:
    open_csp(app)
    with_supervisors(app, {"shift-manager": ("S. Manager", "supervisor")})
    result = app.execute(
        ChangeConfig(
            command_id="c1",
            table="CSP-1",
            approver="shift-manager",
            reason="new limits",
            config={"limits": {"ante": {"min": 1_000, "max": 20_000}}},
        )
    )
    (event,) = result.events
    assert event["approver"] == "shift-manager" and event["config_version"] == 2
    with pytest.raises(LedgerError) as err:
        app.execute(
            ChangeConfig(
                command_id="c2",
                table="CSP-1",
                approver="x",
                config={"limits": {"ante": {"min": 5, "max": 1}}},
            )
        )
    assert err.value.code == "invalid_config"
    before = version(app, "CSP-1")
    for config, code in (
        ({"game": "high-card-flush"}, "config_game_mismatch"),
        ({"limits": {"ante": {"min": 1_000, "max": 20_000}}}, "config_unchanged"),
        ({"game": "caribbean-stud"}, "config_unchanged"),
    ):
        with pytest.raises(LedgerError) as err:
            app.execute(ChangeConfig(command_id="c3", table="CSP-1", approver="x", config=config))
        assert err.value.code == code
    assert version(app, "CSP-1") == before


def test_concurrent_writers_on_one_table_lose_nothing(store_settings: Settings) -> None:
    """Two application instances (two processes' worth of caches) append to one table."""
    first, second = LedgerApp(store_settings), LedgerApp(store_settings)
    try:
        open_csp(first, players=6)
        second.load("CSP-1")  # warm its cache, so it goes stale
        errors: list[BaseException] = []

        def seat_buys(app: LedgerApp, seat: int) -> None:
            try:
                for n in range(10):
                    command = BuyIn(command_id=f"c-{seat}-{n}", table="CSP-1", seat=seat,
                                    amount=100)
                    # A writer that lost every retry to the others (a loaded machine) is told
                    # concurrent_updates, stores nothing, and sends the same command again, as
                    # a device does: it must still be applied exactly once.
                    for _ in range(20):
                        try:
                            app.execute(command)
                            break
                        except ConcurrencyError:
                            continue
                    else:  # pragma: no cover - reported below
                        raise AssertionError(f"{command.command_id} never got in")
            except BaseException as exc:  # pragma: no cover - reported below
                errors.append(exc)

        threads = [
            threading.Thread(target=seat_buys, args=(app, seat))
            for app, seat in ((first, 1), (second, 2), (first, 3), (second, 4))
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not errors
        fresh = LedgerApp(store_settings)
        try:
            balances = fresh.load("CSP-1").state.balances
        finally:
            fresh.close()
        for seat in (1, 2, 3, 4):
            assert balances[accounts.player(f"p{seat}")] == 40_000 + 10 * 100
        assert version(first, "CSP-1") == 1 + 6 * 2 + 40
    finally:
        first.close()
        second.close()


def test_snapshots_bound_the_replay_and_give_the_same_state(store_settings: Settings) -> None:
    app = LedgerApp(store_settings)
    try:
        open_csp(app, recorded=False, players=1)
        for n in range(60):
            app.execute(BuyIn(command_id=f"b{n}", table="CSP-1", seat=1, amount=100))
        assert app.snapshots is not None  # snapshotting is on (snapshot_interval)
        snapshots = list(app.snapshots.get(table_id("CSP-1")))
        assert [s.originator_version for s in snapshots] == [50]
        fresh = LedgerApp(store_settings)
        try:
            assert fresh.load("CSP-1").state.to_snapshot() == app.load("CSP-1").state.to_snapshot()
            assert fresh.load("CSP-1").chain_head == app.load("CSP-1").chain_head
        finally:
            fresh.close()
    finally:
        app.close()


def test_a_table_whose_stored_stream_was_edited_refuses_to_load(store_settings: Settings) -> None:
    from tests.support.tamper import replace_in_event

    app = LedgerApp(store_settings)
    try:
        open_csp(app)
        replace_in_event(app, table_id("CSP-1"), 3, '"amount":40000', '"amount":90000')
        fresh = LedgerApp(store_settings)
        try:
            with pytest.raises(LedgerError) as err:
                fresh.execute(StartHand(command_id="h1", table="CSP-1"))
            assert err.value.code == "table_chain_broken"
            assert err.value.details["version"] == 4
        finally:
            fresh.close()
    finally:
        app.close()


def test_a_failing_snapshot_does_not_fail_the_command(
    store_settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = LedgerApp(store_settings)
    try:
        open_csp(app, recorded=False, players=1)

        def broken(*_: object, **__: object) -> None:
            raise RuntimeError("snapshot store unavailable")

        monkeypatch.setattr(app.snapshots, "put", broken)
        for n in range(50):
            app.execute(BuyIn(command_id=f"b{n}", table="CSP-1", seat=1, amount=100))
        assert version(app, "CSP-1") == 53
    finally:
        app.close()


def test_simulated_caribbean_hands_conserve_chips_in_the_store(store_settings: Settings) -> None:
    """Property over many random hands on a real store: the sum of all accounts is zero, the
    non-cage accounts hold exactly what the cage issued, and spots are empty between hands."""
    from ledger.sim.runner import simulate

    app = LedgerApp(store_settings)
    try:
        stats = simulate(app, "caribbean-stud", "CSP-9", 60, players=6, seed=99)
        assert stats.hands == 60
        fresh = LedgerApp(store_settings)
        try:
            balances = fresh.load("CSP-9").state.balances
        finally:
            fresh.close()
        assert sum(balances.values()) == 0
        issued = -balances.get(accounts.CAGE, 0)
        assert sum(v for k, v in balances.items() if k != accounts.CAGE) == issued > 0
        assert not [a for a in balances if accounts.is_hand_scoped(a)]
    finally:
        app.close()


def test_a_command_log_keyed_by_command_id_alone_is_migrated(store_settings: Settings) -> None:
    """Stores made before command ids were per table get the per-table key when opened by a
    user that owns them; the rows already logged are kept."""
    old = ("CREATE TABLE {t} (command_id TEXT PRIMARY KEY, table_id TEXT NOT NULL, "
           "command TEXT NOT NULL, payload_sha256 TEXT NOT NULL, result TEXT NOT NULL, "
           "recorded_at TEXT NOT NULL DEFAULT 'then')")
    row = ("INSERT INTO {t} (command_id, table_id, command, payload_sha256, result) "
           "VALUES ('old-1', 'somewhere', 'start_hand', 'x', '{{}}')")
    if store_settings.database_url.startswith("sqlite"):
        import sqlite3

        path = store_settings.database_url.removeprefix("sqlite:///")
        with sqlite3.connect(path) as conn:
            conn.execute(old.format(t="ledger_commands"))
            conn.execute(row.format(t="ledger_commands"))
    else:
        import psycopg

        table = f'"{store_settings.postgres_schema}".ledger_commands'
        with psycopg.connect(store_settings.database_url, autocommit=True) as pg:
            pg.execute(old.format(t=table).encode())
            pg.execute(row.format(t=table).encode())
    app = LedgerApp(store_settings)
    try:
        open_csp(app, "CSP-1")
        open_csp(app, "CSP-2")
        app.execute(StartHand(command_id="c-1", table="CSP-1"))
        assert not app.execute(StartHand(command_id="c-1", table="CSP-2")).replayed
        assert isinstance(app.recorder, LedgerSQLiteRecorder | LedgerPostgresRecorder)
        assert app.recorder.select_command("somewhere", "old-1") is not None
    finally:
        app.close()
