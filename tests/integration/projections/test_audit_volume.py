"""An audit of many simulated hands of every game finds no discrepancy.

The default run plays a few hundred hands per game on SQLite (about a thousand in all); the
``slow`` run (``LEDGER_SLOW_TESTS=1``) plays 2,500 per game (10,000 hands) on SQLite and 1,000
per game (4,000 hands) on PostgreSQL, where the simulator's writes are slower.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from ledger.app.application import LedgerApp
from ledger.settings import Settings
from ledger.sim.profiles import PROFILES
from ledger.sim.runner import simulate
from projections.audit import verify
from projections.read.queries import ReadModel
from projections.views.runner import Runner

DEFAULT = {"caribbean-stud": 300, "high-card-flush": 250, "chinese-poker": 250,
           "stud-hilo": 200}


def _audit_many(app: LedgerApp, hands: dict[str, int]) -> None:
    for i, game in enumerate(sorted(PROFILES)):
        simulate(app, game, f"{PROFILES[game].code}-V", hands[game], seed=100 + i)
    report = verify(app)
    assert report.discrepancies == []
    assert report.hands_checked == sum(hands.values())
    assert report.chain_ok and report.conservation_ok
    Runner(app).catch_up()
    read = ReadModel(app)
    assert sum(t["hands"] for t in read.tables()) == sum(hands.values())


@pytest.fixture
def sqlite_app(sqlite_settings: Settings) -> Iterator[LedgerApp]:
    app = LedgerApp(sqlite_settings)
    yield app
    app.close()


def test_a_thousand_hands_of_every_game_audit_clean(sqlite_app: LedgerApp) -> None:
    _audit_many(sqlite_app, DEFAULT)


@pytest.mark.slow
@pytest.mark.timeout(3_600)
@pytest.mark.skipif(not os.environ.get("LEDGER_SLOW_TESTS"),
                    reason="a few minutes: set LEDGER_SLOW_TESTS=1")
def test_thousands_of_hands_audit_clean_on_both_stores(store_settings: Settings) -> None:
    app = LedgerApp(store_settings)
    per_game = 2_500 if store_settings.database_url.startswith("sqlite") else 1_000
    try:
        _audit_many(app, dict.fromkeys(PROFILES, per_game))
    finally:
        app.close()
