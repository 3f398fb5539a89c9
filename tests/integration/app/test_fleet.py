"""Several service instances on one store (DESIGN "Several processes, one truth"): a read of a
table through any instance reflects every event committed before it, whichever instance wrote
it; the views through any instance catch up with writes made through another."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from ledger.api import create_app
from ledger.app.application import LedgerApp
from ledger.domain.commands import BuyIn, OpenTable, SeatPlayer
from ledger.settings import Settings
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
