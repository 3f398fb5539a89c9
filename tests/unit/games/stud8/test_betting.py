"""Third to seventh street betting: bring-in, completion, order of action, limits, the cap
(STUD8-1..5) and the coded refusals, each leaving the table unchanged."""

from __future__ import annotations

import pytest

from ledger.domain.errors import LedgerError
from ledger.domain.records import PlayerActed, WagerPlaced

from .helpers import Executor, act, deal, recorded_table, snapshot, stack, step

STACK = 20_000


def three_handed(**config: object) -> Executor:
    ex = recorded_table({1: STACK, 2: STACK, 3: STACK}, **config)
    deal(ex, {1: "Ah Kh 2d", 2: "Qs Qd 2c", 3: "7c 8c 9s"})
    return ex


def refused(
    ex: Executor, code: str, seat: int, action: str, amount: int | None = None
) -> LedgerError:
    """The command is refused with ``code`` and nothing changes."""
    before = snapshot(ex)
    count = len(ex.records)
    with pytest.raises(LedgerError) as info:
        act(ex, seat, action, amount)
    assert info.value.code == code, info.value.message
    assert snapshot(ex) == before
    assert len(ex.records) == count
    return info.value


def test_stud8_1_every_seat_antes_at_the_start() -> None:
    ex = recorded_table({1: STACK, 2: STACK, 3: STACK})
    antes = [r for r in ex.records if isinstance(r, WagerPlaced)]
    assert [(r.seat, r.amount, r.rule) for r in antes] == [(s, 200, "STUD8-1") for s in (1, 2, 3)]
    assert all(stack(ex, s) == STACK - 200 for s in (1, 2, 3))
    assert ex.state.balances["spot:2:pot"] == 200


def test_stud8_1_a_seat_short_of_the_ante_sits_out() -> None:
    ex = recorded_table({1: STACK, 2: 100, 3: STACK})
    assert ex.state.hand.participants() == (1, 3)
    assert stack(ex, 2) == 100


def test_stud8_1_two_players_needed() -> None:
    from .helpers import open_table, start

    ex = open_table({1: STACK, 2: 100})
    with pytest.raises(LedgerError) as info:
        start(ex)
    assert info.value.code == "not_enough_players"


def test_stud8_2_lowest_up_card_brings_in_suit_breaks_ties() -> None:
    ex = three_handed()
    assert step(ex).seats == (2,)  # 2c is lower than 2d
    assert {o.action for o in step(ex).options} == {"bring_in", "complete"}


def test_stud8_2_seat_tiebreak_setting_closest_to_dealers_left() -> None:
    ex = three_handed(bring_in_tiebreak="seat")
    assert step(ex).seats == (1,)


def test_stud8_2_bring_in_for_half_the_small_bet_then_clockwise() -> None:
    ex = three_handed()
    [record] = act(ex, 2, "bring_in")
    assert isinstance(record, PlayerActed)
    assert (record.amount, record.rule) == (500, "STUD8-2")
    assert step(ex).seats == (3,)
    options = {o.action: (o.min_amount, o.max_amount) for o in step(ex).options}
    assert options == {"fold": (0, 0), "call": (500, 500), "complete": (1000, 1000)}


def test_stud8_2_bring_in_may_not_fold_or_check() -> None:
    ex = three_handed()
    refused(ex, "bring_in_required", 2, "fold")
    refused(ex, "bring_in_required", 2, "check")


def test_stud8_2_complete_then_raise_in_small_bets() -> None:
    ex = three_handed()
    act(ex, 2, "bring_in")
    act(ex, 3, "complete")
    refused(ex, "wrong_amount", 1, "raise", 1500)
    refused(ex, "wrong_action", 1, "complete")
    act(ex, 1, "raise", 2000)
    act(ex, 2, "call")  # the bring-in calls 1500 more
    assert stack(ex, 2) == STACK - 200 - 2000
    act(ex, 3, "call")
    assert step(ex).kind == "deal"


def test_stud8_2_bring_in_may_complete_itself() -> None:
    ex = three_handed()
    act(ex, 2, "complete")
    assert stack(ex, 2) == STACK - 200 - 1000
    assert [o.action for o in step(ex).options] == ["fold", "call", "raise"]


def test_stud8_3_fourth_street_best_showing_acts_first_and_may_check() -> None:
    ex = three_handed()
    act(ex, 2, "bring_in")
    act(ex, 3, "call")
    act(ex, 1, "call")
    deal(ex, {1: "3d", 2: "5h", 3: "Ts"})  # showing: 2d 3d, 2c 5h, 9s Ts
    assert step(ex).seats == (3,)
    act(ex, 3, "check")
    refused(ex, "wrong_amount", 1, "bet", 2000)  # no open pair: the small bet only
    act(ex, 1, "bet", 1000)
    refused(ex, "check_facing_bet", 2, "check")
    refused(ex, "out_of_turn", 3, "call")


def test_stud8_3_ties_for_best_showing_go_to_the_dealers_left() -> None:
    ex = recorded_table({1: STACK, 2: STACK, 3: STACK})
    deal(ex, {1: "2h 3h Kd", 2: "4h 5h Ks", 3: "7c 8c 2c"})
    act(ex, 3, "bring_in")
    act(ex, 1, "call")
    act(ex, 2, "call")
    deal(ex, {1: "9d", 2: "9s", 3: "4d"})  # K9 and K9 showing
    assert step(ex).seats == (1,)


def test_stud8_3_open_pair_lets_any_player_bet_small_or_big() -> None:
    ex = three_handed()
    act(ex, 2, "bring_in")
    act(ex, 3, "call")
    act(ex, 1, "call")
    deal(ex, {1: "3d", 2: "5h", 3: "9h"})  # 9s 9h: an open pair
    opts = {o.action: (o.min_amount, o.max_amount) for o in step(ex).options}
    assert opts["bet"] == (1000, 2000)
    refused(ex, "wrong_amount", 3, "bet", 1500)
    act(ex, 3, "bet", 2000)
    # once the big bet is made, raises are big bets
    opts = {o.action: (o.min_amount, o.max_amount) for o in step(ex).options}
    assert opts["raise"] == (4000, 4000)
    refused(ex, "wrong_amount", 1, "raise", 3000)
    act(ex, 1, "raise", 4000)


def test_stud8_4_fifth_to_seventh_street_big_bets_best_showing_first() -> None:
    ex = three_handed()
    act(ex, 2, "bring_in")
    act(ex, 3, "call")
    act(ex, 1, "call")
    deal(ex, {1: "3d", 2: "5h", 3: "Ts"})
    for seat in (3, 1, 2):
        act(ex, seat, "check")
    deal(ex, {1: "3s", 2: "6h", 3: "Jd"})  # seat 1 shows a pair of threes
    assert step(ex).seats == (1,)
    opts = {o.action: (o.min_amount, o.max_amount) for o in step(ex).options}
    assert opts["bet"] == (2000, 2000)
    refused(ex, "wrong_amount", 1, "bet", 1000)
    [record] = act(ex, 1, "bet")
    assert isinstance(record, PlayerActed)
    assert (record.amount, record.rule) == (2000, "STUD8-4")
    act(ex, 2, "raise")
    assert isinstance(ex.records[-1], PlayerActed)
    assert ex.records[-1].amount == 4000


def test_stud8_5_one_bet_and_three_raises() -> None:
    ex = three_handed()
    act(ex, 2, "bring_in")
    act(ex, 3, "complete")  # the bet
    act(ex, 1, "raise")  # 1
    act(ex, 2, "raise")  # 2
    act(ex, 3, "raise")  # 3
    assert "raise" not in {o.action for o in step(ex).options}
    err = refused(ex, "raise_cap_reached", 1, "raise")
    assert err.details["rule"] == "STUD8-5"
    act(ex, 1, "call")
    act(ex, 2, "call")
    assert step(ex).kind == "deal"


def test_stud8_5_unlimited_heads_up_and_configurable() -> None:
    ex = recorded_table({1: STACK, 2: STACK})
    deal(ex, {1: "Ah Kh 2d", 2: "Qs Qd 2c"})
    act(ex, 2, "bring_in")
    act(ex, 1, "complete")
    for k in range(5):
        act(ex, 2 if k % 2 == 0 else 1, "raise")
    assert isinstance(ex.records[-1], PlayerActed)
    assert ex.records[-1].rule == "STUD8-5"
    capped = recorded_table({1: STACK, 2: STACK}, heads_up_unlimited=False, max_raises=1)
    deal(capped, {1: "Ah Kh 2d", 2: "Qs Qd 2c"})
    act(capped, 2, "bring_in")
    act(capped, 1, "complete")
    act(capped, 2, "raise")
    refused(capped, "raise_cap_reached", 1, "raise")


def test_stud8_2_refusals_leave_the_table_unchanged() -> None:
    ex = three_handed()
    refused(ex, "out_of_turn", 1, "fold")
    refused(ex, "unknown_action", 2, "dance")
    refused(ex, "wrong_amount", 2, "bring_in", 400)
    act(ex, 2, "bring_in")
    refused(ex, "bring_in_not_due", 3, "bring_in")
    act(ex, 3, "fold")
    refused(ex, "already_folded", 3, "call")
    refused(ex, "not_allowed_now", 1, "show")
    act(ex, 1, "call")
    refused(ex, "not_allowed_now", 1, "check")  # the round is over: the table deals


def test_stud8_3_nothing_to_call_when_no_bet() -> None:
    ex = three_handed()
    act(ex, 2, "bring_in")
    act(ex, 3, "call")
    act(ex, 1, "call")
    deal(ex, {1: "3d", 2: "5h", 3: "Ts"})
    refused(ex, "nothing_to_call", 3, "call")
    refused(ex, "wrong_action", 3, "raise")


def test_stud8_9_all_in_for_less_does_not_reopen_the_betting() -> None:
    ex = recorded_table({1: STACK, 2: STACK, 3: 200 + 500 + 1400})
    deal(ex, {1: "Ah Kh 2d", 2: "Qs Qd 2c", 3: "7c 8c 9s"})
    act(ex, 2, "bring_in")
    act(ex, 3, "call")
    act(ex, 1, "call")
    deal(ex, {1: "3d", 2: "5h", 3: "Ts"})
    act(ex, 3, "check")
    act(ex, 1, "bet")  # 1000
    act(ex, 2, "call")
    options = {o.action: (o.min_amount, o.max_amount) for o in step(ex).options}
    assert options["raise"] == (1400, 1400)  # all-in for less than a full raise
    act(ex, 3, "raise", 1400)
    assert stack(ex, 3) == 0
    assert {o.action for o in step(ex).options} == {"fold", "call"}
    refused(ex, "raise_not_reopened", 1, "raise")
    act(ex, 1, "call")
    act(ex, 2, "call")
    assert step(ex).kind == "deal"


def test_stud8_2_place_wager_is_not_a_stud_command() -> None:
    from ledger.domain.commands import PlaceWager

    from .helpers import TABLE, cid

    ex = three_handed()
    with pytest.raises(LedgerError) as info:
        ex.execute(PlaceWager(command_id=cid(), table=TABLE, seat=1, kind="bet", amount=1000))
    assert info.value.code == "not_allowed_now"


def test_stud8_9_a_seat_that_can_only_call_may_not_raise() -> None:
    ex = recorded_table({1: STACK, 2: STACK, 3: 200 + 500})
    deal(ex, {1: "Ah Kh 2d", 2: "Qs Qd 2c", 3: "7c 8c 9s"})
    act(ex, 2, "bring_in")
    assert {o.action for o in step(ex).options} == {"fold", "call"}
    refused(ex, "raise_not_allowed", 3, "complete")
    act(ex, 3, "call")
    assert stack(ex, 3) == 0


def test_stud8_1_a_seat_sitting_out_cannot_act() -> None:
    ex = recorded_table({1: STACK, 2: STACK, 3: 100})
    deal(ex, {1: "Ah Kh 2d", 2: "Qs Qd 2c"})
    refused(ex, "seat_not_in_hand", 3, "call")
