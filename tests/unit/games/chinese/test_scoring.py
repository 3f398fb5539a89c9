"""Points between pairs of players (CHP-2..7), on plain hand values."""

from __future__ import annotations

import pytest

from ledger.domain.errors import RuleViolation
from ledger.games.chinese import ChineseSeat
from ledger.games.chinese.config import Scoring
from ledger.games.chinese.scoring import PairScore, judge, score_table
from tests.unit.games.chinese import hands as h
from tests.unit.games.chinese.support import seat_of


def table(*hands: h.Hand | ChineseSeat, scoring: Scoring = "mandarin",
          declare: dict[int, str] | None = None) -> dict[tuple[int, int], PairScore]:
    declare = declare or {}
    seats = [
        x if isinstance(x, ChineseSeat) else seat_of(i, *x, declaration=declare.get(i))
        for i, x in enumerate(hands, start=1)
    ]
    scores = score_table(seats, scoring)
    for (a, b), score in scores.items():
        assert scores[(b, a)].points == -score.points
    return scores


def totals(scores: dict[tuple[int, int], PairScore]) -> dict[int, int]:
    out: dict[int, int] = {}
    for (a, _), score in scores.items():
        out[a] = out.get(a, 0) + score.points
    return out


# --- CHP-2: segments, order, front without straights or flushes -----------------------------------


def test_chp_2_front_kka_is_below_middle_kka53_missing_kicker_is_lower() -> None:
    seat = seat_of(1, "Kc Kd Ac", "Kh Ks Ad 5c 3c", "2h 2d 2s 7h 7d")
    assert judge(seat, "mandarin").status == "played"


def test_chp_2_front_three_of_a_kind_above_middle_two_pair_is_out_of_order() -> None:
    seat = seat_of(1, *h.F1)
    judged = judge(seat, "mandarin")
    assert judged.status == "fouled"
    assert "out of order" in judged.reason


def test_chp_2_front_has_no_straight_or_flush_and_the_wheel_is_the_lowest_straight() -> None:
    scores = table(h.SUITED_RUN_FRONT, h.ACE_HIGH_FRONT)
    # 2-3-4 suited is only 4-high in front; A-2-3-4-5 loses to 2-3-4-5-6.
    assert scores[(1, 2)].detail[:3] == ("front lose", "middle lose", "back lose")
    assert scores[(1, 2)].points == -6


# --- CHP-3: fouls ---------------------------------------------------------------------------------


def test_chp_3_wrong_segment_sizes_foul() -> None:
    judged = judge(seat_of(1, *h.F2), "mandarin")
    assert judged.status == "fouled"
    assert "4/4/5" in judged.reason


def test_chp_3_fouled_hand_pays_6_plus_the_bonuses_the_other_holds() -> None:
    scores = table(h.G, h.F1)
    assert scores[(1, 2)].points == 6 + 2 + 4
    assert scores[(1, 2)].rule == "CHP-3"
    assert scores[(2, 1)].points == -12
    assert scores[(2, 1)].result == "lose"


def test_chp_3_fouled_hand_pays_6_in_basic_scoring_without_bonuses() -> None:
    scores = table(h.G, h.F1, scoring="basic")
    assert scores[(1, 2)].points == 6


def test_chp_3_two_fouled_hands_score_zero_against_each_other() -> None:
    scores = table(h.F1, h.F2)
    assert scores[(1, 2)].points == 0
    assert scores[(1, 2)].result == "push"


def test_chp_3_several_fouls_every_bonus_counts_against_them_super_bonus_included() -> None:
    scores = table(h.G, h.H, h.F1, h.F2)
    assert scores[(1, 3)].points == 9 + 6
    assert scores[(1, 4)].points == 9 + 6
    assert scores[(1, 2)].points == 9 + 6
    assert scores[(2, 3)].points == 6
    assert scores[(2, 4)].points == 6
    assert scores[(3, 4)].points == 0
    assert totals(scores) == {1: 45, 2: -3, 3: -21, 4: -21}


# --- CHP-4: segment scoring -----------------------------------------------------------------------


def test_chp_4_basic_counts_segments_net_without_scoop_or_bonus() -> None:
    assert table(h.BACK_SF, h.WINS_FRONT, scoring="basic")[(1, 2)].points == 1
    assert table(h.BACK_SF, h.LOSES_ALL, scoring="basic")[(1, 2)].points == 3


def test_chp_4_mandarin_scoop_is_worth_6() -> None:
    scores = table(h.PLAIN_SCOOPER, h.LOW)  # no bonus on either side
    assert scores[(1, 2)].points == 6
    assert scores[(1, 2)].result == "scoop"
    assert scores[(2, 1)].result == "lose"


def test_chp_4_tied_segment_scores_nothing() -> None:
    one = seat_of(1, "2c 3d 5h", "4c 6d 8h 9c Jc", "2d 2h 7d Td Qd")
    two = seat_of(2, "2s 3h 7s", "4d 6h 8s 9d Jh", "3c 3s 7c Tc Qc")
    scores = table(one, two)
    assert scores[(1, 2)].detail[:3] == ("front lose", "middle tie", "back lose")
    assert scores[(1, 2)].points == -2


# --- CHP-5: Mandarin bonuses ----------------------------------------------------------------------


def test_chp_5_sheet_example_win_two_of_three_with_back_straight_flush_is_1_plus_5() -> None:
    scores = table(h.BACK_SF, h.WINS_FRONT)
    assert scores[(1, 2)].points == 6
    assert "bonus back straight_flush +5 (CHP-5)" in scores[(1, 2)].detail
    assert scores[(2, 1)].points == -6


def test_chp_5_sheet_example_scoop_with_back_straight_flush_is_6_plus_5() -> None:
    assert table(h.BACK_SF, h.LOSES_ALL)[(1, 2)].points == 11


def test_chp_5_front_three_of_a_kind_plus_3() -> None:
    assert table(h.FRONT_TRIPS, h.LOW)[(1, 2)].points == 6 + 3


def test_chp_5_middle_full_house_plus_2() -> None:
    assert table(h.MIDDLE_FULL_HOUSE, h.LOW)[(1, 2)].points == 6 + 2


def test_chp_5_middle_four_of_a_kind_plus_8_and_back_straight_flush_plus_5() -> None:
    assert table(h.MIDDLE_QUADS_BACK_SF, h.LOW)[(1, 2)].points == 6 + 8 + 5


def test_chp_5_back_four_of_a_kind_plus_4() -> None:
    assert table(h.BACK_QUADS, h.LOW)[(1, 2)].points == 6 + 4


def test_chp_5_middle_straight_flush_plus_10_and_a_royal_flush_is_a_straight_flush() -> None:
    scores = table(h.ALL_BONUSES_ROYAL, h.LOW)
    assert scores[(1, 2)].points == 6 + 3 + 10 + 5
    assert scores[(2, 1)].points == -24


def test_chp_5_bonus_is_paid_only_by_the_opponent_whose_segment_it_beats() -> None:
    scores = table(h.SMALL_FULL_HOUSE, h.BIG_FULL_HOUSE)
    # Front won, middle and back lost: -1; the winner's middle full house (+2) and back
    # quads (+4) count; the loser's own middle full house earns nothing.
    assert scores[(1, 2)].points == -1 - 2 - 4
    assert not any(d.startswith("bonus ") for d in scores[(1, 2)].detail)


def test_chp_5_no_bonus_in_basic_scoring() -> None:
    assert table(h.ALL_BONUSES_ROYAL, h.LOW, scoring="basic")[(1, 2)].points == 3


# --- CHP-6: super bonus ---------------------------------------------------------------------------


def test_chp_6_scooping_all_three_opponents_wins_9_from_each_plus_bonuses() -> None:
    scores = table(h.G, h.H, h.F1, h.F2)
    assert scores[(1, 2)].rule == "CHP-6"
    assert scores[(1, 2)].result == "scoop"
    assert any("super bonus" in d for d in scores[(1, 3)].detail)


def test_chp_6_super_bonus_needs_all_four_seats_played() -> None:
    scores = table(h.G, h.H, h.F1)
    assert scores[(1, 2)].points == 6 + 6
    assert scores[(1, 3)].points == 6 + 6


def test_chp_6_an_opponent_with_an_automatic_win_is_not_scooped() -> None:
    scores = table(h.G, h.H, h.F3, h.D6, declare={4: "six_pairs"})
    assert scores[(1, 2)].points == 12
    assert scores[(1, 3)].points == 12
    assert scores[(1, 4)].points == -4
    assert totals(scores) == {1: 20, 2: -10, 3: -22, 4: 12}


def test_chp_6_no_super_bonus_in_basic_scoring() -> None:
    scores = table(h.G, h.H, h.F1, h.F2, scoring="basic")
    assert scores[(1, 2)].points == 3
    assert scores[(1, 3)].points == 6


# --- CHP-7: automatic wins ------------------------------------------------------------------------


def test_chp_7_dragon_beats_six_pairs_for_13() -> None:
    scores = table(h.DRAGON, h.SIX_PAIRS, declare={1: "dragon", 2: "six_pairs"})
    assert scores[(1, 2)].points == 13
    assert scores[(1, 2)].rule == "CHP-7"


def test_chp_7_dragon_collects_13_from_a_played_hand() -> None:
    assert table(h.DRAGON, h.LOW, declare={1: "dragon"})[(1, 2)].points == 13


def test_chp_7_two_automatic_wins_other_than_the_dragon_push() -> None:
    scores = table(h.SIX_PAIRS, h.THREE_FLUSHES, declare={1: "six_pairs", 2: "three_flushes"})
    assert scores[(1, 2)].points == 0
    assert scores[(1, 2)].result == "push"


def test_chp_7_two_dragons_push() -> None:
    scores = table(h.DRAGON, h.DRAGON_2, declare={1: "dragon", 2: "dragon"})
    assert scores[(1, 2)].points == 0


def test_chp_7_automatic_win_collects_its_points_from_a_fouled_hand_not_the_penalty() -> None:
    scores = table(h.SIX_PAIRS, h.FOULED_FOR_SIX_PAIRS, declare={1: "six_pairs"})
    assert scores[(1, 2)].points == 4
    assert "instead of the foul penalty" in scores[(1, 2)].detail[0]


def test_chp_7_automatic_win_counts_whatever_the_order_of_its_segments() -> None:
    scores = table(h.SIX_PAIRS_OUT_OF_ORDER, h.LOW, declare={1: "six_pairs"})
    assert scores[(1, 2)].points == 4
    undeclared = table(h.SIX_PAIRS_OUT_OF_ORDER, h.LOW)
    assert undeclared[(1, 2)].points == -6 and undeclared[(1, 2)].rule == "CHP-3"


def test_chp_7_three_straights_and_three_flushes_collect_4() -> None:
    assert table(h.THREE_STRAIGHTS, h.LOW, declare={1: "three_straights"})[(1, 2)].points == 4
    assert table(h.THREE_FLUSHES, h.LOW, declare={1: "three_flushes"})[(1, 2)].points == 4


def test_chp_7_four_of_a_kind_counts_as_two_pairs_three_of_a_kind_as_none() -> None:
    assert table(h.SIX_PAIRS_WITH_QUADS, h.LOW, declare={1: "six_pairs"})[(1, 2)].points == 4
    with pytest.raises(RuleViolation) as err:
        table(h.FIVE_PAIRS_AND_TRIPS, h.LOW, declare={1: "six_pairs"})
    assert err.value.code == "declaration_not_supported"


def test_chp_7_undeclared_automatic_win_plays_as_set() -> None:
    scores = table(h.THREE_FLUSHES, h.LOW)
    assert scores[(1, 2)].rule == "CHP-4"
    assert scores[(1, 2)].points == 6 + 5  # a scoop with its back straight flush
