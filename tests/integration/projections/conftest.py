"""A ledger with hands of every game played into a fresh store (SQLite and PostgreSQL)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from ledger.app.application import LedgerApp
from ledger.settings import Settings
from ledger.sim.profiles import PROFILES
from ledger.sim.runner import simulate
from ledger.store.history import stream
from projections.db import Store

HANDS = {"caribbean-stud": 14, "high-card-flush": 12, "chinese-poker": 10, "stud-hilo": 8}
"""Hands per game: enough for folds, wins, jackpot lines, DP rotation, side pots."""


def table_code(game: str) -> str:
    return f"{PROFILES[game].code}-1"


def play(app: LedgerApp, hands: dict[str, int] | None = None, seed: int = 11) -> dict[str, str]:
    """Play hands of every game; game -> table code."""
    codes = {}
    for i, game in enumerate(sorted(PROFILES)):
        code = table_code(game)
        simulate(app, game, code, (hands or HANDS)[game], seed=seed + i)
        codes[game] = code
    return codes


def events(app: LedgerApp, code: str) -> list[Any]:
    return list(stream(app, code))


def dump_views(app: LedgerApp, tables: tuple[str, ...]) -> dict[str, list[dict[str, Any]]]:
    """Every row of the given view tables, in a stable order."""
    store = Store(app.recorder)
    out = {}
    for table in tables:
        rows = store.fetchall(f"SELECT * FROM {{{table}}}")
        out[table] = sorted(rows, key=lambda r: repr(sorted(r.items())))
    return out


@pytest.fixture
def app(store_settings: Settings) -> Iterator[LedgerApp]:
    ledger = LedgerApp(store_settings)
    yield ledger
    ledger.close()


@pytest.fixture
def played(app: LedgerApp) -> dict[str, str]:
    return play(app)


@pytest.fixture(scope="module",
                params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def shared_settings(request: pytest.FixtureRequest,
                    tmp_path_factory: pytest.TempPathFactory) -> Iterator[Settings]:
    """Like ``store_settings``, but one store per test module (for tests that only read)."""
    tmp = tmp_path_factory.mktemp("shared")
    base: dict[str, Any] = {"deck_key_file": tmp / "deck.key", "snapshot_interval": 50,
                            "log_level": "WARNING"}
    if request.param == "sqlite":
        yield Settings(database_url=f"sqlite:///{tmp}/ledger.sqlite3", **base)
        return
    import psycopg

    url = request.getfixturevalue("postgres_database")
    schema = f"m_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    try:
        yield Settings(database_url=url, postgres_schema=schema, **base)
    finally:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


@pytest.fixture(scope="module")
def shared(shared_settings: Settings) -> Iterator[tuple[LedgerApp, dict[str, str]]]:
    """One ledger per module with hands of every game played and the views caught up."""
    from projections.views.runner import Runner

    ledger = LedgerApp(shared_settings)
    codes = play(ledger)
    Runner(ledger).catch_up()
    yield ledger, codes
    ledger.close()
