"""``ledger hands``: the hand search from the command line, on both stores. The Caribbean
table is played as the demo plays its first hands (``ledger demo``: table CSP-1, seed 2026), so
that its second hand pays a jackpot award (CSP-6)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import date, timedelta

import pytest

from ledger.app.application import LedgerApp
from ledger.domain.records import HandSettled
from ledger.settings import Settings
from ledger.sim.runner import simulate
from ledger.store.history import hand_events
from tests.support.cli import cli_json, run_cli

DEMO_SEED = 2026


@pytest.fixture
def played(store_settings: Settings) -> Iterator[tuple[Settings, str]]:
    app = LedgerApp(store_settings, allow_seeded=True)
    try:
        simulate(app, "caribbean-stud", "CSP-1", 0, seed=DEMO_SEED, seeded=True)
        simulate(app, "caribbean-stud", "CSP-1", 6, seed=DEMO_SEED, leave_rate=0.005)
        simulate(app, "stud-hilo", "STUD8-1", 4, seed=DEMO_SEED + 3, seeded=True)
        awarded = [n for n in range(1, 7) if any(
            isinstance(e, HandSettled) and any(j.amount for j in e.jackpot)
            for e in hand_events(app, "CSP-1", n))]
        day = _day(app)
    finally:
        app.close()
    assert awarded == [2]  # as in the demo
    yield store_settings, day


def _day(app: LedgerApp) -> str:
    from projections.read.queries import ReadModel
    from projections.views.runner import Runner

    Runner(app).catch_up()
    (day,) = ReadModel(app).gaming_days()
    return day


def test_the_jackpot_hands_of_a_day_with_their_total(played: tuple[Settings, str]) -> None:
    settings, day = played
    found = cli_json(settings, "hands", "--table", "CSP-1", "--day", day, "--rule", "CSP-6")
    assert found["total"] == 1 and found["next_offset"] is None
    (hand,) = found["items"]
    assert (hand["table_code"], hand["hand_no"], hand["currency"]) == ("CSP-1", 2, "EUR")
    assert hand["jackpot_awards_minor"] > 0 and "CSP-6" in hand["paid_rules"]
    assert found["searched"] == {"table": "CSP-1", "rule": "CSP-6", "from": day, "to": day}
    # Every hand with a jackpot wager cites CSP-6; only the award paid under it.
    cited = cli_json(settings, "hands", "--table", "csp-1", "--cites", "csp-6")
    assert cited["total"] > 1 and all("CSP-6" in h["rules"] for h in cited["items"])
    text = run_cli(settings, "hands", "--table", "CSP-1", "--day", day, "--rule", "CSP-6")
    assert text.returncode == 0, text.stderr
    assert "CSP-1 #2 " in text.stdout and "paid under CSP-3, CSP-6, CSP-7" in text.stdout
    assert f"1 hand (table CSP-1, gaming day {day}, paid under CSP-6)" in text.stdout


def test_pages_add_up_to_the_total_with_and_without_a_player(
        played: tuple[Settings, str]) -> None:
    settings, _ = played
    every = cli_json(settings, "hands", "--limit", "1000")
    assert every["total"] == len(every["items"]) == 10
    seen, offset = [], 0
    while offset is not None:
        page = cli_json(settings, "hands", "--limit", "4", "--offset", str(offset))
        assert page["total"] == 10
        seen += [(h["table_code"], h["hand_no"]) for h in page["items"]]
        offset = page["next_offset"]
    assert seen == [(h["table_code"], h["hand_no"]) for h in every["items"]]
    player = "player-01"
    mine = cli_json(settings, "hands", "--player", player, "--limit", "3")
    assert mine["total"] > 3 and len(mine["items"]) == 3 and mine["next_offset"] == 3
    assert {h["player"] for h in mine["items"]} == {player}
    won = cli_json(settings, "hands", "--player", player, "--won", "0.01", "--limit", "1000")
    assert all(h["net_minor"] >= 1 for h in won["items"])
    assert won["searched"]["won_min"] == 1


BAD_SEARCHES: list[tuple[list[str], str]] = [
    (["--rule", "CSP-99"], "unknown_rule"),
    (["--game", "poker"], "unknown_game"),
    (["--status", "lost"], "invalid_request"),
    (["--won", "1.234"], "invalid_amount"),
    (["--won", "-5"], "invalid_amount"),
    (["--day", "2026-02-30"], "invalid_day"),
    (["--day", "2999-01-01"], "day_not_started"),
    (["--day", "2026-03-01", "--month", "2026-03"], "invalid_period"),
    (["--table", "NOPE-1"], "unknown_table"),
    (["--limit", "0"], "invalid_argument"),
]


def test_bad_searches_are_coded(played: tuple[Settings, str]) -> None:
    settings, _ = played
    for args, code in BAD_SEARCHES:
        done = run_cli(settings, "hands", *args)
        assert done.returncode == 2 and f"[{code}]" in done.stderr, (args, done.stderr)
        assert not done.stdout, args


def test_a_period_past_today_is_searched_up_to_today(played: tuple[Settings, str]) -> None:
    settings, day = played
    later = (date.fromisoformat(day) + timedelta(days=40)).isoformat()
    done = run_cli(settings, "hands", "--from", day, "--to", later, "--json")
    assert done.returncode == 0, done.stderr
    assert f"searched {day} to " in done.stderr and later not in done.stderr.split("searched")[1]
    assert json.loads(done.stdout)["searched"]["to"] < later
    empty = run_cli(settings, "hands", "--table", "CSP-1", "--rule", "STUD8-11")
    assert empty.returncode == 0
    assert empty.stdout.strip() == "no hand matches (table CSP-1, paid under STUD8-11)"
