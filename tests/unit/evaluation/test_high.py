"""The standard high hand (COM-1, CSP-5, STUD8-7, CHP-2): ``ledger.evaluation.high``."""

from __future__ import annotations

import os
import random
import time
from collections import Counter
from itertools import combinations, permutations

import pytest
from hypothesis import given

from ledger.domain.cards import parse_cards
from ledger.evaluation.high import (
    Category,
    best_five,
    category,
    evaluate,
    evaluate_showing,
    rank_labels,
    ranks,
)
from tests.unit.evaluation import reference
from tests.unit.evaluation.strategies import deals, hands


def strength(text: str) -> int:
    return evaluate(parse_cards(text))


def described(text: str) -> tuple[str, list[str]]:
    value = strength(text)
    return category(value).label, rank_labels(value)


# --- categories and rank lists ------------------------------------------------------------


@pytest.mark.parametrize(
    ("hand", "label", "labels"),
    [
        ("As Ks Qs Js Ts", "royal_flush", ["A", "K", "Q", "J", "T"]),
        ("9h 8h 7h 6h 5h", "straight_flush", ["9", "8", "7", "6", "5"]),
        ("5d 4d 3d 2d Ad", "straight_flush", ["5", "4", "3", "2", "A"]),
        ("7c 7d 7h 7s Kd", "four_of_a_kind", ["7", "7", "7", "7", "K"]),
        ("Kh Kd 4s Ks 4c", "full_house", ["K", "K", "K", "4", "4"]),
        ("Ac Jc 8c 4c 2c", "flush", ["A", "J", "8", "4", "2"]),
        ("Td 9c 8h 7s 6d", "straight", ["T", "9", "8", "7", "6"]),
        ("5c 4d 3h 2s Ah", "straight", ["5", "4", "3", "2", "A"]),
        ("3c 3d 3h Ks 9d", "three_of_a_kind", ["3", "3", "3", "K", "9"]),
        ("Qs Qd 7h 7c Ad", "two_pair", ["Q", "Q", "7", "7", "A"]),
        ("Jh Jc 9d 5s 2h", "one_pair", ["J", "J", "9", "5", "2"]),
        ("Ah Kc 9d 5s 2h", "high_card", ["A", "K", "9", "5", "2"]),
    ],
)
def test_csp_5_categories_and_ranks_as_compared(hand: str, label: str, labels: list[str]) -> None:
    assert described(hand) == (label, labels)


def test_csp_5_wheel_is_the_lowest_straight() -> None:
    wheel = strength("5c 4d 3h 2s Ah")
    six_high = strength("6c 5d 4h 3s 2h")
    assert category(wheel) is Category.STRAIGHT
    assert wheel < six_high
    assert wheel > strength("Ac Ad As Kh Qd")  # still a straight: beats any three of a kind
    assert ranks(wheel) == (3, 2, 1, 0, 12)
    steel_wheel = strength("5h 4h 3h 2h Ah")
    assert category(steel_wheel) is Category.STRAIGHT_FLUSH
    assert steel_wheel < strength("6h 5h 4h 3h 2h")


def test_csp_5_no_wraparound_straight() -> None:
    assert category(strength("Qc Kd Ah 2s 3h")) is Category.HIGH_CARD


def test_csp_5_royal_flush_is_distinct_from_a_king_high_straight_flush() -> None:
    royal = strength("As Ks Qs Js Ts")
    king_high = strength("Ks Qs Js Ts 9s")
    assert category(royal) is Category.ROYAL_FLUSH
    assert category(king_high) is Category.STRAIGHT_FLUSH
    assert royal > king_high
    assert Category.ROYAL_FLUSH.label == "royal_flush"


def test_com_1_category_labels_are_snake_case() -> None:
    assert [c.label for c in Category] == [
        "high_card", "one_pair", "two_pair", "three_of_a_kind", "straight", "flush",
        "full_house", "four_of_a_kind", "straight_flush", "royal_flush",
    ]  # fmt: skip


def test_strength_encoding_is_the_documented_one() -> None:
    value = strength("Kh Kd 4s Ks 4c")
    assert value == 6 << 20 | 12 << 16 | 12 << 12 | 12 << 8 | 3 << 4 | 3
    assert strength("5c 4d 3h 2s Ah") == 4 << 20 | 4 << 16 | 3 << 12 | 2 << 8 | 1 << 4 | 13


def test_stud8_7_kickers_decide_within_a_category() -> None:
    assert strength("Ah Ad Kc 9s 3h") > strength("As Ac Qd Js Th")
    assert strength("Ah Ad Kc 9s 3h") == strength("As Ac Kd 9h 3c")  # suits never matter
    assert strength("Qs Qd 7h 7c 3d") < strength("Qh Qc 7d 7s 4d")
    assert strength("Kh Kd Ks 2c 2d") > strength("Qh Qd Qs Ac Ad")


# --- five to seven cards -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("hand", "label", "labels", "best"),
    [
        (
            "Kh Kd 4s Ks 4c 9d 2h",
            "full_house", ["K", "K", "K", "4", "4"], ["Kh", "Kd", "Ks", "4s", "4c"],
        ),
        (
            "Kh Kd Ks 4s 4c 4d 2h",  # two trips: the lower one plays as the pair
            "full_house", ["K", "K", "K", "4", "4"], ["Kh", "Kd", "Ks", "4s", "4c"],
        ),
        (
            "5s 5d 5h 6c 7d 8s 9h",  # trips and a straight: the straight plays
            "straight", ["9", "8", "7", "6", "5"], ["9h", "8s", "7d", "6c", "5s"],
        ),
        (
            "Ah 2h 3h 4h 5h 6h Kd",  # six to the flush: 6-high straight flush, not the wheel
            "straight_flush", ["6", "5", "4", "3", "2"], ["6h", "5h", "4h", "3h", "2h"],
        ),
        (
            "As Ks Qs Js 9s 8s Th",  # a flush beats the broadway straight in the same hand
            "flush", ["A", "K", "Q", "J", "9"], ["As", "Ks", "Qs", "Js", "9s"],
        ),
        (
            "9c 9d 9h 9s Ac Ad Ah",  # quads and trips: an ace kicker
            "four_of_a_kind", ["9", "9", "9", "9", "A"], ["9c", "9d", "9h", "9s", "Ac"],
        ),
        (
            "Qs Qd 7h 7c 3d 3s 2c",  # three pairs: the third pair's rank may be the kicker
            "two_pair", ["Q", "Q", "7", "7", "3"], ["Qs", "Qd", "7h", "7c", "3d"],
        ),
    ],
)  # fmt: skip
def test_stud8_7_best_five_of_seven(
    hand: str, label: str, labels: list[str], best: list[str]
) -> None:
    cards = parse_cards(hand)
    value = evaluate(cards)
    assert (category(value).label, rank_labels(value)) == (label, labels)
    assert set(best_five(cards, value)) == set(parse_cards(best))


def test_evaluation_does_not_depend_on_card_order() -> None:
    cards = parse_cards("Ah 2h 3h 4h 5h 6h Kd")
    assert {evaluate(list(order)) for order in permutations(cards)} == {evaluate(cards)}


# --- exhaustive and against the reference evaluator ---------------------------------------

TEXTBOOK_FIVE_CARD_COUNTS = {
    Category.ROYAL_FLUSH: 4,
    Category.STRAIGHT_FLUSH: 36,
    Category.FOUR_OF_A_KIND: 624,
    Category.FULL_HOUSE: 3_744,
    Category.FLUSH: 5_108,
    Category.STRAIGHT: 10_200,
    Category.THREE_OF_A_KIND: 54_912,
    Category.TWO_PAIR: 123_552,
    Category.ONE_PAIR: 1_098_240,
    Category.HIGH_CARD: 1_302_540,
}


def test_csp_5_all_2598960_five_card_hands_have_the_textbook_category_counts() -> None:
    started = time.perf_counter()
    strengths = Counter(map(evaluate, combinations(range(52), 5)))
    by_category: Counter[Category] = Counter()
    for value, count in strengths.items():
        by_category[category(value)] += count
    assert dict(by_category) == TEXTBOOK_FIVE_CARD_COUNTS
    assert sum(by_category.values()) == 2_598_960
    # ... and the textbook number of distinct hand values: 7,462 equivalence classes.
    assert len(strengths) == 7_462
    assert time.perf_counter() - started < 60


def test_csp_5_every_distinct_five_card_class_matches_the_reference_order() -> None:
    # One representative hand per distinct strength, in strength order, must be strictly
    # increasing under the naive evaluator too: integer order is hand order.
    representative: dict[int, tuple[int, ...]] = {}
    for hand in combinations(range(52), 5):
        value = evaluate(hand)
        if value not in representative:
            representative[value] = hand
        if len(representative) == 7_462:
            break
    rng = random.Random(7)
    reference_order = [reference.five_card_hand(representative[v]) for v in sorted(representative)]
    assert reference_order == sorted(reference_order)
    assert len(set(reference_order)) == len(reference_order)
    for value in rng.sample(sorted(representative), 200):
        ref_category, ref_ranks = reference.five_card_hand(representative[value])
        assert (int(category(value)), ranks(value)) == (ref_category, ref_ranks)


@given(hands(5, 7))
def test_stud8_7_evaluate_matches_the_naive_reference(cards: list[int]) -> None:
    ref_category, ref_ranks = reference.best_hand(cards)
    value = evaluate(cards)
    assert (int(category(value)), ranks(value)) == (ref_category, ref_ranks)


@given(hands(7))
def test_stud8_7_best_of_seven_is_the_max_over_its_21_five_card_subsets(cards: list[int]) -> None:
    subsets = list(combinations(cards, 5))
    assert len(subsets) == 21
    assert evaluate(cards) == max(evaluate(five) for five in subsets)


@given(deals(7, 7))
def test_csp_5_comparison_is_a_total_order_consistent_with_categories(
    pair: list[list[int]],
) -> None:
    a, b = (evaluate(hand) for hand in pair)
    ref_a, ref_b = (reference.best_hand(hand) for hand in pair)
    # Exactly one of <, ==, > holds, and it is the one the naive evaluator finds.
    assert (a < b, a == b, a > b) == (ref_a < ref_b, ref_a == ref_b, ref_a > ref_b)
    if category(a) != category(b):
        assert (a < b) == (category(a) < category(b))


@given(hands(5, 7))
def test_best_five_re_evaluates_to_the_same_strength(cards: list[int]) -> None:
    value = evaluate(cards)
    five = best_five(cards)
    assert len(five) == 5
    assert set(five) <= set(cards)
    assert evaluate(five) == value
    assert tuple(card // 4 for card in five) == ranks(value)


def test_best_five_rejects_a_strength_the_cards_do_not_make() -> None:
    cards = parse_cards("Ah Kd 9c 5s 2h 3c 7d")
    with pytest.raises(ValueError):
        best_five(cards, strength("As Ad Kh Kc 2d"))
    with pytest.raises(ValueError):
        best_five(cards, strength("As Ks Qs Js Ts"))


# --- stud up cards and short hands (STUD8-3) -----------------------------------------------


@pytest.mark.parametrize(
    ("up", "label", "labels"),
    [
        ("Ah", "high_card", ["A"]),
        ("Ah Kd", "high_card", ["A", "K"]),
        ("9h 9d", "one_pair", ["9", "9"]),
        ("9h 9d Ac", "one_pair", ["9", "9", "A"]),
        ("9h 9d 4c 4s", "two_pair", ["9", "9", "4", "4"]),
        ("9h 9d 9c 4s", "three_of_a_kind", ["9", "9", "9", "4"]),
        ("9h 9d 9c 9s", "four_of_a_kind", ["9", "9", "9", "9"]),
        ("5h 4h 3h 2h", "high_card", ["5", "4", "3", "2"]),  # no straights or flushes showing
    ],
)
def test_stud8_3_showing_hands(up: str, label: str, labels: list[str]) -> None:
    value = evaluate_showing(parse_cards(up))
    assert (category(value).label, rank_labels(value)) == (label, labels)
    assert set(best_five(parse_cards(up), value)) == set(parse_cards(up))


def test_stud8_3_missing_card_is_lower_than_any_card() -> None:
    assert evaluate_showing(parse_cards("Ah Kd")) > evaluate_showing(parse_cards("Ah"))
    assert evaluate_showing(parse_cards("Ah Kd 2c")) > evaluate_showing(parse_cards("Ah Kd"))
    assert evaluate_showing(parse_cards("9h 9d")) > evaluate_showing(parse_cards("Ah Kd Qc Js"))
    assert evaluate_showing(parse_cards("9h 9d")) < strength("9c 9s 4d 3h 2c")


@given(hands(1, 4))
def test_stud8_3_showing_matches_the_naive_reference(cards: list[int]) -> None:
    ref_category, ref_ranks = reference.partial_hand(cards)
    value = evaluate_showing(cards)
    assert (int(category(value)), ranks(value)) == (ref_category, ref_ranks)


TEXTBOOK_SEVEN_CARD_COUNTS = {
    Category.ROYAL_FLUSH: 4_324,
    Category.STRAIGHT_FLUSH: 37_260,
    Category.FOUR_OF_A_KIND: 224_848,
    Category.FULL_HOUSE: 3_473_184,
    Category.FLUSH: 4_047_644,
    Category.STRAIGHT: 6_180_020,
    Category.THREE_OF_A_KIND: 6_461_620,
    Category.TWO_PAIR: 31_433_400,
    Category.ONE_PAIR: 58_627_800,
    Category.HIGH_CARD: 23_294_460,
}


@pytest.mark.slow
@pytest.mark.skipif(
    not os.environ.get("LEDGER_SLOW_TESTS"),
    reason="about 35 s: set LEDGER_SLOW_TESTS=1, or run ops/bench/evaluation_counts.py --seven",
)
def test_stud8_7_all_133784560_seven_card_hands_have_the_textbook_category_counts() -> None:
    strengths = Counter(map(evaluate, combinations(range(52), 7)))
    by_category: Counter[Category] = Counter()
    for value, count in strengths.items():
        by_category[category(value)] += count
    assert dict(by_category) == TEXTBOOK_SEVEN_CARD_COUNTS
    assert len(strengths) == 4_824  # distinct 7-card hand values


def test_a_rank_key_worked_out_alone_is_the_tables() -> None:
    """The first keys looked up in the rank table are worked out one by one: each is the whole
    table's strength, and a key no multiset of at most seven cards has is a ``KeyError``
    either way; past those keys the whole table is built."""
    from ledger.evaluation._high_tables import (
        ALONE,
        POW5,
        _rank_strength,
        _rank_strengths,
        _RankTable,
    )

    whole = _rank_strengths()
    assert all(_rank_strength(key) == strength for key, strength in whole.items())
    eight = 4 * POW5[12] + 4 * POW5[11]  # four aces and four kings: eight cards
    for bad in (-1, 5 ** 13, eight, "AK", 1.5, None):
        assert bad not in whole
        with pytest.raises(KeyError):
            _rank_strength(bad)
    table = _RankTable()
    with pytest.raises(KeyError):
        table[eight]
    keys = list(whole)[: ALONE + 1]
    assert [table[key] for key in keys[:ALONE]] == [whole[key] for key in keys[:ALONE]]
    assert not table.whole and dict.__len__(table) == ALONE
    assert table[keys[ALONE]] == whole[keys[ALONE]] and table.whole
    assert dict(table) == whole
    with pytest.raises(KeyError):
        table[eight]


def test_a_rank_key_of_another_number_type_finds_what_the_whole_table_finds() -> None:
    """A key equal to an integer key (numpy's integers, a float without a fraction, True) finds
    that key's strength in the whole table, as in a plain dict: so it does before the table is
    built, when the first keys are worked out one by one."""
    import numpy as np

    from ledger.evaluation._high_tables import POW5, _rank_strengths, _RankTable

    whole = _rank_strengths()
    pair = 2 * POW5[12]  # two aces
    for key in (np.int64(pair), np.uint64(pair), float(pair), True):
        table = _RankTable()
        assert table[key] == whole[key], key  # type: ignore[index]
