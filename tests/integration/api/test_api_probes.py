"""Refusals that depend on hidden cards, over HTTP: the device gets the public text only (no
flush length, no cap, no card and no count of cards), and every such refusal is recorded with
its seat, what was asked, the token and the time, for the auditor and the admin to read
(``GET /tables/{code}/probes``); the device may not read them."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from ledger.api import create_app
from ledger.settings import Settings
from tests.support.http import Tokens, assert_error, bearer, make_tokens


@pytest.fixture
def api(store_settings: Settings) -> Iterator[tuple[TestClient, Tokens]]:
    app = create_app(store_settings)
    tokens = make_tokens(app, ["HCF1", "CHP1"])
    with TestClient(app) as client:
        yield client, tokens


def post(client: TestClient, token: str, path: str, **body: Any) -> Any:
    return client.post(path, json=body, headers=bearer(token))


def opened(client: TestClient, tokens: Tokens, code: str, game: str, chips: dict[int, int]
           ) -> None:
    assert post(client, tokens.admin, "/tables", command_id=f"{code}-o", table=code,
                game=game).status_code == 201
    for seat, amount in chips.items():
        assert post(client, tokens.device, f"/tables/{code}/seats", command_id=f"{code}-s{seat}",
                    seat=seat, player=f"p{seat}").status_code == 201
        assert post(client, tokens.device, f"/tables/{code}/buy-ins", seat=seat, amount=amount,
                    command_id=f"{code}-b{seat}").status_code == 201
    assert post(client, tokens.device, f"/tables/{code}/hands",
                command_id=f"{code}-h").status_code == 201


def state(client: TestClient, tokens: Tokens, code: str) -> Any:
    return client.get(f"/tables/{code}", headers=bearer(tokens.auditor)).json()


def test_hcf_5_a_raise_above_the_seats_cap_is_refused_in_public_words_and_recorded(
    api: tuple[TestClient, Tokens],
) -> None:
    client, tokens = api
    opened(client, tokens, "HCF1", "high-card-flush", {1: 50_000, 2: 20_000, 3: 20_000})
    post(client, tokens.device, "/tables/HCF1/hands/current/actions", command_id="dp",
         seat=1, action="accept")
    for seat in (2, 3):
        post(client, tokens.device, "/tables/HCF1/hands/current/wagers", seat=seat,
             kind="ante", amount=1_000, command_id=f"a{seat}")
    assert post(client, tokens.device, "/tables/HCF1/hands/current/deal",
                command_id="d").status_code == 201
    probed = []
    for n in range(2):
        step = state(client, tokens, "HCF1")["step"]
        seat = step["seats"][0]
        cap = next(o["max_amount"] for o in step["options"] if o["action"] == "raise")
        if cap < 3_000:  # the auditor sees the cap; the device asks above it
            r = post(client, tokens.device, "/tables/HCF1/hands/current/actions", seat=seat,
                     action="raise", amount=3_000, command_id=f"probe{n}")
            assert_error(r, 422, "raise_above_maximum")
            error = r.json()["error"]
            assert "flush_length" not in error["details"] and "maximum" not in error["details"]
            assert "-card flush" not in error["message"] and str(cap) not in error["message"]
            probed.append(seat)
        assert post(client, tokens.device, "/tables/HCF1/hands/current/actions", seat=seat,
                    action="raise", amount=1_000, command_id=f"r{n}").status_code == 201
    assert probed, "both seats held a 6-card flush: run again"
    found = client.get("/tables/HCF1/probes", headers=bearer(tokens.auditor))
    assert found.status_code == 200
    token_id = tokens.device.split("_")[1]
    assert [(p["seat"], p["action"], p["amount"], p["code"], p["rule"], p["token_id"],
             p["hand_no"]) for p in found.json()] == [
        (seat, "raise", 3_000, "raise_above_maximum", "HCF-5", token_id, 1) for seat in probed]
    assert all(p["at"] for p in found.json())
    assert client.get("/tables/HCF1/probes", headers=bearer(tokens.admin)).json() == found.json()
    assert_error(client.get("/tables/HCF1/probes", headers=bearer(tokens.device)), 403,
                 "forbidden")


def test_chp_3_a_set_with_wrong_cards_names_no_card_and_no_count_and_is_recorded(
    api: tuple[TestClient, Tokens],
) -> None:
    client, tokens = api
    opened(client, tokens, "CHP1", "chinese-poker", {1: 2_000, 2: 2_000})
    assert post(client, tokens.device, "/tables/CHP1/hands/current/deal",
                command_id="d").status_code == 201
    seats = {s["seat"]: s["cards"] for s in state(client, tokens, "CHP1")["hand"]["seats"]}
    answers = set()
    for n, known in enumerate((0, 12)):  # none or twelve of seat 1's cards
        cards = seats[1][:known] + seats[2][:13 - known]
        r = post(client, tokens.device, "/tables/CHP1/hands/current/actions", seat=1,
                 action="set", front=cards[:3], middle=cards[3:8], back=cards[8:],
                 command_id=f"set{n}")
        assert_error(r, 422, "wrong_cards")
        assert "??" not in r.text and not any(c in r.text for c in seats[1] + seats[2])
        answers.add(repr(r.json()))
    assert len(answers) == 1  # the same answer whatever the set held of the seat's cards
    found = client.get("/tables/CHP1/probes?hand=1", headers=bearer(tokens.auditor)).json()
    assert [(p["seat"], p["action"], p["code"], p["rule"]) for p in found] == [
        (1, "set", "wrong_cards", "CHP-3")] * 2
