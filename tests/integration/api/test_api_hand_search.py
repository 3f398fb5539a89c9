"""``GET /hands`` on both stores: a page, the total and the link to the next page; the filters
(table, day, period, month, game, status, player, rule paid, rule cited, amounts) and their
coded refusals; the console's hand search reading it."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import date, timedelta
from html import unescape
from typing import Any

import pytest
from fastapi.testclient import TestClient

from ledger.api import create_app
from ledger.settings import Settings
from ledger.sim.runner import simulate
from tests.support.http import Tokens, app_of, assert_error, bearer, make_tokens

DEMO_SEED = 2026


@pytest.fixture
def api(store_settings: Settings) -> Iterator[tuple[TestClient, Tokens, str]]:
    app = create_app(store_settings)
    tokens = make_tokens(app, ["CSP-1", "HCF-1"])
    with TestClient(app, raise_server_exceptions=False) as client:
        ledger = app_of(client).state.ledger
        ledger.allow_seeded = True  # as the demo plays it (COM-8: simulations only)
        simulate(ledger, "caribbean-stud", "CSP-1", 0, seed=DEMO_SEED, seeded=True)
        simulate(ledger, "caribbean-stud", "CSP-1", 5, seed=DEMO_SEED, leave_rate=0.005)
        simulate(ledger, "high-card-flush", "HCF-1", 4, seed=5)
        day = client.get("/accounting/days", headers=bearer(tokens.auditor)).json()[0]
        yield client, tokens, day


def _keys(rows: list[dict[str, Any]]) -> list[tuple[str, int]]:
    return [(r["table_code"], r["hand_no"]) for r in rows]


def test_pages_with_a_total_and_a_link_to_the_next(api: tuple[TestClient, Tokens, str]
                                                   ) -> None:
    client, tokens, _ = api
    auditor = bearer(tokens.auditor)
    whole = client.get("/hands", params={"limit": 1000}, headers=auditor).json()
    assert whole["total"] == len(whole["items"]) == 9 and whole["next"] is None
    seen: list[tuple[str, int]] = []
    link: str | None = "/hands?limit=2&game="
    pages = 0
    while link is not None:
        answer = client.get(link, headers=auditor)
        assert answer.status_code == 200, answer.text
        page = answer.json()
        assert page["total"] == 9 and len(page["items"]) <= 2
        seen += _keys(page["items"])
        link = page["next"]
        pages += 1
        if link is not None:
            assert link.startswith("/hands?") and "limit=2" in link
    assert seen == _keys(whole["items"]) and pages == 5
    assert all(r["currency"] == "EUR" for r in whole["items"])
    # The filters travel with the link.
    first = client.get("/hands", params={"table": "HCF-1", "limit": 3},
                       headers=auditor).json()
    assert first["total"] == 4 and "table=HCF-1" in first["next"]
    rest = client.get(first["next"], headers=auditor).json()
    assert _keys(rest["items"]) == [("HCF-1", 4)] and rest["next"] is None
    past = client.get("/hands", params={"offset": 50}, headers=auditor).json()
    assert past["items"] == [] and past["total"] == 9 and past["next"] is None


def test_the_jackpot_hands_of_the_day(api: tuple[TestClient, Tokens, str]) -> None:
    client, tokens, day = api
    auditor = bearer(tokens.auditor)
    found = client.get("/hands", params={"table": "CSP-1", "day": day, "rule": "CSP-6"},
                       headers=auditor).json()
    assert found["total"] == 1 and _keys(found["items"]) == [("CSP-1", 2)]
    assert found["items"][0]["jackpot_awards_minor"] > 0
    assert found["searched"] == {"table": "CSP-1", "rule": "CSP-6", "from": day, "to": day}
    cited = client.get("/hands", params={"cites": "CSP-6"}, headers=auditor).json()
    assert cited["total"] > 1 and ("CSP-1", 2) in _keys(cited["items"])
    month = client.get("/hands", params={"month": day[:7], "game": "high-card-flush"},
                       headers=auditor).json()
    assert month["total"] == 4 and month["searched"]["to"] <= day[:7] + "-31"
    later = (date.fromisoformat(day) + timedelta(days=40)).isoformat()
    cut = client.get("/hands", params={"from": day, "to": later}, headers=auditor).json()
    assert cut["total"] == 9 and cut["searched"]["to"] < later and "today" in cut["note"]
    player = client.get("/hands", params={"player": "player-01", "limit": 2},
                        headers=auditor).json()
    assert player["total"] >= 4 and len(player["items"]) == 2 and "player=player-01" in \
        player["next"]


BAD_SEARCHES: list[tuple[dict[str, Any], int, str]] = [
    ({"rule": "CSP-99"}, 404, "unknown_rule"),
    ({"cites": "nonsense"}, 404, "unknown_rule"),
    ({"game": "poker"}, 422, "unknown_game"),
    ({"status": "lost"}, 422, "invalid_request"),
    ({"day": "2999-01-01"}, 409, "day_not_started"),
    ({"day": "2026-03-01", "month": "2026-03"}, 422, "invalid_period"),
    ({"from": "2026-03-01"}, 422, "invalid_period"),
    ({"month": "2026-13"}, 422, "invalid_month"),
    ({"limit": 0}, 422, "invalid_request"),
    ({"table": "NOPE-1"}, 404, "unknown_table"),
]


def test_bad_searches_are_coded(api: tuple[TestClient, Tokens, str]) -> None:
    client, tokens, _ = api
    for params, status, code in BAD_SEARCHES:
        assert_error(client.get("/hands", params=params, headers=bearer(tokens.auditor)),
                     status, code)


def test_the_console_shows_the_total_and_pages_by_rule(
        api: tuple[TestClient, Tokens, str]) -> None:
    client, tokens, day = api
    auditor = bearer(tokens.auditor)
    page = client.get("/console/hands", params={"rule": "CSP-6", "day": day}, headers=auditor)
    assert page.status_code == 200, page.text
    assert re.findall(r'/console/tables/([^/"]+)/hands/(\d+)"', page.text) == [("CSP-1", "2")]
    assert "1 hand found" in unescape(page.text)
    refused = client.get("/console/hands", params={"rule": "CSP-99"}, headers=auditor)
    assert refused.status_code == 422 and "no rule" in unescape(refused.text)
