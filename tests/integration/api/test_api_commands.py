"""Commands over HTTP: idempotency, the error shape, hidden cards, OpenAPI and metrics."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

import pytest
import structlog
from fastapi.testclient import TestClient

from ledger.api import create_app
from ledger.api.errors import STATUS_BY_CODE
from ledger.domain.commands import BuyIn, DealCards, OpenTable, SeatPlayer, StartHand
from ledger.settings import Settings
from ledger.sim.base import CommandIds
from ledger.sim.profiles import profile_for
from tests.support.http import (
    HttpExecutor,
    Tokens,
    app_of,
    assert_error,
    bearer,
    events_stored,
    make_tokens,
    send,
)


@pytest.fixture
def api(store_settings: Settings) -> Iterator[tuple[TestClient, Tokens]]:
    app = create_app(store_settings)
    tokens = make_tokens(app, ["T1", "R1"])
    with TestClient(app, raise_server_exceptions=False) as client:
        yield client, tokens


def post(client: TestClient, token: str, path: str, **body: Any) -> Any:
    return client.post(path, json=body, headers=bearer(token))


def seated(client: TestClient, tokens: Tokens, code: str = "T1", config: Any = None) -> None:
    r = client.post("/tables", json={"command_id": f"open-{code}", "table": code,
                                     "game": "caribbean-stud", "config": config or {}},
                    headers=bearer(tokens.admin))
    assert r.status_code == 201, r.text
    for seat in (1, 2):
        post(client, tokens.device, f"/tables/{code}/seats", command_id=f"{code}-s{seat}",
             seat=seat, player=f"p{seat}")
        post(client, tokens.device, f"/tables/{code}/buy-ins", command_id=f"{code}-b{seat}",
             seat=seat, amount=50_000)


def dealt_hand(client: TestClient, tokens: Tokens) -> Any:
    seated(client, tokens)
    post(client, tokens.device, "/tables/T1/hands", command_id="h1")
    for seat in (1, 2):
        post(client, tokens.device, "/tables/T1/hands/current/wagers", command_id=f"w{seat}",
             seat=seat, kind="ante", amount=1_000)
    return post(client, tokens.device, "/tables/T1/hands/current/deal", command_id="d1")


def test_a_repeated_command_id_returns_the_first_answer_and_appends_nothing(
    api: tuple[TestClient, Tokens],
) -> None:
    client, tokens = api
    seated(client, tokens)
    first = post(client, tokens.device, "/tables/T1/hands", command_id="start-1")
    assert first.status_code == 201 and first.json()["replayed"] is False
    count = events_stored(client)
    again = post(client, tokens.device, "/tables/T1/hands", command_id="start-1")
    assert again.status_code == 200 and again.json()["replayed"] is True
    assert again.json()["events"] == first.json()["events"]
    assert events_stored(client) == count
    other = post(client, tokens.device, "/tables/T1/buy-ins", command_id="start-1", seat=1,
                 amount=5)
    assert_error(other, 409, "command_id_reused")
    assert events_stored(client) == count


@pytest.mark.parametrize(
    ("path", "body", "status", "code"),
    [
        ("/tables/T1/seats", {"seat": 1, "player": "p1"}, 422, "invalid_command"),
        ("/tables/T1/seats", {"command_id": "x", "seat": 99, "player": "p"}, 422,
         "invalid_command"),
        ("/tables/T1/seats", {"command_id": "x", "seat": 1, "player": "p", "table": "T9"}, 422,
         "invalid_command"),
        ("/tables/T1/seats", {"command_id": "x", "seat": 1, "player": "q"}, 409, "seat_taken"),
        ("/tables/T1/buy-ins", {"command_id": "x", "seat": 5, "amount": 10}, 409, "seat_empty"),
        ("/tables/T1/hands/current/wagers", {"command_id": "x", "seat": 1, "kind": "ante",
                                             "amount": 10}, 409, "no_hand_in_progress"),
        ("/tables/T1/hands/current/deal", {"command_id": "x", "cards": {"1": ["Zz"]}}, 422,
         "unknown_card"),
        ("/tables/NOPE/hands", {"command_id": "x"}, 404, "unknown_table"),
        ("/tables/T1/cash-outs", {"command_id": "x", "seat": 1, "amount": 10**9}, 422,
         "insufficient_chips"),
    ],
)
def test_refusals_are_coded_and_append_nothing(
    api: tuple[TestClient, Tokens], path: str, body: dict[str, Any], status: int, code: str
) -> None:
    client, tokens = api
    tokens.device = app_of(client).state.tokens.create("device", tables=["T1", "NOPE"])[0]
    seated(client, tokens)
    before = events_stored(client)
    assert_error(client.post(path, json=body, headers=bearer(tokens.device)), status, code)
    assert events_stored(client) == before


def test_malformed_json_unknown_routes_and_methods_have_the_error_shape(
    api: tuple[TestClient, Tokens],
) -> None:
    client, tokens = api
    h = {**bearer(tokens.admin), "Content-Type": "application/json"}
    assert_error(client.post("/tables", content=b"{not json", headers=h), 422, "invalid_command")
    assert_error(client.get("/nowhere", headers=h), 404, "not_found")
    assert_error(client.put("/tables", headers=h), 405, "method_not_allowed")
    assert_error(client.post("/tokens", json={"role": "boss"}, headers=h), 422, "invalid_request")
    assert_error(client.post("/tokens", json={"role": "auditor", "tables": ["T1"]}, headers=h),
                 422, "invalid_token_scope")


def test_an_unexpected_failure_is_a_logged_500_with_the_error_shape(
    api: tuple[TestClient, Tokens], monkeypatch: pytest.MonkeyPatch
) -> None:
    client, tokens = api
    seated(client, tokens)

    def boom(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(app_of(client).state.ledger, "execute", boom)
    with structlog.testing.capture_logs() as logs:
        r = post(client, tokens.device, "/tables/T1/hands", command_id="h")
    assert_error(r, 500, "internal_error")
    assert "disk on fire" not in r.text
    assert [e["event"] for e in logs] == ["internal_error", "request_refused"]
    # One line: the class, where, the route, the request id and the token id; never the
    # message or a traceback (their values may hold cards and secrets).
    line = logs[0]
    request_id = r.headers["x-request-id"]
    assert r.json()["error"]["details"] == {"request_id": request_id}
    assert line["error_class"] == "RuntimeError"
    assert line["route"] == "/tables/{code}/hands"
    assert line["request_id"] == request_id and line["token_id"] == tokens.device.split("_")[1]
    assert line["at"] and all(":" in frame for frame in line["at"])
    assert "disk on fire" not in repr(logs) and "exc_info" not in line


def test_a_store_failure_is_a_logged_503_that_names_no_server(
    api: tuple[TestClient, Tokens], monkeypatch: pytest.MonkeyPatch, store_settings: Settings
) -> None:
    import sqlite3

    import psycopg

    client, tokens = api
    seated(client, tokens)
    postgres = store_settings.database_url.startswith("postgresql")

    def down(*args: Any, **kwargs: Any) -> None:
        if postgres:
            raise psycopg.OperationalError("connection to server at 10.1.2.3 failed")
        raise sqlite3.OperationalError("unable to open database file")

    monkeypatch.setattr(app_of(client).state.ledger, "execute", down)
    with structlog.testing.capture_logs() as logs:
        r = post(client, tokens.device, "/tables/T1/hands", command_id="h")
    assert_error(r, 503, "store_unavailable")
    assert "10.1.2.3" not in r.text and "database file" not in r.text
    assert [e["event"] for e in logs] == ["store_failure", "request_refused"]


def test_devices_never_see_hidden_cards_auditors_do(api: tuple[TestClient, Tokens]) -> None:
    client, tokens = api
    deal = dealt_hand(client, tokens)
    assert deal.status_code == 201
    dealt = deal.json()["events"][0]["dealt"]
    assert all(c is None for d in dealt for c in d["down"])
    # The chain digest hashes the previous event, hidden cards included: not for devices.
    assert all("prev_hash" not in e for e in deal.json()["events"])
    assert [len(d["down"]) for d in dealt] == [5, 5, 4]
    assert dealt[-1]["up"][0] is not None  # the dealer's up card is public (CSP-1)

    device = client.get("/tables/T1", headers=bearer(tokens.device)).json()["hand"]
    assert all(c is None for s in device["seats"] for c in s["cards"])
    assert device["dealer_down"] == [None] * 4 and device["dealer_up"][0] is not None
    auditor = client.get("/tables/T1", headers=bearer(tokens.auditor)).json()["hand"]
    assert all(c is not None for s in auditor["seats"] for c in s["cards"])

    made = post(client, tokens.admin, "/tokens", role="device", tables=["T1"], seat=2)
    seat2 = client.get("/tables/T1", headers=bearer(made.json()["token"])).json()["hand"]
    cards = {s["seat"]: s["cards"] for s in seat2["seats"]}
    assert all(c is None for c in cards[1]) and all(c is not None for c in cards[2])
    assert cards[2] == next(s["cards"] for s in auditor["seats"] if s["seat"] == 2)

    for seat in (1, 2):
        post(client, tokens.device, "/tables/T1/hands/current/actions", command_id=f"a{seat}",
             seat=seat, action="play")
    reveal = post(client, tokens.device, "/tables/T1/hands/current/reveal", command_id="r")
    assert None not in reveal.json()["events"][0]["cards"]
    device = client.get("/tables/T1", headers=bearer(tokens.device)).json()["hand"]
    assert None not in device["dealer_down"]
    settle = post(client, tokens.device, "/tables/T1/hands/current/settle", command_id="s")
    assert settle.status_code == 201 and len(settle.json()["events"][0]["deck"]) == 52


def test_the_sealed_deck_is_in_no_answer(api: tuple[TestClient, Tokens]) -> None:
    client, tokens = api
    seated(client, tokens)
    start = post(client, tokens.device, "/tables/T1/hands", command_id="h1")
    assert "sealed_deck" not in start.text and start.json()["events"][0]["deck_commitment"]
    for token in (tokens.auditor, tokens.device, tokens.admin):
        assert "sealed_deck" not in client.get("/tables/T1", headers=bearer(token)).text


def test_a_recorded_table_takes_the_cards_from_the_device(api: tuple[TestClient, Tokens]) -> None:
    client, tokens = api
    seated(client, tokens, "R1", {"card_source": "recorded"})
    post(client, tokens.device, "/tables/R1/hands", command_id="rh")
    post(client, tokens.device, "/tables/R1/hands/current/wagers", command_id="rw", seat=1,
         kind="ante", amount=1_000)
    cards = {"1": ["2h", "6h", "9h", "Jh", "Kh"], "dealer": ["8c", "8d", "3h", "5s", "Kc"]}
    dup = {"1": ["2h", "2h", "9h", "Jh", "Kh"], "dealer": ["8c", "8d", "3h", "5s", "Kc"]}
    before = events_stored(client)
    assert_error(post(client, tokens.device, "/tables/R1/hands/current/deal", command_id="rd0",
                      cards=dup), 422, "duplicate_card")
    assert events_stored(client) == before
    r = post(client, tokens.device, "/tables/R1/hands/current/deal", command_id="rd", cards=cards)
    assert r.status_code == 201, r.text
    auditor = client.get("/tables/R1", headers=bearer(tokens.auditor)).json()["hand"]
    assert auditor["seats"][0]["cards"] == cards["1"]


def test_openapi_declares_every_route_and_its_errors(api: tuple[TestClient, Tokens]) -> None:
    client, tokens = api
    assert_error(client.get("/openapi.json"), 401, "missing_token")
    doc = client.get("/openapi.json", headers=bearer(tokens.device)).json()
    assert "ErrorBody" in doc["components"]["schemas"]
    assert doc["components"]["securitySchemes"]["HTTPBearer"]["scheme"] == "bearer"
    for path, operations in doc["paths"].items():
        for method, op in operations.items():
            codes = set(op["responses"])
            assert {"422", "500"} <= codes, (method, path)
            for status, response in op["responses"].items():
                if int(status) >= 400:
                    ref = json.dumps(response)
                    assert "ErrorBody" in ref, (method, path, status)
            if path not in ("/health", "/ready"):
                assert "401" in codes and op.get("security"), (method, path)
    assert "/tables/{code}/hands/current/actions" in doc["paths"]


def test_openapi_publishes_every_games_configuration_with_its_settings(
        api: tuple[TestClient, Tokens]) -> None:
    """Each game's configuration is a schema of its settings (never an empty ``{}``), used by
    the table's answer and by the bodies that open a table or change its configuration."""
    from ledger.games.registry import GAMES

    client, tokens = api
    doc = client.get("/openapi.json", headers=bearer(tokens.admin)).json()
    schemas = doc["components"]["schemas"]
    for game in GAMES.values():
        config = game.config_type
        schema = schemas[config.__name__]
        assert set(schema["properties"]) == set(config.model_fields), config.__name__
        assert schema["properties"]["game"]["const"] == game.name
        assert schema["additionalProperties"] is False
        source = json.dumps(schema["properties"]["card_source"])
        assert all(s in source for s in ("rng", "recorded", "seeded")), source
        assert '"null"' in json.dumps(schema["properties"]["corrections"])  # None: the defaults
    table = json.dumps(schemas["TableOut"]["properties"]["config"])
    opening = json.dumps(schemas["OpenTableBody"]["properties"]["config"])
    for game in GAMES.values():
        assert f"#/components/schemas/{game.config_type.__name__}" in table
        assert f"#/components/schemas/{game.config_type.__name__}" in opening
    assert schemas["OpenTableBody"]["properties"]["timezone"]["default"] == "Europe/Amsterdam"


def test_metrics_count_commands_errors_and_latency(api: tuple[TestClient, Tokens]) -> None:
    client, tokens = api
    seated(client, tokens)
    post(client, tokens.device, "/tables/T1/hands/current/settle", command_id="too-early")
    text = client.get("/metrics", headers=bearer(tokens.auditor)).text
    assert 'ledger_commands_total{command="seat_player",outcome="appended"} 2.0' in text
    assert 'ledger_commands_total{command="settle",outcome="rejected"} 1.0' in text
    assert 'ledger_errors_total{code="no_hand_in_progress"} 1.0' in text
    assert 'ledger_http_request_duration_seconds_bucket{le="0.1",method="POST",' \
           'route="/tables/{code}/seats",status="201"}' in text


def test_every_api_code_has_one_status() -> None:
    assert all(100 <= s < 600 for s in STATUS_BY_CODE.values())
    assert STATUS_BY_CODE["missing_token"] == STATUS_BY_CODE["invalid_token"] == 401


def test_a_refusal_does_not_tell_hidden_cards(api: tuple[TestClient, Tokens]) -> None:
    """A Chinese Poker set with the wrong cards is refused with the cards the seat is missing;
    a table device must not learn them, nor their count, that way (CHP-3)."""
    client, tokens = api
    tokens.device = app_of(client).state.tokens.create("device", tables=["CHP"])[0]
    profile = profile_for("chinese-poker")
    ids = CommandIds("CHP", "chp")
    executor = HttpExecutor(client, "CHP", tokens.device, tokens.auditor)
    send(client, tokens.admin, OpenTable(command_id=ids.next(), table="CHP",
                                         game="chinese-poker", config=profile.config))
    for seat in (1, 2, 3):
        executor.execute(SeatPlayer(command_id=ids.next(), table="CHP", seat=seat,
                                    player=f"p{seat}"))
    table, _, _ = executor.observe()
    for seat in (1, 2, 3):
        top_up = profile.top_up(table, seat)
        assert top_up is not None
        executor.execute(BuyIn(command_id=ids.next(), table="CHP", seat=seat,
                               amount=top_up.amount, kind=top_up.kind))
    executor.execute(StartHand(command_id=ids.next(), table="CHP"))
    bot, rng = profile.make_bot(), random.Random(1)
    while True:
        table, hand, step = executor.observe()
        if step.kind == "act" and any(o.action == "set" for o in step.options):
            break
        command = bot.choose(table, hand, step, rng, ids) if step.kind != "deal" else None
        executor.execute(command or DealCards(command_id=ids.next(), table="CHP"))
    seat = step.seats[0]
    mine = list(next(s for s in executor.state()["hand"]["seats"] if s["seat"] == seat)["cards"])
    others = [c for c in (f"{r}{s}" for r in "23456789TJQKA" for s in "cdhs") if c not in mine]
    wrong = {"front": others[:3], "middle": others[3:8], "back": others[8:13]}
    for token, sees in ((tokens.device, False), (tokens.auditor, True)):
        r = post(client, token, "/tables/CHP/hands/current/actions", command_id="bad-set",
                 seat=seat, action="set", **wrong)
        if not sees:
            assert_error(r, 422, "wrong_cards")
            # Neither the seat's cards, nor which of the cards sent are hidden elsewhere, nor
            # how many were wrong: no card at all, not even masked.
            assert not any(card in r.text for card in mine + wrong["front"]), r.text
            assert "??" not in r.text
            assert set(r.json()["error"]["details"]) == {"seat", "rule"}
        else:
            assert_error(r, 403, "forbidden")  # an auditor never writes


def test_hcf_5_a_device_is_not_told_the_raise_cap_of_a_hidden_hand(
    api: tuple[TestClient, Tokens],
) -> None:
    """The raise cap of a High Card Flush hand tells the class of its flush (HCF-5): a device
    that cannot see the seat's cards (here the DP's seat-bound device) sees the cap any hand
    allows, and a raise above the hand's cap is refused without the cap or the flush length.
    The seat's own device, the auditor and, on a ``recorded`` table, the dealer terminal that
    reported the cards (COM-8) see the real cap."""
    client, tokens = api
    tokens.device = app_of(client).state.tokens.create("device", tables=["H1"])[0]
    r = client.post("/tables", json={"command_id": "open-H1", "table": "H1",
                                     "game": "high-card-flush",
                                     "config": {"card_source": "recorded"}},
                    headers=bearer(tokens.admin))
    assert r.status_code == 201, r.text
    for seat in (1, 2):
        post(client, tokens.device, "/tables/H1/seats", command_id=f"s{seat}", seat=seat,
             player=f"p{seat}")
        post(client, tokens.device, "/tables/H1/buy-ins", command_id=f"b{seat}", seat=seat,
             amount=50_000)
    for cid, path, body in (
        ("h", "/tables/H1/hands", {}),
        ("dp", "/tables/H1/hands/current/actions", {"seat": 1, "action": "accept"}),
        ("a2", "/tables/H1/hands/current/wagers", {"seat": 2, "kind": "ante", "amount": 1_000}),
        ("d", "/tables/H1/hands/current/deal",
         {"cards": {"2": ["Ah", "Kh", "Jh", "8h", "4d", "3d", "2c"],  # a 4-card flush: 1x Ante only
                    "1": ["Qd", "Jd", "Td", "7c", "6c", "5c", "4s"]}}),
    ):
        answer = post(client, tokens.device, path, command_id=cid, **body)
        assert answer.status_code == 201, answer.text
    seat_token = post(client, tokens.admin, "/tokens", role="device", tables=["H1"],
                      seat=2).json()["token"]
    dp_token = post(client, tokens.admin, "/tokens", role="device", tables=["H1"],
                    seat=1).json()["token"]

    def raise_cap(token: str) -> int:
        step = client.get("/tables/H1", headers=bearer(token)).json()["step"]
        assert step["kind"] == "act" and step["seats"] == [2]
        cap: int = next(o["max_amount"] for o in step["options"] if o["action"] == "raise")
        return cap

    assert raise_cap(dp_token) == raise_cap(tokens.accounting) == 3_000
    assert raise_cap(tokens.auditor) == raise_cap(seat_token) == raise_cap(tokens.device) == 1_000

    before = events_stored(client)
    r = post(client, seat_token, "/tables/H1/hands/current/actions", command_id="r3",
             seat=2, action="raise", amount=3_000)
    assert_error(r, 422, "raise_above_maximum")
    assert r.json()["error"]["details"]["flush_length"] == 4
    # the dealer terminal of a recorded table reported those cards: it is told the same
    r = post(client, tokens.device, "/tables/H1/hands/current/actions", command_id="r3d",
             seat=2, action="raise", amount=3_000)
    assert_error(r, 422, "raise_above_maximum")
    assert r.json()["error"]["details"]["flush_length"] == 4
    assert events_stored(client) == before


@pytest.mark.parametrize("path", [
    "/rake?day=2026-02-30", "/rake?day=14-03-2026", "/accounting?day=2026-13-01",
    "/bankrolls/days/2026-02-30", "/exports/hands/2026-13-29", "/exports/accounting/2026-1-1",
    "/audit/verify?day=2026-02-31",
])
def test_a_day_that_is_not_a_calendar_day_is_invalid_day(
    api: tuple[TestClient, Tokens], path: str
) -> None:
    client, tokens = api
    r = client.get(path, headers=bearer(tokens.auditor))
    assert_error(r, 422, "invalid_day")
    message = r.json()["error"]["message"]
    assert "write YYYY-MM-DD" in message and "^" not in message  # the CLI's words, no regex
