"""Who may do what over HTTP: every role is refused what it may not do, on SQLite and PostgreSQL.

Each refusal has the one error shape, is logged, and appends nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import structlog
from fastapi.testclient import TestClient

from ledger.api import create_app
from ledger.api.commands import ENDPOINTS
from ledger.settings import Settings
from tests.support.http import (
    Tokens,
    app_of,
    assert_error,
    bearer,
    events_stored,
    make_tokens,
)

ROLES = ("admin", "auditor", "accounting", "device")


@pytest.fixture
def api(store_settings: Settings) -> Iterator[tuple[TestClient, Tokens]]:
    app = create_app(store_settings)
    tokens = make_tokens(app, ["T1"])
    with TestClient(app, raise_server_exceptions=False) as client:
        yield client, tokens


def token_of(tokens: Tokens, role: str) -> str:
    return str(getattr(tokens, role))


def open_table(client: TestClient, tokens: Tokens, code: str = "T1") -> None:
    r = client.post("/tables", json={"command_id": f"open-{code}", "table": code,
                                     "game": "caribbean-stud"}, headers=bearer(tokens.admin))
    assert r.status_code == 201, r.text


def routes(client: TestClient) -> list[tuple[str, str]]:
    """Every (method, path) of the OpenAPI document, plus the document itself."""
    paths = app_of(client).openapi()["paths"]
    found = [("GET", "/openapi.json")]
    for path, operations in paths.items():
        concrete = path.replace("{code}", "T1").replace("{token_id}", "0" * 12)
        found.extend((method.upper(), concrete) for method in operations)
    return found


def test_only_health_and_ready_are_open(api: tuple[TestClient, Tokens]) -> None:
    client, _ = api
    assert client.get("/health").json()["status"] == "ok"
    assert client.get("/ready").json()["status"] == "ready"
    checked = 0
    for method, path in routes(client):
        if path in ("/health", "/ready"):
            continue
        assert_error(client.request(method, path, json={}), 401, "missing_token")
        bad = client.request(method, path, json={}, headers=bearer("ltk_000000000000_" + "x" * 43))
        assert_error(bad, 401, "invalid_token")
        assert bad.headers["www-authenticate"] == "Bearer"
        checked += 1
    assert checked >= len(ENDPOINTS) + 5


def test_a_revoked_token_gets_401_at_once(api: tuple[TestClient, Tokens]) -> None:
    client, tokens = api
    made = client.post("/tokens", json={"role": "auditor", "label": "temp"},
                       headers=bearer(tokens.admin))
    assert made.status_code == 201
    token, token_id = made.json()["token"], made.json()["token_id"]
    assert client.get("/metrics", headers=bearer(token)).status_code == 200
    revoked = client.delete(f"/tokens/{token_id}", headers=bearer(tokens.admin))
    assert revoked.status_code == 200 and revoked.json()["revoked_at"]
    assert_error(client.get("/metrics", headers=bearer(token)), 401, "invalid_token")
    listed = client.get("/tokens", headers=bearer(tokens.admin)).json()
    assert all("token" not in t and "secret_sha256" not in t for t in listed)
    assert_error(client.delete("/tokens/" + "f" * 12, headers=bearer(tokens.admin)),
                 404, "unknown_token")


def allowed(spec_roles: tuple[str, ...], role: str) -> bool:
    return role in spec_roles


def test_each_role_is_refused_the_commands_it_may_not_send(
    api: tuple[TestClient, Tokens],
) -> None:
    client, tokens = api
    open_table(client, tokens)
    before = events_stored(client)
    for spec in ENDPOINTS:
        path = spec.path.replace("{code}", "T1")
        for role in ROLES:
            if role in spec.roles:
                continue
            # A well-formed body: only the role is wrong.
            body: dict[str, Any] = {"command_id": f"x-{role}-{spec.command.__name__}"}
            r = client.post(path, json=body, headers=bearer(token_of(tokens, role)))
            assert_error(r, 403, "forbidden")
    assert events_stored(client) == before


@pytest.mark.parametrize("role", ["auditor", "accounting", "device"])
def test_only_admin_manages_tokens(api: tuple[TestClient, Tokens], role: str) -> None:
    client, tokens = api
    h = bearer(token_of(tokens, role))
    assert_error(client.get("/tokens", headers=h), 403, "forbidden")
    assert_error(client.post("/tokens", json={"role": "admin"}, headers=h), 403, "forbidden")
    assert_error(client.delete("/tokens/" + "0" * 12, headers=h), 403, "forbidden")


def test_a_device_writes_and_reads_only_its_own_tables(api: tuple[TestClient, Tokens]) -> None:
    client, tokens = api
    open_table(client, tokens, "T1")
    open_table(client, tokens, "T2")
    before = events_stored(client)
    h = bearer(tokens.device)
    r = client.post("/tables/T2/seats", json={"command_id": "s", "seat": 1, "player": "p"},
                    headers=h)
    assert_error(r, 403, "table_not_in_scope")
    assert_error(client.get("/tables/T2", headers=h), 403, "table_not_in_scope")
    assert events_stored(client) == before
    # Table codes are case-insensitive: t1 is T1.
    r = client.post("/tables/t1/seats", json={"command_id": "s", "seat": 1, "player": "p"},
                    headers=h)
    assert r.status_code == 201, r.text


def test_a_seat_bound_device_wagers_and_acts_for_its_seat_only(
    api: tuple[TestClient, Tokens],
) -> None:
    client, tokens = api
    open_table(client, tokens)
    table = bearer(tokens.device)
    for seat in (1, 2):
        client.post("/tables/T1/seats", json={"command_id": f"s{seat}", "seat": seat,
                                              "player": f"p{seat}"}, headers=table)
        client.post("/tables/T1/buy-ins", json={"command_id": f"b{seat}", "seat": seat,
                                                "amount": 50_000}, headers=table)
    client.post("/tables/T1/hands", json={"command_id": "h1"}, headers=table)
    made = client.post("/tokens", json={"role": "device", "tables": ["T1"], "seat": 2},
                       headers=bearer(tokens.admin))
    seat2 = bearer(made.json()["token"])
    before = events_stored(client)
    r = client.post("/tables/T1/hands/current/wagers",
                    json={"command_id": "w1", "seat": 1, "kind": "ante", "amount": 1000},
                    headers=seat2)
    assert_error(r, 403, "seat_not_in_scope")
    assert_error(client.post("/tables/T1/hands/current/deal", json={"command_id": "d"},
                             headers=seat2), 403, "forbidden")
    assert events_stored(client) == before
    r = client.post("/tables/T1/hands/current/wagers",
                    json={"command_id": "w2", "seat": 2, "kind": "ante", "amount": 1000},
                    headers=seat2)
    assert r.status_code == 201, r.text


def test_an_auditor_never_writes_and_accounting_never_sees_cards(
    api: tuple[TestClient, Tokens],
) -> None:
    client, tokens = api
    open_table(client, tokens)
    before = events_stored(client)
    for spec in ENDPOINTS:
        r = client.post(spec.path.replace("{code}", "T1"), json={"command_id": "a"},
                        headers=bearer(tokens.auditor))
        assert_error(r, 403, "forbidden")
    assert events_stored(client) == before
    state = client.get("/tables/T1", headers=bearer(tokens.accounting))
    assert state.status_code == 200 and state.json()["hand"] is None


READS: dict[str, tuple[str, ...]] = {
    "/tables": ("admin", "auditor", "accounting", "device"),
    "/tables/T1": ("admin", "auditor", "accounting", "device"),
    "/tables/T1/configs": ("admin", "auditor"),
    "/hands": ("auditor",),
    "/tables/T1/hands/1": ("auditor",),
    "/tables/T1/hands/1/replay": ("auditor",),
    "/bankrolls": ("auditor", "accounting"),
    "/bankrolls/players": ("auditor", "accounting"),
    "/bankrolls/days/2026-01-01": ("auditor", "accounting"),
    "/tables/T1/accounts/house/movements": ("auditor", "accounting"),
    "/coverage": ("auditor", "accounting"),
    "/rake": ("auditor", "accounting"),
    "/rake/lines": ("auditor", "accounting"),
    "/jackpot": ("auditor", "accounting"),
    "/jackpot/moves": ("auditor", "accounting"),
    "/accounting": ("auditor", "accounting"),
    "/corrections": ("auditor", "accounting"),
    "/accounting/days": ("auditor", "accounting"),
    "/accounting/dp-results": ("auditor", "accounting"),
    "/projections": ("admin", "auditor"),
    "/audit/verify": ("auditor",),
    "/tables/T1/probes": ("admin", "auditor"),
    "/access-log": ("admin", "auditor"),
    "/exports/accounting/2026-01-01": ("auditor", "accounting"),
    "/exports/hands/2026-01-01": ("auditor",),
    "/metrics": ("admin", "auditor", "accounting", "device"),
    "/tokens": ("admin",),
    "/principals": ("admin", "auditor"),
    "/proposals": ("admin", "auditor"),
    "/tables/T1/paytable": ("admin", "auditor", "accounting"),
    "/reports/hold?day=2026-01-01": ("auditor", "accounting"),
    "/reports/hold/days?table=T1&month=2026-01": ("auditor", "accounting"),
    "/exports/workbook?day=2026-01-01": ("auditor", "accounting"),
    "/reports/players?month=2026-01": ("auditor", "accounting"),
    "/reports/inventory?day=2026-01-01": ("auditor", "accounting"),
    "/reports/surveillance?day=2026-01-01": ("auditor",),
    "/rules": ("admin", "auditor", "accounting", "device"),
    "/rules/COM-6": ("admin", "auditor", "accounting", "device"),
}


def test_each_role_reads_what_it_may_and_nothing_else(api: tuple[TestClient, Tokens]) -> None:
    client, tokens = api
    open_table(client, tokens)
    client.post("/tables/T1/seats", json={"command_id": "s1", "seat": 1, "player": "p1"},
                headers=bearer(tokens.device))
    client.post("/tables/T1/buy-ins", json={"command_id": "b1", "seat": 1, "amount": 9_000},
                headers=bearer(tokens.device))
    client.post("/tables/T1/hands", json={"command_id": "h1"}, headers=bearer(tokens.device))
    proposed = client.post("/principals", headers=bearer(tokens.admin), json={
        "principal_id": "sup-1", "name": "S", "role": "supervisor",
        "public_key": "ed25519:" + "11" * 32}).json()["proposal_id"]
    reads = {**READS, f"/proposals/{proposed}": READS["/proposals"]}
    documented = {p for p, ops in app_of(client).openapi()["paths"].items() if "get" in ops}
    templates = {p.split("?")[0].replace("T1", "{code}").replace("/1/", "/{hand_no}/")
                 .replace("house", "{account}").replace("2026-01-01", "{day}")
                 .replace("COM-6", "{rule_id}").replace(proposed, "{proposal_id}")
                 for p in reads}
    templates = {t if not t.endswith("/1") else t[:-2] + "/{hand_no}" for t in templates}
    assert documented - {"/health", "/ready"} == templates  # every read route is in this table
    for path, roles in reads.items():
        for role in ROLES:
            r = client.get(path, headers=bearer(token_of(tokens, role)))
            if role in roles:
                assert r.status_code == 200, (path, role, r.text)
            else:
                assert_error(r, 403, "forbidden")
    mine = client.get("/tables", headers=bearer(tokens.device)).json()
    assert [t["table_code"] for t in mine] == ["T1"]


def test_every_refusal_is_logged_in_one_line(api: tuple[TestClient, Tokens]) -> None:
    client, tokens = api
    with structlog.testing.capture_logs() as logs:
        client.get("/accounting")
        client.get("/accounting", headers=bearer(tokens.device))
        client.post("/tables", json={"command_id": "x"}, headers=bearer(tokens.auditor))
    refused = [e for e in logs if e["event"] == "request_refused"]
    assert [(e["status"], e["code"]) for e in refused] == [
        (401, "missing_token"), (403, "forbidden"), (403, "forbidden")]
    assert refused[1]["path"] == "/accounting" and refused[1]["token_id"]
