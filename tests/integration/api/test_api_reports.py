"""The report endpoints over HTTP on both stores: roles, periods, the hands of a player, the
paytable of a High Card Flush table (fast to compute) and coded refusals."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from ledger.api import create_app
from ledger.settings import Settings
from ledger.sim.runner import simulate
from tests.support.http import Tokens, app_of, assert_error, bearer, make_tokens


@pytest.fixture
def api(store_settings: Settings) -> Iterator[tuple[TestClient, Tokens]]:
    app = create_app(store_settings)
    tokens = make_tokens(app, ["HCF-1"])
    with TestClient(app, raise_server_exceptions=False) as client:
        simulate(app_of(client).state.ledger, "high-card-flush", "HCF-1", 6, seed=5)
        yield client, tokens


def test_reports_over_http(api: tuple[TestClient, Tokens]) -> None:
    client, tokens = api
    day = client.get("/accounting/days", headers=bearer(tokens.accounting)).json()[0]
    r = client.get(f"/reports/hold?day={day}", headers=bearer(tokens.accounting))
    assert r.status_code == 200, r.text
    (table,) = r.json()["tables"]
    assert [c["label"] for c in table["columns"]] == ["day", "month_to_date", "year_to_date"]
    assert table["columns"][0]["hands"] == 6 and "expected_rake_minor" in table["columns"][0]
    r = client.get(f"/reports/players?month={day[:7]}", headers=bearer(tokens.auditor))
    players = r.json()["players"]
    assert players and all(p["hands"] > 0 for p in players)
    name = players[0]["player"]
    r = client.get(f"/hands?player={name}&from={day}&to={day}", headers=bearer(tokens.auditor))
    assert r.status_code == 200 and r.json()["items"]
    assert {h["player"] for h in r.json()["items"]} == {name}
    assert len(r.json()["items"]) == r.json()["total"] == players[0]["hands"]
    r = client.get("/tables/HCF-1/paytable", headers=bearer(tokens.admin))
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["mathematics"]["dp_qualifies"] == "0.75363731"  # HCF-8
    assert body["configs"][0]["digest"] == body["mathematics"]["digest"]
    assert body["rake"]["recorded_hands"] == 6


@pytest.mark.parametrize(("path", "status", "code"), [
    ("/reports/hold", 422, "invalid_period"),
    ("/reports/hold?day=2026-02-30", 422, "invalid_day"),
    ("/reports/hold?month=2026-13", 422, "invalid_month"),
    ("/reports/hold?from=2026-03-02&to=2026-03-01", 422, "invalid_period"),
    ("/reports/players?day=2026-03-01&month=2026-03", 422, "invalid_period"),
    ("/tables/NOPE-1/paytable", 404, "unknown_table"),
])
def test_bad_report_requests_are_coded(api: tuple[TestClient, Tokens], path: str, status: int,
                                      code: str) -> None:
    client, tokens = api
    assert_error(client.get(path, headers=bearer(tokens.auditor)), status, code)


def test_a_device_may_not_read_reports(api: tuple[TestClient, Tokens]) -> None:
    client, tokens = api
    assert_error(client.get("/reports/hold?month=2026-03", headers=bearer(tokens.device)), 403,
                 "forbidden")


def test_tray_commands_over_http(api: tuple[TestClient, Tokens]) -> None:
    """INV-1..3 are commands like the others: coded refusals, and the report answers."""
    client, tokens = api
    body = {"command_id": "fill-1", "chips": {"2500": 4}, "signers": ["cage-cleo", "floor-ben"]}
    assert_error(client.post("/tables/HCF-1/fills", json=body, headers=bearer(tokens.device)),
                 422, "inventory_not_house_banked")
    bad = {**body, "command_id": "fill-2", "chips": {"0": 4}}
    assert_error(client.post("/tables/HCF-1/fills", json=bad, headers=bearer(tokens.device)),
                 422, "invalid_command")
    r = client.get("/reports/inventory?month=2026-03", headers=bearer(tokens.accounting))
    assert r.status_code == 200 and r.json()["rows"] == []


def test_the_workbook_answers_when_its_snapshot_computes_the_mathematics(
        api: tuple[TestClient, Tokens], monkeypatch: pytest.MonkeyPatch) -> None:
    """The first workbook of a process whose paytable figures are in no cache computes them
    inside the export's read-only snapshot. Storing them there failed on PostgreSQL; the
    failure was swallowed, but it had aborted the snapshot's transaction, and the next read of
    the export answered a 500 (``InFailedSqlTransaction``). The fuzz run hit it when the
    workbook came before any other route that computes the figures."""
    from projections.reports import paytable

    client, tokens = api
    monkeypatch.setattr(paytable, "_MEMORY", {})
    day = client.get("/accounting/days", headers=bearer(tokens.accounting)).json()[0]
    for _ in range(2):  # computed inside the snapshot, then from memory
        r = client.get(f"/exports/workbook?day={day}", headers=bearer(tokens.accounting))
        assert r.status_code == 200, r.text
        assert r.content[:2] == b"PK"  # an xlsx is a zip
    r = client.get(f"/exports/accounting/{day}", headers=bearer(tokens.accounting))
    assert r.status_code == 200, r.text
