"""Refused commands: each has a stable code, and nothing changes (COM-3, COM-4, COM-7, CHP-*)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from ledger.domain.commands import Act, OpenTable, PlaceWager, UnseatPlayer
from ledger.domain.errors import InvalidInput, LedgerError, RuleViolation, StateConflict
from ledger.domain.records import HandSettled
from ledger.games.chinese import ChinesePoker
from ledger.games.registry import get_game
from ledger.table.state import TableState
from tests.unit.games.chinese import hands as h
from tests.unit.games.chinese.support import CODE, Table, full_deal, hand_of


def dealt() -> Table:
    t = Table({"card_source": "recorded"})
    t.seat(1)
    t.seat(2)
    t.start()
    t.deal(full_deal({1: hand_of(*h.DRAGON), 2: hand_of(*h.SIX_PAIRS)}))
    return t


def act(t: Table, **fields: Any) -> Callable[[], object]:
    return lambda: t.run(Act(command_id=t.id(), table=CODE, **fields))


def refused(t: Table, action: Callable[[], object], code: str,
            kind: type[LedgerError] = LedgerError) -> None:
    before = t.state.to_snapshot()
    with pytest.raises(kind) as err:
        action()
    assert err.value.code == code
    assert err.value.message
    assert t.state.to_snapshot() == before


def test_chp_2_a_set_gives_all_three_segments() -> None:
    t = dealt()
    front, middle, _ = hand_of(*h.DRAGON)
    refused(t, act(t, seat=1, action="set", front=front, middle=middle), "segments_required",
            InvalidInput)


def test_chp_2_unknown_action_is_refused() -> None:
    t = dealt()
    refused(t, act(t, seat=1, action="fold"), "unknown_action", RuleViolation)
    refused(t, act(t, seat=1, action="raise", amount=100), "unknown_action", RuleViolation)


def test_chp_2_setting_moves_no_chips() -> None:
    t = dealt()
    front, middle, back = hand_of(*h.DRAGON)
    refused(t, act(t, seat=1, action="set", front=front, middle=middle, back=back, amount=5),
            "amount_not_expected", InvalidInput)


def test_chp_7_a_declaration_names_a_win_and_carries_no_cards() -> None:
    t = dealt()
    t.set(1, hand_of(*h.DRAGON))
    refused(t, act(t, seat=1, action="declare"), "declaration_required", InvalidInput)
    front, middle, back = hand_of(*h.DRAGON)
    refused(t, act(t, seat=1, action="declare", declaration="dragon", front=front, middle=middle,
                   back=back), "segments_not_expected", InvalidInput)


def test_chp_8_there_are_no_wagers() -> None:
    t = dealt()
    refused(t, lambda: t.run(PlaceWager(command_id="w", table=CODE, seat=1, kind="ante",
                                        amount=100)), "no_wagers", RuleViolation)


def test_chp_3_nothing_is_set_before_the_deal_and_the_deal_happens_once() -> None:
    t = Table({"card_source": "recorded"})
    t.seat(1)
    t.seat(2)
    t.start()
    refused(t, lambda: t.set(1, hand_of(*h.DRAGON)), "not_allowed_now", RuleViolation)
    refused(t, t.reveal, "not_allowed_now", RuleViolation)
    t.deal(full_deal({}))
    refused(t, lambda: t.deal(full_deal({})), "not_allowed_now", RuleViolation)


def test_chp_8_a_hand_needs_two_players_with_chips() -> None:
    t = Table()
    t.seat(1)
    t.seat(2, buy=None)
    refused(t, t.start, "not_enough_players", StateConflict)


def test_com_6_leaving_before_the_deal_is_a_fold_too() -> None:
    t = Table({"card_source": "recorded"})
    for seat in (1, 2, 3):
        t.seat(seat)
    t.start()
    t.run(UnseatPlayer(command_id="bye", table=CODE, seat=3))
    t.deal(full_deal({1: hand_of(*h.G), 2: hand_of(*h.H)}))
    t.set(1, hand_of(*h.G))
    t.set(2, hand_of(*h.H))
    t.reveal()
    (record,) = t.settle()
    assert isinstance(record, HandSettled)
    assert sum(p.points for p in record.points if p.seat == 3) == -(6 + 6) - 6


@pytest.mark.parametrize(
    ("config", "field"),
    [
        ({"limits": {"ante": {"min": 1, "max": 2}}}, "limits"),
        ({"max_aggregate_payout": 1000}, "max_aggregate_payout"),
        ({"scoring": "open-face"}, "scoring"),
        ({"point_value": 0}, "point_value"),
        ({"fee": -1}, "fee"),
        ({"surprise": 1}, "surprise"),
    ],
)
def test_com_4_com_7_chp_4_chp_8_chp_11_invalid_settings_are_refused(
    config: dict[str, Any], field: str
) -> None:
    with pytest.raises(InvalidInput) as err:
        TableState.open(OpenTable(command_id="o", table=CODE, game="chinese-poker",
                                  config=config))
    assert err.value.code == "invalid_config"
    assert any(p["field"] == field for p in err.value.details["problems"])


def test_chp_4_chp_8_chp_11_defaults() -> None:
    opened = TableState.open(OpenTable(command_id="o", table=CODE, game="chinese-poker"))
    assert opened.config["scoring"] == "mandarin"
    assert opened.config["point_value"] == 100
    assert opened.config["fee"] == 0
    assert isinstance(get_game("chinese-poker"), ChinesePoker)
    assert get_game("chinese-poker").seats == range(1, 5)


def test_snapshot_round_trip_mid_hand_keeps_the_hand_and_the_memo() -> None:
    t = dealt()
    t.set(1, hand_of(*h.DRAGON), declaration="dragon")
    snapshot = t.state.to_snapshot()
    restored = TableState.from_snapshot(snapshot)
    assert restored.hand == t.state.hand
    assert restored.memo == t.state.memo
    assert restored.to_snapshot() == snapshot
