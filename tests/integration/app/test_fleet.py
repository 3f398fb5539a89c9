"""Several service instances on one store (DESIGN "Several processes, one truth"): a read of a
table through any instance reflects every event committed before it, whichever instance wrote
it; the views through any instance catch up with writes made through another."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from ledger.api import create_app
from ledger.app.application import LedgerApp
from ledger.domain.commands import BuyIn, OpenTable, SeatPlayer
from ledger.domain.errors import LedgerError
from ledger.settings import Settings
from ledger.table.events import table_id
from tests.support.http import bearer, make_tokens


def test_a_write_through_one_application_is_in_the_next_read_through_another(
        store_settings: Settings) -> None:
    a, b = LedgerApp(store_settings), LedgerApp(store_settings)
    try:
        a.execute(OpenTable(command_id="open", table="F1", game="caribbean-stud"))
        a.execute(SeatPlayer(command_id="s1", table="F1", seat=1, player="p1"))
        assert b.load("F1").version == 2  # now cached in b
        for n in range(3):
            done = a.execute(BuyIn(command_id=f"b{n}", table="F1", seat=1, amount=1_000))
            with b.reading("F1") as table:  # served from b's cache, brought forward
                assert table.version == done.table_version
                assert table.state.balances["player:p1"] == 1_000 * (n + 1)
        done = b.execute(BuyIn(command_id="from-b", table="F1", seat=1, amount=500))
        assert not done.replayed and a.load("F1").version == done.table_version
    finally:
        a.close()
        b.close()


def test_a_command_on_a_stale_cache_decides_on_the_state_another_instance_wrote(
        store_settings: Settings) -> None:
    """A command is decided on the cached table without reading the store first (issue 29);
    when another instance moved the table, the save's version check refuses it and the command
    is decided again on the table as stored, whether the stale state would have accepted it
    or refused it. Nothing is lost or recorded twice."""
    a, b = LedgerApp(store_settings), LedgerApp(store_settings)
    b.SHARED_FOR_S = 0.0  # each command on b's cache as it stands, even after a clash
    try:
        a.execute(OpenTable(command_id="open", table="F3", game="caribbean-stud"))
        a.execute(SeatPlayer(command_id="s1", table="F3", seat=1, player="p1"))
        assert b.load("F3").version == 2  # b caches the table at version 2
        # Accepted on b's stale state (seat 2 empty there), refused on the stored one.
        a.execute(SeatPlayer(command_id="s2", table="F3", seat=2, player="p2"))
        with pytest.raises(LedgerError):
            b.execute(SeatPlayer(command_id="s2-b", table="F3", seat=2, player="p9"))
        # Refused on b's stale state (nobody at seat 3 there), accepted on the stored one.
        b._evict(table_id("F3"))
        assert b.load("F3").version == 3
        a.execute(SeatPlayer(command_id="s3", table="F3", seat=3, player="p3"))
        done = b.execute(BuyIn(command_id="buy-3", table="F3", seat=3, amount=700))
        assert not done.replayed and done.table_version == 5
        # A plain command on a stale cache: decided again on the stored table.
        a.execute(BuyIn(command_id="buy-1", table="F3", seat=1, amount=100))
        b.execute(BuyIn(command_id="buy-1b", table="F3", seat=1, amount=200))
        with a.reading("F3") as table:
            assert table.version == 7
            assert table.state.balances["player:p1"] == 300
            assert table.state.balances["player:p3"] == 700
            assert table.state.seats[2] == "p2"
        assert len(a.recorder.select_events(table_id("F3"))) == 7
    finally:
        a.close()
        b.close()


def _post(client: TestClient, token: str, path: str, **body: Any) -> Any:
    r = client.post(path, json=body, headers=bearer(token))
    assert r.status_code in (200, 201), r.text
    return r.json()


def test_two_api_instances_on_one_store_read_each_others_writes(
        store_settings: Settings) -> None:
    first, second = create_app(store_settings), create_app(store_settings)
    tokens = make_tokens(first, ["F2"])  # in the store: the second instance knows them too
    with TestClient(first) as a, TestClient(second) as b:
        _post(a, tokens.admin, "/tables", command_id="open", table="F2", game="caribbean-stud")
        _post(a, tokens.device, "/tables/F2/seats", command_id="s1", seat=1, player="p1")
        device = bearer(tokens.device)
        assert b.get("/tables/F2", headers=device).json()["version"] == 2
        for n in range(3):
            done = _post(a, tokens.device, "/tables/F2/buy-ins", command_id=f"b{n}", seat=1,
                         amount=1_000)
            seen = b.get("/tables/F2", headers=device).json()
            assert seen["version"] == done["table_version"]
            assert seen["balances"]["player:p1"] == 1_000 * (n + 1)
        _post(b, tokens.device, "/tables/F2/hands", command_id="h1")
        assert a.get("/tables/F2", headers=device).json()["hand_no"] == 1
        answer = a.get("/hands", params={"table": "F2"}, headers=bearer(tokens.auditor))
        assert [h["hand_no"] for h in answer.json()["items"]] == [1]
        # The answer says how far the views have read the event log: here, all of it.
        head = b.get("/projections", headers=bearer(tokens.auditor)).json()[0]["head"]
        assert int(answer.headers["X-Ledger-Views-Position"]) == head > 0
        listed = b.get("/tables", headers=bearer(tokens.auditor)).json()
        assert [t["table_code"] for t in listed] == ["F2"]
