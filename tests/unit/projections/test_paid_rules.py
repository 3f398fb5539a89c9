"""The rules under which a hand's ending paid (what ``ledger hands --rule`` searches): a win,
a jackpot award, a rake, wagers given back to a dead hand or an uncalled bet, a cap's
withholding, a void; never a wager lost."""

from __future__ import annotations

from ledger.domain.records import (
    HandSettled,
    HandVoided,
    JackpotLine,
    Outcome,
    RakeLine,
)
from projections.views.hands import paid_rules


def test_csp_6_counts_an_award_not_a_lost_jackpot_wager() -> None:
    lost = HandSettled(hand_no=1, transfers=(), outcomes=(
        Outcome(seat=1, wager="ante", result="win", stake=500, amount=500, rule="CSP-4"),
        Outcome(seat=1, wager="jackpot", result="lose", stake=100, amount=-100, rule="CSP-6"),
        Outcome(seat=2, wager="ante", result="lose", stake=500, amount=-500, rule="CSP-4"),
        Outcome(seat=2, wager="play", result="push", stake=1000, rule="CSP-3"),
    ))
    assert paid_rules(lost) == {"CSP-4"}
    award = lost.model_copy(update={"jackpot": (JackpotLine(
        seat=1, line="flush", amount=5_000, source="house", meter_before=0, meter_after=0),)})
    assert paid_rules(award) == {"CSP-4", "CSP-6"}


def test_hcf_12_stud8_11_com_7_com_5_give_back_withhold_rake_and_void() -> None:
    settled = HandSettled(hand_no=2, transfers=(), outcomes=(
        Outcome(seat=1, wager="ante", result="dead", stake=500, rule="HCF-12"),
        Outcome(seat=2, wager="uncalled", result="returned", stake=200, rule="STUD8-11"),
        Outcome(seat=3, wager="ante", result="win", stake=500, amount=300, withheld=200,
                rule="COM-7"),
        Outcome(seat=4, wager="flush_bonus", result="lose", stake=100, amount=-100,
                rule="HCF-11"),
    ), rake=(RakeLine(seat=None, amount=0, rule="HCF-13"),
             RakeLine(seat=None, amount=300, rule="STUD8-11")))
    assert paid_rules(settled) == {"HCF-12", "STUD8-11", "COM-7"}
    assert paid_rules(HandVoided(hand_no=3, reason="misdeal", transfers=())) == {"COM-5"}
