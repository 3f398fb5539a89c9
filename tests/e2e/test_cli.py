"""The ``ledger`` command line, run as a user runs it (a subprocess per call)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest


def ledger(*args: str, db: Path, stdin: str | None = None,
           **settings: str) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "LEDGER_DATABASE_URL": f"sqlite:///{db}",
        "LEDGER_DECK_KEY_FILE": str(db.parent / "deck.key"),
        "LEDGER_LOG_LEVEL": "WARNING",
        **settings,
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


@pytest.mark.parametrize(("variable", "value", "problem"), [
    ("LEDGER_GAMING_DAY_START", "25:00", "hour value is outside expected range"),
    ("LEDGER_LOG_FORMAT", "xml", "'console' or 'json'"),
    ("LEDGER_SNAPSHOT_INTERVAL", "1", "greater than or equal to 2"),
    ("LEDGER_LOG_LEVEL", "bogus", "not a log level"),
    ("LEDGER_CONNECT_TIMEOUT", "soon", "valid integer"),
])
def test_a_bad_setting_is_a_coded_error_naming_the_variable(
        db: Path, variable: str, value: str, problem: str) -> None:
    for args in (("tokens", "list"), ("serve", "--port", "0"), ("projections", "status")):
        out = ledger(*args, db=db, **{variable: value})
        assert out.returncode == 2, (args, out.stdout, out.stderr)
        assert "Traceback" not in out.stderr
        assert out.stderr.startswith(f"error [invalid_setting] {variable}={value!r}: ")
        assert problem in out.stderr, out.stderr


def test_every_bad_setting_is_named_at_once(db: Path) -> None:
    out = ledger("tokens", "list", db=db, LEDGER_SNAPSHOT_INTERVAL="x",
                 LEDGER_API_TOKEN_CACHE_SECONDS="-1")
    assert out.returncode == 2 and out.stderr.count("\n") == 1, out.stderr
    assert "LEDGER_SNAPSHOT_INTERVAL='x'" in out.stderr
    assert "LEDGER_API_TOKEN_CACHE_SECONDS='-1'" in out.stderr


def test_the_log_level_is_accepted_in_any_case(db: Path) -> None:
    out = ledger("tokens", "list", "--json", db=db, LEDGER_LOG_LEVEL="info")
    assert out.returncode == 0, out.stderr


def test_tokens_create_json_reports_errors_like_every_other_command(db: Path) -> None:
    out = ledger("tokens", "create", "--role", "nobody", "--json", db=db)
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.startswith("error [invalid_role] ")
    out = ledger("tokens", "create", "--role", "device", "--seat", "3", "--json", db=db)
    assert out.returncode == 2 and out.stdout == "" and out.stderr.startswith("error [")


@pytest.mark.parametrize("columns", ["80", "50"])
def test_tokens_list_shows_whole_ids_at_any_width(db: Path, columns: str) -> None:
    for n in range(3):
        made = ledger("tokens", "create", "--role", "device", "--table", f"CSP-{n}",
                      "--table", f"HCF-{n}", "--label",
                      f"the dealer terminal at the far end of the room, table {n}", db=db)
        assert made.returncode == 0, made.stderr
    ids = [json.loads(line)["token_id"] for line in
           ledger("tokens", "list", "--json", db=db).stdout.splitlines()]
    assert len(ids) == 3
    shown = ledger("tokens", "list", db=db, COLUMNS=columns)
    assert shown.returncode == 0, shown.stderr
    assert all(len(line) <= int(columns) for line in shown.stdout.splitlines())
    listed = re.findall(r"^│ ([0-9a-f]+)\s", shown.stdout, flags=re.MULTILINE)
    assert listed == ids, shown.stdout
    revoked = ledger("tokens", "revoke", listed[0], db=db)
    assert revoked.returncode == 0, revoked.stderr


def test_ledger_rules_prints_a_rule_and_lists_the_book() -> None:
    """COM-6 (the 2026-12-01 decision) from the project's own rule book; an unknown id is a
    coded error."""
    import subprocess
    import sys
    from pathlib import Path

    ledger = str(Path(sys.executable).parent / "ledger")
    one = subprocess.run([ledger, "rules", "com-6"], capture_output=True, text=True, check=False)
    assert one.returncode == 0, one.stderr
    assert one.stdout.startswith("COM-6  (Common)") and "whoever's turn it is" in one.stdout
    listed = subprocess.run([ledger, "rules", "--json"], capture_output=True, text=True,
                            check=False)
    ids = [r["id"] for r in __import__("json").loads(listed.stdout)]
    assert len(ids) == 51 and ids[0] == "COM-1" and "STUD8-11" in ids
    bad = subprocess.run([ledger, "rules", "XYZ-1"], capture_output=True, text=True, check=False)
    assert bad.returncode == 2 and "[unknown_rule]" in bad.stderr


def test_tokens_list_into_a_pipe_prints_whole_rows(db: Path) -> None:
    """Not a terminal and no COLUMNS: every row whole, nothing cut at 80 columns, dates not
    wrapped."""
    label = "the dealer terminal at the far end of the room by the window, table 7"
    made = ledger("tokens", "create", "--role", "device", "--table", "CSP-7", "--label", label,
                  db=db)
    assert made.returncode == 0, made.stderr
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    shown = subprocess.run([sys.executable, "-m", "ledger", "tokens", "list"],
                           capture_output=True, text=True, check=False, timeout=300,
                           env={**env, "LEDGER_DATABASE_URL": f"sqlite:///{db}",
                                "LEDGER_DECK_KEY_FILE": str(db.parent / "deck.key")})
    assert shown.returncode == 0, shown.stderr
    row = next(line for line in shown.stdout.splitlines() if label in line)
    assert len(row) > 80 and re.search(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}", row)
