"""HCF-4 hand strength, HCF-7 order, HCF-8 qualification, HCF-9 Ante and Raise, COM-7 cap."""

from __future__ import annotations

from typing import Any

from ledger.domain import accounts
from ledger.domain.records import HandSettled

from .helpers import Table, net_of, outcome


def showdown(
    dp_cards: str,
    players: dict[int, str],
    *,
    dp: int = 4,
    ante: int = 1_000,
    raises: dict[int, int | None] | None = None,
    bonuses: dict[int, dict[str, int]] | None = None,
    config: dict[str, Any] | None = None,
    funds: int = 200_000,
) -> tuple[Table, HandSettled]:
    stacks = {s: 100_000 for s in players} | {dp: funds}
    t = Table(dict(sorted(stacks.items())), config)
    wagers = {s: {"ante": ante, **(bonuses or {}).get(s, {})} for s in players}
    decisions = {s: ante for s in players} | (raises or {})
    settled = t.play(dp, wagers, {**{s: c for s, c in players.items()}, dp: dp_cards}, decisions)
    return t, settled


def results(settled: HandSettled, seat: int) -> tuple[str, str]:
    return outcome(settled, seat, "ante").result, outcome(settled, seat, "raise").result


def test_hcf_4_the_longer_flush_wins() -> None:
    _, s = showdown("Ad Kd Qd Jd 2c 3h 5c", {2: "2s 4s 6s 8s 9s 3c 5h"})
    assert results(s, 2) == ("win", "win")  # five small spades beat four big diamonds
    assert outcome(s, 2, "ante").rule == "HCF-9" and outcome(s, 2, "ante").amount == 1_000


def test_hcf_4_equal_lengths_compare_card_by_card_from_the_top() -> None:
    _, s = showdown("Ad Kd 9d 4d 2c 3c 6s", {2: "Ah Kh 9h 5h 2s 3s 7c", 3: "Ac Kc 9c 8d 7s 6h 5s"})
    assert results(s, 2) == ("win", "win")  # A K 9 5 beats A K 9 4
    assert outcome(s, 2, "ante").note == (
        "4-card flush Ah Kh 9h 5h against the DP's 4-card flush Ad Kd 9d 4d")
    assert results(s, 3) == ("lose", "lose")  # A K 9 of clubs: three cards against four


def test_hcf_4_equal_in_every_rank_is_a_push() -> None:
    _, s = showdown("Ad Kd 9d 5d 2c 3c 6s", {2: "Ah Kh 9h 5h 2s 3s 7c"})
    assert results(s, 2) == ("push", "push")
    assert outcome(s, 2, "ante").amount == 0 and net_of(s, "player:p2") == 2_000


def test_hcf_4_of_two_suits_of_equal_length_the_higher_cards_count() -> None:
    # the player's spades A-3-2 count, not its hearts K-Q-J: A-3-2 beats the DP's K-Q-J of clubs
    _, s = showdown("Kc Qc Jc 7d 5d 8s 9h", {2: "As 3s 2s Kh Qh Jh 4d"})
    assert results(s, 2) == ("win", "win")


def test_hcf_7_seats_settle_from_the_right_of_the_button_counter_clockwise() -> None:
    players = {
        1: "2c 3c 4c 5c 6c 7c 8c", 2: "2d 3d 4d 5d 6d 7d 8d", 3: "2h 3h 4h 5h 6h 7h 8h",
        5: "2s 3s 4s 5s 6s 7s 8s", 6: "9c Tc Jc Qc 9d Td Jd", 7: "9h Th Jh Qh 9s Ts Js",
    }
    _, s = showdown("Kc Kd Kh Ks Ac Ad Ah", players, dp=4)
    assert s.coverage is not None
    assert [line.seat for line in s.coverage.lines] == [3, 2, 1, 7, 6, 5]
    paid = [t.dst for t in s.transfers if t.src == accounts.BANK and t.memo == "winnings"]
    assert paid == ["player:p3", "player:p2", "player:p1", "player:p7", "player:p6", "player:p5"]


def test_hcf_8_a_dp_below_a_three_card_nine_high_flush_pays_the_ante_pushes_the_raise() -> None:
    # the DP's best suit is 8-7-2 of clubs: no qualifying flush; the player's hand is worse still
    _, s = showdown("8c 7c 2c 6d 4d 3h 5s", {2: "Ts 4s Jh 9d Qc 2h 3s"}, raises={2: 1_000})
    ante, rse = outcome(s, 2, "ante"), outcome(s, 2, "raise")
    assert (ante.result, ante.amount, ante.rule) == ("win", 1_000, "HCF-8")
    assert (rse.result, rse.amount, rse.rule) == ("push", 0, "HCF-8")


def test_hcf_8_a_three_card_nine_high_flush_qualifies() -> None:
    _, s = showdown("9c 7c 2c 6d 4d 3h 5s", {2: "8s 4s Jh Td Qc 2h 3s"})
    assert results(s, 2) == ("lose", "lose")  # J-high two-card hearts... 8-4-3 spades lose to 9-7-2
    assert outcome(s, 2, "ante").rule == "HCF-9"


def test_hcf_8_four_cards_qualify_whatever_their_rank() -> None:
    _, s = showdown("2c 3c 4c 6c 8d 9h Ts", {2: "As Ks Qs Ah Kh Qh Jd"})
    assert results(s, 2) == ("lose", "lose")


def test_hcf_9_a_better_hand_wins_ante_and_raise_even_money_a_worse_one_loses_both() -> None:
    _, s = showdown(
        "Ad Kd Qd 2d 3c 4h 5s",
        {2: "2s 4s 6s 8s 9s 3h 5h", 3: "Ac Kc Qc 6h 7h 8h 9h", 5: "Js Ts 7c 6c 8c 9c Tc"},
        raises={2: 2_000, 3: 1_000, 5: 1_500},
    )
    assert (outcome(s, 2, "raise").result, outcome(s, 2, "raise").amount) == ("win", 2_000)
    assert net_of(s, "player:p2") == 2 * (1_000 + 2_000)
    assert results(s, 5) == ("win", "win")
    assert results(s, 3) == ("lose", "lose")  # hearts 9 8 7 6 against diamonds A K Q 2
    assert net_of(s, "player:p3") == 0 and outcome(s, 3, "raise").amount == -1_000


def test_hcf_9_a_worse_hand_loses_ante_and_raise_to_the_bank() -> None:
    _, s = showdown("Ad Kd Qd 2d 3c 4h 5s", {2: "Ah Kh Qh 6c 7c 8s 9s"}, raises={2: 1_000})
    assert results(s, 2) == ("lose", "lose")
    assert outcome(s, 2, "ante").amount == -1_000
    lost = [(t.src, t.dst, t.amount, t.rule) for t in s.transfers if t.dst == accounts.BANK]
    assert lost == [
        ("spot:2:ante", "bank", 1_000, "HCF-9"), ("spot:2:raise", "bank", 1_000, "HCF-9")]


def test_com_7_the_cap_counts_winnings_in_settlement_order_and_records_what_it_withholds() -> None:
    _, s = showdown(
        "Ad Kd Qd 2d 3c 4h 5s",
        {3: "2s 4s 6s 8s 9s 3h 5h", 2: "6h 7h 8h 9h Th 6c 7c"},
        raises={3: 2_000, 2: 2_000}, config={"max_aggregate_payout": 4_500},
    )
    assert s.max_aggregate_payout == 4_500
    # seat 3 first: ante 1,000 + raise 2,000 paid in full; seat 2: ante 1,000, raise 500 of 2,000
    assert outcome(s, 3, "raise").amount == 2_000 and outcome(s, 3, "raise").withheld == 0
    ante2, raise2 = outcome(s, 2, "ante"), outcome(s, 2, "raise")
    assert (ante2.amount, ante2.withheld, ante2.rule) == (1_000, 0, "HCF-9")
    assert (raise2.amount, raise2.withheld, raise2.rule) == (500, 1_500, "COM-7")
    assert "HCF-9" in (raise2.note or "")
    assert net_of(s, "player:p2") == 1_000 + 2_000 + 1_000 + 500  # stakes back, capped winnings
