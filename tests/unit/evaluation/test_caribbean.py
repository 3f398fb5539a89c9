"""Caribbean Stud (CSP-3, CSP-4, CSP-6, CSP-7): ``ledger.evaluation.caribbean``."""

from __future__ import annotations

from itertools import combinations

import pytest

from ledger.domain.cards import parse_cards
from ledger.evaluation.caribbean import (
    DEFAULT_PLAY_PAYTABLE,
    JACKPOT_LINES,
    dealer_qualifies,
    jackpot_line,
    play_odds,
)
from ledger.evaluation.high import Category, category, evaluate


def strength(text: str) -> int:
    return evaluate(parse_cards(text))


@pytest.mark.parametrize(
    ("hand", "qualifies"),
    [
        ("As Kd 9h 5c 2c", True),  # A-K high: the minimum
        ("As Kd 4h 3c 2c", True),  # the lowest A-K hand
        ("As Qd Jh 9c 8c", False),  # A-Q high does not qualify
        ("Ks Qd Jh 9c 8c", False),
        ("2s 2d 7h 5c 3c", True),  # any pair qualifies
        ("5s 4d 3h 2c Ac", True),  # the wheel is a straight, not A-5 high
        ("Ac Kc 9c 5c 2c", True),
    ],
)
def test_csp_3_dealer_qualifies_with_ace_king_or_better(hand: str, qualifies: bool) -> None:
    assert dealer_qualifies(strength(hand)) is qualifies


def test_csp_3_qualification_over_all_high_card_hands_means_an_ace_and_a_king() -> None:
    # Every 5-card rank set with no pair, straight or flush: qualifies iff it holds both A and K.
    checked = 0
    for ranks in combinations(range(13), 5):
        cards = [rank * 4 + (i % 2) for i, rank in enumerate(ranks)]  # two suits: never a flush
        value = evaluate(cards)
        if category(value) is not Category.HIGH_CARD:
            continue
        checked += 1
        assert dealer_qualifies(value) is (12 in ranks and 11 in ranks)
    assert checked == 1_277


@pytest.mark.parametrize(
    ("hand", "odds"),
    [
        ("As Kd 9h 5c 2c", 1),
        ("2s 2d 7h 5c 3c", 1),
        ("2s 2d 7h 7c 3c", 2),
        ("2s 2d 2h 7c 3c", 3),
        ("5s 4d 3h 2c Ac", 4),
        ("Ac Kc 9c 5c 2c", 5),
        ("2s 2d 2h 7c 7d", 7),
        ("2s 2d 2h 2c 7d", 20),
        ("5c 4c 3c 2c Ac", 50),
        ("Ac Kc Qc Jc Tc", 100),
    ],
)
def test_csp_4_play_paytable(hand: str, odds: int) -> None:
    assert play_odds(strength(hand)) == odds


def test_csp_4_play_paytable_is_configurable() -> None:
    table = {**DEFAULT_PLAY_PAYTABLE, Category.FULL_HOUSE: 8}
    assert play_odds(strength("2s 2d 2h 7c 7d"), table) == 8
    assert play_odds(strength("2s 2d 2h 7c 7d")) == 7


@pytest.mark.parametrize(
    ("hand", "line"),
    [
        ("As Kd 9h 5c 2c", None),
        ("2s 2d 2h 7c 3c", None),
        ("5s 4d 3h 2c Ac", None),  # a straight wins no jackpot
        ("Ac Kc 9c 5c 2c", "flush"),
        ("2s 2d 2h 7c 7d", "full_house"),
        ("2s 2d 2h 2c 7d", "four_of_a_kind"),
        ("5c 4c 3c 2c Ac", "straight_flush"),  # only the best line: not also "flush" (CSP-7)
        ("Ac Kc Qc Jc Tc", "royal_flush"),
    ],
)
def test_csp_6_csp_7_jackpot_line_is_the_best_one_only(hand: str, line: str | None) -> None:
    assert jackpot_line(strength(hand)) == line


def test_csp_6_jackpot_lines() -> None:
    assert JACKPOT_LINES == (
        "flush",
        "full_house",
        "four_of_a_kind",
        "straight_flush",
        "royal_flush",
    )
