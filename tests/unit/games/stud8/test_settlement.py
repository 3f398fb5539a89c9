"""Showdown, pots and settlement: hi/lo splits, side pots, odd chips, rake, the community card
(STUD8-6..11), and voids and leaving (COM-5, COM-6)."""

from __future__ import annotations

import pytest

from ledger.domain import accounts
from ledger.domain.commands import UnseatPlayer, VoidHand
from ledger.domain.errors import LedgerError
from ledger.domain.records import CardsDealt, CardsRevealed, HandSettled, HandVoided, PlayerActed
from ledger.evaluation import high, low
from ledger.games.stud8 import settle as settle_hand

from .helpers import (
    TABLE,
    Executor,
    act,
    cid,
    deal,
    passive,
    play_streets,
    recorded_table,
    settle,
    settled,
    show_down,
    snapshot,
    stack,
    step,
)

BIG = 20_000


def three_way_all_in(**config: object) -> Executor:
    """Seats 1 and 2 all-in on third street, seat 3 covers, seat 4 folds its bring-in."""
    ex = recorded_table({1: 1_800, 2: 3_200, 3: BIG, 4: BIG}, **config)
    deal(ex, {1: "Ac 3h 2d", 2: "9h Td Js", 3: "9s Th Jc", 4: "5d 5h 2c"})
    act(ex, 4, "bring_in")
    act(ex, 1, "complete")
    act(ex, 2, "raise")
    act(ex, 3, "raise")
    act(ex, 4, "fold")
    act(ex, 1, "call")  # all-in for 1 600
    act(ex, 2, "call")  # all-in for 3 000
    assert stack(ex, 1) == 0 and stack(ex, 2) == 0
    for cards in ({1: "4s", 2: "Qc", 3: "Qd"}, {1: "6c", 2: "Ks", 3: "Kc"},
                  {1: "Kd", 2: "8d", 3: "7d"}, {1: "Qh", 2: "8s", 3: "7h"}):
        assert step(ex).kind == "deal"  # nobody left to bet against seat 3
        deal(ex, cards)
    return ex


def test_stud8_9_three_way_all_in_side_pot_split_hi_lo_with_odd_chips() -> None:
    ex = three_way_all_in()
    assert step(ex).seats == (2,)  # best showing K-Q-J-8 shows first (STUD8-10)
    show_down(ex)
    settle(ex)
    record = settled(ex)
    main, side = record.pots
    assert (main.amount, main.eligible, main.high_winners, main.low_winners) == (
        6_100, (1, 2, 3), (2, 3), (1,))
    assert (main.high_amount, main.low_amount) == (3_100, 3_000)  # odd chip to the high half
    assert (side.amount, side.eligible, side.high_winners, side.low_winners) == (
        2_800, (2, 3), (2, 3), ())
    # the tied high half of 31 chips: 16 to seat 2 (left of the dealer first), 15 to seat 3
    assert [stack(ex, s) for s in (1, 2, 3, 4)] == [3_000, 3_000, 19_700, 19_300]
    rules = {(o.seat, o.wager): o.rule for o in record.outcomes}
    assert rules[(2, "pot0")] == "STUD8-8" and rules[(2, "pot1")] == "STUD8-8"
    assert rules[(4, "pot0")] == "STUD8-2"  # folded on third street
    assert not any(k.startswith("spot:") for k in ex.state.balances)


def test_stud8_8_quartered_low_and_odd_chip_to_the_high_half() -> None:
    ex = recorded_table({1: BIG, 2: BIG, 3: BIG})
    play_streets(ex, [{1: "Kc Kd Ks", 2: "Ah 2h 4d", 3: "As 2s 4h"},
                      {1: "9c", 2: "5c", 3: "5d"}, {1: "9d", 2: "7s", 3: "7h"},
                      {1: "Tc", 2: "Qc", 3: "Qd"}, {1: "Js", 2: "Jd", 3: "Jh"}])
    assert step(ex).seats == (1,)  # no bet on seventh: the best showing hand shows first
    show_down(ex)
    settle(ex)
    [pot] = settled(ex).pots
    assert (pot.amount, pot.high_winners, pot.low_winners) == (2_100, (1,), (2, 3))
    assert (pot.high_amount, pot.low_amount) == (1_100, 1_000)
    assert [stack(ex, s) - (BIG - 700) for s in (1, 2, 3)] == [1_100, 500, 500]
    results = {o.seat: (o.result, o.rule) for o in settled(ex).outcomes}
    assert results == {1: ("split", "STUD8-8"), 2: ("split", "STUD8-8"), 3: ("split", "STUD8-8")}


def test_stud8_7_no_qualifying_low_high_scoops() -> None:
    ex = recorded_table({1: BIG, 2: BIG})
    play_streets(ex, [{1: "Kc Kd 9s", 2: "Qh Qs 9c"}, {1: "Tc", 2: "Jd"}, {1: "Th", 2: "Jh"},
                      {1: "2c", 2: "3d"}, {1: "4h", 2: "5s"}])
    show_down(ex)
    settle(ex)
    [pot] = settled(ex).pots
    assert pot.low_winners == () and pot.low_amount == 0 and pot.high_winners == (1,)
    winner = next(o for o in settled(ex).outcomes if o.seat == 1)
    assert (winner.result, winner.rule, winner.amount) == ("scoop", "STUD8-7", pot.amount - 700)
    assert "no low" in (winner.note or "")


def test_stud8_7_high_and_low_chosen_independently_from_seven_cards() -> None:
    ex = recorded_table({1: BIG, 2: BIG})
    # seat 1: a wheel is its high (a straight) and its low (A-2-3-4-5): it scoops
    play_streets(ex, [{1: "Ac 2d 3h", 2: "Kh Ks 9c"}, {1: "4s", 2: "Jd"}, {1: "5c", 2: "Jh"},
                      {1: "Kd", 2: "8c"}, {1: "Qd", 2: "7d"}])
    show_down(ex)
    settle(ex)
    [pot] = settled(ex).pots
    assert pot.high_winners == (1,) and pot.low_winners == (1,)
    assert next(o for o in settled(ex).outcomes if o.seat == 1).result == "scoop"


def test_stud8_10_the_last_bettor_shows_first_and_a_muck_wins_nothing() -> None:
    ex = recorded_table({1: BIG, 2: BIG, 3: BIG})
    play_streets(ex, [{1: "Ah 2h 4d", 2: "Kc Kd Ks", 3: "7c 8c 9c"},
                      {1: "5c", 2: "9d", 3: "Th"}, {1: "7s", 2: "9h", 3: "Jh"},
                      {1: "Qc", 2: "Tc", 3: "2s"}])
    deal(ex, {1: "Jd", 2: "Js", 3: "3s"})
    opener = step(ex).seats[0]
    assert opener == 2  # K-9-9-T showing
    act(ex, 2, "check")
    act(ex, 3, "bet")
    act(ex, 1, "call")
    act(ex, 2, "call")
    assert step(ex).seats == (3,)  # the last bettor shows first
    with pytest.raises(LedgerError) as info:
        act(ex, 3, "muck")
    assert info.value.code == "must_show"
    records = act(ex, 3, "show")
    assert isinstance(records[1], CardsRevealed) and len(records[1].cards) == 7
    assert step(ex).seats == (1,)  # then clockwise
    act(ex, 1, "show")
    act(ex, 2, "muck")
    settle(ex)
    record = settled(ex)
    mucked = next(o for o in record.outcomes if o.seat == 2)
    assert (mucked.result, mucked.rule, mucked.amount) == ("forfeit", "STUD8-10", -mucked.stake)
    assert record.pots[0].eligible == (1, 3)


def test_stud8_10_the_last_hand_contesting_a_side_pot_must_show() -> None:
    ex = recorded_table({1: 1_200, 2: BIG, 3: BIG})
    deal(ex, {1: "7h 8h Ac", 2: "3d 4d 2c", 3: "Qs Js 5d"})
    act(ex, 2, "bring_in")
    act(ex, 3, "call")
    act(ex, 1, "complete")  # all-in
    act(ex, 2, "raise")
    act(ex, 3, "call")
    play_streets(ex, [{1: "Ad", 2: "6c", 3: "7c"}, {1: "Ks", 2: "9c", 3: "8c"},
                      {1: "Kh", 2: "Jd", 3: "Tc"}, {1: "9s", 2: "Td", 3: "3s"}])
    assert step(ex).seats == (1,)  # no bet on seventh: the best showing hand, all-in, first
    act(ex, 1, "show")
    act(ex, 2, "muck")  # seat 3 still covers seat 2's chips
    assert [o.action for o in step(ex).options] == ["show"]
    before = snapshot(ex)
    with pytest.raises(LedgerError) as info:
        act(ex, 3, "muck")
    assert (info.value.code, info.value.details["rule"]) == ("must_show", "STUD8-10")
    assert snapshot(ex) == before
    act(ex, 3, "show")
    settle(ex)
    main, side = settled(ex).pots
    assert (main.amount, main.eligible) == (3_600, (1, 3))
    assert (side.amount, side.eligible, side.high_winners) == (2_000, (3,), (3,))
    assert side.high_amount == 2_000


def test_stud8_11_uncalled_bet_returned_unraked() -> None:
    ex = recorded_table({1: BIG, 2: BIG}, rake_bps=1_000)
    play_streets(ex, [{1: "Kc Kd 9s", 2: "Qh Qs 2c"}, {1: "Tc", 2: "Jd"}])
    deal(ex, {1: "Th", 2: "3h"})
    act(ex, 1, "bet")
    act(ex, 2, "fold")
    settle(ex)
    record = settled(ex)
    returned = next(o for o in record.outcomes if o.wager == "uncalled")
    assert (returned.seat, returned.stake, returned.result, returned.rule) == (
        1, 2_000, "returned", "STUD8-11")
    [pot] = record.pots
    assert pot.amount == 1_400  # antes and the called bring-in
    assert pot.rake == 100 and record.rake[0].amount == 100  # 10% of 1 400, whole chips
    assert stack(ex, 1) == BIG + 700 - 100
    assert ex.state.balances[accounts.RAKE] == 100
    won = next(o for o in record.outcomes if o.seat == 1 and o.wager == "pot0")
    assert (won.result, won.rule) == ("win", "STUD8-4")


def test_stud8_11_rake_from_the_main_pot_first_with_a_cap() -> None:
    ex = three_way_all_in(rake_bps=1_000, rake_cap=700)
    show_down(ex)
    settle(ex)
    record = settled(ex)
    main, side = record.pots
    # 10% of 8 900 is 890, 800 in whole chips, capped at 700, all from the main pot
    assert (main.rake, side.rake) == (700, 0)
    assert (main.high_amount, main.low_amount) == (2_700, 2_700)
    assert record.rake[0].rule == "STUD8-11" and record.rake[0].amount == 700
    assert sum(t.amount for t in record.transfers if t.dst == accounts.RAKE) == 700


def test_stud8_11_no_rake_when_the_hand_ends_on_third_street() -> None:
    ex = recorded_table({1: BIG, 2: BIG, 3: BIG}, rake_bps=1_000)
    deal(ex, {1: "Ah Kh 2d", 2: "Qs Qd 2c", 3: "7c 8c 9s"})
    act(ex, 2, "bring_in")
    act(ex, 3, "complete")
    act(ex, 1, "fold")
    act(ex, 2, "fold")
    assert step(ex).kind == "settle"
    settle(ex)
    record = settled(ex)
    assert record.rake == () and record.pots[0].rake == 0
    assert stack(ex, 3) == BIG + 200 + 200 + 500
    assert next(o for o in record.outcomes if o.wager == "uncalled").stake == 500


def test_stud8_6_community_card_when_the_deck_runs_short() -> None:
    seats = {s: BIG for s in range(1, 9)}
    ex = recorded_table(seats)
    deck = [f"{r}{s}" for r in "23456789TJQKA" for s in "cdhs"]
    hands = {s: deck[(s - 1) * 6:(s - 1) * 6 + 6] for s in seats}
    play_streets(ex, [{s: " ".join(hands[s][:3]) for s in seats}] + [
        {s: hands[s][k] for s in seats} for k in range(3, 6)])
    assert step(ex).kind == "deal"
    plan = ex.state.game.deal_plan(ex.state.view(), ex.state.hand)
    assert [(slot.target, slot.up, slot.down) for slot in plan.slots] == [("community", 1, 0)]
    deal(ex, {"community": deck[48]})
    assert ex.state.hand.community == (48,)
    passive(ex)
    show_down(ex)
    settle(ex)
    [pot] = settled(ex).pots
    # every hand plays the community card: recompute the winners from the dealt cards
    dealt: dict[int, list[int]] = {s: [] for s in seats}
    for r in ex.records:
        if isinstance(r, CardsDealt):
            for d in r.dealt:
                if isinstance(d.target, int):
                    dealt[d.target].extend(d.cards)
    highs = {s: high.evaluate((*dealt[s], 48)) for s in seats}
    best = max(highs.values())
    assert pot.high_winners == tuple(s for s in seats if highs[s] == best)
    lows = {s: low.evaluate_low8((*dealt[s], 48)) for s in seats}
    qualified = [v for v in lows.values() if v is not None]
    expected_low = tuple(s for s in seats if qualified and lows[s] == max(qualified))
    assert pot.low_winners == expected_low


def test_com_6_a_player_who_leaves_folds_at_once() -> None:
    ex = recorded_table({1: BIG, 2: BIG, 3: BIG})
    deal(ex, {1: "Ah Kh 2d", 2: "Qs Qd 2c", 3: "7c 8c 9s"})
    act(ex, 2, "bring_in")
    records = ex.execute(UnseatPlayer(command_id=cid(), table=TABLE, seat=1))
    fold = records[0]
    assert isinstance(fold, PlayerActed) and (fold.seat, fold.action, fold.rule) == (
        1, "fold", "COM-6")
    act(ex, 3, "fold")
    settle(ex)
    assert stack(ex, 2) == BIG + 200 + 200
    assert ex.state.balances.get("player:p1", 0) == BIG - 200


def test_com_5_void_returns_every_chip() -> None:
    ex = recorded_table({1: BIG, 2: BIG, 3: BIG})
    deal(ex, {1: "Ah Kh 2d", 2: "Qs Qd 2c", 3: "7c 8c 9s"})
    act(ex, 2, "bring_in")
    act(ex, 3, "complete")
    records = ex.execute(VoidHand(command_id=cid(), table=TABLE, reason="card exposed"))
    assert isinstance(records[0], HandVoided)
    assert [stack(ex, s) for s in (1, 2, 3)] == [BIG] * 3
    assert not any(k.startswith("spot:") for k in ex.state.balances)
    assert ex.state.hand is None


def test_com_8_recorded_cards_must_match_the_plan() -> None:
    ex = recorded_table({1: BIG, 2: BIG})
    with pytest.raises(LedgerError) as info:
        deal(ex, {1: "Ah Kh", 2: "Qs Qd 2c"})
    assert info.value.code == "wrong_card_count"
    with pytest.raises(LedgerError) as info:
        deal(ex, {1: "Ah Kh 2d", 2: "Ah Qd 2c"})
    assert info.value.code == "duplicate_card"


def test_stud8_9_settlement_is_reproducible_from_the_hand() -> None:
    ex = three_way_all_in(rake_bps=500)
    show_down(ex)
    hand = ex.state.hand
    config = ex.config
    settle(ex)
    assert settle_hand(config, hand) == settled(ex)
    assert isinstance(settled(ex), HandSettled)



def test_com_6_stud8_11_everyone_else_leaves_before_the_deal_the_last_seat_wins_the_antes() -> None:
    """COM-6: seats that leave after the antes, before third street is dealt, fold at once; the
    last seat wins the antes uncontested, settled as a hand that ends on third street: nothing
    uncalled when the antes are equal, no rake (STUD8-11)."""
    ex = recorded_table({1: BIG, 2: BIG, 3: BIG}, rake_bps=1_000)
    assert ex.state.hand.street == 0
    for seat in (1, 3):
        ex.execute(UnseatPlayer(command_id=cid(), table=TABLE, seat=seat))
    assert step(ex).kind == "settle"
    hand, config = ex.state.hand, ex.config
    settle(ex)
    record = settled(ex)
    assert record.rake == ()
    [pot] = record.pots
    assert (pot.amount, pot.rake, pot.eligible, pot.high_winners, pot.low_winners) == (
        600, 0, (2,), (2,), ())
    assert not any(o.wager == "uncalled" for o in record.outcomes)
    by_seat = {o.seat: o for o in record.outcomes}
    assert (by_seat[2].result, by_seat[2].amount, by_seat[2].rule, by_seat[2].note) == (
        "win", 400, "STUD8-2", "others folded")
    for seat in (1, 3):
        assert (by_seat[seat].result, by_seat[seat].amount, by_seat[seat].rule) == (
            "lose", -200, "STUD8-2")
    assert stack(ex, 2) == BIG + 400
    assert ex.state.hand is None and not any(k.startswith("spot:") for k in ex.state.balances)
    assert settle_hand(config, hand) == record  # what the audit re-decides


def test_stud8_11_a_hand_left_before_the_deal_settles_as_one_folded_on_third_street() -> None:
    """The other seat leaving after the antes, before the deal, settles the antes exactly as
    its folding on third street does once the bring-in is returned uncalled (COM-6, STUD8-11)."""
    left = recorded_table({1: BIG, 2: BIG}, rake_bps=1_000)
    left.execute(UnseatPlayer(command_id=cid(), table=TABLE, seat=1))
    settle(left)
    folded = recorded_table({1: BIG, 2: BIG}, rake_bps=1_000)
    deal(folded, {1: "Ah Kh 9d", 2: "Qs Qd 2c"})
    act(folded, 2, "bring_in")
    act(folded, 1, "fold")
    settle(folded)
    before, after = settled(left), settled(folded)
    assert before.pots == after.pots and before.rake == after.rake == ()
    assert [o for o in before.outcomes if o.wager == "pot0"] == [
        o for o in after.outcomes if o.wager == "pot0"]
    assert next(o for o in after.outcomes if o.wager == "uncalled").stake == 500
    assert stack(left, 2) == stack(folded, 2) == BIG + 200


def test_com_6_stud8_11_the_last_seat_leaving_too_before_the_deal_still_wins_the_antes() -> None:
    """The first seat to leave folds (COM-6); the last seat is then alone in the hand, does not
    fold when it leaves too, and is paid the antes, unraked, like any uncontested third-street
    winner (STUD8-2, STUD8-11)."""
    ex = recorded_table({1: BIG, 2: BIG}, rake_bps=1_000)
    assert isinstance(ex.execute(UnseatPlayer(command_id=cid(), table=TABLE, seat=1))[0],
                      PlayerActed)
    only = ex.execute(UnseatPlayer(command_id=cid(), table=TABLE, seat=2))
    assert not any(isinstance(r, PlayerActed) for r in only)
    settle(ex)
    record = settled(ex)
    assert record.rake == () and [(o.seat, o.result, o.rule) for o in record.outcomes] == [
        (1, "lose", "STUD8-2"), (2, "win", "STUD8-2")]
    assert (stack(ex, 1), stack(ex, 2)) == (BIG - 200, BIG + 200)
