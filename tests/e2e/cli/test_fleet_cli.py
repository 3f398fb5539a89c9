"""The command line over two SQLite shards (``LEDGER_SHARDS``): simulations land in their
tables' stores; the audit, the views and the exports cover both; a faulty map or a code no
shard holds ends the command with a coded error and no traceback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ledger.app.fleet import Fleet
from ledger.settings import Settings
from ledger.table.events import table_id


def ledger(*args: str, cwd: Path, shards: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "LEDGER_SHARDS": shards, "LEDGER_DECK_KEY_FILE": str(cwd / "deck.key"),
           "LEDGER_LOG_LEVEL": "WARNING", "LEDGER_DATABASE_URL": f"sqlite:///{cwd}/unused.db"}
    return subprocess.run([sys.executable, "-m", "ledger", *args], capture_output=True,
                          text=True, env=env, timeout=300, check=False, cwd=cwd)


def shards_of(directory: Path) -> str:
    return (f"casino-a: A-* = sqlite:///{directory}/a.sqlite3; "
            f"casino-b: B-* = sqlite:///{directory}/b.sqlite3")


def test_simulations_audit_and_exports_span_both_shards(tmp_path: Path) -> None:
    fleet_dir = tmp_path
    shards = shards_of(fleet_dir)
    for game, code in (("caribbean-stud", "A-1"), ("stud-hilo", "B-1")):
        done = ledger("simulate", "--game", game, "--table", code, "--hands", "3",
                      "--seed", "5", cwd=fleet_dir, shards=shards)
        assert done.returncode == 0, done.stderr
    fleet = Fleet.open(Settings(shards=shards, deck_key_file=fleet_dir / "deck.key"))
    try:
        for name, code in (("casino-a", "A-1"), ("casino-b", "B-1")):
            for other in fleet.apps:
                held = fleet.apps[other].recorder.select_events(table_id(code), limit=1)
                assert bool(held) is (other == name)
    finally:
        fleet.close()
    assert not (fleet_dir / "unused.db").exists()  # LEDGER_DATABASE_URL is not a shard

    audit = ledger("audit", "verify", "--json", cwd=fleet_dir, shards=shards)
    assert audit.returncode == 0, audit.stderr
    report = json.loads(audit.stdout)
    assert sorted(report["tables"]) == ["A-1", "B-1"] and report["hands_checked"] == 6

    status = ledger("projections", "status", "--json", cwd=fleet_dir, shards=shards)
    rows = [json.loads(line) for line in status.stdout.splitlines()]
    assert {r["shard"] for r in rows} == {"casino-a", "casino-b"}

    rebuilt = ledger("projections", "rebuild", "--jobs", "2", cwd=fleet_dir, shards=shards)
    assert rebuilt.returncode == 0, rebuilt.stderr

    for code in ("A-1", "B-1"):  # one table's past, read from the store that holds it
        replay = ledger("replay", code, "1", cwd=fleet_dir, shards=shards)
        assert replay.returncode == 0, replay.stderr
        assert replay.stdout.startswith(f"table {code} hand 1:")
        hand = ledger("audit", "hand", code, "1", cwd=fleet_dir, shards=shards)
        assert hand.returncode == 0, hand.stderr

    hands = ledger("export", "hands", "--day", _day(fleet_dir, shards), "--out", "out",
                   cwd=fleet_dir, shards=shards)
    assert hands.returncode == 0, hands.stderr
    assert "6 hands exported as jsonl" in hands.stdout

    placed = ledger("shards", "--json", cwd=fleet_dir, shards=shards)
    assert placed.returncode == 0, placed.stderr
    assert [json.loads(line) for line in placed.stdout.splitlines()] == [
        {"table": "A-1", "held_by": "casino-a", "mapped_to": "casino-a", "in_place": True},
        {"table": "B-1", "held_by": "casino-b", "mapped_to": "casino-b", "in_place": True}]

    # An edited map never moves a table: the check says so, and the table is refused.
    swapped = (f"casino-a: B-* = sqlite:///{fleet_dir}/a.sqlite3; "
               f"casino-b: A-* = sqlite:///{fleet_dir}/b.sqlite3")
    check = ledger("shards", cwd=fleet_dir, shards=swapped)
    assert check.returncode == 1 and "OUT OF PLACE" in check.stdout
    play = ledger("simulate", "--game", "caribbean-stud", "--table", "A-1", "--hands", "1",
                  cwd=fleet_dir, shards=swapped)
    assert play.returncode == 2 and play.stderr.startswith("error [table_moved]"), play.stderr
    assert "`ledger shards` lists every table out of place" in play.stderr
    for read in (("replay", "A-1", "1"), ("audit", "hand", "A-1", "1"),  # reads of it too
                 ("audit", "verify", "--table", "A-1"),
                 ("export", "hands", "--day", "2026-03-14", "--out", "o", "--table", "A-1"),
                 ("hands", "--player", "player-01", "--table", "A-1")):
        done = ledger(*read, cwd=fleet_dir, shards=swapped)
        assert done.returncode == 2 and done.stderr.startswith("error [table_moved]"), \
            done.stderr


def _day(directory: Path, shards: str) -> str:
    from projections.read.fleet import read_model, runner

    fleet = Fleet.open(Settings(shards=shards, deck_key_file=directory / "deck.key"))
    try:
        runner(fleet).catch_up()
        (day,) = read_model(fleet).gaming_days()
        return day
    finally:
        fleet.close()


@pytest.mark.parametrize(("shards", "code"), [
    ("a: A-* = sqlite:///a.db; b: A-1 = sqlite:///b.db", "invalid_shards"),
    ("a: A-* = sqlite:///a.db; b: = sqlite:///b.db", "invalid_shards"),
    ("a: A-* = postgresql://db:port/x", "invalid_shards"),
    ("a: A-* = sqlite:///a.db", "no_shard"),
])
def test_a_faulty_map_or_an_unplaced_code_ends_the_command_coded(
        tmp_path: Path, shards: str, code: str) -> None:
    done = ledger("simulate", "--game", "caribbean-stud", "--table", "Z-1", "--hands", "1",
                  cwd=tmp_path, shards=shards)
    assert done.returncode == 2
    assert done.stderr.startswith(f"error [{code}]"), done.stderr
    assert "Traceback" not in done.stderr


def test_shards_without_a_map_and_a_backup_over_a_fleet_touch_no_store(tmp_path: Path) -> None:
    """`ledger shards` without LEDGER_SHARDS is no_shards before any store is opened (nothing
    made at LEDGER_DATABASE_URL); `ledger backup` over a fleet is not_across_shards, never a
    copy of LEDGER_DATABASE_URL, which a fleet does not use."""
    unset = ledger("shards", cwd=tmp_path, shards="")
    assert unset.returncode == 2 and unset.stderr.startswith("error [no_shards]"), unset.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == []
    (tmp_path / "unused.db").write_bytes(b"")  # what LEDGER_DATABASE_URL names here
    copy = ledger("backup", "--out", str(tmp_path / "bk"), cwd=tmp_path,
                  shards=shards_of(tmp_path))
    assert copy.returncode == 2 and copy.stderr.startswith("error [not_across_shards]"), \
        copy.stderr
    assert not (tmp_path / "bk").exists()
