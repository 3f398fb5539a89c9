"""Every game, played by the simulator's bots through the application into a real store.

On SQLite and PostgreSQL: chips are conserved (all accounts sum to zero, the non-cage accounts
hold what the cage issued), wager spots and the DP bank are empty between hands, every transfer
moves a positive amount, and a fresh application rebuilds exactly the state the writer holds.
"""

from __future__ import annotations

import random

import pytest

from ledger.app.application import LedgerApp
from ledger.domain import accounts
from ledger.domain import records as r
from ledger.domain.commands import BuyIn, SeatPlayer
from ledger.domain.records import HandSettled
from ledger.settings import Settings
from ledger.sim.base import CommandIds, play_hand
from ledger.sim.profiles import PROFILES
from ledger.sim.runner import simulate
from ledger.store.history import stream
from tests.support.pure import PureTable

HANDS = {"caribbean-stud": 80, "high-card-flush": 60, "chinese-poker": 60, "stud-hilo": 40}


@pytest.mark.parametrize("game", sorted(PROFILES))
def test_random_hands_conserve_chips_and_replay_exactly(
    store_settings: Settings, game: str
) -> None:
    """Players also get up at any moment of a hand, whoever's turn it is (COM-6): after
    leaving, no wager or action of the hand is that seat's and nobody sits in it until the
    hand ends; the audit decides every command again and finds the record exact."""
    from projections.audit.verify import verify

    app = LedgerApp(store_settings)
    try:
        code = f"{PROFILES[game].code}-T"
        stats = simulate(app, game, code, HANDS[game], seed=7, leave_rate=0.02)
        assert stats.hands == HANDS[game]
        assert stats.event_types.get("PlayerUnseated", 0) >= 3
        departed: set[int] = set()
        in_hand = False
        for event in stream(app, code):
            if isinstance(event, r.HandStarted | r.HandSettled | r.HandVoided | r.HandCancelled):
                departed, in_hand = set(), isinstance(event, r.HandStarted)
            elif isinstance(event, r.PlayerUnseated) and in_hand:
                departed.add(event.seat)
            elif isinstance(event, r.WagerPlaced | r.PlayerActed | r.PlayerSeated):
                assert event.seat not in departed, event
        report = verify(app, table=code)
        assert report.ok, report.discrepancies[:3]
        assert report.hands_checked >= HANDS[game] // 2
        balances = dict(app.load(code).state.balances)
        assert sum(balances.values()) == 0
        issued = -balances.get(accounts.CAGE, 0)
        assert issued > 0
        assert sum(v for k, v in balances.items() if k != accounts.CAGE) == issued
        assert not [a for a in balances if accounts.is_hand_scoped(a)]
        for event in stream(app, code):
            assert all(t.amount > 0 for t in getattr(event, "transfers", ()))
        fresh = LedgerApp(store_settings)
        try:
            assert fresh.load(code).state.to_snapshot() == app.load(code).state.to_snapshot()
        finally:
            fresh.close()
    finally:
        app.close()


def _check_pots(settled: HandSettled) -> None:
    for pot in settled.pots:
        assert pot.high_amount + pot.low_amount + pot.rake == pot.amount
        if not pot.low_winners:
            assert pot.low_amount == 0


def test_stud8_thousands_of_hands_distribute_every_pot() -> None:
    """STUD8-7..9, STUD8-11 over 2,000 random legal hands played by the simulator's bots on the
    table's state machine (the rules and the records the store would hold, without the store):
    each pot is paid out in full (its high and low halves plus its rake), chips are conserved
    and spots are empty after every hand."""
    profile = PROFILES["stud-hilo"]
    table = PureTable("stud-hilo", dict(profile.config), code="STUD8-P")
    for seat in range(1, profile.players + 1):
        table.do(SeatPlayer, seat=seat, player=f"p{seat}")
    bot, rng, ids = profile.make_bot(), random.Random(2026), CommandIds("STUD8-P", "pure")
    settled = 0
    for _ in range(2_000):
        for seat in sorted(table.view().seats):
            top_up = profile.top_up(table.view(), seat)
            if top_up is not None:
                table.do(BuyIn, seat=seat, amount=top_up.amount, kind=top_up.kind)
        before = len(table.records)
        play_hand(table, bot, rng, ids)
        for record in table.records[before:]:
            if isinstance(record, r.HandSettled):
                settled += 1
                _check_pots(record)
        balances = table.state.balances
        assert sum(balances.values()) == 0
        assert not [a for a, v in balances.items() if accounts.is_hand_scoped(a) and v]
    assert settled > 1_500


def test_stud8_hands_on_sqlite_distribute_every_pot(sqlite_settings: Settings) -> None:
    """The same through the application into SQLite, on fewer hands: what the store holds and
    replays is what the rules decided."""
    app = LedgerApp(sqlite_settings)
    try:
        simulate(app, "stud-hilo", "STUD8-P", 100, seed=2026)
        settled = 0
        for event in stream(app, "STUD8-P"):
            if isinstance(event, HandSettled):
                settled += 1
                _check_pots(event)
        assert settled > 60
        balances = app.load("STUD8-P").state.balances
        assert sum(balances.values()) == 0
        assert not [a for a in balances if accounts.is_hand_scoped(a)]
    finally:
        app.close()

