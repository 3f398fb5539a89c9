"""COM-6 at the showdown of Seven Card Stud Hi/Lo: a seat that has shown or mucked has made
its last decision, so leaving then folds nothing: folding the only hand shown after the
others mucked left no hand contesting the pots, and the settlement left them on the spots."""

from __future__ import annotations

from typing import cast

from ledger.games.base import TableView
from ledger.games.stud8.game import StudHiLo
from ledger.games.stud8.model import StudHand, StudSeat


def test_a_seat_that_showed_or_mucked_folds_nothing_when_it_leaves() -> None:
    hand = StudHand(hand_no=1, street=7, seats=(
        StudSeat(seat=2, player="p2", contributed=500, showdown="muck"),
        StudSeat(seat=3, player="p3", contributed=500, showdown="show"),
        StudSeat(seat=4, player="p4", contributed=500),
    ))
    game, table = StudHiLo(), cast(TableView, None)
    assert game.fold_out(table, hand, 3) == []
    assert game.fold_out(table, hand, 2) == []
    assert [r.action for r in game.fold_out(table, hand, 4)] == ["fold"]  # type: ignore[attr-defined]

