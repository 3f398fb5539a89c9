"""Seeded random players for High Card Flush Poker with a designated player (HCF-1..14)."""

from __future__ import annotations

import random
from typing import Any

from ledger.domain.commands import Act, Command, PlaceWager, Settle
from ledger.evaluation import hcf as ev
from ledger.games.base import Option, Step, TableView
from ledger.games.hcf import HcfConfig, HcfHand
from ledger.sim.base import CommandIds

ANTE_MULTIPLES = (1, 1, 1, 2, 2, 4, 10)


def top_up(table: TableView, seat: int) -> tuple[int, str] | None:
    """Between hands, a seat below the table's DP minimum bank (HCF-1) buys in twice that
    minimum: stacks stay near the minimum, so small DP banks and dead hands (HCF-12) occur."""
    config: HcfConfig = table.config
    if table.seat_stack(seat) >= config.dp_minimum_bank:
        return None
    return 2 * config.dp_minimum_bank, "buy_in"


class HcfBot:
    """Plays every seat of a High Card Flush table.

    - The seat offered the DP role accepts four times in five, declines otherwise (HCF-1); a
      seat whose stack is small compared with the table's Antes accepts just as readily, so DPs
      with little in the bank, and with them dead hands (HCF-12), occur.
    - Nine players in ten ante a random multiple of the minimum; about a third of those take
      each bonus wager, mostly at the minimum and now and then at the table maximum (HCF-2).
    - A player folds most 3-card-or-shorter flushes, raises a random legal amount up to the cap
      otherwise, and sometimes goes all in with the largest raise the stack allows (HCF-5).
    """

    def __init__(self, accept_rate: float = 0.8) -> None:
        self.accept_rate = accept_rate
        self._hand_no = -1
        self._queue: list[Command] = []

    def choose(
        self, table: TableView, hand: Any, step: Step, rng: random.Random, ids: CommandIds
    ) -> Command | None:
        assert isinstance(hand, HcfHand)
        if step.kind == "offer":
            action = "accept" if rng.random() < self.accept_rate else "decline"
            return Act(command_id=ids.next(), table=ids.table, seat=step.seats[0], action=action)
        if step.kind == "wager":
            if hand.hand_no != self._hand_no:
                self._hand_no = hand.hand_no
                self._queue = self._plan_wagers(table, hand, step, rng, ids)
            if self._queue:
                return self._queue.pop(0)
            if not hand.live:  # nobody could (or would) ante: close the hand unplayed
                return Settle(command_id=ids.next(), table=ids.table)
            return None
        return self._decide(table, hand, step, rng, ids)

    def _plan_wagers(
        self, table: TableView, hand: HcfHand, step: Step, rng: random.Random, ids: CommandIds
    ) -> list[Command]:
        config: HcfConfig = table.config
        options = {o.action: o for o in step.options}
        ante_opt = options["ante"]
        fee = config.rake.players_pay
        planned: list[Command] = []
        affordable: list[int] = []
        for number in step.seats:
            stack = table.seat_stack(number)
            ante = min(ante_opt.min_amount * rng.choice(ANTE_MULTIPLES), ante_opt.max_amount)
            while ante > ante_opt.min_amount and 2 * ante + fee > stack:
                ante = max(ante // 2, ante_opt.min_amount)
            if 2 * ante + fee > stack:
                continue
            affordable.append(number)
            if rng.random() >= 0.9:
                continue
            planned.append(self._wager(ids, number, "ante", ante))
            left = stack - 2 * ante - fee
            for kind in ("straight_flush_bonus", "flush_bonus"):
                opt = options.get(kind)
                if opt is None or rng.random() >= 0.35:
                    continue
                amount = opt.max_amount if rng.random() < 0.1 else opt.min_amount
                amount = min(amount * rng.choice((1, 1, 2, 5)), opt.max_amount, left)
                if amount >= opt.min_amount:
                    planned.append(self._wager(ids, number, kind, amount))
                    left -= amount
        if not planned and affordable:  # keep the hand going: someone antes the minimum
            planned.append(self._wager(ids, rng.choice(affordable), "ante", ante_opt.min_amount))
        return planned

    @staticmethod
    def _wager(ids: CommandIds, seat: int, kind: str, amount: int) -> PlaceWager:
        return PlaceWager(command_id=ids.next(), table=ids.table, seat=seat, kind=kind,
                          amount=amount)

    @staticmethod
    def _decide(
        table: TableView, hand: HcfHand, step: Step, rng: random.Random, ids: CommandIds
    ) -> Command:
        seat = hand.seat(step.seats[0])
        raise_opt: Option | None = next((o for o in step.options if o.action == "raise"), None)
        flush = ev.flush(seat.cards)
        weak = flush.length <= 2 or (flush.length == 3 and flush.ranks[0] < 10)
        fold = raise_opt is None or (weak and rng.random() < 0.75) or rng.random() < 0.05
        if fold or raise_opt is None:
            return Act(command_id=ids.next(), table=ids.table, seat=seat.seat, action="fold")
        low, high = raise_opt.min_amount, raise_opt.max_amount
        amount = high if rng.random() < 0.3 else rng.randint(low, high)
        return Act(command_id=ids.next(), table=ids.table, seat=seat.seat, action="raise",
                   amount=amount)
