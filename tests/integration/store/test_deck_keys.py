"""The deck key (COM-8): its file lives beside the store, never in the working directory; a
missing file is an error once the store holds sealed decks (never a silent new key); a hand
whose deck the key in use cannot open is voided with an approver (COM-5), so no table is stuck,
and the audit says which hand it cannot check."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from pydantic import SecretStr

from ledger.app.application import LedgerApp
from ledger.domain.commands import (
    BuyIn,
    CashOut,
    DealCards,
    OpenTable,
    PlaceWager,
    SeatPlayer,
    StartHand,
    VoidHand,
)
from ledger.domain.errors import LedgerError
from ledger.settings import Settings
from ledger.store.deckkeys import deck_key, deck_key_file
from projections.audit import verify
from projections.audit.handreplay import hand_replay
from tests.support.driver import with_supervisors


def started(app: LedgerApp, code: str = "CSP-K") -> None:
    """An rng Caribbean Stud table, two players, a hand started (its deck sealed) and anted."""
    app.execute(OpenTable(command_id="o", table=code, game="caribbean-stud"))
    for seat in (1, 2):
        app.execute(SeatPlayer(command_id=f"s{seat}", table=code, seat=seat, player=f"p{seat}"))
        app.execute(BuyIn(command_id=f"b{seat}", table=code, seat=seat, amount=40_000))
    app.execute(StartHand(command_id="h1", table=code))
    for seat in (1, 2):
        app.execute(PlaceWager(command_id=f"a{seat}", table=code, seat=seat, kind="ante",
                               amount=1_000))


def test_the_default_key_file_is_beside_the_sqlite_store_whatever_the_directory(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LEDGER_DECK_KEY_FILE", raising=False)
    monkeypatch.delenv("LEDGER_DECK_KEY", raising=False)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    settings = Settings(database_url=f"sqlite:///{tmp_path}/store/ledger.sqlite3",
                        _env_file=None)
    assert deck_key_file(settings) == tmp_path / "store" / "deck.key"
    app = LedgerApp(settings)
    app.close()
    assert stat.S_IMODE((tmp_path / "store" / "deck.key").stat().st_mode) == 0o600
    assert os.listdir(elsewhere) == []  # nothing written where the command was run
    relative = Settings(database_url="sqlite:///data/ledger.sqlite3",
                        _env_file=None)
    assert deck_key_file(relative) == elsewhere / "data" / "deck.key"  # the store's directory


def test_postgresql_needs_the_key_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LEDGER_DECK_KEY_FILE", raising=False)
    monkeypatch.delenv("LEDGER_DECK_KEY", raising=False)
    settings = Settings(database_url="postgresql://ledger@db.example:5432/ledger",
                        _env_file=None)
    assert deck_key_file(settings) is None
    with pytest.raises(LedgerError) as err:
        deck_key(settings)
    assert err.value.code == "deck_key_missing" and "LEDGER_DECK_KEY_FILE" in err.value.message
    named = Settings(database_url=settings.database_url, deck_key="cd" * 32,
                     _env_file=None)
    assert deck_key(named) == b"\xcd" * 32


def test_a_missing_key_file_is_an_error_once_decks_are_sealed(store_settings: Settings) -> None:
    key_file = store_settings.deck_key_file
    assert key_file is not None
    app = LedgerApp(store_settings)
    app.execute(OpenTable(command_id="o", table="CSP-E", game="caribbean-stud"))
    app.close()
    key_file.unlink()  # no sealed deck yet: a new key is fine
    app = LedgerApp(store_settings)
    assert key_file.exists()
    started(app, "CSP-F")
    app.close()
    key_file.unlink()
    with pytest.raises(LedgerError) as err:
        LedgerApp(store_settings)
    assert err.value.code == "deck_key_missing"
    assert "LEDGER_DECK_KEY_FILE" in err.value.message and str(key_file) in err.value.message
    assert not key_file.exists()  # never a silent new key


def test_a_hand_whose_deck_cannot_be_unsealed_is_voided_with_approval(
        store_settings: Settings) -> None:
    """Key A starts the hand; the service restarts with key B: dealing is deck_key_mismatch,
    a void without an approver too (naming COM-5), with a principal it returns every wager;
    the seats cash out, the next hand deals under key B, the audit is clean and names the one
    hand whose deals it cannot check."""
    app = LedgerApp(store_settings)
    ring = with_supervisors(app, {"sup-k": ("S. Kay", "supervisor")})
    started(app)
    assert app.load("CSP-K").state.balances["player:p1"] == 39_000  # the ante is in the hand
    app.close()

    # Key B: another key named (a new key file is not created for a store with sealed decks).
    other = store_settings.model_copy(update={"deck_key": SecretStr("0b" * 32)})
    app = LedgerApp(other, keyring=ring)
    try:
        with pytest.raises(LedgerError) as err:
            app.execute(DealCards(command_id="d1", table="CSP-K"))
        assert err.value.code == "deck_key_mismatch"
        with pytest.raises(LedgerError) as err:
            app.execute(VoidHand(command_id="v0", table="CSP-K", reason="deck key lost"))
        assert err.value.code == "deck_key_mismatch" and "COM-5" in err.value.message
        with pytest.raises(LedgerError) as err:
            app.execute(VoidHand(command_id="v1", table="CSP-K", reason="deck key lost",
                                 approved_by="nobody"))
        assert err.value.code == "unknown_approver"
        voided = app.execute(VoidHand(command_id="v2", table="CSP-K", reason="deck key lost",
                                      approved_by="sup-k"))
        event = voided.events[-1]
        assert event["type"] == "HandVoided" and event["deck_unreadable"] is True
        assert event["deck"] is None and event["approved_by"] == "sup-k"
        state = app.load("CSP-K").state
        assert state.hand is None
        assert state.balances["player:p1"] == 40_000 and state.balances["player:p2"] == 40_000
        for seat in (1, 2):
            app.execute(CashOut(command_id=f"c{seat}", table="CSP-K", seat=seat))
        app.execute(BuyIn(command_id="b3", table="CSP-K", seat=1, amount=5_000))
        app.execute(BuyIn(command_id="b4", table="CSP-K", seat=2, amount=5_000))
        app.execute(StartHand(command_id="h2", table="CSP-K"))
        for seat in (1, 2):
            app.execute(PlaceWager(command_id=f"a2{seat}", table="CSP-K", seat=seat,
                                   kind="ante", amount=1_000))
        app.execute(DealCards(command_id="d2", table="CSP-K"))  # key B seals and opens hand 2

        report = verify(app)
        assert report.ok, report.as_dict()
        assert report.decks_unchecked == [{"table": "CSP-K", "hand": 1}]
        assert report.as_dict()["decks_unchecked"] == [{"table": "CSP-K", "hand": 1}]
        replay = hand_replay(app, "CSP-K", 1)
        assert replay.ok and replay.commitment_ok is None and not replay.in_progress
    finally:
        app.close()


def test_the_audit_command_names_the_hand_it_cannot_check(tmp_path: Path) -> None:
    from tests.e2e.cli.test_cli import ledger as run_ledger

    db = tmp_path / "ledger.sqlite3"
    settings = Settings(database_url=f"sqlite:///{db}", deck_key_file=tmp_path / "deck.key")
    app = LedgerApp(settings)
    ring = with_supervisors(app, {"sup-k": ("S. Kay", "supervisor")})
    started(app)
    app.close()
    app = LedgerApp(settings.model_copy(update={"deck_key": SecretStr("0b" * 32)}),
                    keyring=ring)
    app.execute(VoidHand(command_id="v", table="CSP-K", reason="deck key lost",
                         approved_by="sup-k"))
    app.close()
    out = run_ledger("audit", "verify", db=db, LEDGER_DECK_KEY="0b" * 32)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "not checked: CSP-K hand 1 was voided without its deck" in out.stdout
    assert "no discrepancies" in out.stdout
    gone = run_ledger("projections", "status", db=db, LEDGER_DECK_KEY_FILE=str(tmp_path / "x"))
    assert gone.returncode == 2 and "[deck_key_missing]" in gone.stderr
    assert "LEDGER_DECK_KEY_FILE" in gone.stderr
