"""HCF-12: the DP's funds in action, each seat's coverage test and dead hands."""

from __future__ import annotations

from typing import Any

from ledger.domain import accounts
from ledger.domain.records import CoverageLine, HandSettled
from ledger.games.hcf import settle

from .helpers import Table, outcome

DP = "Kh 9h 5h 2h 3c 4d 7s"  # four hearts: qualifies
HANDS = {
    5: "As Ks 8s 6s 2s 3d 5c",  # five spades: wins
    4: "Ad Qd Td 8d 6d 2c 4c",  # five diamonds: wins, its Straight Flush Bonus loses
    3: "Tc 8c 6c Jh Qs 9d 5d",  # three clubs: loses
    2: "Ac Kc Qc Jc 9c 2d 3h",  # five clubs: wins
}


def run_out(config: dict[str, Any] | None = None) -> tuple[Table, HandSettled]:
    """The DP at seat 1 banks 100.00; settled 5, 4, 3, 2 (HCF-7)."""
    cfg = {"rake": {"method": "i", "fee": 100}} | (config or {})
    t = Table({1: 10_000, 2: 20_000, 3: 20_000, 4: 20_000, 5: 20_000}, cfg)
    s = t.play(
        1,
        {5: {"ante": 2_000}, 4: {"ante": 5_000, "straight_flush_bonus": 500},
         3: {"ante": 1_000}, 2: {"ante": 4_000}},
        {**HANDS, 1: DP},
        {5: 2_000, 4: 5_000, 3: 1_000, 2: 4_000},
    )
    return t, s


def test_hcf_12_a_dp_out_of_funds_mid_settlement_leaves_dead_hands_that_are_not_raked() -> None:
    t, s = run_out()
    assert s.coverage is not None
    assert s.coverage.funds_at_start == 10_000 and s.coverage.dp_seat == 1
    assert list(s.coverage.lines) == [
        CoverageLine(seat=5, liability=4_000, covered=True, funds_before=10_000, funds_after=6_000),
        CoverageLine(seat=4, liability=9_500, covered=False, funds_before=6_000, funds_after=6_000),
        CoverageLine(seat=3, liability=0, covered=True, funds_before=6_000, funds_after=8_000),
        CoverageLine(seat=2, liability=8_000, covered=True, funds_before=8_000, funds_after=0),
    ]
    assert s.coverage.funds_left == 0
    assert {o.wager: (o.result, o.rule) for o in s.outcomes if o.seat == 4} == {
        "ante": ("dead", "HCF-12"), "raise": ("dead", "HCF-12"),
        "straight_flush_bonus": ("dead", "HCF-12")}
    assert outcome(s, 4, "ante").withheld == 5_000  # what the dead hand would have won
    assert [r.seat for r in s.rake] == [5, 3, 2]  # the dead hand pays no fee
    assert t.stack(4) == 20_000  # every wager back, the losing bonus and the fee too


def test_hcf_12_a_later_loser_refills_the_funds_for_a_winner_after_it() -> None:
    _, s = run_out()
    assert outcome(s, 2, "raise").result == "win" and outcome(s, 2, "raise").amount == 4_000


def test_hcf_12_the_dp_never_pays_more_than_its_funds_in_action() -> None:
    t, s = run_out()
    bank = 10_000  # nobody folded: the bank holds the DP's stack when settlement starts
    for move in s.transfers:  # the bank never goes below zero, transfer by transfer
        bank += move.amount * ((move.dst == accounts.BANK) - (move.src == accounts.BANK))
        assert bank >= 0
    assert bank == 0 and t.balance(accounts.BANK) == 0
    assert outcome(s, 1, "designated_player").amount == -10_000


def test_hcf_12_folded_wagers_are_in_the_funds_before_settlement_starts() -> None:
    t = Table({1: 10_000, 2: 20_000, 3: 20_000})
    s = t.play(1, {3: {"ante": 5_000, "flush_bonus": 1_000}, 2: {"ante": 4_000}},
               {3: HANDS[3], 2: HANDS[2], 1: DP}, {3: None, 2: 8_000})
    assert s.coverage is not None
    assert [(x.seat, x.liability, x.covered, x.funds_before, x.funds_after)
            for x in s.coverage.lines] == [
        (3, 0, True, 10_000, 16_000),  # collected at the fold
        (2, 12_000, True, 16_000, 4_000),  # covered only thanks to the fold
    ]


def collect_first_hand(policy: str) -> HandSettled:
    t = Table({1: 10_000, 2: 20_000, 3: 20_000}, {"coverage_policy": policy})
    return t.play(1, {3: {"ante": 6_000}, 2: {"ante": 2_000}},
                  {3: HANDS[2], 2: HANDS[3], 1: DP}, {3: 6_000, 2: 2_000})


def test_hcf_12_in_order_coverage_tests_each_seat_at_its_turn() -> None:
    s = collect_first_hand("in-order")
    assert outcome(s, 3, "ante").result == "dead"  # 120.00 against 100.00, before seat 2 paid in
    assert outcome(s, 2, "ante").result == "lose"


def test_hcf_12_collect_first_policy_takes_the_losers_before_paying_winners() -> None:
    s = collect_first_hand("collect-first")
    assert s.coverage is not None and [x.seat for x in s.coverage.lines] == [2, 3]
    assert outcome(s, 3, "ante").result == "win"  # 140.00 in the bank once seat 2 lost
    assert s.coverage.funds_left == 2_000


def test_hcf_12_com_7_applies_before_the_coverage_test() -> None:
    t = Table({1: 10_000, 2: 20_000, 3: 20_000}, {"max_aggregate_payout": 9_000})
    s = t.play(1, {3: {"ante": 6_000}}, {3: HANDS[2], 1: DP}, {3: 6_000})
    # 120.00 won, capped to 90.00: within the 100.00 in action, so covered
    assert outcome(s, 3, "raise").withheld == 3_000 and outcome(s, 3, "raise").rule == "COM-7"
    assert s.coverage is not None and s.coverage.lines[0].covered


def test_hcf_12_a_dead_seat_uses_none_of_the_com_7_cap() -> None:
    t = Table({1: 10_000, 2: 20_000, 3: 20_000}, {"max_aggregate_payout": 11_000})
    s = t.play(1, {3: {"ante": 6_000}, 2: {"ante": 4_000}},
               {3: HANDS[2], 2: HANDS[5], 1: DP}, {3: 6_000, 2: 4_000})
    assert outcome(s, 3, "ante").result == "dead"  # 110.00 after the cap: above the 100.00
    assert (outcome(s, 2, "raise").amount, outcome(s, 2, "raise").withheld) == (4_000, 0)


def test_hcf_12_settlement_is_reproducible_from_the_hand_state() -> None:
    t = Table({1: 10_000, 2: 20_000, 3: 20_000, 4: 20_000, 5: 20_000})
    t.start()
    t.act(1, "accept")
    for seat in (2, 3, 4, 5):
        t.wager(seat, "ante", 2_000)
    t.deal({**HANDS, 1: DP})
    for seat in (2, 3, 4, 5):
        t.act(seat, "raise", 2_000)
    t.reveal()
    before = t.hand
    settled = t.settle()
    assert settle(t.config, before) == settled
