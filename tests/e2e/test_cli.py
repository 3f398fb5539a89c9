"""The ``ledger`` command line, run as a user runs it (a subprocess per call)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest


def ledger(*args: str, db: Path, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "LEDGER_DATABASE_URL": f"sqlite:///{db}",
        "LEDGER_DECK_KEY_FILE": str(db.parent / "deck.key"),
        "LEDGER_LOG_LEVEL": "WARNING",
    }
    return subprocess.run(
        [sys.executable, "-m", "ledger", *args],
        capture_output=True,
        text=True,
        env=env,
        input=stdin,
        timeout=300,
        check=False,
    )


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "ledger.sqlite3"


def test_every_command_has_help(db: Path) -> None:
    out = ledger("--help", db=db)
    assert out.returncode == 0
    for command in ("demo", "simulate", "replay", "serve", "tokens"):
        assert command in out.stdout
        sub = ledger(command, "--help", db=db)
        assert sub.returncode == 0 and "Usage" in sub.stdout


def test_simulate_then_replay_a_hand(db: Path) -> None:
    out = ledger(
        "simulate",
        "--game",
        "caribbean-stud",
        "--hands",
        "30",
        "--seed",
        "3",
        "--table",
        "CSP-7",
        db=db,
    )
    assert out.returncode == 0, out.stderr
    assert "caribbean-stud table CSP-7: 30 hands" in out.stdout
    again = ledger(
        "simulate", "--game", "caribbean-stud", "--hands", "5", "--table", "CSP-7", db=db
    )
    assert again.returncode == 0, again.stderr
    replay = ledger("replay", "CSP-7", "35", db=db)
    assert replay.returncode == 0, replay.stderr
    assert "hand 35 starts" in replay.stdout and "HandSettled" in replay.stdout
    assert "deck commitment verified (COM-8)" in replay.stdout


def test_replay_of_an_unknown_hand_or_table_is_a_coded_error(db: Path) -> None:
    ledger("simulate", "--game", "caribbean-stud", "--hands", "2", "--table", "T", db=db)
    out = ledger("replay", "T", "9", db=db)
    assert out.returncode == 2 and "unknown_hand" in out.stderr
    out = ledger("replay", "NOPE", "1", db=db)
    assert out.returncode == 2 and "unknown_table" in out.stderr


def test_simulate_refuses_an_unknown_game(db: Path) -> None:
    out = ledger("simulate", "--game", "blackjack", "--hands", "1", db=db)
    assert out.returncode == 2 and "unknown_game" in out.stderr
