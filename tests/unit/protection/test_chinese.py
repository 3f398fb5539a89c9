"""Chinese Poker shortfalls (CHP-2..5): the best points against an opponent, computed over
every arrangement at once, equal an enumeration scored by the game's own scoring."""

from __future__ import annotations

import random
from itertools import combinations

import pytest

from ledger.evaluation.chinese import is_fouled
from ledger.games.chinese.config import Scoring
from ledger.games.chinese.hand import ChineseSeat
from ledger.games.chinese.scoring import judge, score_pair
from ledger.sim.chinese_arrange import greedy
from projections.protection import chinese


def _seats(seed: int) -> list[ChineseSeat]:
    deck = list(range(52))
    random.Random(seed).shuffle(deck)
    seats = []
    for i in range(4):
        cards = tuple(deck[13 * i:13 * i + 13])
        seats.append(ChineseSeat(seat=i + 1, player=f"p{i + 1}", cards=cards,
                                 segments=greedy(cards)))
    return seats


@pytest.mark.parametrize(("seed", "scoring"), [(2, "mandarin"), (5, "basic")])
def test_best_points_equal_an_enumeration_scored_by_the_game(seed: int,
                                                             scoring: Scoring) -> None:
    seats = _seats(seed)
    mine, opponent = seats[0], judge(seats[1], scoring)
    best = None
    for front in combinations(mine.cards, 3):
        rest = [c for c in mine.cards if c not in front]
        for middle in combinations(rest, 5):
            back = tuple(c for c in rest if c not in middle)
            if is_fouled(front, middle, back):
                continue
            seat = mine.model_copy(update={"segments": (front, middle, back)})
            points = score_pair(judge(seat, scoring), opponent, scoring, frozenset()).points
            best = points if best is None else max(best, points)
    assert chinese.best_points(mine.cards, opponent, scoring) == best


def test_shortfalls_are_never_negative_and_a_foul_shows() -> None:
    seats = _seats(3)
    found = chinese.shortfalls(seats, "mandarin")
    assert len(found) == 12 and min(found.values()) >= 0
    fouled = seats[0].model_copy(update={"segments": (seats[0].cards[:5], seats[0].cards[5:8],
                                                      seats[0].cards[8:])})
    again = chinese.shortfalls([fouled, *seats[1:]], "mandarin")
    assert all(again[(1, other)] >= 6 for other in (2, 3, 4))
