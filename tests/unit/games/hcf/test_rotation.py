"""HCF-1: the designated player role is offered in rotation; the button sits in front of the DP."""

from __future__ import annotations

import pytest

from ledger.domain import accounts
from ledger.domain.errors import LedgerError
from ledger.domain.records import CardsDealt, HandCancelled, HandStarted, PlayerActed, RoleOffered

from .helpers import Table, arranged_deck

STACKS = {1: 50_000, 2: 50_000, 3: 5_000, 5: 40_000}


def test_hcf_1_start_offers_the_role_to_the_first_eligible_seat() -> None:
    t = Table(STACKS)
    records = t.start()
    assert isinstance(records[0], HandStarted)
    assert [e.seat for e in records[0].seats] == [1, 2, 3, 5]
    assert records[0].button is None  # the DP is not known yet; the hand state holds it
    assert records[1] == RoleOffered(hand_no=1, seat=1, role="designated_player")
    assert t.step().kind == "offer" and t.step().seats == (1,)


def test_hcf_1_accepting_moves_the_whole_stack_into_the_bank_and_sets_the_button() -> None:
    t = Table(STACKS)
    t.start()
    (acted,) = t.act(1, "accept")
    assert isinstance(acted, PlayerActed) and acted.rule == "HCF-1" and acted.amount == 50_000
    assert acted.transfers[0].src == "player:p1" and acted.transfers[0].dst == accounts.BANK
    assert t.balance(accounts.BANK) == 50_000 and t.stack(1) == 0
    assert t.hand.dp == 1 and t.hand.funds == 50_000 and t.hand.phase == "wagers"
    assert 1 not in t.step().seats  # the DP places no wager


def test_hcf_1_a_decline_moves_the_offer_clockwise_past_ineligible_seats() -> None:
    t = Table(STACKS)  # seat 3 holds 50.00, below the 100.00 minimum bank
    t.start()
    records = t.act(1, "decline")
    assert [type(r).__name__ for r in records] == ["PlayerActed", "RoleOffered"]
    assert isinstance(records[0], PlayerActed) and records[0].rule == "HCF-1"
    assert isinstance(records[1], RoleOffered) and records[1].seat == 2
    records = t.act(2, "decline")
    assert isinstance(records[1], RoleOffered) and records[1].seat == 5
    assert t.hand.offered == (1, 2, 5)


def test_hcf_1_when_nobody_eligible_accepts_the_hand_is_cancelled_undealt() -> None:
    t = Table(STACKS, source="rng")
    t.start()
    t.act(1, "decline")
    t.act(2, "decline")
    records = t.act(5, "decline")
    cancelled = records[-1]
    assert isinstance(cancelled, HandCancelled) and cancelled.rule == "HCF-1"
    assert cancelled.transfers == () and cancelled.deck is not None  # the unused deck is shown
    assert t.state.hand is None
    assert [t.stack(s) for s in STACKS] == list(STACKS.values())


def test_hcf_1_the_role_rotates_clockwise_hand_by_hand_and_wraps() -> None:
    t = Table(STACKS)
    t.start()
    t.act(1, "decline")
    t.act(2, "accept")
    t.close()  # nobody anted: closed unplayed (HCF-2)
    (_, offer) = t.start()
    assert isinstance(offer, RoleOffered) and offer.seat == 5  # after the last DP, seat 3 skipped
    t.act(5, "accept")
    t.close()
    (_, offer) = t.start()
    assert isinstance(offer, RoleOffered) and offer.seat == 1  # wraps round the table


def test_hcf_1_after_a_hand_nobody_banked_the_rotation_moves_past_its_first_offer() -> None:
    t = Table(STACKS)
    t.start()
    for seat in (1, 2, 5):
        t.act(seat, "decline")
    (_, offer) = t.start()
    assert isinstance(offer, RoleOffered) and offer.seat == 2


def test_hcf_1_a_dp_needs_an_opponent_able_to_post_the_minimum_ante() -> None:
    # seat 2 could bank but seat 1, the only opponent, holds less than 2x the minimum Ante
    t = Table({1: 999, 2: 50_000})
    with pytest.raises(LedgerError) as err:
        t.start()
    assert err.value.code == "no_eligible_designated_player"
    assert t.state.hand is None and t.state.hand_no == 0


def test_hcf_1_no_eligible_seat_means_no_hand() -> None:
    t = Table({1: 9_000, 2: 9_000}, {"dp_minimum_bank": 10_000})
    with pytest.raises(LedgerError) as err:
        t.start()
    assert err.value.code == "no_eligible_designated_player"
    assert err.value.details["rule"] == "HCF-1"
    assert t.state.hand is None and t.state.hand_no == 0


def test_hcf_1_a_hand_needs_two_players_with_chips() -> None:
    t = Table({1: 50_000, 2: 0})
    with pytest.raises(LedgerError) as err:
        t.start()
    assert err.value.code == "not_enough_players"


def test_hcf_1_only_the_seat_offered_answers_and_only_accept_or_decline() -> None:
    t = Table(STACKS)
    t.start()
    before = (t.hand, dict(t.state.balances))
    with pytest.raises(LedgerError) as err:
        t.act(2, "accept")
    assert err.value.code == "out_of_turn"
    with pytest.raises(LedgerError) as err:
        t.act(1, "raise", 500)
    assert err.value.code == "not_allowed_now"
    with pytest.raises(LedgerError) as err:
        t.wager(2, "ante", 500)
    assert err.value.code == "not_allowed_now"
    with pytest.raises(LedgerError) as err:
        t.deal({})
    assert err.value.code == "not_allowed_now"
    assert (t.hand, dict(t.state.balances)) == before


def test_hcf_1_the_seat_offered_declines_by_leaving() -> None:
    t = Table(STACKS)
    t.start()
    records = t.unseat(1)
    assert [type(r).__name__ for r in records] == ["PlayerActed", "RoleOffered", "PlayerUnseated"]
    assert isinstance(records[0], PlayerActed) and isinstance(records[1], RoleOffered)
    assert records[0].action == "decline" and records[1].seat == 2


def test_hcf_1_the_last_seat_offered_leaving_cancels_the_hand_and_shows_the_deck() -> None:
    t = Table({1: 50_000, 2: 5_000}, source="rng")
    t.start()
    records = t.unseat(1)
    assert [type(r).__name__ for r in records] == ["PlayerActed", "HandCancelled", "PlayerUnseated"]
    cancelled = records[1]
    assert isinstance(cancelled, HandCancelled) and cancelled.rule == "HCF-1"
    assert cancelled.deck is not None and cancelled.salt is not None  # the commitment is opened
    assert t.state.hand is None and t.stack(1) == 50_000


def test_hcf_1_the_designated_player_places_no_wager() -> None:
    t = Table(STACKS)
    t.start()
    t.act(1, "accept")
    with pytest.raises(LedgerError) as err:
        t.wager(1, "ante", 500)
    assert err.value.code == "designated_player_cannot_wager"


def test_hcf_1_the_button_is_in_front_of_the_dp_and_dealing_starts_left_of_it() -> None:
    hands = ["2c 3c 4c 5c 6c 7c 8c", "2d 3d 4d 5d 6d 7d 8d", "2h 3h 4h 5h 6h 7h 8h"]
    t = Table(STACKS, source="rng", decks=[arranged_deck(hands)])
    t.start()
    t.act(1, "decline")
    t.act(2, "accept")
    t.wager(1, "ante", 500)
    t.wager(5, "ante", 500)
    (dealt,) = t.deal()
    assert isinstance(dealt, CardsDealt)
    assert [d.target for d in dealt.dealt] == [5, 1, 2]  # left of the button (2), the DP last
    assert t.hand.dp_cards == dealt.dealt[2].cards
