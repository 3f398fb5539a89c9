"""CyberCaribbean Stud Poker, rule by rule (CSP-1..7), on a pure table."""

from __future__ import annotations

from typing import Any

import pytest

from ledger.domain import accounts
from ledger.domain.cards import parse_cards, verify_commitment
from ledger.domain.commands import Act, PlaceWager, Reveal, Settle, StartHand
from ledger.domain.errors import LedgerError
from ledger.domain.records import (
    CardsDealt,
    HandSettled,
    HandStarted,
    Outcome,
    PlayerActed,
    WagerPlaced,
)
from tests.support.pure import PureTable, snapshot

RECORDED = {"card_source": "recorded"}
DEALER_NO_QUALIFY = "2c 5d 8h Jc Qs"  # Q-J high
DEALER_AK = "Ah Kc 7d 4s 2h"  # A-K high: qualifies
DEALER_PAIR_8 = "8c 8d 3h 5s Kc"
DEALER_NINE_HIGH = "2c 3d 4s 7c 9d"


def table(players: int = 1, chips: int = 100_000, **config: Any) -> PureTable:
    return PureTable(
        "caribbean-stud", {**RECORDED, **config}, {s: chips for s in range(1, players + 1)}
    )


def wagers(t: PureTable, seat: int, ante: int = 1_000, jackpot: bool = False) -> None:
    t.do(PlaceWager, seat=seat, kind="ante", amount=ante)
    if jackpot:
        t.do(PlaceWager, seat=seat, kind="jackpot", amount=100)


def play_hand(
    t: PureTable,
    hands: dict[int, str],
    dealer: str,
    decisions: dict[int, str] | None = None,
    jackpot: tuple[int, ...] = (),
) -> HandSettled:
    t.do(StartHand)
    for seat in hands:
        wagers(t, seat, jackpot=seat in jackpot)
    t.deal(**{str(s): c for s, c in hands.items()}, dealer=dealer)
    for seat in hands:
        t.do(Act, seat=seat, action=(decisions or {}).get(seat, "play"))
    t.do(Reveal)
    settled = t.do(Settle)[0]
    assert isinstance(settled, HandSettled)
    return settled


def outcome(s: HandSettled, seat: int, wager: str) -> Outcome:
    return next(o for o in s.outcomes if o.seat == seat and o.wager == wager)


def test_csp_1_five_cards_each_and_dealer_four_down_one_up() -> None:
    t = PureTable("caribbean-stud", players={1: 10_000, 2: 10_000})
    t.do(StartHand)
    wagers(t, 1)
    wagers(t, 2)
    dealt = t.do(__import__("ledger.domain.commands", fromlist=["DealCards"]).DealCards)[0]
    assert isinstance(dealt, CardsDealt)
    by_target = {d.target: d for d in dealt.dealt}
    assert len(by_target[1].down) == 5 and not by_target[1].up
    assert len(by_target[2].down) == 5
    assert len(by_target["dealer"].down) == 4 and len(by_target["dealer"].up) == 1


def test_csp_1_only_anted_seats_are_dealt() -> None:
    t = table(players=2)
    t.do(StartHand)
    wagers(t, 1)
    with pytest.raises(LedgerError) as err:
        t.deal(**{"1": "As Ks Qs Js 9h", "2": "2c 3c 4c 5c 9d", "dealer": DEALER_AK})
    assert err.value.code == "wrong_deal_targets"


def test_csp_2_fold_loses_the_ante_at_once() -> None:
    t = table()
    s = play_hand(t, {1: "2d 3h 7s 9c Jd"}, DEALER_AK, {1: "fold"})
    assert outcome(s, 1, "ante").result == "lose"
    assert t.stack(1) == 100_000 - 1_000
    assert t.balance(accounts.HOUSE) == -1_000_000 + 1_000  # jackpot seed paid by the house


def test_csp_2_play_must_be_exactly_double_the_ante() -> None:
    t = table()
    t.do(StartHand)
    wagers(t, 1, ante=1_000)
    t.deal(**{"1": "As Ks Qs Js 9h", "dealer": DEALER_AK})
    before = snapshot(t.state)
    for amount in (1_000, 3_000):
        with pytest.raises(LedgerError) as err:
            t.do(Act, seat=1, action="play", amount=amount)
        assert err.value.code == "play_must_be_double_ante"
    with pytest.raises(LedgerError) as err:
        t.do(Act, seat=1, action="raise", amount=2_000)
    assert err.value.code == "unknown_action"
    assert snapshot(t.state) == before
    t.do(Act, seat=1, action="play", amount=2_000)
    assert t.stack(1) == 100_000 - 3_000


def test_csp_2_decisions_in_seat_order_out_of_turn_rejected() -> None:
    t = table(players=2)
    t.do(StartHand)
    wagers(t, 1)
    wagers(t, 2)
    t.deal(**{"1": "As Ks Qs Js 9h", "2": "2c 3c 4c 5c 9d", "dealer": DEALER_AK})
    with pytest.raises(LedgerError) as err:
        t.do(Act, seat=2, action="play")
    assert err.value.code == "out_of_turn"


def test_csp_3_non_qualifying_dealer_pays_ante_and_pushes_play() -> None:
    t = table()
    s = play_hand(t, {1: "2d 3h 7s 9c Jd"}, DEALER_NO_QUALIFY)
    assert (outcome(s, 1, "ante").result, outcome(s, 1, "ante").amount) == ("win", 1_000)
    assert outcome(s, 1, "ante").rule == "CSP-3"
    assert (outcome(s, 1, "play").result, outcome(s, 1, "play").amount) == ("push", 0)
    assert t.stack(1) == 101_000


def test_csp_3_ace_king_qualifies_ace_queen_does_not() -> None:
    t = table()
    s = play_hand(t, {1: "2d 3h 7s 9c Jd"}, DEALER_AK)
    assert outcome(s, 1, "ante").result == "lose"
    s = play_hand(t, {1: "2d 3h 7s 9c Jd"}, "Ah Qc 7d 4s 2h")
    assert outcome(s, 1, "ante").result == "win" and outcome(s, 1, "play").result == "push"


def test_csp_4_better_hand_wins_ante_even_and_play_at_the_paytable() -> None:
    t = table()
    s = play_hand(t, {1: "2h 6h 9h Jh Kh"}, DEALER_PAIR_8)  # flush pays 5-1
    assert outcome(s, 1, "ante").amount == 1_000
    play = outcome(s, 1, "play")
    assert (play.result, play.amount, play.rule) == ("win", 10_000, "CSP-4")
    assert t.stack(1) == 100_000 + 1_000 + 10_000


def test_csp_4_worse_hand_loses_both_and_exact_tie_pushes() -> None:
    t = table()
    s = play_hand(t, {1: "2d 4h 7s 9c Kd"}, DEALER_PAIR_8)
    assert outcome(s, 1, "ante").result == "lose" and outcome(s, 1, "play").result == "lose"
    assert t.stack(1) == 100_000 - 3_000
    s = play_hand(t, {1: "8h 8s 3d 5c Kd"}, DEALER_PAIR_8)
    assert outcome(s, 1, "ante").result == "push" and outcome(s, 1, "play").result == "push"
    assert t.stack(1) == 100_000 - 3_000


def test_csp_4_paytable_is_configurable() -> None:
    paytable = {
        "high_card": 1,
        "one_pair": 1,
        "two_pair": 3,
        "three_of_a_kind": 3,
        "straight": 4,
        "flush": 6,
        "full_house": 7,
        "four_of_a_kind": 20,
        "straight_flush": 50,
        "royal_flush": 100,
    }
    t = table(play_paytable=paytable)
    s = play_hand(t, {1: "2h 6h 9h Jh Kh"}, DEALER_PAIR_8)
    assert outcome(s, 1, "play").amount == 12_000


def test_csp_5_the_wheel_is_the_lowest_straight() -> None:
    t = table()
    s = play_hand(t, {1: "Ad 2h 3s 4c 5d"}, "2c 3d 4h 5s 6h")
    assert outcome(s, 1, "play").result == "lose"
    s = play_hand(t, {1: "Ad 2h 3s 4c 5d"}, DEALER_PAIR_8)
    assert outcome(s, 1, "play").amount == 4 * 2_000  # straight 4-1


def test_csp_6_side_wager_is_exactly_one_unit_and_goes_with_an_ante() -> None:
    t = table()
    t.do(StartHand)
    with pytest.raises(LedgerError) as err:
        t.do(PlaceWager, seat=1, kind="jackpot", amount=100)
    assert err.value.code == "ante_required"
    wagers(t, 1)
    with pytest.raises(LedgerError) as err:
        t.do(PlaceWager, seat=1, kind="jackpot", amount=200)
    assert err.value.code == "jackpot_wager_must_be_exact"
    (placed,) = t.do(PlaceWager, seat=1, kind="jackpot", amount=100)
    assert isinstance(placed, WagerPlaced)
    assert placed.rule == "CSP-6" and [m.rule for m in placed.transfers] == ["CSP-6"]


def test_csp_6_contributions_feed_the_meter_before_awards_and_fixed_awards_come_from_house() -> (
    None
):
    t = table(players=2)
    meter = t.balance(accounts.JACKPOT)
    s = play_hand(t, {1: "2h 6h 9h Jh Kh", 2: "2d 3h 7s 9c Kd"}, DEALER_NO_QUALIFY, jackpot=(1, 2))
    assert t.balance(accounts.JACKPOT) == meter + 2 * 70  # 70% of each 1.00
    (line,) = s.jackpot
    assert (line.seat, line.line, line.amount, line.source) == (1, "flush", 5_000, "house")
    # the award ignores the dealer's hand: the dealer did not qualify, the flush is still paid
    assert t.stack(1) == 100_000 + 1_000 - 100 + 5_000


def test_csp_6_percentage_award_comes_from_the_meter_rounded_down_and_royal_resets() -> None:
    t = table(players=3, jackpot={"seed": 1_000_001})
    s = play_hand(
        t,
        {1: "Ts Js Qs Ks As", 2: "5h 6h 7h 8h 9h", 3: "Th Jh Qh Kh Ah"},
        DEALER_NINE_HIGH,
        jackpot=(1, 2, 3),
    )
    meter = 1_000_001 + 3 * 70
    first, second, third = s.jackpot
    assert (first.seat, first.line, first.amount) == (1, "royal_flush", meter)
    assert first.reset_to_seed and first.meter_after == 1_000_001
    assert (second.seat, second.line) == (2, "straight_flush")
    assert second.amount == 1_000_001 * 1_000 // 10_000  # 10% of the reseeded meter, rounded down
    assert (third.line, third.amount) == ("royal_flush", 1_000_001 - second.amount)
    assert t.balance(accounts.JACKPOT) == 1_000_001


def test_csp_6_folded_player_forfeits_the_payout_but_feeds_the_meter() -> None:
    t = table()
    meter = t.balance(accounts.JACKPOT)
    s = play_hand(t, {1: "3h 6h 9h Jh Qh"}, DEALER_AK, {1: "fold"}, jackpot=(1,))
    assert outcome(s, 1, "jackpot").result == "forfeit"
    assert not s.jackpot
    assert t.balance(accounts.JACKPOT) == meter + 70


def test_csp_7_only_the_best_jackpot_line_is_paid() -> None:
    t = table()
    s = play_hand(t, {1: "5h 6h 7h 8h 9h"}, DEALER_NINE_HIGH, jackpot=(1,))
    (line,) = s.jackpot
    assert line.line == "straight_flush"
    assert outcome(s, 1, "jackpot").rule == "CSP-7"


def test_com_7_cap_withholds_winnings_in_settlement_order() -> None:
    t = table(players=2, max_aggregate_payout=5_000, jackpot={"enabled": False})
    s = play_hand(t, {1: "2h 6h 9h Jh Kh", 2: "3c 7c 9c Jc Qc"}, DEALER_PAIR_8)
    assert [outcome(s, 1, "ante").amount, outcome(s, 1, "play").amount] == [1_000, 4_000]
    assert outcome(s, 1, "play").withheld == 6_000 and outcome(s, 1, "play").rule == "COM-7"
    assert outcome(s, 2, "ante").amount == 0 and outcome(s, 2, "ante").withheld == 1_000
    assert s.max_aggregate_payout == 5_000
    assert t.stack(1) == 100_000 + 5_000 and t.stack(2) == 100_000


def test_com_7_jackpot_awards_are_never_capped() -> None:
    t = table(max_aggregate_payout=100)
    s = play_hand(t, {1: "2h 6h 9h Jh Kh"}, DEALER_NO_QUALIFY, jackpot=(1,))
    assert s.jackpot[0].amount == 5_000


def test_com_8_rng_commitment_is_revealed_and_verifies() -> None:
    t = PureTable("caribbean-stud", players={1: 10_000})
    started = t.do(StartHand)[0]
    assert isinstance(started, HandStarted) and started.deck_commitment
    wagers(t, 1)
    t.do(__import__("ledger.domain.commands", fromlist=["DealCards"]).DealCards)
    t.do(Act, seat=1, action="fold")
    t.do(Reveal)
    settled = t.do(Settle)[0]
    assert isinstance(settled, HandSettled) and settled.deck and settled.salt
    assert verify_commitment(settled.deck, settled.salt, started.deck_commitment)
    dealt = next(r for r in t.records if isinstance(r, CardsDealt))
    first_five = settled.deck[:5]
    # round-robin: seat 1 gets cards 0, 2, 4, ... of the deck; the dealer 1, 3, ...
    assert dealt.dealt[0].down == (
        first_five[0],
        first_five[2],
        first_five[4],
        settled.deck[6],
        settled.deck[8],
    )


def test_com_1_a_card_dealt_twice_is_rejected_and_nothing_changes() -> None:
    t = table()
    t.do(StartHand)
    wagers(t, 1)
    before = snapshot(t.state)
    with pytest.raises(LedgerError) as err:
        t.deal(**{"1": "As Ks Qs Js 9h", "dealer": "As 2c 3c 4c 5c"})
    assert err.value.code == "duplicate_card"
    with pytest.raises(LedgerError) as err:
        t.deal(**{"1": "As Ks Qs Js", "dealer": "2c 3c 4c 5c 9d"})
    assert err.value.code == "wrong_card_count"
    assert snapshot(t.state) == before


def test_com_4_wagers_outside_the_limits_are_rejected() -> None:
    t = table(limits={"ante": {"min": 500, "max": 5_000}})
    t.do(StartHand)
    for amount, code in ((499, "wager_below_minimum"), (5_001, "wager_above_maximum")):
        with pytest.raises(LedgerError) as err:
            t.do(PlaceWager, seat=1, kind="ante", amount=amount)
        assert err.value.code == code and err.value.details["rule"] == "COM-4"


def test_com_5_void_returns_every_wager_even_a_folded_ante() -> None:
    t = table(players=2)
    house = t.balance(accounts.HOUSE)
    t.do(StartHand)
    wagers(t, 1, jackpot=True)
    wagers(t, 2)
    t.deal(**{"1": "As Ks Qs Js 9h", "2": "2c 3c 4c 5c 9d", "dealer": DEALER_AK})
    t.do(Act, seat=1, action="fold")
    t.do(Act, seat=2, action="play")
    from ledger.domain.commands import VoidHand

    t.do(VoidHand, reason="card-count discrepancy")
    assert t.stack(1) == 100_000 and t.stack(2) == 100_000
    assert t.balance(accounts.HOUSE) == house
    assert t.state.hand is None
    assert not [a for a in t.state.balances if accounts.is_hand_scoped(a)]


def test_com_6_leaving_without_acting_is_a_fold() -> None:
    from ledger.domain.commands import UnseatPlayer

    t = table(players=2)
    t.do(StartHand)
    wagers(t, 1)
    wagers(t, 2)
    t.deal(**{"1": "As Ks Qs Js 9h", "2": "2c 3c 4c 5c 9d", "dealer": DEALER_AK})
    records = t.do(UnseatPlayer, seat=1)
    assert [type(r).__name__ for r in records] == ["PlayerActed", "PlayerUnseated"]
    assert isinstance(records[0], PlayerActed)
    assert records[0].action == "fold"


def test_com_3_no_buy_in_or_cash_out_for_a_seat_in_the_hand() -> None:
    from ledger.domain.commands import BuyIn, CashOut

    t = table()
    t.do(StartHand)
    for cmd, fields in ((BuyIn, {"amount": 100}), (CashOut, {})):
        with pytest.raises(LedgerError) as err:
            t.do(cmd, seat=1, **fields)
        assert err.value.code == "hand_in_progress"


def test_com_4_config_changes_only_between_hands() -> None:
    from ledger.domain.commands import ChangeConfig

    t = table()
    t.do(StartHand)
    with pytest.raises(LedgerError) as err:
        t.do(ChangeConfig, config={"max_aggregate_payout": 1_000}, approver="pit boss")
    assert err.value.code == "config_change_mid_hand"


def test_com_2_cards_in_records_are_text_in_json() -> None:
    t = table()
    play_hand(t, {1: "2d 3h 7s 9c Jd"}, DEALER_AK)
    dealt = next(r for r in t.records if isinstance(r, CardsDealt))
    assert '"2d"' in dealt.model_dump_json()
    assert parse_cards("2d 3h 7s 9c Jd") == dealt.dealt[0].down


def test_com_3_a_player_who_moves_seats_during_the_hand_still_cannot_buy_in() -> None:
    from ledger.domain.commands import BuyIn, SeatPlayer, UnseatPlayer

    t = table(players=2)
    t.do(StartHand)
    wagers(t, 1)
    wagers(t, 2)
    t.deal(**{"1": "As Ks Qs Js 9h", "2": "2c 3c 4c 5c 9d", "dealer": DEALER_AK})
    t.do(UnseatPlayer, seat=1)
    t.do(SeatPlayer, seat=5, player="p1")
    with pytest.raises(LedgerError) as err:
        t.do(BuyIn, seat=5, amount=1_000)
    assert err.value.code == "hand_in_progress"
