"""The betting round and the live seats a stud hand keeps (advanced one action at a time as
the hand evolves) are exactly what replaying the street from its start gives, at every step of
random hands, players leaving out of turn too (COM-6); and the cheap copies of the state
machine make the very values pydantic would make."""

from __future__ import annotations

import random
from dataclasses import fields
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ledger.domain.commands import Command
from ledger.domain.errors import LedgerError
from ledger.domain.frozen import replaced
from ledger.domain.records import CardsDealt, HandSettled, HandStarted, Record
from ledger.games.base import TableView
from ledger.games.stud8 import betting
from ledger.games.stud8.game import behind, stage
from ledger.games.stud8.model import StudConfig, StudHand, StudSeat
from ledger.sim.base import CommandIds, Walkouts, play_hand
from ledger.sim.stud8 import StudBot, starting_stack
from ledger.table.state import TableState

from .helpers import TABLE, Executor, open_table, seeded_decks


class ComparingExecutor(Executor):
    """After every command, compares what the hand keeps with a replay from scratch."""

    def __init__(self, inner: Executor) -> None:
        super().__init__(inner.state, inner.keeper)
        self.records = inner.records
        self.kept = 0

    def execute(self, command: Command) -> list[Record]:
        records = super().execute(command)
        self.compare(self.state)
        return records

    def compare(self, state: TableState) -> None:
        hand = state.hand
        if not isinstance(hand, StudHand) or hand.street == 0:
            return
        config = state.config
        assert isinstance(config, StudConfig)
        fresh = hand.model_copy()  # a copy keeps nothing: everything is replayed
        assert fresh == hand
        if betting._known(hand, config) is not None:
            self.kept += 1
        assert betting.round_state(hand, config) == betting.round_state(fresh, config)
        assert hand.live == tuple(s for s in fresh.seats if s.folded_on is None)
        view = state.view()
        assert stage(config, hand, behind(view, hand)) == stage(config, fresh,
                                                                behind(view, fresh))
        assert state.next_step() == self._fresh_step(state, fresh)

    @staticmethod
    def _fresh_step(state: TableState, fresh: StudHand) -> Any:
        kept = state.hand
        state.hand = fresh
        try:
            return state.next_step()
        finally:
            state.hand = kept


def session(seed: int, players: int, config: dict[str, Any],
            leave_rate: float) -> ComparingExecutor:
    rng = random.Random(seed)
    cfg = StudConfig(**config)
    ex = ComparingExecutor(open_table(
        {s: starting_stack(cfg, rng) for s in range(1, players + 1)}, config,
        seeded_decks(random.Random(seed))))
    bot = StudBot()
    ids = CommandIds(TABLE, f"k{seed}")
    walkouts = Walkouts(leave_rate)
    for _ in range(4):
        try:
            play_hand(ex, bot, rng, ids, walkouts=walkouts)
        except LedgerError as exc:
            assert exc.code == "not_enough_players"
            break
        walkouts.come_back(ex, ids)
    return ex


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32 - 1),
    players=st.integers(2, 8),
    max_raises=st.sampled_from([3, 1, None]),
    heads_up_unlimited=st.booleans(),
    leave_rate=st.sampled_from([0.0, 0.02, 0.1]),
)
def test_the_kept_round_is_the_replayed_round(seed: int, players: int, max_raises: int | None,
                                              heads_up_unlimited: bool,
                                              leave_rate: float) -> None:
    session(seed, players, {"max_raises": max_raises, "heads_up_unlimited": heads_up_unlimited},
            leave_rate)


def test_the_rounds_are_advanced_not_only_replayed() -> None:
    kept = sum(session(seed, 2 + seed % 7, {}, 0.02).kept for seed in range(6))
    assert kept > 50


def test_hands_everyone_else_left_before_the_deal_settle_and_play_on() -> None:
    """COM-6, STUD8-11: heads-up sessions where players leave often reach hands that the other
    seat left after the antes, before the deal; each settles (won uncontested, not raked) and
    the session goes on to its next hand."""
    uncontested = 0
    for seed in range(10):
        dealt = False
        for record in session(seed, 2, {}, 0.1).records:
            if isinstance(record, HandStarted):
                dealt = False
            elif isinstance(record, CardsDealt):
                dealt = True
            elif isinstance(record, HandSettled) and not dealt:
                uncontested += 1
                assert record.rake == () and len(record.pots) == 1
                assert {o.rule for o in record.outcomes if o.wager == "pot0"} == {"STUD8-2"}
    assert uncontested >= 3


def test_replaced_is_model_copy_with_an_update() -> None:
    seat = StudSeat(seat=3, player="p3", up=(12,))
    ours = replaced(seat, contributed=400, folded_on=4)
    theirs = seat.model_copy(update={"contributed": 400, "folded_on": 4})
    assert ours == theirs
    assert list(ours.__dict__) == list(theirs.__dict__)
    assert ours.__pydantic_fields_set__ == theirs.__pydantic_fields_set__
    assert ours.model_dump_json() == theirs.model_dump_json()
    assert seat.contributed == 0 and seat.folded_on is None  # the original is unchanged


def test_the_table_view_is_the_one_its_constructor_makes() -> None:
    ex = open_table({1: 50_000, 2: 50_000})
    view = ex.state.view()
    made = TableView(**{f.name: getattr(view, f.name) for f in fields(TableView)})
    assert view == made
    assert list(vars(view)) == list(vars(made))
