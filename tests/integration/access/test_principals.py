"""Actors and principals: every event names who sent it (token or command line), covered by the
hash chain; approvals and signatures name registered principals (COM-4, COM-5, INV-1..3)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from ledger.access.keys import PrincipalKey
from ledger.access.principals import require_approver
from ledger.api import create_app
from ledger.app.application import LedgerApp
from ledger.app.approvals import Approvals
from ledger.domain.actors import Actor
from ledger.domain.commands import ChangeConfig, Fill, OpenTable, VoidHand
from ledger.domain.errors import LedgerError
from ledger.settings import Settings
from ledger.sim.runner import simulate
from ledger.table.events import table_id
from projections.audit import verify
from tests.support.driver import revoke, with_supervisors
from tests.support.http import Tokens, approver_token, assert_error, bearer, make_tokens, play_table
from tests.support.tamper import rechain, replace_in_event, rewrite_command_log


@pytest.fixture
def app(store_settings: Settings) -> Iterator[LedgerApp]:
    ledger = LedgerApp(store_settings, actor=Actor.cli("ops-anna"))
    yield ledger
    ledger.close()


def _stored(app: LedgerApp, code: str) -> list[dict[str, Any]]:
    return [json.loads(bytes(e.state)) for e in app.recorder.select_events(table_id(code))]


def test_require_approver_decides_with_coded_refusals(app: LedgerApp) -> None:
    with_supervisors(app, {"sup-1": ("S. One", "supervisor"), "floor-1": ("F. One", "floor")})
    state = app.principals.state()
    assert require_approver(state, "sup-1", rule="COM-4").name == "S. One"
    for who, roles, code in (("nobody", ("supervisor",), "unknown_approver"),
                             ("floor-1", ("supervisor", "admin"), "approver_not_allowed")):
        with pytest.raises(LedgerError) as err:
            require_approver(state, who, rule="COM-4", roles=roles)
        assert err.value.code == code and err.value.details["rule"] == "COM-4"
    revoke(app, "sup-1")
    revoked = app.principals.get("sup-1")
    assert revoked.revoked_at and revoked.revoked_by == "principal:sim-admin"
    with pytest.raises(LedgerError) as err:
        require_approver(app.principals.state(), "sup-1", rule="COM-4")
    assert err.value.code == "approver_revoked"
    approvals, admin = Approvals(app), app.keyring.get("sim-admin")  # type: ignore[union-attr]
    assert admin is not None
    public = PrincipalKey.generate("x").public
    for change, code in (({"id": "sup-1", "name": "x", "role": "floor"}, "principal_exists"),
                         ({"id": "bad id", "name": "x", "role": "floor"}, "invalid_principal"),
                         ({"id": "p-2", "name": "x", "role": "boss"}, "invalid_principal_role")):
        with pytest.raises(LedgerError) as err:
            approvals.change_register("add", {**change, "public_key": public}, admin,
                                      actor=app.actor)
        assert err.value.code == code


def test_approvals_name_known_principals_and_refusals_append_nothing(app: LedgerApp) -> None:
    simulate(app, "caribbean-stud", "CSP-1", 0, seed=1)
    with_supervisors(app, {"floor-1": ("F. One", "floor"), "floor-2": ("F. Two", "floor")})
    before = len(_stored(app, "CSP-1"))
    change = {"config": {"max_aggregate_payout": 1_000}}
    refusals = [
        (ChangeConfig(command_id="c1", table="CSP-1", approver="pit boss", **change),
         "unknown_approver"),
        (ChangeConfig(command_id="c2", table="CSP-1", approver="floor-1", **change),
         "approver_not_allowed"),
        (Fill(command_id="f1", table="CSP-1", chips={100: 1}, signers=("floor-1", "ghost")),
         "unknown_approver"),
    ]
    for command, code in refusals:
        with pytest.raises(LedgerError) as err:
            app.execute(command)
        assert err.value.code == code
    assert len(_stored(app, "CSP-1")) == before
    app.execute(Fill(command_id="f2", table="CSP-1", chips={100: 1},
                     signers=("floor-1", "floor-2")))
    revoke(app, "floor-2")
    with pytest.raises(LedgerError) as err:
        app.execute(Fill(command_id="f3", table="CSP-1", chips={100: 1},
                         signers=("floor-1", "floor-2")))
    assert err.value.code == "approver_revoked"
    # Without the signers' keys there is no signature, and nothing is recorded.
    app.keyring = None
    with pytest.raises(LedgerError) as err:
        app.execute(Fill(command_id="f4", table="CSP-1", chips={100: 1},
                         signers=("floor-1", "sup-anna")))
    assert err.value.code == "approval_required"
    assert len(_stored(app, "CSP-1")) == before + 1


def test_every_event_names_its_actor_under_the_chain(app: LedgerApp) -> None:
    app.execute(OpenTable(command_id="o", table="T-1", game="caribbean-stud"))
    events = _stored(app, "T-1")
    assert events[0]["actor"] == {"id": "cli:ops-anna", "role": "cli", "label": None}
    assert verify(app).ok
    # The actor is covered by the chain: rewriting it is a discrepancy once an event follows.
    simulate(app, "caribbean-stud", "T-1", 1, seed=2)
    replace_in_event(app, table_id("T-1"), 1, "ops-anna", "ops-bert")
    kinds = {d.kind for d in verify(app).discrepancies}
    assert "event_edited" in kinds


def test_events_recorded_before_actors_still_load_and_verify(app: LedgerApp) -> None:
    """An older store: events without an actor key hash as stored, and still verify."""
    simulate(app, "caribbean-stud", "OLD-1", 2, seed=3)
    tid = table_id("OLD-1")
    versions = len(_stored(app, "OLD-1"))
    for version in range(1, versions + 1):
        replace_in_event(app, tid, version, ',"actor":{"id":"cli:ops-anna","role":"cli",'
                         '"label":null}', "")
    rechain(app, tid, 1)
    rewrite_command_log(app, tid)
    assert all("actor" not in e for e in _stored(app, "OLD-1"))
    fresh = LedgerApp(app.settings)
    try:
        table = fresh.load("OLD-1")
        assert table.version == versions
        assert verify(fresh).ok
    finally:
        fresh.close()


@pytest.fixture
def api(store_settings: Settings) -> Iterator[tuple[TestClient, Tokens]]:
    app = create_app(store_settings)
    tokens = make_tokens(app, ["HCF-7"])
    with TestClient(app, raise_server_exceptions=False) as client:
        yield client, tokens


def test_every_event_of_a_game_over_http_names_its_token(
        api: tuple[TestClient, Tokens]) -> None:
    client, tokens = api
    play_table(client, tokens, "high-card-flush", "HCF-7", 2, seed=5)
    ledger: LedgerApp = client.app.state.ledger  # type: ignore[attr-defined]
    listed = {t.token_id: t for t in client.app.state.tokens.all()}  # type: ignore[attr-defined]
    events = _stored(ledger, "HCF-7")
    assert events and all(e["actor"]["id"].startswith("token:") for e in events)
    opened = events[0]["actor"]
    assert listed[opened["id"][6:]].role == "admin" == opened["role"]
    assert {e["actor"]["role"] for e in events[1:]} == {"device"}
    assert all(e["actor"]["label"] == "test device" for e in events[1:])


def test_principals_over_http(api: tuple[TestClient, Tokens]) -> None:
    """An admin token alone registers nobody: the registration waits for an admin principal's
    signature, given with an approver token bound to that admin."""
    client, tokens = api
    ledger: LedgerApp = client.app.state.ledger  # type: ignore[attr-defined]
    ring = with_supervisors(ledger)
    root = ring.get("sim-admin")
    assert root is not None
    admin_token = approver_token(client, "sim-admin")
    key = PrincipalKey.generate("sup-9")
    body = {"principal_id": "sup-9", "name": "S. Nine", "role": "supervisor",
            "public_key": key.public}
    assert_error(client.post("/principals", json=body, headers=bearer(tokens.device)), 403,
                 "forbidden")
    r = client.post("/principals", json=body, headers=bearer(tokens.admin))
    assert r.status_code == 202 and r.json()["status"] == "pending", r.text
    proposal = r.json()
    assert ledger.principals.find("sup-9") is None
    assert "sup-9" not in [p["principal_id"] for p in
                           client.get("/principals", headers=bearer(tokens.auditor)).json()]
    signature = root.sign(proposal["message"].encode())
    r = client.post(f"/proposals/{proposal['proposal_id']}/approvals",
                    json={"signature": signature}, headers=bearer(admin_token))
    assert r.status_code == 200 and r.json()["status"] == "done", r.text
    found = ledger.principals.get("sup-9")
    assert found.public_key == key.public and found.created_by == "principal:sim-admin"
    r = client.delete("/principals/sup-9", headers=bearer(tokens.admin))
    assert r.status_code == 202
    revoke_id = r.json()["proposal_id"]
    assert ledger.principals.get("sup-9").active
    client.post(f"/proposals/{revoke_id}/approvals", headers=bearer(admin_token),
                json={"signature": root.sign(r.json()["message"].encode())})
    assert not ledger.principals.get("sup-9").active
    assert_error(client.delete("/principals/nobody", headers=bearer(tokens.admin)), 404,
                 "unknown_principal")
    open_body = {"command_id": "o", "table": "HCF-7", "game": "high-card-flush"}
    assert client.post("/tables", json=open_body, headers=bearer(tokens.admin)).status_code == 201
    change = {"command_id": "c", "config": {"max_aggregate_payout": 1_000}, "approver": "sup-9"}
    assert_error(client.post("/tables/HCF-7/config", json=change, headers=bearer(tokens.admin)),
                 422, "approver_revoked")


def test_a_void_approval_names_a_principal(app: LedgerApp) -> None:
    from ledger.domain.commands import StartHand

    simulate(app, "caribbean-stud", "CSP-2", 0, seed=4)
    app.execute(StartHand(command_id="h", table="CSP-2"))
    with pytest.raises(LedgerError) as err:
        app.execute(VoidHand(command_id="v", table="CSP-2", reason="x", approved_by="ghost"))
    assert err.value.code == "unknown_approver"
    with_supervisors(app, {"sup-2": ("S. Two", "admin")})
    result = app.execute(VoidHand(command_id="v2", table="CSP-2", reason="x",
                                  approved_by="sup-2"))
    assert result.events[-1]["approved_by"] == "sup-2"
