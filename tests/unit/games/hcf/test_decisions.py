"""HCF-3 the deal, HCF-5 fold or raise within the cap, HCF-6 the raise and the stack, COM-6."""

from __future__ import annotations

import pytest

from ledger.domain import accounts
from ledger.domain.errors import LedgerError
from ledger.domain.records import CardsDealt, CardsRevealed, PlayerActed

from .helpers import Table, arranged_deck

SIX = "As Ks Qs 9s 5s 3s 2d"  # 6-card flush: raise up to 3x Ante
FIVE = "Ah Kh Jh 8h 4h 3d 2c"  # 5-card flush: up to 2x
FOUR = "Ah Kh Jh 8h 4d 3d 2c"  # 4-card flush: 1x only
DP = "Qd Jd Td 7c 6c 5c 4s"


def dealt(second: str = FIVE, stacks: dict[int, int] | None = None) -> Table:
    """Seat 1 banks; seats 2 and 3 ante 1,000 and hold SIX and ``second``."""
    t = Table(stacks or {1: 50_000, 2: 20_000, 3: 20_000})
    t.start()
    t.act(1, "accept")
    t.wager(2, "ante", 1_000)
    t.wager(2, "flush_bonus", 200)
    t.wager(3, "ante", 1_000)
    t.deal({2: SIX, 3: second, 1: DP})
    return t


def refused(t: Table, code: str, seat: int, action: str, amount: int | None = None) -> None:
    before = (t.hand, dict(t.state.balances))
    with pytest.raises(LedgerError) as err:
        t.act(seat, action, amount)
    assert err.value.code == code, err.value
    assert (t.hand, dict(t.state.balances)) == before


def test_hcf_3_seven_cards_each_round_robin_from_the_committed_deck() -> None:
    deck = arranged_deck([SIX, FIVE, DP])
    t = Table({1: 50_000, 2: 20_000, 3: 20_000}, source="rng", decks=[deck])
    t.start()
    t.act(1, "accept")
    t.wager(3, "ante", 1_000)
    t.wager(2, "ante", 1_000)
    (record,) = t.deal()
    assert isinstance(record, CardsDealt) and record.round == "initial"
    assert [(d.target, len(d.down), len(d.up)) for d in record.dealt] == [
        (2, 7, 0), (3, 7, 0), (1, 7, 0)]
    assert record.dealt[0].down == deck[0:21:3]  # one card at a time, seat 2 first


def test_hcf_3_a_recorded_deal_must_match_the_seats_in_play() -> None:
    t = Table({1: 50_000, 2: 20_000, 3: 20_000})
    t.start()
    t.act(1, "accept")
    t.wager(2, "ante", 1_000)
    with pytest.raises(LedgerError) as err:
        t.deal({2: SIX, 3: FIVE, 1: DP})  # seat 3 has no Ante: it is not dealt in
    assert err.value.code == "wrong_deal_targets"
    assert t.hand.phase == "wagers"


def test_hcf_5_players_decide_in_dealing_order() -> None:
    t = dealt()
    step = t.step()
    assert step.kind == "act" and step.seats == (2,)
    refused(t, "out_of_turn", 3, "fold")


def test_hcf_5_a_fold_puts_ante_and_bonus_wagers_into_the_bank() -> None:
    t = dealt()
    (record,) = t.act(2, "fold")
    assert isinstance(record, PlayerActed) and record.rule == "HCF-5"
    assert {(m.src, m.dst, m.amount) for m in record.transfers} == {
        ("spot:2:ante", "bank", 1_000), ("spot:2:flush_bonus", "bank", 200)}
    assert t.balance(accounts.BANK) == 50_000 + 1_200
    assert t.hand.folds == (2,)


@pytest.mark.parametrize(("second", "cap"), [(FIVE, 2_000), (FOUR, 1_000)])
def test_hcf_5_the_raise_cap_follows_the_flush_length(second: str, cap: int) -> None:
    t = dealt(second)
    refused(t, "raise_above_maximum", 2, "raise", 3_001)  # 6-card flush: 3x
    t.act(2, "raise", 3_000)
    assert t.step().options[1].max_amount == cap
    refused(t, "raise_above_maximum", 3, "raise", cap + 1)
    t.act(3, "raise", cap)
    assert t.hand.phase == "reveal"
    assert t.balance(accounts.spot(3, "raise")) == cap


def test_hcf_5_a_raise_below_one_ante_or_without_an_amount_is_refused() -> None:
    t = dealt()
    refused(t, "raise_below_minimum", 2, "raise", 999)
    refused(t, "amount_required", 2, "raise")
    refused(t, "unknown_action", 2, "call")
    t.act(2, "raise", 1_234)  # any whole amount within the range
    assert t.hand.seat(2).raised == 1_234


def test_hcf_6_a_raise_larger_than_the_stack_is_refused() -> None:
    # seat 2 keeps 1,500 after its wagers: the 6-card cap (3,000) is out of reach
    t = dealt(stacks={1: 50_000, 2: 2_700, 3: 20_000})
    assert t.step().options[1].max_amount == 1_500
    refused(t, "insufficient_chips", 2, "raise", 1_501)
    t.act(2, "raise", 1_500)  # all in
    assert t.stack(2) == 0


def test_hcf_5_nothing_but_reveal_after_the_decisions() -> None:
    t = dealt()
    t.act(2, "fold")
    t.act(3, "raise", 1_000)
    refused(t, "not_allowed_now", 3, "raise", 1_000)
    with pytest.raises(LedgerError) as err:
        t.settle()
    assert err.value.code == "not_allowed_now"
    (revealed,) = t.reveal()
    assert isinstance(revealed, CardsRevealed)
    assert revealed.target == 1 and t.hand.phase == "settle"
    with pytest.raises(LedgerError) as err:
        t.reveal()
    assert err.value.code == "not_allowed_now"


def test_com_6_a_player_who_leaves_before_deciding_has_folded() -> None:
    t = dealt()
    records = t.unseat(3)  # out of turn: seat 2 is to act, seat 3 leaves
    assert [type(r).__name__ for r in records] == ["PlayerActed", "PlayerUnseated"]
    assert isinstance(records[0], PlayerActed)
    assert records[0].action == "fold" and records[0].rule == "COM-6"
    assert t.step().seats == (2,)
    t.act(2, "raise", 1_000)
    assert t.hand.phase == "reveal"


def test_com_6_leaving_before_the_deal_folds_the_wagers_placed() -> None:
    t = Table({1: 50_000, 2: 20_000, 3: 20_000})
    t.start()
    t.act(1, "accept")
    t.wager(2, "ante", 1_000)
    t.wager(3, "ante", 1_000)
    t.unseat(2)
    assert t.hand.folds == (2,) and t.balance(accounts.BANK) == 51_000
    (record,) = t.deal({3: FIVE, 1: DP})
    assert isinstance(record, CardsDealt)
    assert [d.target for d in record.dealt] == [3, 1]


def test_com_6_the_dp_leaving_still_banks_the_hand() -> None:
    t = dealt()
    records = t.unseat(1)
    assert [type(r).__name__ for r in records] == ["PlayerUnseated"]
    t.act(2, "raise", 1_000)
    t.act(3, "raise", 1_000)
    t.reveal()
    t.settle()
    assert t.balance(accounts.BANK) == 0 and t.stack(1) > 0


def test_hcf_5_the_cap_of_the_hand_is_private_to_who_sees_its_cards() -> None:
    """The raise cap tells the class of the seat's flush: the step carries the cap any hand
    could allow (3x Ante, within the stack) for readers who cannot see the cards, and the
    refusal of a raise above the cap has a public form without the cap or the flush length."""
    t = dealt(second=FOUR)
    t.act(2, "fold")
    (raise_option,) = [o for o in t.step().options if o.action == "raise"]
    assert (raise_option.max_amount, raise_option.public_max_amount) == (1_000, 3_000)
    assert [o.max_amount for o in t.step().public().options if o.action == "raise"] == [3_000]
    with pytest.raises(LedgerError) as err:
        t.act(3, "raise", 2_000)
    full = err.value
    assert full.details["flush_length"] == 4 and full.details["maximum"] == 1_000
    assert full.public(frozenset({3})) is full  # the seat's own reader sees it all
    public = full.public(frozenset())
    assert public.code == "raise_above_maximum" and type(public) is type(full)
    assert "flush_length" not in public.details and "maximum" not in public.details
    assert "4-card" not in public.message and "1000" not in public.message
    assert "1x" not in public.message and "2000" in public.message  # the amount asked
    assert public.details["rule"] == "HCF-5"


def test_hcf_5_the_public_cap_is_bounded_by_the_stack() -> None:
    t = dealt(second="Ah Kh Qh 9h 5h 3h 2c", stacks={1: 50_000, 2: 20_000, 3: 3_500})
    t.act(2, "fold")
    (raise_option,) = [o for o in t.step().options if o.action == "raise"]
    # Seat 3 has 2,500 left after its 1,000 Ante: both caps stop there (HCF-6).
    assert (raise_option.max_amount, raise_option.public_max_amount) == (2_500, 2_500)


@pytest.mark.parametrize("second", [FOUR, "Ah Kh Qh 9h 5h 3h 2c"])
def test_hcf_5_hcf_6_which_refusal_comes_does_not_depend_on_the_hidden_hand(second: str) -> None:
    """Above the stack is insufficient_chips whatever the cap; above 3x Ante is the public
    refusal; only a raise within both can meet the hand's own cap."""
    t = dealt(second=second, stacks={1: 50_000, 2: 20_000, 3: 2_300})
    t.act(2, "fold")
    refused(t, "insufficient_chips", 3, "raise", 1_400)  # 1,300 left after the Ante
    t2 = dealt(second=second)
    t2.act(2, "fold")
    with pytest.raises(LedgerError) as err:
        t2.act(3, "raise", 3_001)
    assert err.value.code == "raise_above_maximum" and err.value.private is None
