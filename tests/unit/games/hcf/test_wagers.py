"""HCF-2 wagers, COM-4 limits, the HCF-6 stack check; every refusal leaves the table as it was."""

from __future__ import annotations

from typing import Any

import pytest

from ledger.domain import accounts
from ledger.domain.commands import SeatPlayer
from ledger.domain.errors import LedgerError
from ledger.domain.records import HandCancelled, WagerPlaced

from .helpers import TABLE, Table


def ready(stacks: dict[int, int] | None = None, config: dict[str, Any] | None = None) -> Table:
    """A hand waiting for wagers, seat 1 the DP."""
    t = Table(stacks or {1: 50_000, 2: 20_000, 3: 20_000}, config)
    t.start()
    t.act(1, "accept")
    return t


def refused(t: Table, code: str, seat: int, kind: str, amount: int) -> LedgerError:
    before = (t.hand, dict(t.state.balances))
    with pytest.raises(LedgerError) as err:
        t.wager(seat, kind, amount)
    assert err.value.code == code, err.value
    assert (t.hand, dict(t.state.balances)) == before
    return err.value


def test_hcf_2_ante_and_both_bonus_wagers_go_to_their_spots() -> None:
    t = ready()
    records = [*t.wager(2, "ante", 1_000), *t.wager(2, "flush_bonus", 200),
               *t.wager(2, "straight_flush_bonus", 300)]
    assert all(isinstance(r, WagerPlaced) and r.rule == "HCF-2" for r in records)
    assert t.balance(accounts.spot(2, "ante")) == 1_000
    assert t.balance(accounts.spot(2, "flush_bonus")) == 200
    assert t.balance(accounts.spot(2, "straight_flush_bonus")) == 300
    assert t.stack(2) == 20_000 - 1_500
    seat = t.hand.seat(2)
    assert (seat.ante, seat.flush_bonus, seat.straight_flush_bonus) == (1_000, 200, 300)


def test_hcf_2_a_bonus_wager_needs_an_ante_first() -> None:
    err = refused(ready(), "ante_required", 2, "flush_bonus", 200)
    assert err.details["rule"] == "HCF-2"


def test_hcf_2_each_wager_once_and_only_known_kinds() -> None:
    t = ready()
    t.wager(2, "ante", 1_000)
    refused(t, "wager_already_placed", 2, "ante", 1_000)
    refused(t, "unknown_wager_kind", 2, "play", 1_000)
    refused(t, "seat_not_in_hand", 4, "ante", 1_000)


def test_hcf_2_a_bonus_the_table_does_not_post_is_not_offered() -> None:
    t = ready(config={"limits": {"ante": {"min": 500, "max": 5_000}}})
    t.wager(2, "ante", 500)
    refused(t, "wager_not_offered", 2, "straight_flush_bonus", 100)
    assert [o.action for o in t.step().options] == ["ante"]


def test_hcf_2_com_4_wagers_outside_the_posted_limits_are_refused() -> None:
    t = ready()
    refused(t, "wager_below_minimum", 2, "ante", 499)
    refused(t, "wager_above_maximum", 2, "ante", 50_001)
    t.wager(2, "ante", 500)
    refused(t, "wager_below_minimum", 2, "flush_bonus", 99)
    refused(t, "wager_above_maximum", 2, "straight_flush_bonus", 10_001)


def test_hcf_2_if_nobody_antes_settle_closes_the_hand_and_returns_the_bank() -> None:
    t = ready()
    records = t.close()
    assert isinstance(records[0], HandCancelled) and records[0].rule == "HCF-2"
    assert t.state.hand is None and t.stack(1) == 50_000 and t.balance(accounts.BANK) == 0


def test_hcf_2_no_deal_without_an_ante_and_no_early_settle_with_one() -> None:
    t = ready()
    with pytest.raises(LedgerError) as err:
        t.deal({})
    assert err.value.code == "no_wagers"
    t.wager(2, "ante", 500)
    with pytest.raises(LedgerError) as err:
        t.close()
    assert err.value.code == "not_allowed_now"


def test_hcf_6_the_ante_needs_room_for_a_1x_raise() -> None:
    t = ready({1: 50_000, 2: 1_999, 3: 20_000})
    err = refused(t, "insufficient_chips", 2, "ante", 1_000)
    assert err.details["rule"] == "HCF-6" and err.details["needed"] == 2_000
    t.wager(2, "ante", 999)  # 999 + a 999 raise fits in 1,999
    assert t.stack(2) == 1_000


def test_hcf_6_a_bonus_wager_must_leave_the_1x_raise_in_the_stack() -> None:
    t = ready({1: 50_000, 2: 2_300, 3: 20_000})
    t.wager(2, "ante", 1_000)
    refused(t, "insufficient_chips", 2, "flush_bonus", 301)
    t.wager(2, "flush_bonus", 300)
    refused(t, "insufficient_chips", 2, "straight_flush_bonus", 100)
    assert t.stack(2) == 1_000


def test_hcf_6_the_ante_also_covers_the_players_house_fee() -> None:
    t = ready({1: 50_000, 2: 2_049, 3: 20_000}, {"rake": {"method": "ii", "fee": 50}})
    refused(t, "insufficient_chips", 2, "ante", 1_000)
    records = t.wager(2, "ante", 999)
    wagers = [r for r in records if isinstance(r, WagerPlaced)]
    assert wagers == records  # nothing but wagers
    assert [r.kind for r in wagers] == ["ante", "house_fee"]
    assert wagers[1].rule == "HCF-13" and t.balance(accounts.spot(2, "house_fee")) == 50


def test_com_6_a_player_who_left_cannot_wager_again_nor_can_a_newcomer_in_the_seat() -> None:
    t = ready()
    t.wager(2, "ante", 1_000)
    t.unseat(2)  # leaving before the deal folds the Ante (COM-6)
    t.unseat(3)
    for seat, player in ((2, "p2"), (3, "p9")):  # both seats stay the hand's until it ends
        with pytest.raises(LedgerError) as err:
            t.run(SeatPlayer(command_id=t.cid(), table=TABLE, seat=seat, player=player))
        assert err.value.code == "seat_reserved"
    t.run(SeatPlayer(command_id=t.cid(), table=TABLE, seat=5, player="p2"))
    refused(t, "seat_left", 2, "flush_bonus", 100)
    refused(t, "seat_left", 3, "ante", 500)
    assert t.step().seats == ()
