"""The hold report's checks of games the house does not bank can fail (both stores): the rake
recorded against the rake the policy owes on each hand (STUD8-11, HCF-13), and the designated
players' results against the paytable (HCF-14)."""

from __future__ import annotations

from typing import Any

import pytest

from ledger.app.application import LedgerApp
from ledger.domain.commands import Act
from ledger.sim.hcf import HcfBot
from ledger.sim.runner import simulate
from projections.read.queries import ReadModel
from projections.reports import variance
from projections.reports.hold import hold_report
from projections.reports.periods import period
from projections.views.runner import Runner


def _day(app: LedgerApp) -> str:
    Runner(app).catch_up()
    return str(ReadModel(app).accounting()[0]["gaming_day"])


def test_stud_rake_taken_as_the_policy_says_shows_no_variance_and_a_changed_rake_is_flagged(
        app: LedgerApp, monkeypatch: pytest.MonkeyPatch) -> None:
    """STUD8-11: 500 bps of the pots, capped, none on third street; worked out from each hand's
    pots, not from the recorded rake. A rake changed in what the report reads (a test double of
    the hands, the store untouched) is flagged with its hand."""
    simulate(app, "stud-hilo", "STUD-1", 12, players=4, seed=7)
    day = _day(app)
    model = ReadModel(app)
    (table,) = hold_report(model, period(day=day))["tables"]
    col = table["columns"][0]
    assert col["hands"] == 12 and col["rake_minor"] > 0
    assert col["expected_rake_minor"] == col["rake_minor"] and col["rake_variance_minor"] == 0
    assert col["rake_differences"] == [] and not col["flagged"]
    assert col["win_minor"] is None and col["hold_pct"] is None  # the house banks nothing

    real = variance.settled_hands

    def skimmed(store: Any, code: str, first: str, last: str) -> list[dict[str, Any]]:
        hands = real(store, code, first, last)
        hands[3]["rake_minor"] = int(hands[3]["rake_minor"]) + 100  # 1.00 more than owed
        return hands

    monkeypatch.setattr(variance, "settled_hands", skimmed)
    col = hold_report(model, period(day=day))["tables"][0]["columns"][0]
    assert col["flagged"] and col["rake_variance_minor"] == 100
    (difference,) = col["rake_differences"]
    assert difference["hand_no"] == 4 and difference["difference_minor"] == 100
    assert [h["hand_no"] for h in col["flag_hands"]] == [4]


def test_a_designated_player_winning_far_beyond_the_paytable_is_flagged_with_its_hands(
        app: LedgerApp, monkeypatch: pytest.MonkeyPatch) -> None:
    """HCF-14: players who fold every hand hand the DP their Antes; the DPs' result lies far
    above the paytable's theory (the exact player-against-DP figure), and the hands that weigh
    most are named. The fee is still owed and taken as the policy says (HCF-13)."""
    def fold(table: Any, hand: Any, step: Any, rng: Any, ids: Any) -> Act:
        return Act(command_id=ids.next(), table=ids.table, seat=step.seats[0], action="fold")

    monkeypatch.setattr(HcfBot, "_decide", staticmethod(fold))
    simulate(app, "high-card-flush", "HCF-1", 30, players=4, seed=3)
    day = _day(app)
    col = hold_report(ReadModel(app), period(day=day))["tables"][0]["columns"][0]
    dp = col["dp"]
    assert dp["result_minor"] > dp["interval_minor"][1] and float(dp["z"]) > 1.96
    assert dp["flagged"] and col["flagged"] and len(dp["flag_hands"]) == variance.FLAG_HANDS
    weights = [h["beyond_theory_minor"] for h in dp["flag_hands"]]
    assert weights == sorted(weights, reverse=True) and weights[0] > 0
    assert col["rake_differences"] == [] and col["hold_pct"] is None


def test_an_ordinary_hcf_day_is_not_flagged(app: LedgerApp) -> None:
    simulate(app, "high-card-flush", "HCF-1", 12, players=4, seed=5)
    col = hold_report(ReadModel(app), period(day=_day(app)))["tables"][0]["columns"][0]
    assert not col["dp"]["flagged"] and col["rake_variance_minor"] == 0
    assert col["dp"]["theoretical_minor"] != col["dp"]["result_minor"]  # never itself
