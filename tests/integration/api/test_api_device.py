"""A table device as a real one works: a full hand of every game over HTTP, driven only by the
command answers (the step each answer carries, its deal plan, its options) with no read in
between; the per-seat results of the settle answer sum with the table's lines to zero and agree
with the transfers the answers listed."""

from __future__ import annotations

import io
import json
import random
import zipfile
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from ledger.api import create_app
from ledger.domain import accounts
from ledger.domain.cards import card_list, parse_cards
from ledger.settings import Settings
from ledger.sim.chinese_arrange import greedy
from tests.support.http import Tokens, bearer, make_tokens

GAMES = {
    "caribbean-stud": (3, 100_000),
    "high-card-flush": (3, 50_000),
    "chinese-poker": (3, 2_000),
    "stud-hilo": (4, 20_000),
}


@pytest.fixture
def device_api(store_settings: Settings) -> Iterator[tuple[TestClient, Tokens]]:
    app = create_app(store_settings)
    tokens = make_tokens(app, [f"DEV-{n}" for n in range(len(GAMES))])
    with TestClient(app, raise_server_exceptions=False) as client:
        yield client, tokens


class Device:
    """Sends commands and keeps nothing but the answers."""

    def __init__(self, client: TestClient, token: str, code: str) -> None:
        self.client, self.token, self.code = client, token, code
        self.answers: list[dict[str, Any]] = []
        self.n = 0

    def send(self, path: str, **body: Any) -> dict[str, Any]:
        self.n += 1
        r = self.client.post(path.replace("{code}", self.code),
                             json={"command_id": f"c{self.n}", **body}, headers=bearer(self.token))
        assert r.status_code == 201, r.text
        answer: dict[str, Any] = r.json()
        self.answers.append(answer)
        return answer


def play(device: Device, game: str, seats: int, rng: random.Random) -> dict[str, Any]:
    """One hand from start to settlement, every decision taken from the last answer."""
    deck = card_list(rng.sample(range(52), 52))
    dealt: dict[str, list[str]] = {}
    wagered: set[int] = set()
    answer = device.send("/tables/{code}/hands")
    while answer["results"] is None:
        step = answer["step"]
        kind, plan = step["kind"], step["deal"]
        if kind == "offer":
            answer = device.send("/tables/{code}/hands/current/actions", seat=step["seats"][0],
                                 action="accept")
        elif kind == "wager" and set(step["seats"]) - wagered:
            seat = min(set(step["seats"]) - wagered)
            wagered.add(seat)
            ante = next(o for o in step["options"] if o["action"] == "ante")
            answer = device.send("/tables/{code}/hands/current/wagers", seat=seat, kind="ante",
                                 amount=ante["min_amount"])
        elif kind in ("wager", "deal"):
            assert plan is not None, step
            cards: dict[str, list[str]] = {}
            for slot in plan["slots"]:  # targets in dealing order, face down before face up
                given = [deck.pop() for _ in range(slot["down"] + slot["up"])]
                cards[str(slot["target"])] = given
                dealt.setdefault(str(slot["target"]), []).extend(given)
            answer = device.send("/tables/{code}/hands/current/deal", cards=cards)
            (event,) = [e for e in answer["events"] if e["type"] == "CardsDealt"]
            assert [d["target"] for d in event["dealt"]] == [s["target"] for s in plan["slots"]]
            assert event["round"] == plan["round"]
        elif kind == "act":
            answer = act(device, step, dealt)
        elif kind == "reveal":
            answer = device.send("/tables/{code}/hands/current/reveal")
        else:
            assert kind == "settle", step
            answer = device.send("/tables/{code}/hands/current/settle")
    assert answer["step"]["kind"] == "over"
    return answer


def act(device: Device, step: dict[str, Any], dealt: dict[str, list[str]]) -> dict[str, Any]:
    seat = step["seats"][0]
    options = {o["action"]: o for o in step["options"]}
    path = "/tables/{code}/hands/current/actions"
    if "set" in options:  # Chinese Poker: the device dealt the seat's 13 cards itself
        front, middle, back = (card_list(s) for s in greedy(parse_cards(" ".join(
            dealt[str(seat)]))))
        return device.send(path, seat=seat, action="set", front=front, middle=middle, back=back)
    for action in ("show", "play", "raise", "call", "check", "bring_in"):
        if action in options:
            amount = options[action]["min_amount"] if action == "raise" else None
            body = {"amount": amount} if amount is not None else {}
            return device.send(path, seat=seat, action=action, **body)
    raise AssertionError(f"no option to take in {step}")


@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_device_plays_a_full_hand_from_the_answers_alone(
    device_api: tuple[TestClient, Tokens], game: str
) -> None:
    client, tokens = device_api
    code = f"DEV-{sorted(GAMES).index(game)}"
    r = client.post("/tables", json={"command_id": "open", "table": code, "game": game,
                                     "config": {"card_source": "recorded"}},
                    headers=bearer(tokens.admin))
    assert r.status_code == 201, r.text
    assert r.json()["step"] == {"kind": "over", "seats": [], "options": [], "note": None,
                                "deal": None}
    device = Device(client, tokens.device, code)
    players, stack = GAMES[game]
    for seat in range(1, players + 1):
        device.send("/tables/{code}/seats", seat=seat, player=f"p{seat}")
        device.send("/tables/{code}/buy-ins", seat=seat, amount=stack)
    first = len(device.answers)
    answer = play(device, game, players, random.Random(game))
    results = answer["results"]
    dp = results["designated_player"]
    assert sum(s["net"] for s in results["seats"]) + results["house"] + results["rake"] + \
        results["jackpot"] + (dp["net"] if dp else 0) == 0
    for s in results["seats"]:
        assert s["net"] == s["won"] + s["returned"] - s["wagered"] - s["fee"]
    # The results agree with the transfers the answers listed, chip for chip.
    flows = accounts.net_flows(
        accounts.transfer(t["src"], t["dst"], t["amount"], t.get("rule"), t.get("memo"))
        for a in device.answers[first:] for e in a["events"] for t in e.get("transfers", ()))
    lines = {accounts.HOUSE: results["house"], accounts.RAKE: results["rake"],
             accounts.JACKPOT: results["jackpot"]}
    for s in [*results["seats"], *([dp] if dp else [])]:
        lines[accounts.player(s["player"])] = s["net"]
    assert {k: v for k, v in flows.items() if v and not accounts.is_hand_scoped(k)} == \
        {k: v for k, v in lines.items() if v}
    assert all(a["step"]["kind"] != "over" for a in device.answers[first:-1])
    # The reads of tables and hands answer as /openapi.json types them (validated on the way
    # out): the hand's results there are the settle answer's.
    auditor = bearer(tokens.auditor)
    listed = client.get("/tables", headers=bearer(tokens.device))
    assert listed.status_code == 200 and [t["table_code"] for t in listed.json()] == [code]
    configs = client.get(f"/tables/{code}/configs", headers=auditor)
    assert configs.status_code == 200 and configs.json()[0]["config"]["game"] == game
    hand = client.get(f"/tables/{code}/hands/{answer['hand_no']}", headers=auditor)
    assert hand.status_code == 200, hand.text
    assert hand.json()["result"]["results"] == results
    summaries = client.get(f"/hands?table={code}", headers=auditor)
    assert summaries.status_code == 200 and summaries.json()["items"][0]["status"] == "settled"
    mine = client.get("/hands?player=p1", headers=auditor)
    assert mine.status_code == 200, mine.text
    assert mine.json()["items"][0]["net_minor"] == next(s["net"] for s in [
        *results["seats"], *([dp] if dp else [])] if s["player"] == "p1")
    device.send("/tables/{code}/hands")
    now = client.get(f"/tables/{code}/hands/{answer['hand_no'] + 1}", headers=auditor)
    assert now.status_code == 200 and now.json()["status"] == "in_progress", now.text


def test_stud8_6_a_device_deals_the_community_card_from_the_plan_alone(
    device_api: tuple[TestClient, Tokens],
) -> None:
    """Eight stud players who never fold: the sixth-street plan says that seventh street will
    be one community card (STUD8-6), the seventh-street plan has one ``community`` slot face
    up, and the device deals it from the plan alone; the results sum to zero."""
    client, tokens = device_api
    code = "DEV-2"
    r = client.post("/tables", json={"command_id": "open", "table": code, "game": "stud-hilo",
                                     "config": {"card_source": "recorded"}},
                    headers=bearer(tokens.admin))
    assert r.status_code == 201, r.text
    device = Device(client, tokens.device, code)
    for seat in range(1, 9):
        device.send("/tables/{code}/seats", seat=seat, player=f"p{seat}")
        device.send("/tables/{code}/buy-ins", seat=seat, amount=50_000)
    first = len(device.answers)
    answer = play(device, "stud-hilo", 8, random.Random(8))
    plans = [a["step"]["deal"] for a in device.answers[first:] if a["step"]["deal"]]
    by_round = {p["round"]: p for p in plans}
    sixth, seventh = by_round["sixth_street"], by_round["seventh_street"]
    assert [s["up"] for s in sixth["slots"]] == [1] * 8
    assert "STUD8-6" in (sixth["note"] or "") and "community" in sixth["note"]
    assert seventh["slots"] == [{"target": "community", "down": 0, "up": 1}]
    assert "STUD8-6" in (seventh["note"] or "")
    (settled,) = [e for e in answer["events"] if e["type"] == "HandSettled"]
    assert settled["outcomes"]
    results = answer["results"]
    assert len(results["seats"]) == 8
    assert sum(s["net"] for s in results["seats"]) + results["rake"] + results["house"] == 0


def test_com_8_the_dealer_terminal_of_a_recorded_table_reads_back_what_it_reported(
    device_api: tuple[TestClient, Tokens],
) -> None:
    """On a ``recorded`` table the table's device not bound to a seat is the source of every
    card: its deal answer and its reads of the table hold them. A seat-bound device sees only
    its own seat's, ``?public=true`` none, and on an ``rng`` table the same unbound device sees
    no face-down card."""
    client, tokens = device_api
    admin = bearer(tokens.admin)
    cards = {"1": ["As", "Ks", "Qs", "Js", "9h"], "2": ["2c", "3c", "4c", "5c", "9d"],
             "dealer": ["Ah", "Kd", "7c", "5d", "2h"]}
    for code, source in (("DEV-0", "recorded"), ("DEV-1", "rng")):
        r = client.post("/tables", json={"command_id": f"open-{code}", "table": code,
                                         "game": "caribbean-stud",
                                         "config": {"card_source": source}}, headers=admin)
        assert r.status_code == 201, r.text
        device = Device(client, tokens.device, code)
        for seat in (1, 2):
            device.send("/tables/{code}/seats", seat=seat, player=f"p{seat}")
            device.send("/tables/{code}/buy-ins", seat=seat, amount=100_000)
        device.send("/tables/{code}/hands")
        for seat in (1, 2):
            device.send("/tables/{code}/hands/current/wagers", seat=seat, kind="ante",
                        amount=1_000)
        dealt = device.send("/tables/{code}/hands/current/deal",
                            **({"cards": cards} if source == "recorded" else {}))
        (event,) = [e for e in dealt["events"] if e["type"] == "CardsDealt"]
        answered = {str(d["target"]): d["down"] + d["up"] for d in event["dealt"]}
        hand = client.get(f"/tables/{code}", headers=bearer(tokens.device)).json()["hand"]
        read = {str(s["seat"]): s["cards"] for s in hand["seats"]}
        if source == "recorded":
            assert answered == cards
            assert read == {"1": cards["1"], "2": cards["2"]}
            assert hand["dealer_down"] == cards["dealer"][:4]
        else:
            assert all(c is None for target in ("1", "2") for c in answered[target])
            assert all(c is None for seat in read.values() for c in seat)
            assert hand["dealer_down"] == [None] * 4
        seat_two = client.post("/tokens", json={"role": "device", "tables": [code], "seat": 2},
                               headers=admin).json()["token"]
        mine = client.get(f"/tables/{code}", headers=bearer(seat_two)).json()["hand"]
        seen = {str(s["seat"]): s["cards"] for s in mine["seats"]}
        assert all(c is None for c in seen["1"]) and None not in seen["2"]
        public = client.get(f"/tables/{code}?public=true",
                            headers=bearer(tokens.device)).json()["hand"]
        assert all(c is None for s in public["seats"] for c in s["cards"])


def test_what_a_device_may_not_open_and_the_rule_book(
    device_api: tuple[TestClient, Tokens],
) -> None:
    """A seeded shuffle (simulations only) and a currency that is not ISO 4217 are refused
    when a table opens (COM-8, COM-2); any token reads the rule book."""
    client, tokens = device_api
    admin = bearer(tokens.admin)
    r = client.post("/tables", json={"command_id": "o1", "table": "DEV-0", "game": "stud-hilo",
                                     "config": {"card_source": "seeded", "shuffle_seed": 7}},
                    headers=admin)
    assert r.status_code == 409 and r.json()["error"]["code"] == "seeded_table_refused", r.text
    r = client.post("/tables", json={"command_id": "o2", "table": "DEV-0", "game": "stud-hilo",
                                     "currency": "ABC"}, headers=admin)
    assert r.status_code == 422 and r.json()["error"]["code"] == "unknown_currency", r.text
    r = client.post("/tables", json={"command_id": "o3", "table": "DEV-0", "game": "stud-hilo",
                                     "currency": "JPY"}, headers=admin)
    assert r.status_code == 201, r.text
    assert r.json()["events"][0]["currency"] == "JPY"
    rule = client.get("/rules/com-6", headers=bearer(tokens.device))
    assert rule.status_code == 200 and rule.json()["id"] == "COM-6"
    assert "whoever's turn it is" in rule.json()["text"]
    assert len(client.get("/rules", headers=bearer(tokens.device)).json()) == 58
    missing = client.get("/rules/COM-99", headers=bearer(tokens.device))
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "unknown_rule"


def test_the_document_types_configurations_hands_and_events(
    device_api: tuple[TestClient, Tokens],
) -> None:
    """/openapi.json: one configuration schema per game chosen by ``game``, the hand in
    progress likewise, one event schema per type chosen by ``type``; cards may be null."""
    client, tokens = device_api
    doc = client.get("/openapi.json", headers=bearer(tokens.device)).json()
    schemas = doc["components"]["schemas"]
    table = schemas["TableOut"]["properties"]
    assert set(table["config"]["discriminator"]["mapping"]) == set(GAMES)
    assert set(table["hand"]["anyOf"][0]["discriminator"]["mapping"]) == set(GAMES)
    events = schemas["CommandOut"]["properties"]["events"]["items"]
    assert "HandSettled" in events["discriminator"]["mapping"]
    body = schemas["OpenTableBody"]["properties"]["config"]
    assert set(body["discriminator"]["mapping"]) == set(GAMES)
    assert {"CaribbeanConfig", "HcfConfig", "ChineseConfig", "StudConfig"} <= set(schemas)
    assert schemas["SeatResult"]["properties"]["net"]["type"] == "integer"
    dealt = schemas["Dealt"]["properties"]["down"]["items"]
    assert {"type": "null"} in dealt["anyOf"]
    # the table and hand reads are typed too
    paths = doc["paths"]

    def answer(path: str) -> dict[str, Any]:
        schema: dict[str, Any] = paths[path]["get"]["responses"]["200"]["content"][
            "application/json"]["schema"]
        return schema

    assert answer("/tables")["items"]["$ref"].endswith("/TableRow")
    assert answer("/tables/{code}/configs")["items"]["$ref"].endswith("/ConfigRow")
    assert set(schemas["ConfigRow"]["properties"]["config"]["discriminator"]["mapping"]) == \
        set(GAMES)
    assert answer("/hands")["$ref"].endswith("/HandPage")
    assert {r["$ref"].rsplit("/", 1)[1] for r in schemas["HandPage"]["properties"]["items"][
        "items"]["anyOf"]} == {"HandSummary", "PlayerHand"}
    assert answer("/tables/{code}/hands/{hand_no}")["$ref"].endswith("/HandDetail")
    result = schemas["HandResult"]["properties"]["results"]["anyOf"][0]["$ref"]
    assert result.endswith("/HandResults")


def test_a_hands_export_is_named_after_its_table_and_has_a_manifest(
    device_api: tuple[TestClient, Tokens],
) -> None:
    client, tokens = device_api
    code = "DEV-3"
    client.post("/tables", json={"command_id": "open", "table": code, "game": "caribbean-stud",
                                 "config": {"card_source": "recorded"}},
                headers=bearer(tokens.admin))
    device = Device(client, tokens.device, code)
    for seat in (1, 2):
        device.send("/tables/{code}/seats", seat=seat, player=f"p{seat}")
        device.send("/tables/{code}/buy-ins", seat=seat, amount=100_000)
    play(device, "caribbean-stud", 2, random.Random(3))
    device.send("/tables/{code}/hands")  # a second hand, still in progress
    day = client.get("/accounting/days", headers=bearer(tokens.auditor)).json()[0]
    r = client.get(f"/exports/hands/{day}?format=phh&table={code.lower()}",
                   headers=bearer(tokens.auditor))
    assert r.status_code == 200, r.text
    assert f'filename="hands-{code}-{day}-phh.zip"' in r.headers["content-disposition"]
    with zipfile.ZipFile(io.BytesIO(r.content)) as archive:
        manifest = json.loads(archive.read("manifest.json"))
    assert manifest["table"] == code and manifest["hands"] == 0
    assert manifest["skipped"] == {"caribbean-stud": 1} and manifest["in_progress"] == 1
    assert manifest["replayable"] == manifest["not_replayable"] == 0
