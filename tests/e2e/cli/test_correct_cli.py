"""``ledger correct`` as a user runs it, then the hand's replay and its audit showing the
original settlement beside the correction, and a seat's player corrected (COR-1..3)."""

from __future__ import annotations

from pathlib import Path

from ledger.app.application import LedgerApp
from ledger.settings import Settings
from ledger.sim.principals import ensure_principals
from tests.e2e.cli.test_cli import ledger
from tests.support.driver import stud_hand


def test_correct_a_hand_then_replay_and_audit_it(tmp_path: Path) -> None:
    db = tmp_path / "ledger.sqlite3"
    app = LedgerApp(Settings(database_url=f"sqlite:///{db}", deck_key_file=tmp_path / "deck.key"))
    keys = tmp_path / "keys"
    try:
        ensure_principals(app, {"sup-anna": ("Anna", "supervisor")}, directory=keys)
        stud_hand(app)
    finally:
        app.close()
    anna = ("--key", str(keys / "sup-anna.key"))
    refused = ledger("correct", "hand", "STUD-C", "1", "--card", "3:8h=6h", "--approver",
                     "sup-anna", "--reason", "dealer keyed 7h for 6h", db=db)
    assert refused.returncode == 2 and "[card_not_recorded]" in refused.stderr
    bad = ledger("correct", "hand", "STUD-C", "1", "--card", "3-7h-6h", "--approver",
                 "sup-anna", "--reason", "dealer keyed 7h for 6h", db=db)
    assert bad.returncode == 2 and "[invalid_fix]" in bad.stderr
    stranger = ledger("correct", "hand", "STUD-C", "1", "--card", "3:7h=6h", "--approver",
                      "sup-nobody", "--reason", "dealer keyed 7h for 6h", db=db)
    assert stranger.returncode == 2 and "[unknown_approver]" in stranger.stderr
    done = ledger("correct", "hand", "STUD-C", "1", "--card", "3:7h=6h", "--approver",
                  "sup-anna", "--reason", "dealer keyed 7h for 6h", *anna, db=db)
    assert done.returncode == 0, done.stderr
    assert "CORRECTION of hand 1" in done.stdout and "approved by sup-anna" in done.stdout
    assert "signed by sup-anna (key " in done.stdout
    assert "player:p2 -> player:p3 5.00 correction of hand 1 (COR-1)" in done.stdout
    replay = ledger("replay", "STUD-C", "1", db=db)
    assert replay.returncode == 0, replay.stderr
    text = replay.stdout
    assert text.index("HandSettled") < text.index("HandCorrected")
    assert "card of seat 3: recorded 7h, was 6h" in text
    assert "after the correction (COR-1):" in text
    audit = ledger("audit", "hand", "STUD-C", "1", db=db)
    assert audit.returncode == 0, audit.stdout + audit.stderr
    assert "HandCorrected (correct_hand)" in audit.stdout and "approved by sup-anna" in audit.stdout
    movement = ledger("correct", "movement", "STUD-C", "3", "10000", "--approver", "sup-anna",
                      "--reason", "keyed 200.00 for 100.00", *anna, db=db)
    assert movement.returncode == 0, movement.stderr
    assert "CORRECTION of event 3 (buy-in of p1): recorded 200.00, really 100.00" in (
        movement.stdout)
    owed = ledger("correct", "owed", "STUD-C", "p1", "--approver", "sup-anna", "--reason",
                  "nothing owed", *anna, db=db)
    assert owed.returncode == 2 and "[nothing_owed]" in owed.stderr
    seat = ledger("correct", "seat", "STUD-C", "2", "carla", "--from-hand", "1", "--to-hand",
                  "1", "--approver", "sup-anna", "--reason", "carded under another id", *anna,
                  db=db)
    assert seat.returncode == 0, seat.stderr
    line = ("CORRECTION seat 2, hands 1 to 1: recorded as p2, was carla; no chip moves; "
            "approved by sup-anna: carded under another id [COR-3]")
    assert line in seat.stdout
    replay = ledger("replay", "STUD-C", "1", db=db)
    assert replay.returncode == 0 and line in replay.stdout, replay.stdout + replay.stderr
    audit = ledger("audit", "hand", "STUD-C", "1", db=db)
    assert audit.returncode == 0, audit.stdout + audit.stderr
