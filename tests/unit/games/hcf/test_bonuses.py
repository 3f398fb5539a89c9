"""HCF-10 Straight Flush Bonus and HCF-11 Flush Bonus, compared with the DP's hand."""

from __future__ import annotations

from ledger.domain import accounts

from .helpers import net_of, outcome
from .test_showdown import showdown

SFB = {"straight_flush_bonus": 100}
FB = {"flush_bonus": 100}

# The DP's best suit is 8-7-6 of clubs: no qualifying flush (HCF-8), but a run of three
NON_QUALIFYING_RUN = "8c 7c 6c 2d 4h 9s 3d"
RUNS = {
    1: "5s 4s 3s Kd 9c Tc Qd",  # run of 3, 5-high: below the DP's 8-high run
    2: "9h Th Jh Qh 2s 5c Kc",  # run of 4
    3: "Ts Js Qs 2c 5d 6h 9d",  # run of 3, Q-high
    5: "8d 7d 6d Ac Kh 5h As",  # run of 3, 8-high: the DP's run exactly
}


def test_hcf_10_a_non_qualifying_dp_still_beats_a_players_straight_flush() -> None:
    _, s = showdown(NON_QUALIFYING_RUN, RUNS, bonuses={n: SFB for n in RUNS})
    assert outcome(s, 1, "ante").rule == "HCF-8" and outcome(s, 1, "ante").result == "win"
    sfb = outcome(s, 1, "straight_flush_bonus")
    assert (sfb.result, sfb.amount, sfb.rule) == ("lose", -100, "HCF-10")
    assert ("spot:1:straight_flush_bonus", "bank", 100) in {
        (t.src, t.dst, t.amount) for t in s.transfers}


def test_hcf_10_a_longer_run_wins_at_the_players_length_and_only_that_line() -> None:
    _, s = showdown(NON_QUALIFYING_RUN, RUNS, bonuses={n: SFB for n in RUNS})
    sfb = outcome(s, 2, "straight_flush_bonus")
    assert (sfb.result, sfb.amount, sfb.rule) == ("win", 6_000, "HCF-10")  # 60-1, not 60+8


def test_hcf_10_equal_length_the_higher_top_card_wins_the_same_top_card_pushes() -> None:
    _, s = showdown(NON_QUALIFYING_RUN, RUNS, bonuses={n: SFB for n in RUNS})
    assert (outcome(s, 3, "straight_flush_bonus").result,
            outcome(s, 3, "straight_flush_bonus").amount) == ("win", 800)
    assert outcome(s, 3, "straight_flush_bonus").note == (
        "run of 3 to the Qs against the DP's run of 3 to the 8c: 8-1")
    push = outcome(s, 5, "straight_flush_bonus")
    assert (push.result, push.amount) == ("push", 0)
    assert net_of(s, "player:p5") == 1_000 + 1_000 + 1_000 + 100  # ante won, raise and bonus back


def test_hcf_10_ace_plays_low_but_runs_do_not_wrap() -> None:
    dp = "Kc Qc 5d 9h 2s 7s 4c"  # longest run: K-Q of clubs (two cards)
    players = {1: "Ah 2h 3h 9c 9s Td Jd", 2: "Kd Ad 2d Jh Ts 8c 6h"}
    _, s = showdown(dp, players, bonuses={1: SFB, 2: SFB})
    wheel = outcome(s, 1, "straight_flush_bonus")
    assert (wheel.result, wheel.amount) == ("win", 800)  # A-2-3 is a run of three
    wrap = outcome(s, 2, "straight_flush_bonus")
    assert (wrap.result, wrap.amount) == ("lose", -100)  # K-A-2 is only A-K: two cards


def test_hcf_10_hcf_11_a_hand_below_the_paying_length_loses_even_against_less() -> None:
    dp = "2c 9d 5h Js 4c 7d Ks"  # every run is one card
    players = {1: "Ah Kh 3d 8s 6c Tc 2h", 2: "Td Jd Qd 2s 3s 5c 9h"}
    _, s = showdown(dp, players, bonuses={1: SFB, 2: SFB | FB},
                    config={"straight_flush_bonus_paytable": {7: 1000, 6: 500, 5: 100, 4: 60}})
    two = outcome(s, 1, "straight_flush_bonus")
    assert (two.result, two.amount) == ("lose", -100)  # A-K beats a one-card run, yet loses
    three = outcome(s, 2, "straight_flush_bonus")
    assert (three.result, three.amount) == ("lose", -100)  # this table pays no run of three
    assert "no paying straight flush" in (three.note or "")
    # HCF-11 likewise: Q-J-T of diamonds beats the DP's K-J of spades, but three cards never win
    assert outcome(s, 2, "ante").result == "win"
    flush = outcome(s, 2, "flush_bonus")
    assert (flush.result, flush.amount, flush.rule) == ("lose", -100, "HCF-11")


# The DP: four diamonds A-K-9-4, a qualifying hand
DP_FLUSH = "Ad Kd 9d 4d 2c 3c 6s"
FLUSHES = {
    1: "Ah Kh 9h 5h Tc Jc Qd",  # four cards, better card by card
    2: "2s 3s 5s 7s 8s 8c 9c",  # five cards
    3: "Ac Kc Qc 7h 8h Ts Js",  # three cards
    5: "As Ks 9s 4s 5c Qh Jh",  # the DP's ranks exactly
    6: "Jd Td 8d 7d 6c 2h 3h",  # four cards, worse
}


def test_hcf_11_the_flush_bonus_pays_on_the_players_length_when_it_beats_the_dp() -> None:
    _, s = showdown(DP_FLUSH, FLUSHES, bonuses={n: FB for n in FLUSHES})
    four, five = outcome(s, 1, "flush_bonus"), outcome(s, 2, "flush_bonus")
    assert (four.result, four.amount, four.rule) == ("win", 200, "HCF-11")  # 2-1
    assert (five.result, five.amount, five.rule) == ("win", 1_000, "HCF-11")  # 10-1


def test_hcf_11_identical_pushes_worse_loses_three_cards_cannot_win() -> None:
    _, s = showdown(DP_FLUSH, FLUSHES, bonuses={n: FB for n in FLUSHES})
    assert outcome(s, 5, "flush_bonus").result == "push"
    assert outcome(s, 5, "ante").result == "push"
    assert (outcome(s, 6, "flush_bonus").result, outcome(s, 6, "flush_bonus").amount) == (
        "lose", -100)
    three = outcome(s, 3, "flush_bonus")
    assert (three.result, three.rule) == ("lose", "HCF-11")


def test_hcf_11_the_paytable_is_a_table_setting() -> None:
    _, s = showdown(DP_FLUSH, FLUSHES, bonuses={n: FB for n in FLUSHES},
                    config={"flush_bonus_paytable": {7: 300, 6: 60, 5: 15}})
    assert outcome(s, 2, "flush_bonus").amount == 1_500
    assert outcome(s, 1, "flush_bonus").result == "lose"  # this table pays no 4-card flush


def test_hcf_10_hcf_11_the_two_bonus_wagers_settle_independently() -> None:
    t, s = showdown(DP_FLUSH, {2: FLUSHES[2]}, bonuses={2: SFB | FB})
    assert outcome(s, 2, "flush_bonus").result == "win"
    assert outcome(s, 2, "straight_flush_bonus").result == "lose"  # 2-3 of spades: two cards
    assert t.balance(accounts.BANK) == 0  # the bank is emptied back to the DP


def test_hcf_10_hcf_11_a_folded_player_loses_both_bonus_wagers() -> None:
    _, s = showdown(DP_FLUSH, {1: FLUSHES[1], 2: FLUSHES[2]},
                    bonuses={1: SFB | FB}, raises={1: None})
    for kind in ("flush_bonus", "straight_flush_bonus", "ante"):
        lost = outcome(s, 1, kind)
        assert (lost.result, lost.amount, lost.rule, lost.note) == ("lose", -lost.stake, "HCF-5",
                                                                   "folded")


def test_com_7_within_a_seat_main_wagers_then_side_wagers_by_rule_id() -> None:
    """COM-7 (decision of 2026-12-01): one seat's wagers use the cap in rule order, the Ante
    and the Raise first, then the side wagers by rule id: the Straight Flush Bonus (HCF-10)
    before the Flush Bonus (HCF-11)."""
    # Ante 1-1 (the DP does not qualify, HCF-8), the Raise pushes; a run of 4 pays 60-1 on the
    # Straight Flush Bonus and a 4-card flush 2-1 on the Flush Bonus: 1,000 + 6,000 + 200.
    both = {"straight_flush_bonus": 100, "flush_bonus": 100}
    _, s = showdown(NON_QUALIFYING_RUN, {2: RUNS[2]}, bonuses={2: both},
                    config={"max_aggregate_payout": 4_000})
    ante, sfb, fb = (outcome(s, 2, w) for w in ("ante", "straight_flush_bonus", "flush_bonus"))
    assert (ante.amount, ante.withheld) == (1_000, 0)
    assert (sfb.amount, sfb.withheld, sfb.rule) == (3_000, 3_000, "COM-7")
    assert (fb.amount, fb.withheld, fb.rule) == (0, 200, "COM-7")
    order = [o.wager for o in s.outcomes if o.seat == 2]
    assert order == ["ante", "raise", "straight_flush_bonus", "flush_bonus"]
