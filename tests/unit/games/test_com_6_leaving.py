"""COM-6 (decision of 2026-12-01) in every game: a player who leaves during a hand has folded,
at once, whoever's turn it is; the seat is never waited for again and nobody may sit in it
until the hand has ended. Each game is tested leaving before its turn, at its turn and after
acting; STUD8-11: the unmatched part of a contribution goes back to the seat that left."""

from __future__ import annotations

from typing import Any

import pytest

from ledger.domain import accounts
from ledger.domain.commands import (
    Act,
    DealCards,
    PlaceWager,
    Reveal,
    SeatPlayer,
    Settle,
    StartHand,
    UnseatPlayer,
)
from ledger.domain.errors import LedgerError
from ledger.domain.records import (
    CardsDealt,
    HandCancelled,
    HandSettled,
    PlayerActed,
    PlayerUnseated,
    Record,
)
from ledger.sim.chinese_arrange import greedy
from tests.support.pure import PureTable


def kinds(records: list[Record]) -> list[str]:
    return [type(r).__name__ for r in records]


def refused(t: PureTable, code: str, cls: type, **fields: Any) -> None:
    """The command is refused with ``code`` and changes nothing."""
    before = t.state.to_snapshot()
    with pytest.raises(LedgerError) as err:
        t.do(cls, **fields)
    assert err.value.code == code, err.value
    assert err.value.details.get("rule") == "COM-6"
    assert t.state.to_snapshot() == before


def leaves(t: PureTable, seat: int, *, folds: bool) -> list[Record]:
    """``seat`` leaves: it folds at once (COM-6) or, having acted, only gets up; either way the
    hand never waits for it again and its seat stays the hand's until the hand ends."""
    player = t.state.seats[seat]
    records = t.do(UnseatPlayer, seat=seat)
    assert isinstance(records[-1], PlayerUnseated)
    if folds:
        fold = records[0]
        assert isinstance(fold, PlayerActed)
        assert (fold.seat, fold.action, fold.rule) == (seat, "fold", "COM-6")
    else:
        assert kinds(records) == ["PlayerUnseated"]
    assert seat in t.view().departed
    assert seat not in t.step().seats
    refused(t, "seat_reserved", SeatPlayer, seat=seat, player="newcomer")
    refused(t, "seat_reserved", SeatPlayer, seat=seat, player=player)
    refused(t, "seat_left", Act, seat=seat, action="fold")
    return records


def finished(t: PureTable, seat: int) -> None:
    """Once the hand has ended, the seat is free again."""
    assert t.state.hand is None
    t.do(SeatPlayer, seat=seat, player="newcomer")


def never_negative(t: PureTable) -> None:
    """No player's stack went below zero (the house and the cage may)."""
    for account, balance in t.state.balances.items():
        if accounts.is_player(account):
            assert balance >= 0, (account, balance)


# --- CyberCaribbean Stud ---------------------------------------------------------------------


def caribbean(players: int = 2) -> PureTable:
    t = PureTable("caribbean-stud", {}, {s: 100_000 for s in range(1, players + 1)})
    t.do(StartHand)
    return t


def test_com_6_csp_the_issue_case_leaving_before_ones_turn() -> None:
    """Seats 1 and 2 ante 10.00, deal, seat 2 leaves while seat 1 is to act: seat 2 is folded
    at once (not only unseated), the hand does not wait for it, its Play wager cannot be
    placed by anyone, and its player loses the Ante and nothing more."""
    t = caribbean()
    for seat in (1, 2):
        t.do(PlaceWager, seat=seat, kind="ante", amount=1_000)
    t.do(DealCards)
    assert t.step().seats == (1,)
    records = leaves(t, 2, folds=True)
    assert kinds(records) == ["PlayerActed", "PlayerUnseated"]
    fold = records[0]
    assert isinstance(fold, PlayerActed)
    assert fold.transfers[0].dst == accounts.HOUSE  # lost as a fold loses it (CSP-2)
    refused(t, "seat_left", Act, seat=2, action="play")
    t.do(SeatPlayer, seat=3, player="p3")  # another seat is fine
    t.do(Act, seat=1, action="play")
    assert t.step().kind == "reveal"
    t.do(Reveal)
    (settled,) = t.do(Settle)
    assert isinstance(settled, HandSettled)
    assert t.stack(2) == 100_000 - 1_000
    never_negative(t)
    finished(t, 2)


def test_com_6_csp_leaving_at_ones_turn_and_after_acting() -> None:
    t = caribbean(3)
    for seat in (1, 2, 3):
        t.do(PlaceWager, seat=seat, kind="ante", amount=1_000)
    t.do(DealCards)
    t.do(Act, seat=1, action="play")
    leaves(t, 1, folds=False)  # after acting: its hand plays on
    assert t.step().seats == (2,)
    leaves(t, 2, folds=True)  # at its turn
    assert t.step().seats == (3,)
    t.do(Act, seat=3, action="fold")
    t.do(Reveal)
    (settled,) = t.do(Settle)
    assert isinstance(settled, HandSettled)
    assert {o.wager for o in settled.outcomes if o.seat == 1} == {"ante", "play"}
    assert t.stack(2) == 100_000 - 1_000
    never_negative(t)
    finished(t, 1)


def test_com_6_csp_leaving_before_the_deal() -> None:
    """With an Ante (and the jackpot wager) the seat folds and is not dealt; the jackpot wager
    still feeds the meter but cannot win (CSP-6). Without a wager it simply is not dealt."""
    t = caribbean(3)
    t.do(PlaceWager, seat=1, kind="ante", amount=1_000)
    t.do(PlaceWager, seat=1, kind="jackpot", amount=100)
    t.do(PlaceWager, seat=2, kind="ante", amount=1_000)
    leaves(t, 1, folds=True)
    leaves(t, 3, folds=False)
    assert t.step().kind == "wager" and t.step().seats == (2,)
    refused(t, "seat_left", PlaceWager, seat=3, kind="ante", amount=1_000)
    dealt = t.do(DealCards)[0]
    assert isinstance(dealt, CardsDealt)
    assert [d.target for d in dealt.dealt] == [2, "dealer"]
    t.do(Act, seat=2, action="fold")
    t.do(Reveal)
    (settled,) = t.do(Settle)
    assert isinstance(settled, HandSettled)
    jackpot = next(o for o in settled.outcomes if o.seat == 1 and o.wager == "jackpot")
    assert (jackpot.result, jackpot.rule) == ("forfeit", "CSP-6")
    assert t.stack(1) == 100_000 - 1_100
    never_negative(t)


def test_com_6_csp_every_ante_leaving_before_the_deal_closes_the_hand() -> None:
    t = caribbean(2)
    t.do(PlaceWager, seat=1, kind="ante", amount=1_000)
    leaves(t, 1, folds=True)
    assert "settle" in (t.step().note or "")
    (settled,) = t.do(Settle)
    assert isinstance(settled, HandSettled)
    assert [(o.seat, o.result) for o in settled.outcomes] == [(1, "lose")]
    assert t.state.hand is None and t.stack(1) == 99_000
    t2 = caribbean(1)
    leaves(t2, 1, folds=False)  # nobody wagered: the hand closes with nothing to settle
    (cancelled,) = t2.do(Settle)
    assert isinstance(cancelled, HandCancelled)


# --- High Card Flush -------------------------------------------------------------------------


def hcf_dealt() -> PureTable:
    """DP at seat 1 (funds 50.00 ... 500.00), seats 2, 3 and 4 ante 10.00; dealt; seat 2 acts."""
    t = PureTable("high-card-flush", {}, {1: 50_000, 2: 20_000, 3: 20_000, 4: 20_000})
    t.do(StartHand)
    t.do(Act, seat=1, action="accept")
    for seat in (2, 3, 4):
        t.do(PlaceWager, seat=seat, kind="ante", amount=1_000)
    t.do(DealCards)
    assert t.step().seats == (2,)
    return t


def test_com_6_hcf_before_at_and_after_ones_turn() -> None:
    t = hcf_dealt()
    leaves(t, 3, folds=True)  # before its turn: seat 2 is to act
    assert t.step().seats == (2,)
    t.do(Act, seat=2, action="raise", amount=1_000)
    leaves(t, 2, folds=False)  # after acting (raised): the hand plays on
    assert t.step().seats == (4,)
    leaves(t, 4, folds=True)  # at its turn
    assert t.step().kind == "reveal"
    t.do(Reveal)
    (settled,) = t.do(Settle)
    assert isinstance(settled, HandSettled)
    assert {o.wager for o in settled.outcomes if o.seat == 2} == {"ante", "raise"}
    assert t.stack(3) == t.stack(4) == 19_000
    never_negative(t)
    finished(t, 3)


def test_com_6_hcf_the_seat_offered_the_role_declines_by_leaving() -> None:
    t = PureTable("high-card-flush", {}, {1: 50_000, 2: 50_000, 3: 20_000})
    t.do(StartHand)
    assert t.step().kind == "offer" and t.step().seats == (1,)
    records = t.do(UnseatPlayer, seat=1)
    assert [(type(r).__name__, getattr(r, "action", None)) for r in records][:2] == [
        ("PlayerActed", "decline"), ("RoleOffered", None)]
    assert t.step().seats == (2,)
    refused(t, "seat_reserved", SeatPlayer, seat=1, player="newcomer")


# --- Chinese Poker ---------------------------------------------------------------------------


def chinese_dealt() -> PureTable:
    t = PureTable("chinese-poker", {}, {s: 2_000 for s in (1, 2, 3)})
    t.do(StartHand)
    t.do(DealCards)
    return t


def set_legally(t: PureTable, seat: int) -> None:
    front, middle, back = greedy(t.state.hand.seat(seat).cards)
    t.do(Act, seat=seat, action="set", front=front, middle=middle, back=back)


def test_com_6_chp_before_setting_is_a_fouled_hand_after_setting_plays_on() -> None:
    """Chinese Poker has no turns: every seat still to set is waited for, so leaving before
    setting is leaving at one's turn (a fold: a fouled hand, CHP-3); after setting the hand
    plays as set."""
    t = chinese_dealt()
    assert t.step().seats == (2, 3, 1)  # payment order, left of the button (seat 1) first
    set_legally(t, 2)
    leaves(t, 2, folds=False)
    leaves(t, 3, folds=True)
    assert t.step().seats == (1,)
    set_legally(t, 1)
    t.do(Reveal)
    (settled,) = t.do(Settle)
    assert isinstance(settled, HandSettled)
    three = [p for p in settled.points if p.seat == 3]
    assert all(p.points < 0 for p in three)  # fouled: pays every other player (CHP-3)
    assert all("left the table" in " ".join(p.detail) for p in three)
    never_negative(t)
    finished(t, 3)


# --- Seven Card Stud Hi/Lo -------------------------------------------------------------------


def stud(stacks: dict[int, int], **config: Any) -> PureTable:
    t = PureTable("stud-hilo", {"card_source": "recorded", **config}, stacks)
    t.do(StartHand)
    return t


def test_com_6_stud8_before_at_and_after_ones_turn() -> None:
    t = stud({1: 20_000, 2: 20_000, 3: 20_000, 4: 20_000})
    t.deal(**{"1": "Ah Kh 2c", "2": "Qs Qd 9c", "3": "7c 8d Ks", "4": "5d 5h Jd"})
    t.do(Act, seat=1, action="bring_in")
    assert t.step().seats == (2,)
    leaves(t, 4, folds=True)  # before its turn
    t.do(Act, seat=2, action="call")
    leaves(t, 2, folds=True)  # after acting on the street: it would be asked again later
    assert t.step().seats == (3,)
    leaves(t, 3, folds=True)  # at its turn: seat 1 is left alone and the hand ends
    assert t.step().kind == "settle"
    (settled,) = t.do(Settle)
    assert isinstance(settled, HandSettled)
    never_negative(t)
    assert t.stack(1) == 20_000 + 200 * 3 + 500  # the antes and seat 2's call
    finished(t, 4)


def test_stud8_11_the_uncalled_bet_of_a_player_who_left_goes_back_to_it() -> None:
    """The issue's case: A 200.00, B 2.00 (the ante only), C 200.00; A brings in 5.00, C folds,
    A leaves. A's 5.00 no other player matched goes back to A, unraked and never in a pot:
    A -2.00, B +4.00, C -2.00 (not A -7.00, B +9.00)."""
    t = stud({1: 20_000, 2: 200, 3: 20_000}, rake_bps=1_000)
    t.deal(**{"1": "Ah Kh 2c", "2": "Qs Qd 5c", "3": "7c 8d Ks"})
    t.do(Act, seat=1, action="bring_in", amount=500)
    t.do(Act, seat=3, action="fold")
    leaves(t, 1, folds=True)
    (settled,) = t.do(Settle)
    assert isinstance(settled, HandSettled)
    results = {s: t.stack(s) - start for s, start in ((1, 20_000), (2, 200), (3, 20_000))}
    assert results == {1: -200, 2: 400, 3: -200}
    returned = [o for o in settled.outcomes if o.wager == "uncalled"]
    assert [(o.seat, o.result, o.stake, o.rule) for o in returned] == [
        (1, "returned", 500, "STUD8-11")]
    assert sum(p.amount for p in settled.pots) == 600 and not settled.rake
