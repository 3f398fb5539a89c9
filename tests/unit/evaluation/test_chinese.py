"""Chinese Poker (CHP-2, CHP-3, CHP-7): ``ledger.evaluation.chinese``."""

from __future__ import annotations

import pytest
from hypothesis import given

from ledger.domain.cards import ensure_distinct, parse_cards
from ledger.evaluation.chinese import (
    AutomaticWin,
    automatic_wins,
    best_automatic_win,
    evaluate_front,
    evaluate_segment,
    is_fouled,
)
from ledger.evaluation.high import Category, category, evaluate, rank_labels
from tests.unit.evaluation import reference
from tests.unit.evaluation.strategies import deals


def cards(text: str) -> tuple[int, ...]:
    return parse_cards(text)


def hand(text: str) -> tuple[tuple[int, ...], ...]:
    front, middle, back = (parse_cards(part) for part in text.split("|"))
    ensure_distinct((*front, *middle, *back))  # the test data itself must be a real hand
    return front, middle, back


# --- segments (CHP-2) --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("front", "label", "labels"),
    [
        ("Qs Qh 2d", "one_pair", ["Q", "Q", "2"]),
        ("7s 7h 7d", "three_of_a_kind", ["7", "7", "7"]),
        ("As Kh 9d", "high_card", ["A", "K", "9"]),
        ("Qh Kh Ah", "high_card", ["A", "K", "Q"]),  # no straights or flushes in the front
        ("2c 3c Ac", "high_card", ["A", "3", "2"]),
    ],
)
def test_chp_2_front_has_no_straights_or_flushes(front: str, label: str, labels: list[str]) -> None:
    value = evaluate_front(cards(front))
    assert (category(value).label, rank_labels(value)) == (label, labels)
    assert evaluate_segment(cards(front)) == value


def test_chp_2_front_three_of_a_kind_beats_a_middle_two_pair_and_loses_to_a_straight() -> None:
    trips = evaluate_front(cards("7s 7h 7d"))
    assert trips > evaluate(cards("As Ad Kh Kc Qd"))
    assert trips < evaluate(cards("8c 8h 8s 2d 3d"))
    assert trips < evaluate(cards("5s 4d 3h 2c Ac"))  # A-2-3-4-5, the lowest straight


def test_chp_2_missing_kicker_is_lower_than_any_card() -> None:
    front = evaluate_front(cards("Ks Kh Ad"))
    assert front < evaluate(cards("Kc Kd Ah 3s 2c"))  # the middle's extra kickers win
    assert front > evaluate(cards("Kc Kd Qh Js 9c"))  # but the front's ace kicker comes first
    assert evaluate_front(cards("As Kh Qd")) < evaluate(cards("Ac Kd Qh 3s 2c"))


def test_chp_2_wheel_is_the_lowest_straight_in_a_segment() -> None:
    assert evaluate_segment(cards("5s 4d 3h 2c Ac")) < evaluate_segment(cards("6s 5d 4h 3c 2c"))


@given(deals(3, 5))
def test_chp_2_front_versus_middle_matches_the_naive_reference(segments: list[list[int]]) -> None:
    front, middle = segments
    mine = evaluate_front(front), evaluate(middle)
    ref = reference.partial_hand(front), reference.best_hand(middle)
    assert (mine[0] < mine[1], mine[0] == mine[1]) == (ref[0] < ref[1], ref[0] == ref[1])


# --- fouls (CHP-3) ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "fouled"),
    [
        ("Qs Qh 2d | 9c 9d 5s 5h 3c | Ac Kc Tc 7c 4c", False),
        ("Qs Qh Qd | 9c 9d 5s 5h 3c | Ac Kc Tc 7c 4c", True),  # front trips over a middle two pair
        ("Qs Qh 2d | Ac Kc Tc 7c 4c | 9c 9d 5s 5h 3c", True),  # back below middle
        # the middle Q-Q-A-3-2 beats the front Q-Q-A on the kickers the front lacks
        ("Qs Qh Ad | Qc Qd Ah 3s 2c | 9c 9d 5s 5h 3c", False),
        ("2s 3h 4d | 5c 7d 9s Jh Kc | Ac Qd Th 8s 6c", False),
        ("Ks Qh Jd | Kc Qd Jh 3s 2c | As Ad Ah 8s 6c", False),  # middle beats front on kickers
        ("As Kh Qd | Ac Kd Qh 3s 2c | 9c 9d 9s 8h 8c", False),
        ("As Kh Qd | Ac Kd Jh Ts 9c | 9d 9s 9h 8h 8c", True),  # A-K-J... loses to front A-K-Q
        ("9s 9h 2d | 9c 9d 3s 2h 4c | Ac Kc Tc 7c 5c", False),  # 9-9-4 beats 9-9-2
    ],
)
def test_chp_3_foul_check(text: str, fouled: bool) -> None:
    assert is_fouled(*hand(text)) is fouled


def test_chp_3_back_equal_to_middle_is_not_a_foul() -> None:
    assert not is_fouled(*hand("2s 3h 4d | Ac Kd Qh Js 9c | As Kc Qd Jh 9s"))


def test_chp_3_wrong_segment_sizes_are_fouled() -> None:
    front, middle, back = hand("Qs Qh 2d | 9c 9d 5s 5h 3c | Ac Kc Tc 7c 4c")
    assert is_fouled(front[:2], middle + front[2:], back)
    assert is_fouled(front + middle[:1], middle[1:], back)
    assert is_fouled(front, middle, back[:4])


# --- automatic wins (CHP-7) -----------------------------------------------------------------


def test_chp_7_dragon() -> None:
    dragon = hand("Ah Kd Qc | 2c 3d 4h 5s 7c | 6d 8h 9s Tc Jd")
    assert AutomaticWin.DRAGON in automatic_wins(*dragon)
    assert best_automatic_win(*dragon) is AutomaticWin.DRAGON
    assert is_fouled(*dragon)  # out of order, and still an automatic win
    twelve_ranks = hand("Ah Kd Qc | 2c 3d 4h 5s 7c | 6d 8h 9s Tc Td")
    assert AutomaticWin.DRAGON not in automatic_wins(*twelve_ranks)


def test_chp_7_dragon_beats_the_other_automatic_wins() -> None:
    # 13 ranks, three flushes and three straights at once: the dragon is declared.
    both = hand("Ah 2h 3h | 4c 5c 6c 7c 8c | 9d Td Jd Qd Kd")
    assert automatic_wins(*both) == {
        AutomaticWin.DRAGON,
        AutomaticWin.THREE_FLUSHES,
        AutomaticWin.THREE_STRAIGHTS,
    }
    assert best_automatic_win(*both) is AutomaticWin.DRAGON


@pytest.mark.parametrize(
    ("text", "six_pairs"),
    [
        ("As Ah Kd | Kc Qc Qh Jd Jh | Ts Td 9c 9h 2c", True),
        ("As Ah Ad | Ac Qc Qh Jd Jh | Ts Td 9c 9h 2c", True),  # four of a kind counts as two pairs
        ("As Ah Ad | Kc Qc Qh Jd Jh | Ts Td 9c 9h 2c", False),  # trips are not a pair: 5 pairs
        ("As Ah Ad | Kc Kd Qh Qd Jh | Js Tc Td 9c 9h", False),  # five pairs and trips: no
        ("As Ah Kd | Kc Qc Qh Jd Jh | Ts Td 9c 8h 2c", False),  # five pairs
        ("As Ah Ad | Kc Kh Kd Jd Jh | Ts Td 9c 9h 2c", False),  # two trips, four pairs
    ],
)
def test_chp_7_six_pairs(text: str, six_pairs: bool) -> None:
    assert (AutomaticWin.SIX_PAIRS in automatic_wins(*hand(text))) is six_pairs


@pytest.mark.parametrize(
    ("text", "three_flushes"),
    [
        ("2h 7h Jh | 3c 5c 8c Tc Kc | 4d 6d 9d Qd Ad", True),
        ("2h 3h 4h | 3c 4c 5c 6c 7c | 9d Td Jd Qd Kd", True),  # straight flushes count as flushes
        ("2h 7h Js | 3c 5c 8c Tc Kc | 4d 6d 9d Qd Ad", False),  # the front must be a flush too
        ("2h 7h Jh | 3c 5c 8c Tc Kd | 4d 6d 9d Qd Ac", False),
    ],
)
def test_chp_7_three_flushes(text: str, three_flushes: bool) -> None:
    assert (AutomaticWin.THREE_FLUSHES in automatic_wins(*hand(text))) is three_flushes


@pytest.mark.parametrize(
    ("text", "three_straights"),
    [
        ("Ah 2d 3c | 5s 6h 7d 8c 9s | Ts Jh Qd Kc Ad", True),  # A-2-3, the lowest front run
        ("Qh Kd Ac | As 2h 3d 4c 5s | 6s 7h 8d 9c Td", True),  # Q-K-A front, wheel middle
        ("Kh As 2c | 5s 6h 7d 8c 9s | Ts Jh Qd Kc Ad", False),  # K-A-2 does not wrap
        ("4h 5h 6h | 5c 6c 7c 8c 9c | 9d Td Jd Qd Kd", True),  # straight flushes count too
        ("4h 5d 7h | 5s 6h 7d 8c 9s | Ts Jh Qd Kc Ad", False),
    ],
)
def test_chp_7_three_straights(text: str, three_straights: bool) -> None:
    assert (AutomaticWin.THREE_STRAIGHTS in automatic_wins(*hand(text))) is three_straights


def test_chp_7_segment_order_does_not_matter() -> None:
    front, middle, back = hand("2h 7h Jh | 3c 5c 8c Tc Kc | 4d 6d 9d Qd Ad")
    assert AutomaticWin.THREE_FLUSHES in automatic_wins(front, back, middle)
    assert AutomaticWin.THREE_FLUSHES in automatic_wins(back, front, middle)
    pairs = hand("As Ah Kd | Kc Qc Qh Jd Jh | Ts Td 9c 9h 2c")
    assert is_fouled(*pairs)
    assert best_automatic_win(*pairs) is AutomaticWin.SIX_PAIRS


def test_chp_7_no_automatic_win() -> None:
    plain = hand("Qs Qh 2d | 9c 9d 5s 5h 3c | Ac Kc Tc 7c 4c")
    assert automatic_wins(*plain) == frozenset()
    assert best_automatic_win(*plain) is None
    front, middle, back = plain
    assert automatic_wins(front, middle, back[:4]) == frozenset()  # not 13 cards


def test_chp_2_category_scale_is_shared_with_high() -> None:
    assert category(evaluate_front(cards("7s 7h 7d"))) is Category.THREE_OF_A_KIND
