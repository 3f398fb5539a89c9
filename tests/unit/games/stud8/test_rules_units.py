"""Settings validation and the pure pot arithmetic (STUD8-1, STUD8-2, STUD8-8, STUD8-9,
STUD8-11), plus the edges of the bring-in and of short all-in bets."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from ledger.domain.commands import BuyIn
from ledger.domain.errors import LedgerError
from ledger.games.stud8 import pots
from ledger.games.stud8.model import StudConfig

from .helpers import TABLE, act, cid, deal, open_table, recorded_table, stack, step

BIG = 20_000


def test_stud8_1_default_ante_is_about_a_fifth_of_the_small_bet() -> None:
    config = StudConfig()
    assert (config.small_bet, config.big_bet, config.ante) == (1_000, 2_000, 200)
    assert config.ante * 5 == config.small_bet


def test_stud8_2_bring_in_is_half_the_small_bet_in_whole_chips() -> None:
    assert StudConfig(small_bet=600, big_bet=1_200).bring_in == 300
    with pytest.raises(ValidationError, match="even number"):
        StudConfig(small_bet=500, big_bet=1_000, ante=100)


def test_stud8_8_every_wager_is_whole_chips() -> None:
    with pytest.raises(ValidationError, match="whole chips"):
        StudConfig(ante=150)
    with pytest.raises(ValidationError, match="big bet"):
        StudConfig(big_bet=500)
    assert StudConfig(chip_unit=25, ante=50, small_bet=250, big_bet=500).bring_in == 125


def test_stud8_8_buy_ins_are_whole_chips() -> None:
    ex = open_table({1: BIG, 2: BIG})
    with pytest.raises(LedgerError) as info:
        ex.execute(BuyIn(command_id=cid(), table=TABLE, seat=1, amount=1_050))
    assert info.value.code == "buy_in_not_whole_chips"


def test_stud8_11_rake_settings_are_bounded_and_com_7_does_not_apply() -> None:
    with pytest.raises(ValidationError):
        StudConfig(rake_bps=10_001)
    with pytest.raises(ValidationError, match="whole chips"):
        StudConfig(rake_cap=150)
    with pytest.raises(ValidationError, match="pooled"):
        StudConfig(max_aggregate_payout=10_000)
    with pytest.raises(ValidationError, match="fixed-limit"):
        StudConfig(limits={"ante": {"min": 100, "max": 200}})


def test_stud8_8_odd_chips_one_each_from_the_dealers_left() -> None:
    assert pots.share_out(800, [3, 1, 2], 100) == {1: 300, 2: 300, 3: 200}
    assert pots.share_out(700, [5, 2], 100) == {2: 400, 5: 300}
    assert pots.share_out(0, [1, 2], 100) == {1: 0, 2: 0}
    assert pots.share_out(500, [], 100) == {}


def test_stud8_8_odd_chip_of_a_hi_lo_split_goes_high() -> None:
    assert pots.halves(2_100, True, 100) == (1_100, 1_000)
    assert pots.halves(2_000, True, 100) == (1_000, 1_000)
    assert pots.halves(2_100, False, 100) == (2_100, 0)
    assert pots.halves(250, True, 100) == (150, 100)  # a part-chip stays with the high half


def test_stud8_9_pots_by_contesting_levels_with_dead_money() -> None:
    contributed = {1: 500, 2: 1_500, 3: 3_000, 4: 3_000, 5: 2_000}
    built = pots.build_pots(contributed, [1, 2, 3, 4])  # seat 5 folded
    assert [(p.amount, p.contesting) for p in built] == [
        (2_500, (1, 2, 3, 4)), (4_000, (2, 3, 4)), (3_500, (3, 4))]
    assert sum(p.amount for p in built) == sum(contributed.values())
    # a folded seat above every contested level: its excess joins the highest pot
    built = pots.build_pots({1: 500, 2: 900}, [1])
    assert [(p.amount, p.contesting) for p in built] == [(1_400, (1,))]


def test_stud8_11_uncalled_part_of_the_top_contribution() -> None:
    assert pots.uncalled({1: 3_000, 2: 1_000, 3: 2_000}) == (1, 1_000)
    assert pots.uncalled({1: 3_000, 2: 3_000}) is None
    # STUD8-11 (2026-12-01): a folded seat gets its unmatched part back too (the caller does
    # not even say who folded: matching is what counts)
    assert pots.uncalled({1: 3_000, 2: 1_000}) == (1, 2_000)


def test_stud8_11_rake_whole_chips_capped_main_pot_first() -> None:
    built = pots.build_pots({1: 200, 2: 5_000, 3: 5_000}, [1, 2, 3])
    # 10% of 10 200 is 1 020: 1 000 in whole chips, 600 (all) from the main pot, 400 from the side
    assert pots.rake_by_pot(built, 1_000, None, 100, exempt=False) == [600, 400]
    assert pots.rake_by_pot(built, 1_000, 500, 100, exempt=False) == [500, 0]
    assert pots.rake_by_pot(built, 1_000, None, 100, exempt=True) == [0, 0]
    assert pots.rake_by_pot(built, 25, None, 100, exempt=False) == [0, 0]  # 27.5 -> 0 chips


def test_stud8_9_pour_balances_every_pot() -> None:
    moves = pots.pour([("spot:1:pot", 300), ("spot:2:pot", 500)],
                      [("rake", 100, "STUD8-11", None), ("player:a", 700, "STUD8-7", "pot won")])
    assert sum(t.amount for t in moves) == 800
    assert {(t.src, t.dst, t.amount) for t in moves} == {
        ("spot:1:pot", "rake", 100), ("spot:1:pot", "player:a", 200),
        ("spot:2:pot", "player:a", 500)}


def test_stud8_2_all_in_low_card_passes_the_bring_in_clockwise() -> None:
    ex = recorded_table({1: BIG, 2: 200, 3: BIG})  # seat 2 is all-in on the ante
    deal(ex, {1: "Ah Kh 9d", 2: "Qs Qd 2c", 3: "7c 8c 5s"})
    assert step(ex).seats == (3,)
    act(ex, 3, "bring_in")
    act(ex, 1, "call")
    assert step(ex).kind == "deal"


def test_stud8_4_a_raise_goes_over_a_short_all_in_bet() -> None:
    ex = recorded_table({1: BIG, 2: 200 + 500 + 1_400, 3: BIG})
    deal(ex, {1: "Ah Kh 9d", 2: "Qs Qd 2c", 3: "7c 8c 5s"})
    act(ex, 2, "bring_in")
    act(ex, 3, "call")
    act(ex, 1, "call")
    deal(ex, {1: "3d", 2: "Kd", 3: "4h"})
    for seat in (2, 3, 1):
        act(ex, seat, "check")
    deal(ex, {1: "3c", 2: "Ks", 3: "6h"})
    assert step(ex).seats == (2,)  # K-K showing
    options = {o.action: (o.min_amount, o.max_amount) for o in step(ex).options}
    assert options["bet"] == (1_400, 1_400)  # all-in for less than the big bet
    act(ex, 2, "bet", 1_400)
    assert stack(ex, 2) == 0
    options = {o.action: (o.min_amount, o.max_amount) for o in step(ex).options}
    assert options["raise"] == (3_400, 3_400)  # 1 400 plus a big bet
    act(ex, 3, "raise")
    act(ex, 1, "call")
    assert step(ex).kind == "deal"
