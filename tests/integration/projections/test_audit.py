"""The audit over simulated hands of every game, its day scope, seals and the hand replay."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from pydantic import SecretStr

from ledger.application import LedgerApp
from ledger.errors import LedgerError, NotFound
from ledger.settings import Settings
from ledger.sim.profiles import PROFILES
from ledger.sim.runner import simulate
from ledger.table import table_id
from projections.audit import verify
from projections.audit.handreplay import hand_replay
from projections.audit.seal import make_seal, seal_key
from projections.context import gaming_day
from tests.support import tamper

from .conftest import HANDS

KEY = b"seal key for tests"


def test_hands_of_every_game_audit_clean(app: LedgerApp, played: dict[str, str]) -> None:
    report = verify(app)
    assert report.as_dict() == {
        "tables": sorted(report.tables, key=report.tables.index),
        "hands_checked": sum(HANDS.values()),
        "events_checked": sum(app.load(c).version for c in played.values()),
        "discrepancies": [],
        "chain_ok": True,
        "conservation_ok": True,
    }
    assert sorted(report.tables) == sorted(played.values())


def test_audit_of_one_table_and_of_an_unknown_one(app: LedgerApp,
                                                  played: dict[str, str]) -> None:
    report = verify(app, table=played["stud-hilo"].lower())
    assert report.tables == [played["stud-hilo"]]
    assert report.hands_checked == HANDS["stud-hilo"] and report.ok
    with pytest.raises(NotFound) as err:
        verify(app, table="NOPE-9")
    assert err.value.code == "unknown_table"


def test_day_scope_recomputes_only_that_gaming_days_hands(app: LedgerApp,
                                                          played: dict[str, str]) -> None:
    start = app.settings.gaming_day_start
    today = gaming_day(datetime.now(UTC), "Europe/Amsterdam", start)
    assert verify(app, day=today).hands_checked == sum(HANDS.values())
    other = (datetime.now(UTC) - timedelta(days=3)).date().isoformat()
    elsewhere = verify(app, day=other)
    assert elsewhere.hands_checked == 0 and elsewhere.events_checked == 0
    assert elsewhere.ok
    with pytest.raises(LedgerError) as err:
        verify(app, day="14/03/2026")
    assert err.value.code == "invalid_day"


@pytest.mark.parametrize("game", sorted(PROFILES))
def test_hand_replay_recomputes_every_decision(app: LedgerApp, game: str) -> None:
    code = f"{PROFILES[game].code}-R"
    simulate(app, game, code, 3, seed=5)
    replay = hand_replay(app, code, 2)
    assert replay.game == game and replay.ok
    assert replay.steps and all(s.agrees for s in replay.steps if s.recomputed is not None)
    assert replay.steps[0].event == "HandStarted"
    assert replay.steps[-1].event in ("HandSettled", "HandCancelled", "HandVoided")
    assert replay.commitment_ok is True
    assert any(s.rules for s in replay.steps)
    with pytest.raises(NotFound):
        hand_replay(app, code, 99)


def test_a_seal_holds_until_the_store_is_cut_short(app: LedgerApp,
                                                   played: dict[str, str]) -> None:
    day = gaming_day(datetime.now(UTC), "Europe/Amsterdam", app.settings.gaming_day_start)
    seal = make_seal(app, day, KEY)
    assert {h["table"] for h in seal["tables"]} == set(played.values())
    assert verify(app, seal=seal, seal_key=KEY).ok
    wrong = verify(app, seal=seal, seal_key=b"another key")
    assert [d.kind for d in wrong.discrepancies] == ["seal_signature"] and not wrong.chain_ok
    code = played["caribbean-stud"]
    tid = table_id(code)
    last = app.load(code).version
    for version in (last, last - 1):  # the tail and its command-log rows: only the seal sees it
        tamper.delete_event(app, tid, version)
    tamper.delete_command(app, tid, last - 1)
    report = verify(app, seal=seal, seal_key=KEY)
    kinds = [(d.table, d.kind) for d in report.discrepancies]
    assert (code, "seal_truncated") in kinds and not report.chain_ok
    assert verify(app).chain_ok  # without the seal the cut is invisible: the reason for seals


def test_sealing_needs_a_key(store_settings: Settings) -> None:
    with pytest.raises(LedgerError) as err:
        seal_key(store_settings)
    assert err.value.code == "seal_key_missing"
    keyed = store_settings.model_copy(update={"seal_key": SecretStr("k")})
    assert seal_key(keyed) == b"k"
