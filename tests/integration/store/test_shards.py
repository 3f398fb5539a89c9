"""Tables spread over two stores (``LEDGER_SHARDS``): two SQLite files, or two PostgreSQL
databases. Commands go to their table's store; the views, the audit, exports, seals and the API
cover both; a code no shard holds and a table the map would move are refused, nothing appended.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from fastapi.testclient import TestClient

from ledger.api import create_app
from ledger.app.application import LedgerApp
from ledger.app.fleet import Fleet, open_ledger
from ledger.domain.commands import OpenTable, SeatPlayer
from ledger.domain.errors import LedgerError
from ledger.settings import Settings
from ledger.table.events import table_id
from projections.audit.reader import PinnedStore
from projections.audit.seal import make_seal
from projections.audit.verify import verify
from projections.exports.accounting import export_accounting
from projections.exports.hands import export_hands
from projections.read.fleet import FleetReadModel, each, read_model, runner
from projections.read.queries import ReadModel
from projections.read.search import search_hands
from projections.reports.players import player_hands
from projections.reports.rake_report import rake_stats
from tests.conftest import fresh_databases
from tests.integration.projections.conftest import play
from tests.support.http import bearer, make_tokens, play_table

HANDS = {"caribbean-stud": 3, "high-card-flush": 3, "chinese-poker": 2, "stud-hilo": 3}
EAST = ("CSP-1", "HCF-1")
WEST = ("CHP-1", "STUD8-1")


def shard_map(east: str, west: str, *, swap: bool = False) -> str:
    first, second = ("CHP-*, STUD8-*", "CSP-*, HCF-*") if swap else ("CSP-*, HCF-*",
                                                                     "CHP-*, STUD8-*")
    return f"east: {first} = {east}; west: {second} = {west}"


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def stores(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[str, str]]:
    """The URLs of two empty stores: SQLite files, or PostgreSQL databases (dropped after)."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path}/east.sqlite3", f"sqlite:///{tmp_path}/west.sqlite3"
        return
    with fresh_databases("ledger_shard", 2) as (east, west):
        yield east, west


def settings_for(stores: tuple[str, str], tmp_path: Path, *, swap: bool = False) -> Settings:
    return Settings(shards=shard_map(*stores, swap=swap), deck_key_file=tmp_path / "deck.key",
                    snapshot_interval=50, log_level="WARNING")


@pytest.fixture
def fleet(stores: tuple[str, str], tmp_path: Path) -> Iterator[Fleet]:
    ledger = Fleet.open(settings_for(stores, tmp_path), allow_seeded=True)
    yield ledger
    ledger.close()


def held_by(app: LedgerApp, code: str) -> bool:
    return bool(app.recorder.select_events(table_id(code), limit=1))


def test_tables_on_two_shards_are_played_audited_and_exported_across_both(
        fleet: Fleet, tmp_path: Path) -> None:
    play(fleet, HANDS)  # type: ignore[arg-type]  # a fleet executes as an application does
    east, west = fleet.apps["east"], fleet.apps["west"]
    assert [c for c in (*EAST, *WEST) if held_by(east, c)] == list(EAST)
    assert [c for c in (*EAST, *WEST) if held_by(west, c)] == list(WEST)

    assert runner(fleet).catch_up() > 0
    read = read_model(fleet)
    assert isinstance(read, FleetReadModel)
    assert [t["table_code"] for t in read.tables()] == sorted((*EAST, *WEST))
    assert read.count_hands() == sum(HANDS.values())
    every = read.hands(limit=100)
    assert [(h["table_code"], h["hand_no"]) for h in every] == sorted(
        (h["table_code"], h["hand_no"]) for h in every)
    assert read.hands(limit=4, offset=2) == every[2:6]  # pages cut after the merge
    found = search_hands(read, limit=3, offset=4)
    assert found["total"] == read.count_hands()
    assert [(h["table_code"], h["hand_no"]) for h in found["items"]] == [
        (h["table_code"], h["hand_no"]) for h in every[4:7]]
    assert read.hand("STUD8-1", 1)["table_code"] == "STUD8-1"
    (day,) = read.gaming_days()
    assert {r["table_code"] for r in read.accounting(day=day)} == {*EAST, *WEST}

    report = verify(fleet)
    assert report.ok, report.as_dict()["discrepancies"]
    assert sorted(report.tables) == sorted((*EAST, *WEST))
    assert report.hands_checked == sum(HANDS.values())
    one = verify(fleet, table="chp-1")
    assert one.tables == ["CHP-1"] and one.ok

    with pytest.raises(LedgerError) as sealing:  # one store's chain (docs/operations/shards.md)
        make_seal(fleet, day, Ed25519PrivateKey.generate())
    assert sealing.value.code == "not_across_shards"
    with pytest.raises(LedgerError) as checking:
        verify(fleet, seal={"gaming_day": day})
    assert checking.value.code == "not_across_shards"

    with read.snapshot() as pinned:  # exports: each store read in one snapshot of its own
        assert all(isinstance(m.store, PinnedStore) for m in each(pinned))
        assert len(each(pinned)) == 2
    written = {w.path.name: w.rows for w in export_accounting(read, day, tmp_path / "out")}
    assert written[f"accounting-{day}.csv"] == 4
    hands = export_hands(fleet, read, day, "jsonl", tmp_path / "jsonl")
    assert hands.hands == sum(HANDS.values())
    phh = export_hands(fleet, read, day, "phh", tmp_path / "phh")  # stud lives in the west
    assert phh.hands == len(phh.written) == HANDS["stud-hilo"]  # each read from its store

    assert rake_stats(read, "STUD8-1")["hands"] == HANDS["stud-hilo"]  # the west's rows
    players = {p["player"] for p in read.player_totals()}
    some = sorted(players)[0]
    mine = player_hands(read, some, limit=1_000)
    assert mine and player_hands(read, some, limit=2, offset=1) == mine[1:3]


def test_the_fleets_views_agree_with_each_stores_own(fleet: Fleet,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    play(fleet, HANDS)  # type: ignore[arg-type]
    runner(fleet).catch_up()
    read = read_model(fleet)
    own = [ReadModel(app) for app in fleet.apps.values()]
    balances = read.balances()
    assert balances == sorted((r for m in own for r in m.balances()),
                              key=lambda r: (r["table_code"], r["account"]))
    monkeypatch.setattr("projections.views.rebuild.MIN_EVENTS", 1)  # worker processes per store
    assert runner(fleet).rebuild(jobs=2) > 0
    assert read_model(fleet).balances() == balances
    totals = {p["player"]: p["balance_minor"] for p in read.player_totals()}
    for model in own:
        for row in model.player_totals():
            assert row["player"] in totals
    assert sum(totals.values()) == sum(r["balance_minor"] for m in own
                                       for r in m.player_totals())
    statuses = runner(fleet).status()
    assert {s.shard for s in statuses} == {"east", "west"}
    assert all(s.lag == 0 for s in statuses)


def test_a_code_no_shard_holds_is_refused_and_nothing_is_appended(fleet: Fleet) -> None:
    with pytest.raises(LedgerError) as caught:
        fleet.execute(OpenTable(command_id="o", table="ZZ-1", game="caribbean-stud"))
    assert caught.value.code == "no_shard"
    assert not any(held_by(app, "ZZ-1") for app in fleet.apps.values())
    with pytest.raises(LedgerError) as read:
        read_model(fleet).hands(table="ZZ-1")
    assert read.value.code == "no_shard"


def test_a_table_never_moves_when_the_map_is_edited(stores: tuple[str, str],
                                                    tmp_path: Path) -> None:
    first = Fleet.open(settings_for(stores, tmp_path))
    first.execute(OpenTable(command_id="o", table="CSP-9", game="caribbean-stud"))
    first.close()
    swapped = Fleet.open(settings_for(stores, tmp_path, swap=True))  # CSP-* now in the west
    try:
        for command in (SeatPlayer(command_id="s", table="CSP-9", seat=1, player="p1"),
                        OpenTable(command_id="o2", table="CSP-9", game="caribbean-stud")):
            with pytest.raises(LedgerError) as caught:
                swapped.execute(command)
            assert caught.value.code == "table_moved"
            assert caught.value.details == {"table": "CSP-9", "held_by": "east",
                                             "mapped_to": "west"}
        with pytest.raises(LedgerError) as read:
            swapped.load("csp-9")
        assert read.value.code == "table_moved"
        assert not held_by(swapped.apps["west"], "CSP-9")
        assert swapped.apps["east"].load("CSP-9").version == 1  # untouched where it lives
    finally:
        swapped.close()


def test_without_a_map_the_ledger_is_the_one_application(tmp_path: Path) -> None:
    app = open_ledger(Settings(database_url=f"sqlite:///{tmp_path}/one.sqlite3",
                               deck_key_file=tmp_path / "deck.key"))
    try:
        assert isinstance(app, LedgerApp)
        assert type(read_model(app)) is ReadModel
    finally:
        app.close()


def test_the_api_routes_commands_and_reads_over_both_shards(fleet: Fleet) -> None:
    api = create_app(fleet.settings, ledger=fleet)
    tokens = make_tokens(api, ["CSP-1", "CHP-1"])
    assert held_by(fleet.home, "CSP-1") is False  # tokens live in the home store's own table
    with TestClient(api, raise_server_exceptions=False) as client:
        play_table(client, tokens, "caribbean-stud", "CSP-1", 2, seed=3)
        play_table(client, tokens, "chinese-poker", "CHP-1", 2, seed=4)
        assert held_by(fleet.apps["east"], "CSP-1") and held_by(fleet.apps["west"], "CHP-1")
        auditor = bearer(tokens.auditor)
        listed = client.get("/tables", headers=auditor).json()
        assert [t["table_code"] for t in listed] == ["CHP-1", "CSP-1"]
        state = client.get("/tables/CHP-1", headers=auditor)
        assert state.status_code == 200 and state.json()["game"] == "chinese-poker"
        hands = client.get("/hands", headers=auditor).json()
        assert {h["table_code"] for h in hands["items"]} == {"CSP-1", "CHP-1"}
        assert hands["total"] == len(hands["items"])
        audit = client.get("/audit/verify", headers=auditor).json()
        assert audit["ok"] and sorted(audit["tables"]) == ["CHP-1", "CSP-1"]
        replay = client.get("/tables/CHP-1/hands/1/replay", headers=auditor)
        assert replay.status_code == 200 and replay.json()["ok"]
        refused = client.post("/tables", headers=bearer(tokens.admin), json={
            "command_id": "z", "table": "ZZ-1", "game": "caribbean-stud"})
        assert refused.status_code == 422 and refused.json()["error"]["code"] == "no_shard"
        metrics = client.get("/metrics", headers=auditor).text
        assert "ledger_projection_lag_events" in metrics




def test_the_fleets_read_model_answers_every_query_itself() -> None:
    """A query the fleet did not merge would silently read the home store alone."""
    queries = {name for name in vars(ReadModel) if not name.startswith("__")}
    assert queries <= set(vars(FleetReadModel))
