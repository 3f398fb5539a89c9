"""Every implemented game played in full over HTTP against the real server (uvicorn on
loopback), on SQLite and PostgreSQL: the simulator's bots observe through an auditor token and
act through a device token, and the device's own view is checked at every step: the
auditor's view with face-down cards masked, nothing else changed."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from ledger.api import create_app
from ledger.app.application import LedgerApp
from ledger.games.registry import GAMES
from ledger.settings import Settings
from ledger.table.events import table_id
from tests.support.http import Tokens, bearer, conserved, make_tokens, play_table, serve

HANDS = 6


@pytest.fixture
def live(store_settings: Settings) -> Iterator[tuple[httpx.Client, Tokens, LedgerApp]]:
    codes = [f"E2E-{n}" for n in range(len(GAMES))]
    app = create_app(store_settings)
    tokens = make_tokens(app, codes)
    with serve(app) as url, httpx.Client(base_url=url, timeout=30) as client:
        yield client, tokens, app.state.ledger


def test_every_game_plays_full_hands_over_http(
    live: tuple[httpx.Client, Tokens, LedgerApp],
) -> None:
    client, tokens, ledger = live
    for n, game in enumerate(sorted(GAMES)):
        code = f"E2E-{n}"
        executor = play_table(client, tokens, game, code, HANDS, seed=n, check_device_view=True)
        state = executor.state()
        assert state["hand_no"] == HANDS and state["hand"] is None, game
        assert conserved(state), game
        # The table device saw the same hands with the face-down cards masked.
        assert executor.hidden_seen > 0, game
        assert executor.shown_seen > 0, game  # up cards and revealed hands stay visible
        # Every event the answers reported is in the stream, once, in order.
        stored = ledger.recorder.select_events(table_id(code))
        assert len(stored) == executor.events == state["version"], game
        assert [e.originator_version for e in stored] == list(range(1, len(stored) + 1))
        # The auditor replays a hand with every decision recomputed, and reads it in full.
        replay = client.get(f"/tables/{code}/hands/{HANDS}/replay", headers=bearer(tokens.auditor))
        assert replay.status_code == 200 and replay.json()["ok"], (game, replay.text)
        hand = client.get(f"/tables/{code}/hands/{HANDS}", headers=bearer(tokens.auditor)).json()
        assert hand["status"] != "in_progress", game
    # The audit verifies the whole store clean, and accounting sees every table's day.
    audit = client.get("/audit/verify", headers=bearer(tokens.auditor)).json()
    assert audit["ok"] and audit["chain_ok"] and audit["conservation_ok"], audit["discrepancies"]
    assert audit["hands_checked"] == HANDS * len(GAMES)
    rows = client.get("/accounting", headers=bearer(tokens.accounting)).json()
    assert {r["table_code"] for r in rows} == {f"E2E-{n}" for n in range(len(GAMES))}
