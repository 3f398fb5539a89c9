"""``ledger projections``, ``ledger audit`` and ``ledger export`` as a user runs them."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest

from ledger.table import table_id
from projections.context import gaming_day

COMMANDS = ("projections status", "projections rebuild", "projections update", "audit verify",
            "audit hand", "audit seal", "export accounting", "export hands")


def ledger(*args: str, db: Path, key: str | None = "k",
           **settings: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "LEDGER_DATABASE_URL": f"sqlite:///{db}",
           "LEDGER_DECK_KEY_FILE": str(db.parent / "deck.key"), "LEDGER_LOG_LEVEL": "WARNING",
           **settings}
    env.pop("LEDGER_SEAL_KEY", None)
    if key is not None:
        env["LEDGER_SEAL_KEY"] = key
    return subprocess.run([sys.executable, "-m", "ledger", *args], capture_output=True,
                          text=True, env=env, timeout=300, check=False, cwd=db.parent)


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("cli") / "ledger.sqlite3"
    for game, code in (("caribbean-stud", "CSP-1"), ("stud-hilo", "STUD8-1")):
        out = ledger("simulate", "--game", game, "--hands", "4", "--table", code,
                     "--seed", "3", db=path)
        assert out.returncode == 0, out.stderr
    return path


def today() -> str:
    return gaming_day(datetime.now(UTC), "Europe/Amsterdam", datetime.min.time().replace(hour=6))


def test_every_read_side_command_has_help(db: Path) -> None:
    for command in COMMANDS:
        out = ledger(*command.split(), "--help", db=db)
        assert out.returncode == 0 and "Usage" in out.stdout, command


def test_projections_status_and_rebuild(db: Path) -> None:
    before = [json.loads(line) for line in
              ledger("projections", "status", "--json", db=db).stdout.splitlines()]
    assert {row["view"] for row in before} >= {"hands", "bankrolls", "accounting"}
    assert all(row["lag"] == row["head"] > 0 for row in before)
    out = ledger("projections", "rebuild", "--view", "hands", "--view", "rake", db=db)
    assert out.returncode == 0 and "rebuilt hands, rake" in out.stdout
    after = {row["view"]: row for row in
             (json.loads(line) for line in
              ledger("projections", "status", "--json", db=db).stdout.splitlines())}
    assert after["hands"]["lag"] == 0 and after["bankrolls"]["lag"] > 0
    bad = ledger("projections", "rebuild", "--view", "nope", db=db)
    assert bad.returncode == 2 and "unknown_view" in bad.stderr


def test_audit_verify_hand_and_seal(db: Path) -> None:
    out = ledger("audit", "verify", "--json", db=db)
    assert out.returncode == 0, out.stdout + out.stderr
    report = json.loads(out.stdout)
    assert list(report) == ["tables", "hands_checked", "events_checked", "discrepancies",
                            "chain_ok", "conservation_ok"]
    assert report["hands_checked"] == 8 and report["discrepancies"] == []
    hand = ledger("audit", "hand", "CSP-1", "2", db=db)
    assert hand.returncode == 0 and "every decision agrees with the rules" in hand.stdout
    assert "recomputed" in hand.stdout and "[CSP-" in hand.stdout
    sealed = ledger("audit", "seal", "--day", today(), "--out", "seal.json", db=db)
    assert sealed.returncode == 0 and "2 table heads" in sealed.stdout
    checked = ledger("audit", "verify", "--seal", str(db.parent / "seal.json"), db=db)
    assert checked.returncode == 0 and "no discrepancies" in checked.stdout
    no_key = ledger("audit", "seal", "--day", today(), db=db, key=None)
    assert no_key.returncode == 2 and "seal_key_missing" in no_key.stderr


def test_exports_write_the_days_files(db: Path) -> None:
    day = today()
    out = ledger("export", "accounting", "--day", day, "--out", "out", db=db)
    assert out.returncode == 0, out.stderr
    assert (db.parent / "out" / f"accounting-{day}.csv").read_bytes().startswith(b"\xef\xbb\xbf")
    hands = ledger("export", "hands", "--day", day, "--format", "ohh", "--out", "out", db=db)
    assert hands.returncode == 0 and "4 hands exported as ohh" in hands.stdout
    assert "skipped 4 caribbean-stud hands" in hands.stdout
    assert (db.parent / "out" / f"hands-{day}.ohh").exists()


@pytest.mark.parametrize(("args", "code"), [
    (("export", "accounting", "--day", "14-03-2026"), "invalid_day"),
    (("audit", "verify", "--table", "NOPE-1"), "unknown_table"),
    (("audit", "hand", "CSP-1", "99"), "unknown_hand"),
    (("export", "accounting", "--day", "2026-03-14", "--out", "blocker/out"),
     "output_not_writable"),
])
def test_bad_input_is_a_coded_error(db: Path, args: tuple[str, ...], code: str) -> None:
    (db.parent / "blocker").write_text("a file, not a directory")
    out = ledger(*args, db=db)
    assert out.returncode == 2 and code in out.stderr, out.stdout + out.stderr


def test_an_edited_store_fails_the_audit(tmp_path: Path) -> None:
    db = tmp_path / "ledger.sqlite3"
    assert ledger("simulate", "--game", "caribbean-stud", "--hands", "3", "--table", "T-1",
                  db=db).returncode == 0
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE stored_events SET state = CAST(replace(CAST(state AS TEXT), "
                     "'\"seat\":1', '\"seat\":2') AS BLOB) WHERE originator_id = ? AND "
                     "originator_version = 2", (table_id("T-1").hex,))
    out = ledger("audit", "verify", "--json", db=db)
    assert out.returncode == 1
    report = json.loads(out.stdout)
    assert not report["chain_ok"]
    assert {"event_edited", "command_log_mismatch"} <= {d["kind"]
                                                         for d in report["discrepancies"]}
    human = ledger("audit", "verify", db=db)
    assert human.returncode == 1 and "BROKEN" in human.stdout


def test_projections_follow_keeps_the_views_current_until_stopped(tmp_path: Path) -> None:
    path = tmp_path / "ledger.sqlite3"
    out = ledger("simulate", "--game", "caribbean-stud", "--hands", "2", "--table", "F-1",
                 db=path)
    assert out.returncode == 0, out.stderr
    env = {**os.environ, "LEDGER_DATABASE_URL": f"sqlite:///{path}",
           "LEDGER_DECK_KEY_FILE": str(tmp_path / "deck.key"), "LEDGER_LOG_LEVEL": "WARNING"}
    log = tmp_path / "follow.out"

    def lags() -> list[int]:
        rows = ledger("projections", "status", "--json", db=path).stdout.splitlines()
        return [json.loads(line)["lag"] for line in rows]

    def wait_current() -> None:
        deadline = time.monotonic() + 60
        while any(lags()):
            assert time.monotonic() < deadline, log.read_text()
            time.sleep(0.2)

    with log.open("w") as sink:
        follower = subprocess.Popen(
            [sys.executable, "-m", "ledger", "projections", "update", "--follow",
             "--interval", "0.1"], stdout=sink, stderr=subprocess.STDOUT, env=env, cwd=tmp_path)
        try:
            wait_current()
            # Events appended while it runs are projected without another command.
            out = ledger("simulate", "--game", "stud-hilo", "--hands", "2", "--table", "F-2",
                         db=path)
            assert out.returncode == 0, out.stderr
            wait_current()
            follower.send_signal(signal.SIGTERM)
            assert follower.wait(timeout=30) == 0, log.read_text()
        finally:
            if follower.poll() is None:
                follower.kill()
    text = log.read_text()
    assert text.startswith("following tables, hands,") and text.count("updated:") >= 2
    assert "stopped:" in text.splitlines()[-1]


def test_projections_status_fails_only_when_a_view_is_outdated(tmp_path: Path) -> None:
    db = tmp_path / "ledger.sqlite3"
    assert ledger("simulate", "--game", "caribbean-stud", "--hands", "2", "--table", "O-1",
                  db=db).returncode == 0
    behind = ledger("projections", "status", db=db)
    assert behind.returncode == 0 and "behind" in behind.stdout, behind.stdout + behind.stderr
    assert ledger("projections", "update", db=db).returncode == 0
    # Built with the default gaming-day start; read with another, every view is outdated.
    for json_flag in ((), ("--json",)):
        out = ledger("projections", "status", *json_flag, db=db,
                     LEDGER_GAMING_DAY_START="04:00")
        assert out.returncode == 1, out.stdout + out.stderr
        assert "OUTDATED: rebuild" in out.stdout or '"outdated": true' in out.stdout
    assert ledger("projections", "rebuild", db=db, LEDGER_GAMING_DAY_START="04:00"
                  ).returncode == 0
    current = ledger("projections", "status", db=db, LEDGER_GAMING_DAY_START="04:00")
    assert current.returncode == 0 and "OUTDATED" not in current.stdout
