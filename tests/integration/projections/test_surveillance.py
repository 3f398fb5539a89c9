"""Game protection on seeded simulated days: each cheat of the simulator, among honest players,
is flagged by the surveillance report, and every hand its flag lists is a hand where it cheated
(the read side on SQLite and PostgreSQL; the CLI and the HTTP API give the same flags)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import closing
from typing import Any

import pytest
from fastapi.testclient import TestClient

from ledger.api import create_app
from ledger.app.application import LedgerApp
from ledger.cli.projections import catch_up
from ledger.settings import Settings
from ledger.sim.protection_day import PLANTED, key, play_day
from projections.protection.report import surveillance
from projections.read.fleet import read_model
from projections.reports.periods import Period
from tests.support.http import bearer

HANDS = {"CSP-P": 40, "CSP-R": 60, "HCF-P": 40, "HCF-Q": 100, "STUD-D": 40, "STUD-S": 50,
         "CHP-P": 40}
"""Hands per table: at seed 1 each cheat is flagged with these (the power study in
``ops/bench/surveillance.py`` gives how many each needs in general)."""
ON_POSTGRES = ("CSP-P", "CHP-P")
"""The tables also played on PostgreSQL (the others: the same SQL, longer hands)."""


def _report(app: LedgerApp, table: str | None = None) -> dict[str, Any]:
    catch_up(app)
    model = read_model(app)
    days = model.gaming_days()
    return surveillance(model, Period(days[0], days[-1], "range"), table)


def _check(table: str, report: dict[str, Any], cheated: dict[str, list[int]]) -> None:
    planted = [p for p in PLANTED if p.table == table]
    for p in planted:
        found = [f for f in report["flags"] if p.found_by(f)]
        assert found, (key(p), [(f["kind"], f["players"], f["dealer"]) for f in report["all"][:5]])
        for flag in found:
            assert flag["hands"], flag
            assert {h["hand_no"] for h in flag["hands"]} <= set(cheated[key(p)]), flag
            assert all(h["table"] == table for h in flag["hands"])
    honest = [f for f in report["flags"] if not any(p.found_by(f) for p in planted)]
    assert not honest, honest


@pytest.fixture
def app(store_settings: Settings) -> Iterator[LedgerApp]:
    ledger = LedgerApp(store_settings, allow_seeded=True)
    yield ledger
    ledger.close()


@pytest.mark.parametrize("table", sorted(HANDS))
def test_each_cheat_is_flagged_on_hands_where_it_cheated(app: LedgerApp, table: str,
                                                         store_settings: Settings) -> None:
    if store_settings.database_url.startswith("postgresql") and table not in ON_POSTGRES:
        pytest.skip("played on SQLite only: the same SQL, and Stud hands are long")
    cheated = play_day(app, 1, only={table}, hands=HANDS)
    _check(table, _report(app, table), cheated)


def test_honest_tables_raise_no_flag(app: LedgerApp, store_settings: Settings) -> None:
    if store_settings.database_url.startswith("postgresql"):
        pytest.skip("the honest day once, on SQLite")
    play_day(app, 2, cheats=False, only={"CSP-P", "HCF-P", "CHP-P"}, hands=HANDS)
    report = _report(app)
    assert report["tests"] > 20 and report["flags"] == []


def test_cli_and_api_give_the_flags(tmp_path: Any) -> None:
    settings = Settings(database_url=f"sqlite:///{tmp_path}/ledger.sqlite3",
                        deck_key_file=tmp_path / "deck.key", log_level="WARNING")
    with closing(LedgerApp(settings, allow_seeded=True)) as led:
        cheated = play_day(led, 1, only={"CSP-P"}, hands=HANDS)
        catch_up(led)
        day = read_model(led).gaming_days()[0]
    env = {**os.environ, "LEDGER_DATABASE_URL": settings.database_url,
           "LEDGER_DECK_KEY_FILE": str(settings.deck_key_file), "LEDGER_LOG_LEVEL": "WARNING"}
    run = subprocess.run([sys.executable, "-m", "ledger", "report", "surveillance", "--day",
                          day, "--json"], capture_output=True, text=True, env=env,
                         timeout=300, check=False)
    assert run.returncode == 0, run.stderr
    flags = json.loads(run.stdout)
    assert [(f["kind"], f["players"]) for f in flags] == [("csp_hidden_cards", ["player-03"])]
    flag = flags[0]
    assert set(flag) >= {"kind", "table", "players", "dealer", "statistic", "p_value",
                         "decisions", "hands"}
    assert flag["p_value"] < 0.05 and flag["statistic"] > 3 and flag["decisions"] >= 30
    assert {h["hand_no"] for h in flag["hands"]} <= set(cheated["csp-hole-carder:player-03"])
    text = subprocess.run([sys.executable, "-m", "ledger", "report", "surveillance", "--day",
                           day], capture_output=True, text=True, env=env, timeout=300,
                          check=False)
    assert text.returncode == 0 and "FLAG csp_hidden_cards" in text.stdout, text.stderr
    refused = subprocess.run([sys.executable, "-m", "ledger", "report", "surveillance",
                              "--day", day, "--rate", "1.5"], capture_output=True, text=True,
                             env=env, timeout=300, check=False)
    assert refused.returncode == 2 and "[invalid_rate]" in refused.stderr
    assert refused.stdout == ""
    for cheat, message in (("bogus", "write KIND:WHO"), ("csp-hole-carder:p1@2", "KIND:WHO"),
                           ("chinese-partners:p1", "names 2 distinct players")):
        bad = subprocess.run([sys.executable, "-m", "ledger", "simulate", "--game",
                              "chinese-poker", "--hands", "1", "--cheat", cheat],
                             capture_output=True, text=True, env=env, timeout=300, check=False)
        assert bad.returncode == 2 and "[invalid_cheat]" in bad.stderr, bad.stderr
        assert message in bad.stderr
    api = create_app(settings)
    auditor = api.state.tokens.create("auditor", label="t")[0]
    accounting = api.state.tokens.create("accounting", label="t")[0]
    with TestClient(api) as client:
        answer = client.get("/reports/surveillance", params={"day": day},
                            headers=bearer(auditor))
        assert answer.status_code == 200, answer.text
        assert [(f["kind"], f["players"], f["hands"]) for f in answer.json()] == [
            (f["kind"], f["players"], f["hands"]) for f in flags]
        every = client.get("/reports/surveillance", params={"day": day, "all": "true"},
                           headers=bearer(auditor)).json()
        assert len(every) > len(flags) and all("p_value" in f for f in every)
        assert client.get("/reports/surveillance", params={"day": day},
                          headers=bearer(accounting)).status_code == 403
        bad = client.get("/reports/surveillance", params={"day": day, "rate": "0"},
                         headers=bearer(auditor))
        assert bad.status_code == 422 or bad.status_code == 400
