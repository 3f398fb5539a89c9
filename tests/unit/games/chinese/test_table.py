"""Scripted Chinese Poker hands through the pure table state machine (CHP-1..3, 7, 10, 11)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from ledger.domain.cards import FULL_DECK
from ledger.domain.commands import UnseatPlayer, VoidHand
from ledger.domain.errors import InvalidInput, LedgerError, RuleViolation
from ledger.domain.records import (
    CardsDealt,
    CardsRevealed,
    HandSettled,
    HandStarted,
    HandVoided,
    PlayerActed,
)
from ledger.games.chinese import settle
from tests.unit.games.chinese import hands as h
from tests.unit.games.chinese.support import CODE, Table, arranged_deck, full_deal, hand_of

RECORDED = {"card_source": "recorded"}


def three_players(config: dict[str, object] | None = None) -> Table:
    t = Table({**RECORDED, **(config or {})})
    for seat in (1, 2, 3):
        t.seat(seat)
    return t


def dealt_g_h_f1(t: Table) -> None:
    """Seat 1 holds G, seat 2 H, seat 3 F1 (fouled), the empty seat 4 the rest."""
    t.start()
    t.deal(full_deal({1: hand_of(*h.G), 2: hand_of(*h.H), 3: hand_of(*h.F1)}))


def set_all(t: Table) -> None:
    t.set(1, hand_of(*h.G))
    t.set(2, hand_of(*h.H))
    t.set(3, hand_of(*h.F1))


def settled(t: Table) -> HandSettled:
    before = t.hand
    config = t.config
    t.reveal()
    record = t.settle()[0]
    assert isinstance(record, HandSettled)
    assert settle(config, before.model_copy(update={"phase": "settle"})) == record
    return record


def fails(t: Table, action: Callable[[], object], code: str) -> LedgerError:
    """``action`` is refused with ``code`` and the table is exactly as it was."""
    before = t.state.to_snapshot()
    with pytest.raises(LedgerError) as err:
        action()
    assert err.value.code == code, err.value
    assert t.state.to_snapshot() == before
    return err.value


# --- CHP-1: four seats dealt ----------------------------------------------------------------------


def test_chp_1_all_four_seats_are_dealt_13_cards_whatever_the_number_of_players() -> None:
    t = Table(decks=[FULL_DECK])
    t.seat(1)
    t.seat(3)
    t.start()
    (record,) = t.deal()
    assert isinstance(record, CardsDealt)
    assert sorted(d.target for d in record.dealt) == [1, 2, 3, 4]
    assert all(len(d.down) == 13 for d in record.dealt)
    assert sorted(c for d in record.dealt for c in d.cards) == list(FULL_DECK)
    assert t.hand.participants() == (3, 1)  # button 1: seat 3 is the first player left of it
    assert [e.seat for e in t.hand.empty] == [2, 4]
    assert t.state.next_step().seats == (3, 1)


def test_chp_1_cards_are_dealt_one_at_a_time_starting_left_of_the_button() -> None:
    hands = full_deal({})
    t = Table(decks=[arranged_deck(1, hands)])
    t.seat(1)
    t.seat(2)
    t.start()
    (record,) = t.deal()
    assert isinstance(record, CardsDealt)
    assert [d.target for d in record.dealt] == [2, 3, 4, 1]
    assert {d.target: d.cards for d in record.dealt} == hands


def test_chp_1_a_recorded_deal_reports_all_four_seats() -> None:
    t = three_players()
    t.start()
    cards = full_deal({})
    del cards[4]
    fails(t, lambda: t.deal(cards), "wrong_deal_targets")


def test_chp_1_empty_seats_are_dealt_but_do_not_score() -> None:
    t = three_players()
    dealt_g_h_f1(t)
    set_all(t)
    record = settled(t)
    assert {p.seat for p in record.points} == {1, 2, 3}
    assert {o.seat for o in record.outcomes} == {1, 2, 3}


# --- CHP-2, CHP-3: setting, timing, fouls ---------------------------------------------------------


def test_chp_2_a_set_records_the_three_segments_and_is_final() -> None:
    t = three_players()
    dealt_g_h_f1(t)
    (record,) = t.set(1, hand_of(*h.G))
    assert isinstance(record, PlayerActed)
    assert record.segments == hand_of(*h.G)
    assert record.rule == "CHP-2"
    fails(t, lambda: t.set(1, hand_of(*h.G)), "already_set")


def test_chp_2_players_set_in_any_order() -> None:
    t = three_players()
    dealt_g_h_f1(t)
    t.set(3, hand_of(*h.F1))
    t.set(1, hand_of(*h.G))
    assert t.state.next_step().seats == (2,)


def test_chp_3_hands_open_only_after_the_last_player_has_set() -> None:
    t = three_players()
    dealt_g_h_f1(t)
    t.set(1, hand_of(*h.G))
    t.set(2, hand_of(*h.H))
    fails(t, t.reveal, "not_allowed_now")
    fails(t, t.settle, "not_allowed_now")
    t.set(3, hand_of(*h.F1))
    fails(t, t.settle, "not_allowed_now")
    records = t.reveal()
    assert [r.target for r in records if isinstance(r, CardsRevealed)] == [2, 3, 1]
    assert t.state.next_step().kind == "settle"


def test_chp_3_a_set_whose_cards_were_not_dealt_to_the_seat_is_rejected_not_fouled() -> None:
    t = three_players()
    dealt_g_h_f1(t)
    front, middle, back = hand_of(*h.G)
    stranger = hand_of(*h.H)[0][0]
    err = fails(t, lambda: t.set(1, ((*front[:2], stranger), middle, back)), "wrong_cards")
    assert err.details["rule"] == "CHP-3"
    assert "4s" in err.message
    fails(t, lambda: t.set(1, (front[:2], middle, back)), "wrong_cards")
    fails(t, lambda: t.set(1, (front + front[:1], middle, back)), "duplicate_card")


def test_chp_3_segments_of_the_wrong_size_are_accepted_and_fouled() -> None:
    t = three_players()
    dealt_g_h_f1(t)
    flat = [c for s in hand_of(*h.H) for c in s]
    t.set(1, hand_of(*h.G))
    t.set(2, (flat[:4], flat[4:8], flat[8:]))
    t.set(3, hand_of(*h.F1))
    record = settled(t)
    line = next(p for p in record.points if p.seat == 2 and p.opponent == 3)
    assert line.points == 0 and "both hands fouled" in line.detail[0]
    line = next(p for p in record.points if p.seat == 1 and p.opponent == 2)
    assert line.points == 12 and "4/4/5" in line.detail[0]


def test_chp_3_foul_among_several_players_pays_bonuses_through_the_table() -> None:
    t = three_players()
    t.buy(1, 2000)  # two full buy-ins: seat 1 can win all 24 points (CHP-8)
    dealt_g_h_f1(t)
    set_all(t)
    record = settled(t)
    points = {(p.seat, p.opponent): p.points for p in record.points}
    assert points == {(1, 2): 12, (1, 3): 12, (2, 1): -12, (2, 3): 6, (3, 1): -12, (3, 2): -6}
    assert not any(o.withheld for o in record.outcomes)
    assert t.stack(1) == 4000 + 2400
    assert t.stack(2) == 2000 - 1200 + 600
    assert t.stack(3) == 2000 - 1800


# --- CHP-7: declarations --------------------------------------------------------------------------


def dragon_against_six_pairs() -> Table:
    t = Table(RECORDED)
    t.seat(1)
    t.seat(2)
    t.start()
    t.deal(full_deal({1: hand_of(*h.DRAGON), 2: hand_of(*h.SIX_PAIRS)}))
    return t


def test_chp_7_declaration_with_the_set_is_recorded_as_a_set_then_a_declare() -> None:
    t = dragon_against_six_pairs()
    records = t.set(1, hand_of(*h.DRAGON), declaration="dragon")
    assert [r.action for r in records if isinstance(r, PlayerActed)] == ["set", "declare"]
    assert isinstance(records[1], PlayerActed)
    assert records[1].rule == "CHP-7"


def test_chp_7_dragon_beats_six_pairs_through_the_table() -> None:
    t = dragon_against_six_pairs()
    t.set(1, hand_of(*h.DRAGON))
    t.declare(1, "dragon")
    t.set(2, hand_of(*h.SIX_PAIRS))
    t.declare(2, "six_pairs")  # after the last set, before the opening
    record = settled(t)
    assert [(p.seat, p.points) for p in record.points] == [(2, -13), (1, 13)]
    assert t.stack(1) == 2000 + 1300 and t.stack(2) == 2000 - 1300
    assert all(o.rule == "CHP-7" for o in record.outcomes)


def test_chp_7_a_declaration_the_cards_do_not_support_is_rejected() -> None:
    t = dragon_against_six_pairs()
    t.set(2, hand_of(*h.SIX_PAIRS))
    err = fails(t, lambda: t.declare(2, "dragon"), "declaration_not_supported")
    assert err.details["rule"] == "CHP-7"
    fails(t, lambda: t.declare(2, "royal"), "unknown_declaration")
    fails(t, lambda: t.set(1, hand_of(*h.DRAGON), declaration="six_pairs"),
          "declaration_not_supported")


def test_chp_7_declaring_comes_after_the_set_once_and_before_the_opening() -> None:
    t = dragon_against_six_pairs()
    fails(t, lambda: t.declare(1, "dragon"), "hand_not_set")
    t.set(1, hand_of(*h.DRAGON), declaration="dragon")
    fails(t, lambda: t.declare(1, "three_straights"), "already_declared")
    t.set(2, hand_of(*h.SIX_PAIRS))
    t.reveal()
    fails(t, lambda: t.declare(2, "six_pairs"), "not_allowed_now")


def test_chp_7_a_player_may_choose_not_to_declare() -> None:
    t = dragon_against_six_pairs()
    t.set(1, hand_of(*h.DRAGON), declaration="dragon")
    t.set(2, hand_of(*h.SIX_PAIRS))
    record = settled(t)
    assert [(p.seat, p.points) for p in record.points] == [(2, -13), (1, 13)]
    assert "opponent automatic dragon -13 (CHP-7)" in record.points[0].detail


# --- CHP-10, COM-5: misdeals ----------------------------------------------------------------------


def test_chp_10_misdeal_voids_the_hand_and_returns_every_chip_com_5() -> None:
    t = three_players({"fee": 50})
    before = dict(t.state.balances)
    dealt_g_h_f1(t)
    (voided,) = t.run(VoidHand(command_id="void", table=CODE,
                               reason="five cards of seat 2 exposed by the dealer (CHP-10)"))
    assert isinstance(voided, HandVoided) and voided.rule == "COM-5"
    assert voided.approved_by is None
    assert t.state.balances == before
    assert t.state.hand is None
    assert not any(a.startswith("spot:") for a in t.state.balances)


def test_chp_10_once_anyone_has_set_a_void_needs_a_supervisor() -> None:
    t = three_players({"fee": 50})
    before = dict(t.state.balances)
    dealt_g_h_f1(t)
    t.set(1, hand_of(*h.G))
    t.set(3, hand_of(*h.F1))
    err = fails(t, lambda: t.run(VoidHand(command_id="v1", table=CODE, reason="cards exposed")),
                "void_needs_approval")
    assert err.details["rule"] == "CHP-10" and "seats 1, 3 have set" in err.message
    (voided,) = t.run(VoidHand(command_id="v2", table=CODE, reason="shuffler fault found",
                               approved_by="floor: M. Jansen"))
    assert isinstance(voided, HandVoided) and voided.approved_by == "floor: M. Jansen"
    assert t.state.balances == before and t.state.hand is None


def test_chp_10_a_wrong_number_of_cards_is_refused_and_the_hand_voided() -> None:
    t = three_players()
    before = dict(t.state.balances)
    t.start()
    cards = full_deal({})
    cards[2] = cards[2][:12]
    fails(t, lambda: t.deal(cards), "wrong_card_count")
    t.run(VoidHand(command_id="void", table=CODE, reason="wrong number of cards (CHP-10)"))
    assert t.state.balances == before


# --- CHP-11: the fee ------------------------------------------------------------------------------


def test_chp_11_fee_per_player_is_taken_before_scoring_and_reduces_the_stack_that_plays() -> None:
    t = three_players({"fee": 25})
    (started,) = t.start()
    assert isinstance(started, HandStarted)
    assert t.state.balances["rake"] == 75
    assert [s.stake for s in t.hand.seats] == [1975, 1975, 1975]
    assert all(t.stack(seat) == 0 for seat in (1, 2, 3))
    t.deal(full_deal({1: hand_of(*h.G), 2: hand_of(*h.H), 3: hand_of(*h.F1)}))
    set_all(t)
    record = settled(t)
    assert [(r.seat, r.amount, r.rule) for r in record.rake] == [
        (2, 25, "CHP-11"), (3, 25, "CHP-11"), (1, 25, "CHP-11")]
    assert t.stack(1) + t.stack(2) + t.stack(3) == 3 * 2000 - 75


def test_chp_11_a_player_whose_stack_does_not_exceed_the_fee_is_not_dealt_in() -> None:
    t = three_players({"fee": 100})
    t.cash_out(3, 1900)
    (started,) = t.start()
    assert isinstance(started, HandStarted)
    assert [e.seat for e in started.seats] == [1, 2]
    assert t.stack(3) == 100


def test_chp_11_no_fee_no_rake() -> None:
    t = three_players()
    dealt_g_h_f1(t)
    set_all(t)
    assert settled(t).rake == ()
    assert "rake" not in t.state.balances


# --- COM-6: leaving -------------------------------------------------------------------------------


def test_com_6_a_player_who_leaves_before_setting_has_folded_and_is_fouled() -> None:
    t = three_players()
    dealt_g_h_f1(t)
    t.set(1, hand_of(*h.G))
    records = t.run(UnseatPlayer(command_id="bye", table=CODE, seat=2))
    assert isinstance(records[0], PlayerActed) and records[0].action == "fold"
    assert records[0].rule == "COM-6"
    t.set(3, hand_of(*h.F1))
    record = settled(t)
    points = {(p.seat, p.opponent): p.points for p in record.points}
    assert points[(1, 2)] == 12 and points[(2, 3)] == 0
    assert "left the table" in next(p for p in record.points if p.seat == 1
                                    and p.opponent == 2).detail[0]
    assert t.state.balances["player:p2"] == 2000 - 1200


def test_com_6_the_player_who_left_cannot_set_the_folded_hand_on_return() -> None:
    t = three_players()
    dealt_g_h_f1(t)
    t.run(UnseatPlayer(command_id="bye", table=CODE, seat=2))
    fails(t, lambda: t.seat(2, player="p2", buy=None), "seat_reserved")  # until the hand ends
    t.seat(4, player="p2", buy=None)  # another seat: not in this hand
    fails(t, lambda: t.set(2, hand_of(*h.H)), "seat_left")


def test_com_6_leaving_after_setting_keeps_the_hand_in_play() -> None:
    t = three_players()
    t.buy(1, 2000)
    dealt_g_h_f1(t)
    set_all(t)
    assert t.run(UnseatPlayer(command_id="bye", table=CODE, seat=1))[0].__class__.__name__ \
        == "PlayerUnseated"
    record = settled(t)
    assert sum(p.points for p in record.points if p.seat == 1) == 24
    assert t.state.balances["player:p1"] == 4000 + 2400


def test_com_6_when_every_player_leaves_the_hand_settles_with_nothing_to_open() -> None:
    t = Table(RECORDED)
    t.seat(1)
    t.seat(2)
    t.start()
    t.deal(full_deal({}))
    t.run(UnseatPlayer(command_id="bye1", table=CODE, seat=1))
    t.run(UnseatPlayer(command_id="bye2", table=CODE, seat=2))
    assert t.state.next_step().kind == "settle"
    (record,) = t.settle()
    assert isinstance(record, HandSettled)
    assert all(p.points == 0 for p in record.points)
    assert t.state.balances["player:p1"] == 2000 == t.state.balances["player:p2"]


def test_seat_not_in_hand_for_a_newcomer_or_an_empty_seat() -> None:
    t = three_players()
    dealt_g_h_f1(t)
    fails(t, lambda: t.set(4, hand_of(*h.F2)), "seat_not_in_hand")
    t.seat(4, player="late")
    fails(t, lambda: t.set(4, hand_of(*h.F2)), "seat_not_in_hand")


def test_errors_are_coded_ledger_errors() -> None:
    assert issubclass(RuleViolation, LedgerError) and issubclass(InvalidInput, LedgerError)
