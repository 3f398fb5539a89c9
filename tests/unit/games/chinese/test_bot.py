"""The simulated players and the auto-arrange helper (CHP-2, CHP-3, CHP-7, CHP-8)."""

from __future__ import annotations

import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from ledger.domain.cards import FULL_DECK
from ledger.domain.records import ChipsBoughtIn, HandSettled, HandStarted, PlayerActed, PlayerSeated
from ledger.evaluation.chinese import AutomaticWin, automatic_wins, is_fouled
from ledger.sim import chinese_arrange as arrange
from tests.unit.games.chinese.deals import planted_hand
from tests.unit.games.chinese.test_properties import check_records, play

hands13 = st.lists(st.sampled_from(FULL_DECK), min_size=13, max_size=13, unique=True)


@settings(max_examples=150, deadline=None)
@given(cards=hands13, seed=st.integers(0, 2**32 - 1))
def test_chp_2_auto_arrange_sets_legal_hands_and_fouls_on_purpose_chp_3(
    cards: list[int], seed: int
) -> None:
    rng = random.Random(seed)
    for segments in (arrange.greedy(cards), arrange.random_legal(cards, rng)):
        assert sorted(c for s in segments for c in s) == sorted(cards)
        assert not is_fouled(*segments)
    fouled = arrange.fouled(cards, rng)
    assert sorted(c for s in fouled for c in s) == sorted(cards)
    assert is_fouled(*fouled)


@settings(max_examples=80, deadline=None)
@given(kind=st.sampled_from(list(AutomaticWin)), seed=st.integers(0, 2**32 - 1))
def test_chp_7_auto_arrange_finds_a_set_showing_the_automatic_win(kind: AutomaticWin,
                                                                  seed: int) -> None:
    cards = planted_hand(kind.value, random.Random(seed))
    found = arrange.automatic(cards)
    assert found is not None
    win, segments = found
    assert win in automatic_wins(*segments)
    assert sorted(c for s in segments for c in s) == sorted(cards)
    if kind is AutomaticWin.DRAGON:
        assert win is AutomaticWin.DRAGON


def test_chp_3_chp_7_chp_8_the_bot_exercises_fouls_declarations_leaves_and_table_stakes() -> None:
    table, executor = play(seed=2024, seats=[1, 2, 4], config={"fee": 5}, hands=150,
                           short={2: 15}, plant_rate=0.15)
    check_records(table, executor)
    records = executor.records
    actions = Counter(r.action for r in records if isinstance(r, PlayerActed))
    sets = actions["set"]
    settled = [r for r in records if isinstance(r, HandSettled)]
    fouled = {(r.hand_no, p.seat) for r in settled for p in r.points for d in p.detail
              if d.startswith("own hand fouled") and "COM-6" not in d}
    players = Counter(len(r.seats) for r in records if isinstance(r, HandStarted))
    assert len(settled) >= 100
    assert 0.02 < len(fouled) / sets < 0.2  # legal most of the time, fouled sometimes
    assert actions["declare"] >= 5 and actions["fold"] >= 1
    assert any(isinstance(r, PlayerSeated) for r in records)  # newcomers arrive
    assert sum(1 for r in settled if any(o.withheld for o in r.outcomes)) >= 10
    assert any(isinstance(r, ChipsBoughtIn) and r.kind == "short_buy" for r in records)
    assert set(players) >= {2, 3} and max(players) <= 4
