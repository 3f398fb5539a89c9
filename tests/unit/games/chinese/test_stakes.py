"""Money: point value, buy-ins and short buys, table stakes, payment order (CHP-8, CHP-9)."""

from __future__ import annotations

import pytest

from ledger.domain.commands import SeatPlayer, UnseatPlayer, VoidHand
from ledger.domain.errors import LedgerError
from ledger.domain.records import HandSettled, Outcome
from ledger.games.chinese import ChineseConfig, ChineseHand, settle
from tests.unit.games.chinese import hands as h
from tests.unit.games.chinese.support import CODE, Table, full_deal, hand_of, seat_of

RECORDED = {"card_source": "recorded"}


def g_h_f1(t: Table) -> HandSettled:
    """Seat 1 holds G, seat 2 H, seat 3 F1 (fouled): 1 wins 12 from 2 and 12 from 3, 2 wins 6
    from 3."""
    t.start()
    t.deal(full_deal({1: hand_of(*h.G), 2: hand_of(*h.H), 3: hand_of(*h.F1)}))
    t.set(1, hand_of(*h.G))
    t.set(2, hand_of(*h.H))
    t.set(3, hand_of(*h.F1))
    t.reveal()
    (record,) = t.settle()
    assert isinstance(record, HandSettled)
    return record


def outcome(record: HandSettled, seat: int, opponent: int) -> Outcome:
    return next(o for o in record.outcomes
                if o.seat == seat and o.wager == f"points_vs_{opponent}")


# --- CHP-8: point value, buy-ins, short buys ------------------------------------------------------


def test_chp_8_points_are_paid_at_the_table_point_value() -> None:
    t = Table({**RECORDED, "point_value": 250})
    for seat in (1, 2, 3):
        t.seat(seat, buy=5000)
    t.buy(1, 5000)
    record = g_h_f1(t)
    assert outcome(record, 1, 2).amount == 12 * 250
    assert outcome(record, 2, 3).amount == 6 * 250
    assert t.stack(3) == 5000 - 18 * 250


def test_chp_8_a_buy_in_is_20_points_in_chips() -> None:
    t = Table({"point_value": 50})
    t.seat(1, buy=None)
    before = t.state.to_snapshot()
    for amount, code in ((2000, "wrong_buy_in_amount"), (1010, "buy_in_not_whole_points")):
        with pytest.raises(LedgerError) as caught:
            t.buy(1, amount)
        assert caught.value.code == code
        assert caught.value.details["rule"] == "CHP-8"
    assert t.state.to_snapshot() == before
    t.buy(1, 1000)
    assert t.stack(1) == 1000


def test_chp_8_one_short_buy_after_each_full_buy_in() -> None:
    t = Table()
    t.seat(1, buy=None)
    with pytest.raises(LedgerError) as caught:
        t.buy(1, 500, "short_buy")  # no full buy-in yet
    assert caught.value.code == "short_buy_not_allowed"
    t.buy(1, 2000)
    t.buy(1, 700, "short_buy")
    with pytest.raises(LedgerError) as caught:
        t.buy(1, 700, "short_buy")  # the one short buy is used
    assert caught.value.code == "short_buy_not_allowed"
    t.buy(1, 2000)
    t.buy(1, 1900, "short_buy")
    assert t.stack(1) == 2000 + 700 + 2000 + 1900
    history = t.state.memo.buys["p1"]
    assert (history.full, history.short, history.short_buy_open) == (2, 2, False)


def test_chp_8_a_short_buy_is_1_to_19_whole_points() -> None:
    t = Table()
    t.seat(1)
    for amount, code in ((2000, "wrong_short_buy_amount"), (2100, "wrong_short_buy_amount"),
                         (150, "buy_in_not_whole_points")):
        with pytest.raises(LedgerError) as caught:
            t.buy(1, amount, "short_buy")
        assert caught.value.code == code
    t.buy(1, 100, "short_buy")


def test_chp_8_buy_in_kinds_are_buy_in_and_short_buy() -> None:
    t = Table()
    t.seat(1, buy=None)
    with pytest.raises(LedgerError) as caught:
        t.buy(1, 2000, "rebuy")
    assert caught.value.code == "unknown_buy_in_kind"


def test_chp_8_short_buy_history_follows_the_player_across_seats() -> None:
    t = Table()
    t.seat(1)
    t.run(UnseatPlayer(command_id="u", table=CODE, seat=1))
    t.run(SeatPlayer(command_id="s", table=CODE, seat=3, player="p1"))
    t.buy(3, 1000, "short_buy")
    with pytest.raises(LedgerError):
        t.buy(3, 1000, "short_buy")


def test_chp_8_the_stack_at_the_start_of_the_hand_is_in_play_until_the_settlement() -> None:
    t = Table(RECORDED)
    t.seat(1)
    t.seat(2)
    t.start()
    assert t.state.balances["spot:1:stake"] == 2000 == t.state.balances["spot:2:stake"]
    with pytest.raises(LedgerError) as caught:
        t.buy(1, 2000)
    assert caught.value.code == "hand_in_progress"


# --- CHP-8, CHP-9: table stakes and the payment order ---------------------------------------------


def test_chp_8_short_stacked_loser_pays_at_most_its_stake_in_button_order_chp_9() -> None:
    t = Table(RECORDED)
    for seat in (1, 2, 3):
        t.seat(seat)
    t.buy(1, 2000)
    t.cash_out(3, 1200)  # seat 3 plays 8 points
    record = g_h_f1(t)  # button 1: seats pay in the order 2, 3, 1
    assert outcome(record, 2, 3) == Outcome(
        seat=2, wager="points_vs_3", result="win", stake=2000, amount=600, rule="CHP-3",
        note="6 points = 600 (CHP-3)")
    capped = outcome(record, 1, 3)
    assert (capped.amount, capped.withheld, capped.rule) == (200, 1000, "CHP-8")
    assert "seat 3's stake ran out" in (capped.note or "")
    assert outcome(record, 3, 1).amount == -200 and outcome(record, 3, 1).withheld == 1000
    assert t.stack(3) == 0
    assert t.stack(1) == 4000 + 1200 + 200
    assert t.stack(2) == 2000 - 1200 + 600


def test_chp_9_the_button_order_decides_who_is_paid_when_a_stack_runs_out() -> None:
    t = Table(RECORDED)
    for seat in (1, 2, 3):
        t.seat(seat)
    t.buy(1, 2000)
    t.cash_out(3, 1200)
    t.start()  # button on seat 1
    t.run(VoidHand(command_id="void", table=CODE, reason="shuffler fault"))
    record = g_h_f1(t)  # button on seat 2: the order is 3, 1, 2
    assert t.state.button == 2
    assert (outcome(record, 1, 3).amount, outcome(record, 1, 3).withheld) == (800, 400)
    assert (outcome(record, 2, 3).amount, outcome(record, 2, 3).withheld) == (0, 600)
    assert t.stack(2) == 2000 - 1200


def test_chp_8_a_player_wins_at_most_the_stack_held_at_the_start_of_the_hand() -> None:
    t = Table(RECORDED)
    for seat in (1, 2, 3):
        t.seat(seat)
    t.cash_out(1, 1500)  # seat 1 plays 5 points and is owed 24
    record = g_h_f1(t)
    assert (outcome(record, 1, 2).amount, outcome(record, 1, 2).withheld) == (500, 700)
    assert (outcome(record, 1, 3).amount, outcome(record, 1, 3).withheld) == (0, 1200)
    assert "seat 1 has received its whole stake" in (outcome(record, 1, 3).note or "")
    assert outcome(record, 2, 3).amount == 600
    assert t.stack(1) == 1000
    assert t.stack(3) == 2000 - 600


def test_chp_9_payers_settle_from_left_of_the_button_the_button_last() -> None:
    seats = [seat_of(n, *hand, stake=400) for n, hand in ((2, h.H), (3, h.F1), (1, h.G))]
    hand = ChineseHand(hand_no=1, button=1, phase="settle", seats=tuple(seats))
    record = settle(ChineseConfig(), hand)
    assert [t.src for t in record.transfers if t.memo != "stake returned"] == [
        "spot:2:stake", "spot:3:stake"]
    paid = {(t.src, t.dst): t.amount for t in record.transfers if t.memo != "stake returned"}
    # Seat 2 owes seat 1 12 points, capped at seat 1's 400 stake; then seat 3 pays seat 2 400,
    # and nothing is left for seat 1, whose receipts are already capped.
    assert paid == {("spot:2:stake", "player:p1"): 400, ("spot:3:stake", "player:p2"): 400}


def test_chp_8_points_net_to_zero_and_the_withheld_is_recorded_on_both_sides() -> None:
    seats = [seat_of(n, *hand, stake=300) for n, hand in ((2, h.H), (3, h.F1), (1, h.G))]
    record = settle(ChineseConfig(), ChineseHand(hand_no=1, button=1, phase="settle",
                                                 seats=tuple(seats)))
    assert sum(p.points for p in record.points) == 0
    assert sum(o.amount for o in record.outcomes) == 0
    for o in record.outcomes:
        opponent = int(o.wager.rsplit("_", 1)[1])
        mirror = next(x for x in record.outcomes
                      if x.seat == opponent and x.wager == f"points_vs_{o.seat}")
        assert mirror.withheld == o.withheld and mirror.amount == -o.amount
