"""``ledger audit hand`` without ``--all``: a decision shown once where the record and the rules
agree, only the differing lines side by side where they do not, a verdict per section."""

from __future__ import annotations

import json

from ledger.cli.handaudit import as_json, compact_lines, differences
from projections.audit.handreplay import HandReplay, Step
from projections.audit.model import Discrepancy


def _step(version: int, recorded: list[str], recomputed: list[str] | None,
          agrees: bool | None) -> Step:
    return Step(version=version, at="2026-03-14T21:05:13.5Z", event="HandSettled",
                command="settle", recorded=recorded, recomputed=recomputed,
                rules=["CSP-4"], agrees=agrees)


def test_only_the_stretches_that_differ() -> None:
    same = ["hand 1 settled", "seat 1 ante: win +10.00 1-1 [CSP-4]"]
    assert differences(same, list(same)) == [] and differences(same, None) == []
    assert differences([*same, "  house -> player:a 10.00"],
                       ["hand 1 settled", "seat 1 ante: lose -10.00 [CSP-4]",
                        "  house -> player:a 10.00"]) == [
        (["seat 1 ante: win +10.00 1-1 [CSP-4]"], ["seat 1 ante: lose -10.00 [CSP-4]"])]


def test_csp_4_a_differing_settlement_side_by_side_and_the_verdicts() -> None:
    replay = HandReplay(table="CSP-1", hand_no=7, game="caribbean-stud", currency="EUR",
                        timezone="Europe/Amsterdam")
    replay.steps = [
        _step(40, ["seat 1 wagers ante 10.00 [CSP-1]", "  player:a -> spot:1:ante 10.00"],
              ["seat 1 wagers ante 10.00 [CSP-1]", "  player:a -> spot:1:ante 10.00"], True),
        _step(41, ["hand 7 settled", "seat 1 ante: win +10.00 1-1 [CSP-4]"],
              ["hand 7 settled", "seat 1 ante: lose -10.00 [CSP-4]"], False),
    ]
    replay.discrepancies = [Discrepancy(table="CSP-1", hand=7, kind="outcome", expected="lose",
                                        recorded="win", rule="CSP-4")]
    text = compact_lines(replay, 120)
    assert "21:05:13Z (22:05:13 Europe/Amsterdam)" in text[2]
    assert text[3] == "     seat 1 wagers ante 10.00 [CSP-1]"  # once; no chip movement
    assert not any("player:a -> spot" in line for line in text)
    assert "** DIFFERS **" in text[4] and "hand 7 settled" not in "\n".join(text[5:7])
    assert text[6].startswith("     seat 1 ante: win +10.00") and \
        text[6].endswith("| seat 1 ante: lose -10.00 [CSP-4]")
    assert "decisions: 2 events recomputed by the rules in force, 1 DIFFER (v41)" in text
    assert "discrepancies: 1" in text and text[-1] == \
        "the record differs from the rules (see above)"
    data = json.loads(as_json(replay, None, {"CSP-4": "..."}))
    assert data["ok"] is False and data["steps"][0]["differences"] == []
    assert data["steps"][1]["differences"] == [{
        "recorded": ["seat 1 ante: win +10.00 1-1 [CSP-4]"],
        "recomputed": ["seat 1 ante: lose -10.00 [CSP-4]"]}]
