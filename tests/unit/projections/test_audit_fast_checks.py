"""Checks of the audit moved to faster paths still fire: the command behind a group is
validated once for each set of inputs (never kept when it fails: ``out_of_bounds``), records
are compared field by field without pydantic's equality (every difference still reported),
and each account name is matched once (``transfer_invalid`` still reported every time)."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from ledger.domain import records as r
from ledger.domain.bounds import MAX_AMOUNT
from ledger.domain.commands import Act, DealCards, PlaceWager
from projections.audit.checks import Conservation
from projections.audit.commands import command_for
from projections.audit.compare import compare_one, same_values

MOVE = r.Transfer(src="player:p1", dst="spot:1:pot", amount=10, rule="STUD8-2")


def _acted(amount: int, seat: int = 1) -> r.PlayerActed:
    move = MOVE.model_copy(update={"amount": amount}) if amount else None
    return r.PlayerActed(hand_no=1, seat=seat, action="call" if amount else "check",
                         amount=amount, transfers=(move,) if move else (), rule="STUD8-2")


def test_a_command_is_validated_once_for_each_set_of_inputs() -> None:
    first = command_for("T-FAST", [_acted(10)])
    assert isinstance(first, Act) and first.amount == 10
    assert command_for("T-FAST", [_acted(10)]) is first  # kept
    assert command_for("T-FAST", [_acted(20)]) == Act(command_id="audit", table="T-FAST",
                                                      seat=1, action="call", amount=20)
    assert command_for("T-OTHER", [_acted(10)]) is not first  # the table is an input
    # unhashable inputs (a device's cards) are validated each time, and still work
    dealt = r.CardsDealt(hand_no=1, round="third_street",
                         dealt=(r.Dealt(target=1, down=(0, 1), up=(2,)),))
    deal = command_for("T-FAST", [dealt], recorded_source=True)
    assert isinstance(deal, DealCards) and deal.cards == {"1": (0, 1, 2)}
    assert command_for("T-FAST", [dealt], recorded_source=True) is not deal


def test_a_command_out_of_bounds_is_refused_every_time() -> None:
    """What ``out_of_bounds`` rests on (ledger.domain.bounds): a failure is never kept, so the same
    unbounded inputs are refused each time, before and after a valid command was kept."""
    wager = r.WagerPlaced.model_construct(hand_no=1, seat=1, kind="ante",
                                          amount=MAX_AMOUNT + 1, transfers=(), rule=None)
    good = r.WagerPlaced(hand_no=1, seat=1, kind="ante", amount=10, transfers=(MOVE,))
    for _ in range(2):
        with pytest.raises(ValidationError):
            command_for("T-BOUNDS", [wager])
        assert isinstance(command_for("T-BOUNDS", [good]), PlaceWager)


def _differences(want: r.Record, got: r.Record) -> list[tuple[str, Any, Any, str | None]]:
    found: list[tuple[str, Any, Any, str | None]] = []
    compare_one(want, got, lambda *item: found.append(item))
    return found


def test_every_difference_in_a_record_is_still_reported() -> None:
    want = _acted(10)
    assert same_values(want, _acted(10)) and _differences(want, _acted(10)) == []
    other_rule = want.model_copy(update={"transfers": (MOVE.model_copy(
        update={"rule": "STUD8-5"}),)})
    two_moves = want.model_copy(update={"transfers": (MOVE, MOVE)})
    no_move = want.model_copy(update={"transfers": ()})
    other_seat = want.model_copy(update={"seat": 2})
    segments = want.model_copy(update={"segments": ((1, 2, 3), (4, 5, 6, 7, 8),
                                                     (9, 10, 11, 12, 13))})
    for changed, kind in ((other_rule, "transfer"), (two_moves, "transfer"),
                          (no_move, "transfer"), (other_seat, "action"),
                          (segments, "action")):
        assert not same_values(want, changed)
        assert kind in [d[0] for d in _differences(want, changed)], changed
    # the same values in another order of the tuple are not the same record
    a, b = MOVE, MOVE.model_copy(update={"dst": "spot:2:pot"})
    assert not same_values(want.model_copy(update={"transfers": (a, b)}),
                           want.model_copy(update={"transfers": (b, a)}))


def test_a_malformed_account_is_reported_each_time_it_appears() -> None:
    found: list[tuple[str, Any]] = []
    check = Conservation(lambda kind, hand, want, got, rule: found.append((kind, got)))
    bad = r.Transfer.model_construct(src="player:p1", dst="nowhere", amount=10, rule=None)
    for version in (1, 2, 3):
        check.event(r.PlayerActed(hand_no=1, seat=1, action="call", amount=10,
                                  transfers=(MOVE,)), version)
        check.event(r.PlayerActed.model_construct(hand_no=1, seat=1, action="call", amount=10,
                                                  transfers=(bad,)), version)
    assert [(k, g["version"]) for k, g in found] == [("transfer_invalid", v) for v in (1, 2, 3)]
