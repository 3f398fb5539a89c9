"""Eight-or-better low (STUD8-7): ``ledger.evaluation.low``."""

from __future__ import annotations

from itertools import combinations

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from ledger.domain.cards import parse_cards
from ledger.evaluation.low import evaluate_low8, low_labels, low_ranks
from tests.unit.evaluation import reference
from tests.unit.evaluation.strategies import hands


def low(text: str) -> int | None:
    return evaluate_low8(parse_cards(text))


@pytest.mark.parametrize(
    ("hand", "labels"),
    [
        ("Ah 2c 3d 4s 5h", ["5", "4", "3", "2", "A"]),
        ("8c 7d 6h 5s 4d", ["8", "7", "6", "5", "4"]),
        ("8c 6d 4h 2s Ad Kh Kc", ["8", "6", "4", "2", "A"]),
        ("Ac Ad 2h 3s 4c 5d 5h", ["5", "4", "3", "2", "A"]),  # pairs are skipped, not spoiling
        ("7c 6c 5c 4c 3c 2c Qd", ["6", "5", "4", "3", "2"]),  # the lowest five of six low ranks
        ("As 2s 3s 4s 5s", ["5", "4", "3", "2", "A"]),  # a straight flush is still the best low
    ],
)
def test_stud8_7_low_ranks(hand: str, labels: list[str]) -> None:
    value = low(hand)
    assert value is not None
    assert low_labels(value) == labels


@pytest.mark.parametrize(
    "hand",
    [
        "9c 7d 6h 5s 4d",  # a nine is not low
        "Ah Ad 2c 2d 3h 3s Kc",  # only three low ranks
        "8c 7d 6h 5s Kd Kh 8h",  # four low ranks
        "Kc Qd Jh Ts 9d",
    ],
)
def test_stud8_7_no_qualifying_low_is_none(hand: str) -> None:
    assert low(hand) is None


def test_stud8_7_wheel_is_the_best_low_and_8_7_6_5_4_the_worst() -> None:
    wheel, worst = low("Ah 2c 3d 4s 5h"), low("8c 7d 6h 5s 4d")
    assert wheel is not None and worst is not None
    every_low = {low(f"{a}c {b}d {c}h {d}s {e}c") for a, b, c, d, e in _five_low_rank_sets()}
    assert len(every_low) == 56  # C(8, 5) different lows
    assert max(v for v in every_low if v is not None) == wheel
    assert min(v for v in every_low if v is not None) == worst


def _five_low_rank_sets() -> list[tuple[str, ...]]:
    return list(combinations("A2345678", 5))


def test_stud8_7_lower_top_card_wins_then_the_next() -> None:
    def value(text: str) -> int:
        result = low(text)
        assert result is not None
        return result

    assert value("8c 5d 4h 3s 2d") < value("7c 6d 5h 4s 3d")  # 7-high beats 8-high
    assert value("8c 6d 4h 2s Ad") > value("8c 6d 5h 2s Ad")  # 8-6-4 beats 8-6-5
    assert value("6c 5d 4h 3s 2d") < value("6c 4d 3h 2s Ad")
    assert value("8c 6d 4h 2s Ad") == value("8h 6s 4c 2d Ac")


@given(hands(5, 7))
def test_stud8_7_low_matches_the_naive_reference(cards: list[int]) -> None:
    value = evaluate_low8(cards)
    expected = reference.best_low8(cards)
    if expected is None:
        assert value is None
    else:
        assert value is not None
        got = tuple(1 if rank == 12 else rank + 2 for rank in low_ranks(value))
        assert got == expected


@given(hands(5, 7), hands(5, 7))
def test_stud8_7_low_order_matches_the_naive_reference(a: list[int], b: list[int]) -> None:
    low_a, low_b = evaluate_low8(a), evaluate_low8(b)
    ref_a, ref_b = reference.best_low8(a), reference.best_low8(b)
    if low_a is not None and low_b is not None:
        assert ref_a is not None and ref_b is not None
        assert (low_a > low_b) == (ref_a < ref_b)  # the reference's "smaller" is the better low
        assert (low_a == low_b) == (ref_a == ref_b)


@given(hands(5, 7), st.permutations(range(4)))
def test_stud8_7_low_is_invariant_under_suit_changes(cards: list[int], suits: list[int]) -> None:
    recoloured = [card // 4 * 4 + suits[card % 4] for card in cards]
    assert evaluate_low8(recoloured) == evaluate_low8(cards)


@given(hands(5, 7), st.lists(st.integers(0, 3), min_size=7, max_size=7))
def test_stud8_7_low_ignores_suits_even_when_they_change_a_flush(
    cards: list[int], new_suits: list[int]
) -> None:
    recoloured = [card // 4 * 4 + suit for card, suit in zip(cards, new_suits, strict=False)]
    assume(len(set(recoloured)) == len(recoloured))
    assert evaluate_low8(recoloured) == evaluate_low8(cards)


def test_low_ranks_rejects_a_value_that_is_not_a_low() -> None:
    with pytest.raises(ValueError):
        low_ranks(255)
    with pytest.raises(ValueError):
        low_ranks(-1)
