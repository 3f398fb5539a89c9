"""Seeded simulations repeat exactly (COM-8 ``seeded`` source), and are refused for real play."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ledger.app.application import LedgerApp
from ledger.domain.errors import LedgerError
from ledger.settings import Settings
from ledger.sim.runner import simulate
from ledger.store.history import stream
from ledger.table.events import HandSettled
from projections.audit.verify import verify


def settlements(settings: Settings) -> list[Any]:
    app = LedgerApp(settings, allow_seeded=True)
    try:
        simulate(app, "stud-hilo", "SEED-1", 6, seed=42, seeded=True, leave_rate=0.01)
        assert app.load("SEED-1").state.config.card_source == "seeded"
        assert verify(app).ok  # the audit recomputes every deck from the seed
        settled = [e for e in stream(app, "SEED-1") if isinstance(e, HandSettled)]
        return [(e.hand_no, e.outcomes, e.transfers, e.deck) for e in settled]
    finally:
        app.close()


def test_com_8_a_seeded_simulation_plays_the_same_hands_again(tmp_path: Path) -> None:
    def settings(name: str) -> Settings:
        return Settings(database_url=f"sqlite:///{tmp_path / name}.sqlite3", deck_key="11" * 32)

    first, again = settlements(settings("a")), settlements(settings("b"))
    assert first == again and len(first) == 6


def test_com_8_a_ledger_that_does_not_allow_it_refuses_seeded_tables(
    sqlite_settings: Settings,
) -> None:
    allowed = LedgerApp(sqlite_settings, allow_seeded=True)
    try:
        simulate(allowed, "caribbean-stud", "SEED-2", 1, seed=3, seeded=True)
    finally:
        allowed.close()
    app = LedgerApp(sqlite_settings)
    try:
        with pytest.raises(LedgerError) as err:
            simulate(app, "caribbean-stud", "SEED-2", 1, seed=3)
        assert err.value.code == "seeded_table_refused"
        with pytest.raises(LedgerError) as err:
            simulate(app, "caribbean-stud", "SEED-3", 1, seed=3, seeded=True)
        assert err.value.code == "seeded_table_refused"
    finally:
        app.close()
