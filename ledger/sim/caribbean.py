"""Seeded random players for CyberCaribbean Stud Poker."""

from __future__ import annotations

import random
from typing import Any

from ledger.domain.commands import Act, Command, PlaceWager, Settle
from ledger.evaluation import caribbean as csp
from ledger.evaluation import high
from ledger.games.base import Step, TableView
from ledger.games.caribbean import CaribbeanHand
from ledger.sim.base import CommandIds


class CaribbeanBot:
    """Each hand, nine seats in ten ante a random multiple of the minimum and half of those take
    the jackpot wager; a seat plays any hand the dealer would qualify with (A-K or better) and
    one other hand in five, so folds happen too."""

    def __init__(self) -> None:
        self._hand_no = -1
        self._queue: list[PlaceWager] = []

    def choose(
        self, table: TableView, hand: Any, step: Step, rng: random.Random, ids: CommandIds
    ) -> Command | None:
        assert isinstance(hand, CaribbeanHand)
        if step.kind == "wager":
            if hand.hand_no != self._hand_no:
                self._hand_no = hand.hand_no
                self._queue = self._plan_wagers(table, hand, step, rng, ids)
            if self._queue:
                return self._queue.pop(0)
            if not hand.standing:  # every Ante left with its player (COM-6), or none came
                return Settle(command_id=ids.next(), table=ids.table)
            return None
        seat = hand.seat(step.seats[0])
        good = csp.dealer_qualifies(high.evaluate(seat.cards))
        can_play = table.seat_stack(seat.seat) >= 2 * seat.ante
        action = "play" if can_play and (good or rng.random() < 0.2) else "fold"
        return Act(command_id=ids.next(), table=ids.table, seat=seat.seat, action=action)

    @staticmethod
    def _plan_wagers(
        table: TableView, hand: CaribbeanHand, step: Step, rng: random.Random, ids: CommandIds
    ) -> list[PlaceWager]:
        ante_opt = next(o for o in step.options if o.action == "ante")
        jackpot_opt = next((o for o in step.options if o.action == "jackpot"), None)
        planned: list[PlaceWager] = []
        for s in hand.seats:
            if s.seat not in step.seats:  # its player has left (COM-6)
                continue
            stack = table.seat_stack(s.seat)
            ante = min(ante_opt.min_amount * rng.choice((1, 1, 2, 4)), ante_opt.max_amount)
            if stack < 3 * ante:
                ante = ante_opt.min_amount
            sits_out = rng.random() >= 0.9 and (planned or s is not hand.seats[-1])
            if stack < 3 * ante or sits_out:
                continue
            planned.append(
                PlaceWager(
                    command_id=ids.next(), table=ids.table, seat=s.seat, kind="ante", amount=ante
                )
            )
            if jackpot_opt and stack >= 3 * ante + jackpot_opt.min_amount and rng.random() < 0.5:
                planned.append(
                    PlaceWager(
                        command_id=ids.next(),
                        table=ids.table,
                        seat=s.seat,
                        kind="jackpot",
                        amount=jackpot_opt.min_amount,
                    )
                )
        return planned
