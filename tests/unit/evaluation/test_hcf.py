"""High Card Flush (HCF-4, HCF-5, HCF-8, HCF-10, HCF-11): ``ledger.evaluation.hcf``."""

from __future__ import annotations

from itertools import groupby

import pytest
from hypothesis import given

from ledger.domain.cards import parse_cards
from ledger.evaluation.hcf import (
    DEFAULT_FLUSH_BONUS_PAYTABLE,
    DEFAULT_STRAIGHT_FLUSH_BONUS_PAYTABLE,
    Flush,
    StraightFlush,
    dp_qualifies,
    flush,
    flush_bonus_odds,
    max_raise_multiple,
    straight_flush,
    straight_flush_bonus_odds,
)
from tests.unit.evaluation.strategies import deals, hands

R = {name: index for index, name in enumerate("23456789TJQKA")}


def hand_flush(text: str) -> Flush:
    return flush(parse_cards(text))


def run(text: str) -> StraightFlush:
    return straight_flush(parse_cards(text))


# --- the flush (HCF-4) -----------------------------------------------------------------------


def test_hcf_4_the_flush_is_the_longest_suit() -> None:
    f = hand_flush("2h 5h 7h 9h As Ks Qd")
    assert (f.length, f.ranks, f.suit) == (4, (R["9"], R["7"], R["5"], R["2"]), 2)


def test_hcf_4_equal_length_suits_the_higher_cards_count() -> None:
    f = hand_flush("Kh 9h 2h Kc Tc 3c 5d")
    assert (f.length, f.ranks) == (3, (R["K"], R["T"], R["3"]))


def test_hcf_4_equal_flushes_compare_card_by_card_from_the_top() -> None:
    a = hand_flush("Ah Th 6h 5h 2c 3d 4s")
    b = hand_flush("As Ts 6s 4s 2h 3c 5d")
    assert a > b  # A-T-6-5 beats A-T-6-4 at the fourth card
    assert hand_flush("Kh 9h 3h 2c 4d 5s 6c") < hand_flush("Kc Tc 2c 3d 4h 5s 6d")


def test_hcf_4_longer_flush_beats_higher_cards() -> None:
    assert hand_flush("2h 3h 4h 6h 8c 9d Ts") > hand_flush("As Ks Qs 2c 3d 4h 5c")


def test_hcf_4_identical_ranks_in_different_suits_tie() -> None:
    a = hand_flush("Ah Kh 9h 2c 3d 4s 5c")
    b = hand_flush("As Ks 9s 2h 3c 4d 5h")
    assert a == b and not a < b and not a > b
    assert a.suit != b.suit


@given(hands(7))
def test_hcf_4_flush_matches_a_naive_search(cards: list[int]) -> None:
    by_suit = {
        suit: sorted((c // 4 for c in cards if c % 4 == suit), reverse=True) for suit in range(4)
    }
    best = max((len(ranks), tuple(ranks)) for ranks in by_suit.values())
    f = flush(cards)
    assert (f.length, f.ranks) == best
    assert sorted((c // 4 for c in cards if c % 4 == f.suit), reverse=True) == list(f.ranks)


@given(deals(7, 7))
def test_hcf_4_flush_order_is_length_then_cards(pair: list[list[int]]) -> None:
    a, b = (flush(hand) for hand in pair)
    assert (a < b) == ((a.length, a.ranks) < (b.length, b.ranks))
    assert (a == b) == ((a.length, a.ranks) == (b.length, b.ranks))


# --- raise cap and qualification (HCF-5, HCF-8) --------------------------------------------


@pytest.mark.parametrize(("length", "multiple"), [(7, 3), (6, 3), (5, 2), (4, 1), (3, 1), (1, 1)])
def test_hcf_5_max_raise_by_flush_length(length: int, multiple: int) -> None:
    assert max_raise_multiple(length) == multiple


@pytest.mark.parametrize(
    ("hand", "qualifies"),
    [
        ("9h 5h 2h Kc 3d 4s 6c", True),  # three cards, 9 high: the minimum
        ("8h 5h 2h Kc Qd 4s 6c", False),  # three cards, 8 high
        ("5h 4h 3h 2h Kc Qd Js", True),  # four cards qualify whatever their height
        ("Ah Kh Qc Jc Td 9d 8s", False),  # two cards of a suit at most
        ("Th 7h 3h Kc Qc 4d 5s", True),
    ],
)
def test_hcf_8_dp_qualifies_with_a_three_card_nine_high_flush(hand: str, qualifies: bool) -> None:
    assert dp_qualifies(hand_flush(hand)) is qualifies


# --- straight flush runs (HCF-10) -------------------------------------------------------------


@pytest.mark.parametrize(
    ("hand", "length", "high"),
    [
        ("Ah 2h 3h Kc 9d 7s 5c", 3, "3"),  # ace low: A-2-3 has the 3 on top
        ("Qh Kh Ah 2c 9d 7s 5c", 3, "A"),  # ace high
        ("Kh Ah 2h 3c 9d 7s 5c", 2, "A"),  # no K-A-2 wrap: K-A and A-2 are runs of 2
        ("Kh Ah 2h 3h 9d 7s 5c", 3, "3"),  # A-2-3 beats the K-A run
        ("2h 5d 8c Js Ac 3d Tc", 1, "A"),  # no run at all: a lone card, the highest
        ("4s 5s 6s 7s 8s 9s Ts", 7, "T"),
        ("9c Tc Jc 2d 3d 4d 5d", 4, "5"),  # the longer run wins over the higher one
        ("9c Tc Jc 2d 3d 4d As", 3, "J"),  # equal lengths: the higher top card
        ("Ah 2h 3h 4h 5h Kd Qd", 5, "5"),
    ],
)
def test_hcf_10_longest_run_ace_high_or_low_no_wrap(hand: str, length: int, high: str) -> None:
    result = run(hand)
    assert (result.length, result.high) == (length, R[high])


def test_hcf_10_run_order_is_length_then_top_card() -> None:
    assert run("Ah 2h 3h Kc 9d 7s 5c") < run("2c 3c 4c Kd 9h 7s 5h")  # A-2-3 is the lowest 3-run
    assert run("Qh Kh Ah 2c 9d 7s 5c") > run("Jc Qc Kc 2d 9h 7s 5h")
    assert run("Qh Kh Ah 2c 9d 7s 5c") == run("Qs Ks As 2d 9h 7c 5h")  # same length and top: push
    assert run("2h 3h 4h 5h Kc 9d 7s") > run("Qh Kh Ah 2c 9d 7s 5c")


@given(hands(7))
def test_hcf_10_run_matches_a_naive_search(cards: list[int]) -> None:
    best = (0, -1)
    for suit in range(4):
        # Ranks 0..12 plus the ace again as -1 (low); scan every run, no wrap past the king.
        present = {c // 4 for c in cards if c % 4 == suit}
        line = sorted(present | ({-1} if 12 in present else set()))
        for _, group in groupby(enumerate(line), key=lambda item: item[1] - item[0]):
            ranks = [rank for _, rank in group]
            best = max(best, (len(ranks), ranks[-1]))
    result = straight_flush(cards)
    assert (result.length, result.high) == best


# --- bonus odds (HCF-10, HCF-11) ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("length", "odds"), [(7, 200), (6, 50), (5, 10), (4, 2), (3, None), (2, None), (0, None)]
)
def test_hcf_11_flush_bonus_pays_on_four_or_more(length: int, odds: int | None) -> None:
    assert flush_bonus_odds(length) == odds


@pytest.mark.parametrize(
    ("length", "odds"), [(7, 1000), (6, 500), (5, 100), (4, 60), (3, 8), (2, None), (1, None)]
)
def test_hcf_10_straight_flush_bonus_pays_on_three_or_more(length: int, odds: int | None) -> None:
    assert straight_flush_bonus_odds(length) == odds


def test_hcf_10_hcf_11_paytables_are_configurable_but_minimums_hold() -> None:
    assert flush_bonus_odds(5, {5: 12, 4: 3}) == 12
    assert flush_bonus_odds(6, {5: 12, 4: 3}) is None  # a length the table does not list
    assert flush_bonus_odds(3, {3: 1}) is None  # HCF-11: needs four cards
    assert straight_flush_bonus_odds(2, {2: 1, 3: 9}) is None  # HCF-10: needs three
    assert straight_flush_bonus_odds(3, {2: 1, 3: 9}) == 9
    assert dict(DEFAULT_FLUSH_BONUS_PAYTABLE) == {7: 200, 6: 50, 5: 10, 4: 2}
    assert dict(DEFAULT_STRAIGHT_FLUSH_BONUS_PAYTABLE) == {7: 1000, 6: 500, 5: 100, 4: 60, 3: 8}
