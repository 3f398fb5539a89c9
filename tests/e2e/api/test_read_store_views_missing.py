"""A read store (LEDGER_READ_DATABASE_URL) that does not hold the views' tables yet (a standby
that has not replayed them): the reading commands that read the views end with the coded
``store_unavailable`` saying what to do, never ``internal_error``; the commands that read only
the events go on."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.cli.test_cli import ledger

pytestmark = pytest.mark.postgres


def test_views_not_yet_replayed_are_store_unavailable(
        postgres_schema: tuple[str, str], tmp_path: Path) -> None:
    url, schema = postgres_schema
    env = {"LEDGER_DATABASE_URL": url, "LEDGER_POSTGRES_SCHEMA": schema,
           "LEDGER_DECK_KEY_FILE": str(tmp_path / "deck.key")}
    db = tmp_path / "unused.sqlite3"
    played = ledger("simulate", "--game", "caribbean-stud", "--hands", "1", "--table", "N-1",
                    db=db, **env)
    assert played.returncode == 0, played.stderr
    reading = {**env, "LEDGER_READ_DATABASE_URL": url}  # the primary itself, views never built
    for args in (("hands", "--player", "player-01"),
                 ("export", "accounting", "--day", "2026-03-14", "--out", str(tmp_path))):
        done = ledger(*args, db=db, **reading)
        assert done.returncode == 2, done.stderr
        assert done.stderr.startswith("error [store_unavailable]"), done.stderr
        assert "has not replayed the views' tables" in done.stderr
    audit = ledger("audit", "verify", db=db, **reading)
    assert audit.returncode == 0, audit.stderr
