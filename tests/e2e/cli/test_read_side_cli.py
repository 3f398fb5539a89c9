"""``ledger projections``, ``ledger audit`` and ``ledger export`` as a user runs them."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from ledger.domain.commands import StartHand, VoidHand
from ledger.table.events import table_id
from projections.views.context import gaming_day

COMMANDS = ("projections status", "projections rebuild", "projections update", "audit verify",
            "audit hand", "audit seal", "export accounting", "export hands")


def ledger(*args: str, db: Path, key: bool = True,
           **settings: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "LEDGER_DATABASE_URL": f"sqlite:///{db}",
           "LEDGER_DECK_KEY_FILE": str(db.parent / "deck.key"), "LEDGER_LOG_LEVEL": "WARNING",
           **settings}
    env.pop("LEDGER_SIGNING_KEY", None)
    env["LEDGER_SIGNING_KEY_FILE"] = str(db.parent / ("signing.key" if key else "missing.key"))
    return subprocess.run([sys.executable, "-m", "ledger", *args], capture_output=True,
                          text=True, env=env, timeout=300, check=False, cwd=db.parent)


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("cli") / "ledger.sqlite3"
    for game, code in (("caribbean-stud", "CSP-1"), ("stud-hilo", "STUD8-1")):
        out = ledger("simulate", "--game", game, "--hands", "4", "--table", code,
                     "--seed", "3", db=path)
        assert out.returncode == 0, out.stderr
    made = ledger("keys", "create", "--json", db=path)
    assert made.returncode == 0, made.stderr
    assert (path.parent / "signing.key").stat().st_mode & 0o777 == 0o600
    (path.parent / "public.key").write_text(json.loads(made.stdout)["public_key"])
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
                            "chain_ok", "conservation_ok", "seal_ok", "events_read",
                            "incremental_from", "decks_unchecked", "signatures_ok",
                            "unsigned_before_signatures"]
    assert report["hands_checked"] == 8 and report["discrepancies"] == []
    hand = ledger("audit", "hand", "CSP-1", "2", db=db)
    assert hand.returncode == 0 and "every decision agrees with the rules" in hand.stdout
    assert "recomputed" in hand.stdout and "[CSP-" in hand.stdout
    sealed = ledger("audit", "seal", "--day", today(), "--out", "seal.json", db=db)
    assert sealed.returncode == 0 and "2 table heads" in sealed.stdout
    (db.parent / "blocker").write_text("a file, not a directory")
    blocked = ledger("audit", "seal", "--day", today(), "--out", "blocker/seal.json", db=db)
    assert blocked.returncode == 2 and "output_not_writable" in blocked.stderr
    assert "blocker or a directory above it is a file, not a directory" in blocked.stderr
    checked = ledger("audit", "verify", "--seal", str(db.parent / "seal.json"), "--public-key",
                     str(db.parent / "public.key"), db=db, key=False)
    assert checked.returncode == 0 and "no discrepancies" in checked.stdout
    assert "seals: 1 signed and linked" in checked.stdout  # the seal was checked too
    no_public = ledger("audit", "verify", "--seal", str(db.parent / "seal.json"), db=db)
    assert no_public.returncode == 2 and "public_key_missing" in no_public.stderr
    no_key = ledger("audit", "seal", "--day", today(), db=db, key=False)
    assert no_key.returncode == 2 and "signing_key_missing" in no_key.stderr
    again = ledger("keys", "create", db=db)
    assert again.returncode == 2 and "key_exists" in again.stderr


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


def test_the_seal_and_the_read_models_name_what_was_changed(tmp_path: Path) -> None:
    db = tmp_path / "ledger.sqlite3"
    for code in ("K-1", "K-2"):
        assert ledger("simulate", "--game", "caribbean-stud", "--hands", "2", "--table", code,
                      db=db).returncode == 0
    public = json.loads(ledger("keys", "create", "--json", db=db).stdout)["public_key"]
    sealed = ledger("audit", "seal", "--day", today(), "--out", f"seals/seal-{today()}.json",
                    db=db)
    assert sealed.returncode == 0, sealed.stderr
    assert ledger("projections", "update", db=db).returncode == 0
    with sqlite3.connect(db) as conn:  # an insider deletes a table and edits the accounting
        conn.execute("DELETE FROM stored_events WHERE originator_id = ?", (table_id("K-2").hex,))
        conn.execute("DELETE FROM ledger_commands WHERE table_id = ?", (str(table_id("K-2")),))
        conn.execute("UPDATE proj_accounting SET drop_minor = drop_minor + 12345600 "
                     "WHERE table_code = 'K-1'")
    # the auditor has the public key only (no signing key here)
    out = ledger("audit", "verify", "--seal", "seals", "--public-key", public, "--json",
                 db=db, key=False)
    assert out.returncode == 1, out.stderr
    found = json.loads(out.stdout)["discrepancies"]
    assert ("K-2", "seal_missing_table") in {(d["table"], d["kind"]) for d in found}
    drop = next(d for d in found if d["kind"] == "projection_mismatch" and d["table"] == "K-1")
    assert drop["expected"]["field"] == "drop_minor" and drop["expected"]["view"] == "accounting"
    assert drop["recorded"]["value"] - drop["expected"]["value"] == 12345600
    status = ledger("projections", "status", db=db)
    assert status.returncode == 1 and "OUTDATED" in status.stdout


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


def command(db: Path, cmd: Any) -> None:
    """Send one command as a table device would (e.g. to leave a hand in progress), to a table
    a seeded simulation opened (which only the simulation's ledger may play, COM-8)."""
    from ledger.app.application import LedgerApp
    from ledger.settings import Settings

    app = LedgerApp(Settings(database_url=f"sqlite:///{db}",
                             deck_key_file=db.parent / "deck.key"), allow_seeded=True)
    try:
        app.execute(cmd)
    finally:
        app.close()


def test_hand_exports_replace_earlier_files_and_count_unfinished_hands(tmp_path: Path) -> None:
    db = tmp_path / "ledger.sqlite3"
    assert ledger("simulate", "--game", "stud-hilo", "--hands", "3", "--table", "P-1",
                  "--seed", "5", db=db).returncode == 0
    day = today()
    folder = tmp_path / "out" / f"hands-{day}-phh"
    first = ledger("export", "hands", "--day", day, "--format", "phh", "--out", "out", db=db)
    assert first.returncode == 0, first.stderr
    assert len(list(folder.iterdir())) == 3 and "in progress" not in first.stdout
    # A file an earlier run left behind (a hand that is no longer part of the export).
    (folder / "P-1-000099.phh").write_text("stale")
    command(db, StartHand(command_id="start-4", table="P-1"))
    again = ledger("export", "hands", "--day", day, "--format", "phh", "--out", "out", db=db)
    assert again.returncode == 0, again.stderr
    assert sorted(p.name for p in folder.iterdir()) == [f"P-1-{n:06d}.phh" for n in (1, 2, 3)]
    assert "3 hands exported as phh" in again.stdout
    assert "1 hand in progress not exported" in again.stdout
    assert [p.name for p in (tmp_path / "out").iterdir() if p.name.startswith(".")] == []
    for fmt in ("jsonl", "ohh"):
        out = ledger("export", "hands", "--day", day, "--format", fmt, "--out", "out", db=db)
        assert out.returncode == 0, out.stderr
        assert "1 hand in progress not exported" in out.stdout, out.stdout
    # One table's export has its own files, and leaves the whole day's alone.
    one = ledger("export", "hands", "--day", day, "--format", "phh", "--table", "p-1",
                 "--out", "out", db=db)
    assert one.returncode == 0, one.stderr
    assert len(list((tmp_path / "out" / f"hands-P-1-{day}-phh").iterdir())) == 3
    assert len(list(folder.iterdir())) == 3
    # A voided hand has ended, but PHH records hands played out: counted, not written.
    command(db, VoidHand(command_id="void-4", table="P-1", reason="misdeal"))
    voided = ledger("export", "hands", "--day", day, "--format", "phh", "--out", "out", db=db)
    assert "1 voided or cancelled stud-hilo hand not exported" in voided.stdout, voided.stdout
    assert "in progress" not in voided.stdout and len(list(folder.iterdir())) == 3
    # A day without hands empties the directory of an earlier export of that day.
    (tmp_path / "out" / "hands-2020-01-01-phh").mkdir()
    (tmp_path / "out" / "hands-2020-01-01-phh" / "P-1-000001.phh").write_text("stale")
    empty = ledger("export", "hands", "--day", "2020-01-01", "--format", "phh", "--out", "out",
                   db=db)
    assert empty.returncode == 0 and "0 hands exported as phh" in empty.stdout
    assert list((tmp_path / "out" / "hands-2020-01-01-phh").iterdir()) == []


def test_audit_seal_refuses_a_day_not_started_and_warns_for_one_in_progress(db: Path) -> None:
    current = date.fromisoformat(today())
    tomorrow, yesterday = str(current + timedelta(days=1)), str(current - timedelta(days=1))
    for future in (tomorrow, "2030-01-01"):
        out = ledger("audit", "seal", "--day", future, "--out", f"seal-{future}.json", db=db)
        assert out.returncode == 2, out.stdout + out.stderr
        assert out.stderr.startswith("error [day_not_started] ")
        assert not (db.parent / f"seal-{future}.json").exists()
    running = ledger("audit", "seal", "--day", today(), "--out", "seal-running.json", db=db)
    assert running.returncode == 0, running.stderr
    counts, warning = running.stderr.splitlines()[:2]
    assert counts.startswith(f"gaming day {today()}: 2 tables with activity, ")
    assert warning.startswith(f"warning: gaming day {today()} is still in progress at "
                              "CSP-1, STUD8-1")
    assert "up to now" in running.stderr and (db.parent / "seal-running.json").exists()
    ended = ledger("audit", "seal", "--day", yesterday, "--out", "seal-ended.json", db=db)
    assert ended.returncode == 0, ended.stderr
    # a day with nothing in it seals cleanly, with a warning (a typo in the day?)
    assert ended.stderr.startswith(f"warning: gaming day {yesterday} has no activity")
    assert "0 table heads" in ended.stdout
