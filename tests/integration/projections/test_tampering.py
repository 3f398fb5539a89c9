"""Stored rows edited, deleted, reordered or inserted by hand with SQL, on SQLite and
PostgreSQL: the audit says where. A wrong payout written into the store is reported with the
rule behind it, even when the forger recomputes the chain and the command log."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from ledger.app.application import LedgerApp
from ledger.sim.profiles import PROFILES
from ledger.sim.runner import simulate
from ledger.table.events import table_id
from projections.audit import AuditReport, verify
from projections.audit.handreplay import hand_replay
from projections.audit.seal import make_seal
from projections.views.context import gaming_day
from tests.support import tamper

CODE = "CSP-T"


@pytest.fixture
def table(app: LedgerApp) -> str:
    simulate(app, "caribbean-stud", CODE, 8, seed=3)
    assert verify(app).ok
    return CODE


def kinds(report: AuditReport) -> list[tuple[str, Any]]:
    return [(d.kind, d.expected.get("version") if isinstance(d.expected, dict) else None)
            for d in report.discrepancies]


def state_of(app: LedgerApp, version: int) -> str:
    (row,) = app.recorder.select_events(table_id(CODE), gt=version - 1, lte=version)
    return bytes(row.state).decode()


def test_an_edited_event_is_found_at_its_version(app: LedgerApp, table: str) -> None:
    version = 12
    player = re.search(r'"player":"([^"]+)"', state_of(app, version))
    assert player is not None
    tamper.replace_in_event(app, table_id(table), version, player.group(0),
                            '"player":"someone-else"')
    report = verify(app)
    assert ("event_edited", version) in kinds(report)
    assert ("command_log_mismatch", version) in kinds(report)
    assert not report.chain_ok


def test_an_event_edited_into_text_is_found_too(app: LedgerApp, table: str) -> None:
    """SQLite keeps what an UPDATE gives it: ``replace(state, ...)`` stores text, not bytes."""
    version = 12
    player = re.search(r'"player":"([^"]+)"', state_of(app, version))
    assert player is not None
    tamper.replace_in_event(app, table_id(table), version, player.group(0),
                            '"player":"someone-else"', as_text=True)
    report = verify(app)
    assert ("event_edited", version) in kinds(report)
    assert not report.chain_ok
    assert ("command_log_mismatch", version) in kinds(report)


def test_a_deleted_event_is_a_version_gap(app: LedgerApp, table: str) -> None:
    tamper.delete_event(app, table_id(table), 20)
    report = verify(app)
    assert ("event_deleted", 20) in kinds(report)
    assert not report.chain_ok


@pytest.mark.parametrize(("first", "second"), [(30, 31), (30, 52)])
def test_reordered_events_are_found(app: LedgerApp, table: str, first: int,
                                    second: int) -> None:
    tamper.swap_events(app, table_id(table), first, second)
    report = verify(app)
    assert ("events_reordered", first) in kinds(report)
    assert ("command_log_mismatch", second) in kinds(report)
    assert not report.chain_ok


def test_an_inserted_event_is_found(app: LedgerApp, table: str) -> None:
    last = app.load(table).version
    tamper.insert_copy(app, table_id(table), 25, last + 1)
    report = verify(app)
    found = kinds(report)
    assert ("event_inserted", last + 1) in found
    assert ("command_log_unknown", last + 1) in found
    inserted = next(d for d in report.discrepancies if d.kind == "event_inserted")
    assert inserted.recorded["same_link_as_version"] == 25


def test_a_truncated_tail_is_found_by_the_command_log(app: LedgerApp, table: str) -> None:
    last = app.load(table).version
    tamper.delete_event(app, table_id(table), last)
    report = verify(app)
    missing = next(d for d in report.discrepancies if d.kind == "command_log_missing")
    assert missing.expected["versions"] == [last]


def _winning_transfer(app: LedgerApp, code: str) -> tuple[int, str, dict[str, Any]]:
    """A settlement paying a player: (version, its stored JSON, the transfer)."""
    for row in app.recorder.select_events(table_id(code)):
        if not row.topic.endswith(":HandSettled"):
            continue
        data = json.loads(row.state)
        for t in data["transfers"]:
            if t["dst"].startswith("player:") and t.get("rule"):
                return row.originator_version, bytes(row.state).decode(), t
    raise AssertionError(f"no settlement pays a player at {code}")


def _pay_more(app: LedgerApp, code: str) -> tuple[int, dict[str, Any]]:
    version, text, transfer = _winning_transfer(app, code)
    old = json.dumps(transfer, separators=(",", ":"))
    assert old in text
    new = old.replace(f'"amount":{transfer["amount"]}', f'"amount":{transfer["amount"] + 100}')
    tamper.replace_in_event(app, table_id(code), version, old, new)
    return version, transfer


@pytest.mark.parametrize("game", sorted(PROFILES))
def test_a_wrong_payout_is_reported_with_its_rule(app: LedgerApp, game: str) -> None:
    code = f"{PROFILES[game].code}-W"
    simulate(app, game, code, 6, seed=8)
    version, transfer = _pay_more(app, code)
    report = verify(app)
    wrong = [d for d in report.discrepancies if d.kind == "transfer"]
    assert wrong, report.as_dict()
    assert wrong[0].rule == transfer["rule"]
    assert wrong[0].expected["amount"] == transfer["amount"]
    assert wrong[0].recorded["amount"] == transfer["amount"] + 100
    assert ("event_edited", version) in kinds(report)  # the edit also breaks the chain


def test_a_forger_who_recomputes_the_chain_is_caught_by_the_rules_and_the_seal(
    app: LedgerApp, table: str
) -> None:
    day = gaming_day(datetime.now(UTC), "Europe/Amsterdam", app.settings.gaming_day_start)
    key = Ed25519PrivateKey.generate()
    seal = make_seal(app, day, key)
    version, transfer = _pay_more(app, table)
    tamper.rechain(app, table_id(table), version)
    tamper.rewrite_command_log(app, table_id(table))
    tamper.drop_snapshots(app, table_id(table), version)  # or their signatures would tell
    report = verify(app)
    assert report.chain_ok  # chain and command log were recomputed: they hold
    payout = next(d for d in report.discrepancies if d.kind == "transfer")
    assert payout.rule == transfer["rule"] and str(payout.rule).startswith("CSP-")
    assert not report.ok
    sealed = verify(app, seal=seal, public_key=key.public_key())
    assert ("seal_mismatch", seal["tables"][0]["version"]) in kinds(sealed)
    hand = json.loads(state_of(app, version))["hand_no"]
    replay = hand_replay(app, table, hand)
    assert [s.version for s in replay.steps if s.agrees is False] == [version]


def test_the_hand_replay_names_what_its_one_walk_finds_in_the_chain_and_command_log(
    app: LedgerApp, table: str
) -> None:
    """``audit hand`` checks the chain and the command log in the walk that replays the hand:
    an edit is named there (event_edited, command_log_mismatch), not as the hand's decision."""
    version = 12
    player = re.search(r'"player":"([^"]+)"', state_of(app, version))
    assert player is not None
    hand = json.loads(state_of(app, version))["hand_no"]
    tamper.replace_in_event(app, table_id(table), version, player.group(0),
                            '"player":"someone-else"')
    replay = hand_replay(app, table, hand)
    found = {(b["kind"], b["expected"].get("version")) for b in replay.chain_breaks}
    assert ("event_edited", version) in found and ("command_log_mismatch", version) in found
    assert not replay.ok
    assert not [d for d in replay.discrepancies if d.kind.startswith(("event_", "command_log"))]
