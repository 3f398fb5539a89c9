"""Players who leave mid-hand, over HTTP as a table device sends it, on both stores: COM-6
(decision of 2026-12-01: the seat folds at once whoever's turn it is, is never waited for again
and nobody sits in it until the hand ends) and the STUD8-11 uncalled bet of a player who left.
Every refusal is coded and appends nothing; the settle answer's per-seat results give the
issue's figures; the audit finds the record exact (no ``negative_balance``)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from ledger.api import create_app
from ledger.settings import Settings
from tests.support.http import Tokens, app_of, assert_error, bearer, events_stored, make_tokens


@pytest.fixture
def api(store_settings: Settings) -> Iterator[tuple[TestClient, Tokens]]:
    app = create_app(store_settings)
    tokens = make_tokens(app, ["CSP-L", "STUD-L"])
    with TestClient(app, raise_server_exceptions=False) as client:
        yield client, tokens


class Device:
    def __init__(self, client: TestClient, token: str, code: str) -> None:
        self.client, self.token, self.code, self.n = client, token, code, 0

    def post(self, path: str, token: str | None = None, **body: Any) -> Any:
        self.n += 1
        return self.client.post(f"/tables/{self.code}{path}",
                                json={"command_id": f"{self.code}-{self.n}", **body},
                                headers=bearer(token or self.token))

    def send(self, path: str, **body: Any) -> dict[str, Any]:
        r = self.post(path, **body)
        assert r.status_code == 201, r.text
        answer: dict[str, Any] = r.json()
        return answer

    def refused(self, status: int, code: str, path: str, token: str | None = None,
                **body: Any) -> None:
        """Refused with ``code``, the COM-6 rule named, and nothing appended."""
        before = events_stored(self.client)
        r = self.post(path, token, **body)
        assert_error(r, status, code)
        assert r.json()["error"]["details"].get("rule") == "COM-6", r.text
        assert events_stored(self.client) == before


def open_table(client: TestClient, tokens: Tokens, code: str, game: str,
               stacks: dict[int, int], **config: Any) -> Device:
    r = client.post("/tables", json={"command_id": f"open-{code}", "table": code, "game": game,
                                     "config": {"card_source": "recorded", **config}},
                    headers=bearer(tokens.admin))
    assert r.status_code == 201, r.text
    device = Device(client, tokens.device, code)
    for seat, stack in stacks.items():
        device.send("/seats", seat=seat, player=f"p{seat}")
        device.send("/buy-ins", seat=seat, amount=stack)
    return device


def audit_is_clean(client: TestClient, tokens: Tokens, code: str) -> None:
    report = client.get(f"/audit/verify?table={code}", headers=bearer(tokens.auditor))
    assert report.status_code == 200, report.text
    body = report.json()
    assert body["ok"], body.get("discrepancies")
    assert "negative_balance" not in report.text


def test_com_6_csp_the_issue_case_over_http(api: tuple[TestClient, Tokens]) -> None:
    """Seats 1 and 2 ante 10.00, deal, seat 2 leaves while seat 1 is to act: the answer holds
    the fold (COM-6) before the PlayerUnseated and a step that waits for seat 1 only; nobody
    can sit in seat 2 or place its Play wager, whichever token tries; the player of seat 2
    loses the Ante and nothing more."""
    client, tokens = api
    device = open_table(client, tokens, "CSP-L", "caribbean-stud", {1: 100_000, 2: 100_000})
    seat_two = app_of(client).state.tokens.create("device", tables=["CSP-L"], seat=2)[0]
    device.send("/hands")
    for seat in (1, 2):
        device.send("/hands/current/wagers", seat=seat, kind="ante", amount=1_000)
    dealt = device.send("/hands/current/deal", cards={
        "1": ["As", "Ks", "Qs", "Js", "9h"], "2": ["2c", "3c", "4c", "5c", "9d"],
        "dealer": ["Ah", "Kd", "7c", "5d", "2h"]})
    assert dealt["step"]["seats"] == [1]

    left = device.send("/departures", seat=2)
    assert [e["type"] for e in left["events"]] == ["PlayerActed", "PlayerUnseated"]
    fold = left["events"][0]
    assert (fold["seat"], fold["action"], fold["rule"]) == (2, "fold", "COM-6")
    assert left["step"]["kind"] == "act" and left["step"]["seats"] == [1]
    assert left["results"] is None

    device.refused(409, "seat_reserved", "/seats", seat=2, player="newcomer")
    device.refused(409, "seat_reserved", "/seats", seat=2, player="p2")
    device.refused(409, "seat_left", "/hands/current/actions", seat=2, action="play")
    device.refused(409, "seat_left", "/hands/current/actions", seat=2, action="fold")
    device.refused(409, "seat_left", "/hands/current/wagers", seat=2, kind="ante", amount=1_000)
    device.refused(409, "seat_left", "/hands/current/actions", token=seat_two, seat=2,
                   action="play")
    before = events_stored(client)
    assert_error(device.post("/departures", seat=2), 409, "seat_empty")
    assert events_stored(client) == before

    device.send("/hands/current/actions", seat=1, action="play")
    device.send("/hands/current/reveal")
    settled = device.send("/hands/current/settle")
    results = {s["seat"]: s for s in settled["results"]["seats"]}
    assert (results[2]["player"], results[2]["wagered"], results[2]["net"]) == ("p2", 1_000,
                                                                                -1_000)
    assert settled["step"]["kind"] == "over"
    table = client.get("/tables/CSP-L", headers=bearer(tokens.device)).json()
    assert table["balances"]["player:p2"] == 99_000
    assert all(v >= 0 for k, v in table["balances"].items() if k.startswith("player:"))
    device.send("/seats", seat=2, player="newcomer")  # the hand has ended: the seat is free
    audit_is_clean(client, tokens, "CSP-L")


def test_stud8_11_the_issue_case_over_http(api: tuple[TestClient, Tokens]) -> None:
    """A 200.00, B 2.00 (the ante only), C 200.00; A brings in 5.00, C folds, A leaves: A's
    5.00 nobody matched goes back to A, unraked and in no pot: A -2.00, B +4.00, C -2.00."""
    client, tokens = api
    device = open_table(client, tokens, "STUD-L", "stud-hilo",
                        {1: 20_000, 2: 200, 3: 20_000}, rake_bps=1_000)
    device.send("/hands")
    dealt = device.send("/hands/current/deal", cards={
        "1": ["Ah", "Kh", "2c"], "2": ["Qs", "Qd", "5c"], "3": ["7c", "8d", "Ks"]})
    assert dealt["step"]["seats"] == [1]
    device.send("/hands/current/actions", seat=1, action="bring_in", amount=500)
    device.send("/hands/current/actions", seat=3, action="fold")
    left = device.send("/departures", seat=1)
    assert [e["type"] for e in left["events"]][:1] == ["PlayerActed"]
    assert left["step"]["kind"] == "settle"
    device.refused(409, "seat_reserved", "/seats", seat=1, player="p9")
    settled = device.send("/hands/current/settle")
    results = settled["results"]
    nets = {s["seat"]: s["net"] for s in results["seats"]}
    assert nets == {1: -200, 2: 400, 3: -200}
    one = next(s for s in results["seats"] if s["seat"] == 1)
    assert (one["wagered"], one["returned"], one["won"]) == (700, 500, 0)
    assert results["rake"] == 0 and results["house"] == 0
    (event,) = [e for e in settled["events"] if e["type"] == "HandSettled"]
    uncalled = [o for o in event["outcomes"] if o["wager"] == "uncalled"]
    assert [(o["seat"], o["result"], o["stake"], o["rule"]) for o in uncalled] == [
        (1, "returned", 500, "STUD8-11")]
    assert sum(p["amount"] for p in event["pots"]) == 600
    audit_is_clean(client, tokens, "STUD-L")


def test_com_6_stud8_11_everyone_else_leaves_before_the_deal_over_http(
        api: tuple[TestClient, Tokens]) -> None:
    """Three seats ante 2.00; before third street is dealt seats 1 and 3 leave (COM-6: each
    folds at once). The hand waits for settlement only, settles as an uncontested hand that ends
    on third street (seat 2 wins the antes, no rake, STUD8-11), the next hand starts, and the
    audit, which decides the settlement again, finds the record exact."""
    client, tokens = api
    device = open_table(client, tokens, "STUD-L", "stud-hilo",
                        {1: 20_000, 2: 20_000, 3: 20_000}, rake_bps=1_000)
    device.send("/hands")
    device.send("/departures", seat=1)
    left = device.send("/departures", seat=3)
    assert left["step"]["kind"] == "settle"
    settled = device.send("/hands/current/settle")
    results = settled["results"]
    assert {s["seat"]: s["net"] for s in results["seats"]} == {1: -200, 2: 400, 3: -200}
    assert results["rake"] == 0 and results["house"] == 0
    (event,) = [e for e in settled["events"] if e["type"] == "HandSettled"]
    assert event["rake"] == []
    assert [(p["amount"], p["rake"], p["high_winners"]) for p in event["pots"]] == [
        (600, 0, [2])]
    assert {(o["seat"], o["result"], o["rule"]) for o in event["outcomes"]} == {
        (1, "lose", "STUD8-2"), (2, "win", "STUD8-2"), (3, "lose", "STUD8-2")}
    device.send("/seats", seat=1, player="p9")
    device.send("/buy-ins", seat=1, amount=20_000)
    started = device.send("/hands")
    assert [e["type"] for e in started["events"]].count("WagerPlaced") == 2
    assert started["step"]["kind"] == "deal"
    audit_is_clean(client, tokens, "STUD-L")
    whole = client.get("/audit/verify", headers=bearer(tokens.auditor))
    assert whole.status_code == 200 and whole.json()["ok"], whole.text
