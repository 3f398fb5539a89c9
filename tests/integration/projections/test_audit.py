"""The audit over simulated hands of every game, its day scope, seals and the hand replay."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from pydantic import SecretStr

from ledger.app.application import LedgerApp
from ledger.domain.errors import LedgerError, NotFound
from ledger.settings import Settings
from ledger.sim.profiles import PROFILES
from ledger.sim.runner import simulate
from ledger.table.events import table_id
from projections.audit import verify
from projections.audit.handreplay import hand_replay
from projections.audit.keys import signing_key
from projections.audit.seal import make_hmac_seal, make_seal, seal_key
from projections.views.context import gaming_day
from tests.support import tamper
from tests.support.driver import with_supervisors

from .conftest import HANDS

KEY = Ed25519PrivateKey.generate()


def test_hands_of_every_game_audit_clean(app: LedgerApp, played: dict[str, str]) -> None:
    report = verify(app)
    assert report.as_dict() == {
        "tables": report.tables,
        "hands_checked": sum(HANDS.values()),
        "events_checked": sum(app.load(c).version for c in played.values()),
        "discrepancies": [],
        "chain_ok": True,
        "conservation_ok": True,
        "seal_ok": True,
        "events_read": sum(app.load(c).version for c in played.values()) + len(played),
        "incremental_from": None,
        "decks_unchecked": [],
        "signatures_ok": True,
        "unsigned_before_signatures": [],
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
    assert verify(app, seal=seal, public_key=KEY.public_key()).ok
    wrong = verify(app, seal=seal, public_key=Ed25519PrivateKey.generate().public_key())
    assert [d.kind for d in wrong.discrepancies] == ["seal_signature"]
    assert wrong.chain_ok and not wrong.seal_ok  # the chains are reported as they are
    code = played["caribbean-stud"]
    tid = table_id(code)
    last = app.load(code).version
    for version in (last, last - 1):  # the tail and its command-log rows: only the seal sees it
        tamper.delete_event(app, tid, version)
    tamper.delete_command(app, tid, last - 1)
    report = verify(app, seal=seal, public_key=KEY.public_key())
    kinds = [(d.table, d.kind) for d in report.discrepancies]
    assert (code, "seal_truncated") in kinds and not report.chain_ok
    assert verify(app).chain_ok  # without the seal the cut is invisible: the reason for seals


def test_seals_of_the_first_format_are_still_checked_with_their_key(app: LedgerApp) -> None:
    simulate(app, "caribbean-stud", "CSP-H", 2, seed=3)
    day = gaming_day(datetime.now(UTC), "Europe/Amsterdam", app.settings.gaming_day_start)
    old = make_hmac_seal(app, day, b"k")
    assert verify(app, seal=old, seal_key=b"k").ok
    assert [d.kind for d in verify(app, seal=old, seal_key=b"x").discrepancies] == [
        "seal_signature"]


def test_sealing_needs_a_key(store_settings: Settings) -> None:
    with pytest.raises(LedgerError) as err:
        signing_key(store_settings.model_copy(update={"signing_key_file": Path("/nonexistent")}))
    assert err.value.code == "signing_key_missing" and "LEDGER_SIGNING_KEY" in err.value.message
    with pytest.raises(LedgerError) as err:
        seal_key(store_settings)
    assert err.value.code == "seal_key_missing"
    keyed = store_settings.model_copy(update={"seal_key": SecretStr("k")})
    assert seal_key(keyed) == b"k"


def _recorded_hand(app: LedgerApp, code: str, n: int, cards: dict[str, str]) -> None:
    from ledger.domain.cards import parse_cards
    from ledger.domain.commands import Act, DealCards, PlaceWager, Reveal, Settle, StartHand

    app.execute(StartHand(command_id=f"{code}-{n}-s", table=code))
    for seat in (1, 2):
        app.execute(PlaceWager(command_id=f"{code}-{n}-w{seat}", table=code, seat=seat,
                               kind="ante", amount=1_000))
    app.execute(DealCards(command_id=f"{code}-{n}-d", table=code,
                          cards={k: parse_cards(v) for k, v in cards.items()}))
    for seat in (1, 2):
        app.execute(Act(command_id=f"{code}-{n}-a{seat}", table=code, seat=seat,
                        action="play"))
    app.execute(Reveal(command_id=f"{code}-{n}-r", table=code))
    app.execute(Settle(command_id=f"{code}-{n}-x", table=code))


def test_recorded_cards_and_a_configuration_change_are_audited(app: LedgerApp) -> None:
    """Cards reported by a device are checked again (COM-1, COM-8), and each hand is settled
    again with the configuration in force when it was played (COM-4, COM-7)."""
    from ledger.domain.commands import BuyIn, ChangeConfig, OpenTable, SeatPlayer

    code = "REC-1"
    app.execute(OpenTable(command_id="o", table=code, game="caribbean-stud",
                          config={"card_source": "recorded"}))
    for seat in (1, 2):
        app.execute(SeatPlayer(command_id=f"s{seat}", table=code, seat=seat, player=f"p{seat}"))
        app.execute(BuyIn(command_id=f"b{seat}", table=code, seat=seat, amount=100_000))
    cards = {"1": "2h 6h 9h Jh Kh", "2": "2d 4c 7s 9c Qd", "dealer": "8c 8d 3h 5s Kc"}
    _recorded_hand(app, code, 1, cards)  # seat 1's flush wins 5-1 on the Play wager
    with_supervisors(app, {"pit-boss": ("P. Boss", "supervisor")})
    app.execute(ChangeConfig(command_id="c", table=code, approver="pit-boss",
                             config={"max_aggregate_payout": 500}))
    _recorded_hand(app, code, 2, cards)  # the same hand, now capped at 5.00 (COM-7)
    report = verify(app)
    assert report.ok and report.hands_checked == 2, report.as_dict()
    for hand in (1, 2):
        replay = hand_replay(app, code, hand)
        assert replay.ok and replay.commitment_ok is None
        dealt = next(s for s in replay.steps if s.event == "CardsDealt")
        assert dealt.agrees is True and "COM-8" in dealt.rules
    first = tamper_settlement_cap(app, code)
    assert first == "COM-7"


def tamper_settlement_cap(app: LedgerApp, code: str) -> str | None:
    """Remove the cap from the second hand's record: the audit names COM-7."""
    import json

    rows = [r for r in app.recorder.select_events(table_id(code))
            if r.topic.endswith(":HandSettled")]
    text = bytes(rows[-1].state).decode()
    data = json.loads(text)
    tamper.replace_in_event(app, table_id(code), rows[-1].originator_version,
                            '"max_aggregate_payout":500', '"max_aggregate_payout":null')
    assert data["max_aggregate_payout"] == 500
    wrong = [d for d in verify(app).discrepancies if d.kind == "settlement"]
    return wrong[0].rule if wrong else None
