"""Replays show the amounts of recorded notes in the table's currency, not in minor units: a
Caribbean Stud jackpot line (CSP-6, CSP-7) and Chinese Poker points (CHP-4, CHP-8)."""

from __future__ import annotations

from ledger.table.describe import note_in_currency


def test_a_jackpot_line_is_shown_in_the_currency_csp_7() -> None:
    assert note_in_currency("jackpot", "flush: 5000", "EUR") == "flush: 50.00"
    assert note_in_currency("jackpot", "royal_flush: 1000000", "JPY") == "royal_flush: 1000000"
    assert note_in_currency("jackpot", "folded: the side wager cannot win", "EUR") == \
        "folded: the side wager cannot win"


def test_chinese_poker_points_are_shown_in_the_currency_chp_8() -> None:
    assert note_in_currency("points_vs_2", "4 points = 400 (CHP-4)", "EUR") == \
        "4 points = 4.00 (CHP-4)"
    assert note_in_currency("points_vs_3", "1 point = 100 (CHP-4); 50 withheld: seat 3's stake "
                            "ran out (CHP-8, paid in CHP-9 order)", "EUR") == \
        "1 point = 1.00 (CHP-4); 0.50 withheld: seat 3's stake ran out (CHP-8, paid in CHP-9 order)"
    assert note_in_currency("ante", "3-1", "EUR") == "3-1"  # odds are no amounts
