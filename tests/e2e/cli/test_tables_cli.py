"""A ``recorded`` Caribbean Stud table keyed entirely from the command line (``ledger tables``:
open, seat, buy-in, start, wager, deal, act, reveal, settle, cash-out), with coded refusals that
append nothing; then the hand corrected (``ledger correct``, COR-1) and audited (``ledger audit
hand``), and found by the hand search; on both stores."""

from __future__ import annotations

import json
from pathlib import Path

from ledger.settings import Settings
from tests.support.cli import cli_json, run_cli

TABLE = "CSP-9"


def _ok(settings: Settings, *args: str) -> str:
    done = run_cli(settings, *args)
    assert done.returncode == 0, (args, done.stdout + done.stderr)
    return done.stdout


def _refused(settings: Settings, code: str, *args: str) -> None:
    done = run_cli(settings, *args)
    assert done.returncode == 2 and f"[{code}]" in done.stderr, (args, done.stderr)
    assert not done.stdout


def _version(settings: Settings) -> int:
    found: int = cli_json(settings, "tables", "show", TABLE)["version"]
    return found


def test_a_recorded_hand_keyed_from_the_cli_corrected_and_audited(
        store_settings: Settings, tmp_path: Path) -> None:
    s = store_settings
    config = tmp_path / "csp9.json"
    config.write_text(json.dumps({"limits": {"ante": {"min": 500, "max": 20_000}}}))
    opened = cli_json(s, "tables", "open", TABLE, "--game", "caribbean-stud", "--card-source",
                      "recorded", "--config", str(config), "--set", "jackpot.seed=500000")
    (event,) = opened["events"]
    assert event["config"]["card_source"] == "recorded"
    assert event["config"]["limits"]["ante"] == {"min": 500, "max": 20_000}
    assert opened["step"]["kind"] == "over"
    for seat, player in ((1, "alice"), (2, "bob")):
        _ok(s, "tables", "seat", TABLE, str(seat), player)
        _ok(s, "tables", "buy-in", TABLE, str(seat), "300")
    _refused(s, "invalid_amount", "tables", "buy-in", TABLE, "1", "12.345")
    started = cli_json(s, "tables", "start", TABLE)
    assert started["hand_no"] == 1 and started["step"]["kind"] == "wager"
    _refused(s, "wager_below_minimum", "tables", "wager", TABLE, "1", "ante", "1")
    _ok(s, "tables", "wager", TABLE, "1", "ante", "10")
    _ok(s, "tables", "wager", TABLE, "1", "jackpot", "1.00")
    wagered = cli_json(s, "tables", "wager", TABLE, "2", "ante", "10")
    assert _version(s) == wagered["table_version"] == 9  # the refusals appended nothing
    assert [slot["target"] for slot in wagered["step"]["deal"]["slots"]] == [1, 2, "dealer"]
    dealer = "dealer=Jc,Jd,8s,6c,2c"
    _refused(s, "duplicate_card", "tables", "deal", TABLE, "--cards", "1=Ah,Kh,9h,5h,2h",
             "--cards", "2=Qs,Qd,7c,4d,3s", "--cards", "dealer=Jc,Jd,8s,6c,Ah")
    _refused(s, "wrong_card_count", "tables", "deal", TABLE, "--cards", "1=Ah,Kh,9h,5h",
             "--cards", "2=Qs,Qd,7c,4d,3s", "--cards", dealer)
    _refused(s, "wrong_deal_targets", "tables", "deal", TABLE, "--cards", "1=Ah,Kh,9h,5h,2h",
             "--cards", dealer)
    _refused(s, "unknown_card", "tables", "deal", TABLE, "--cards", "1=Zz,Kh,9h,5h,2h",
             "--cards", "2=Qs,Qd,7c,4d,3s", "--cards", dealer)
    _refused(s, "invalid_cards", "tables", "deal", TABLE, "--cards", "1")
    assert _version(s) == 9
    dealt = _ok(s, "tables", "deal", TABLE, "--cards", "1=Ah,Kh,9h,5h,2h", "--cards",
                "2=Qs,Qd,7c,4d,3s", "--cards", dealer)
    assert "seat 1: down Ah Kh 9h 5h 2h (flush A K 9 5 2)" in dealt  # keyed: shown
    assert "next (hand 1): act by seat 1: fold, play 20.00 (EUR)" in dealt
    _refused(s, "out_of_turn", "tables", "act", TABLE, "2", "play")
    _ok(s, "tables", "act", TABLE, "1", "play")
    _ok(s, "tables", "act", TABLE, "2", "play")
    _ok(s, "tables", "reveal", TABLE)
    settled = cli_json(s, "tables", "settle", TABLE)
    seats = {r["player"]: r["net"] for r in settled["results"]["seats"]}
    assert seats == {"alice": 15_900, "bob": 3_000}  # flush 5-1 + jackpot 50.00; pair 1-1
    again = cli_json(s, "tables", "settle", TABLE, "--command-id", settled["command_id"])
    assert again["replayed"] and again["events"] == settled["events"]
    cashed = _ok(s, "tables", "cash-out", TABLE, "1", "100")
    assert "player:alice -> cage 100.00" in cashed
    # The dealer keyed seat 2's 3s for the Qc it held: three queens, the Play paid 3-1.
    _ok(s, "principals", "bootstrap", "ada", "--name", "Ada", "--key-out",
        str(tmp_path / "ada.key"))
    _ok(s, "principals", "add", "sup-anna", "--name", "Anna", "--role", "supervisor",
        "--key-out", str(tmp_path / "anna.key"), "--admin-key", str(tmp_path / "ada.key"))
    corrected = _ok(s, "correct", "hand", TABLE, "1", "--card", "2:3s=Qc", "--approver",
                    "sup-anna", "--key", str(tmp_path / "anna.key"), "--reason",
                    "dealer keyed 3s for Qc")
    assert "CORRECTION of hand 1" in corrected and "player:bob" in corrected
    audit = run_cli(s, "audit", "hand", TABLE, "1")
    assert audit.returncode == 0, audit.stdout + audit.stderr
    text = audit.stdout
    assert "HandCorrected (correct_hand)" in text and "** DIFFERS **" not in text
    assert "decisions: 10 events recomputed by the rules in force, all agree" in text
    assert "house -> player:alice" not in text  # chip movements: with --all only
    whole = _ok(s, "audit", "hand", TABLE, "1", "--all")
    assert "house -> player:alice" in whole and "| recomputed" in whole
    replay = cli_json(s, "audit", "hand", TABLE, "1")
    assert replay["ok"] and all(step["differences"] == [] for step in replay["steps"])
    assert {r["player"]: r["net"] for r in replay["results"]["seats"]} == seats
    found = cli_json(s, "hands", "--table", TABLE, "--rule", "CSP-6")
    assert found["total"] == 1 and found["items"][0]["hand_no"] == 1
    day = found["items"][0]["gaming_day"]
    exported = cli_json(s, "export", "hands", "--day", day, "--out", str(tmp_path / "out"))
    assert exported["hands"] == 1 and exported["files"][0]["hands"] == 1
    listed = cli_json(s, "tables", "list")
    assert [(t["table_code"], t["card_source"], t["hands"]) for t in listed] == [
        (TABLE, "recorded", 1)]
