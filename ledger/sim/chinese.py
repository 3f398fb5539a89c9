"""Seeded random players for Chinese Poker.

Each player sets a legal hand most of the time (the quick greedy set three times in four, a
random legal one otherwise), fouls on purpose now and then (out of order or wrong sizes, CHP-3),
and declares an automatic win when it holds one, nine times in ten (CHP-7), either with the set
or in its own act right after. Now and then a player leaves before setting (COM-6: a fouled
hand) when more than two are seated, and a newcomer sits down at a free seat and buys in, so
tables of two to four players come and go. :func:`top_up` is the buy-in policy between hands:
a player below three points buys in again, with a short buy when one is allowed (CHP-8) two
times in three, so short stacks are common and table stakes bite.
"""

from __future__ import annotations

import random
from typing import Any

from ledger.domain.commands import Act, BuyIn, Command, SeatPlayer, UnseatPlayer
from ledger.games.base import Step, TableView
from ledger.games.chinese import ChineseConfig, ChineseHand, ChineseMemo
from ledger.games.chinese.config import BUY_IN, BUY_IN_POINTS, SHORT_BUY
from ledger.games.chinese.hand import SEATS
from ledger.sim import chinese_arrange as arrange
from ledger.sim.base import CommandIds


class ChineseBot:
    """Random but legal Chinese Poker players; the rates are per decision."""

    def __init__(
        self,
        foul_rate: float = 0.07,
        declare_rate: float = 0.9,
        leave_rate: float = 0.01,
        arrive_rate: float = 0.02,
    ) -> None:
        self.foul_rate = foul_rate
        self.declare_rate = declare_rate
        self.leave_rate = leave_rate
        self.arrive_rate = arrive_rate
        self._hand_no = -1
        self._queue: list[Command] = []

    def choose(
        self, table: TableView, hand: Any, step: Step, rng: random.Random, ids: CommandIds
    ) -> Command | None:
        assert isinstance(hand, ChineseHand)
        if hand.hand_no != self._hand_no:
            self._hand_no, self._queue = hand.hand_no, []
        if self._queue:
            return self._queue.pop(0)
        if step.kind != "act":
            return None
        free = [s for s in SEATS if s not in table.seats and s not in hand.participants()]
        if free and rng.random() < self.arrive_rate:
            return self._arrive(table, rng.choice(free), ids)
        if len(table.seats) > 2 and rng.random() < self.leave_rate:
            return UnseatPlayer(command_id=ids.next(), table=ids.table,
                                seat=rng.choice(step.seats), reason="left during the hand")
        return self._set(hand, rng.choice(step.seats), len(step.seats) > 1, rng, ids)

    def _arrive(self, table: TableView, seat: int, ids: CommandIds) -> Command:
        player = f"guest-{ids.next()}"
        config: ChineseConfig = table.config
        self._queue.append(BuyIn(command_id=ids.next(), table=ids.table, seat=seat,
                                 amount=config.buy_in_amount, kind=BUY_IN))
        return SeatPlayer(command_id=ids.next(), table=ids.table, seat=seat, player=player)

    def _set(self, hand: ChineseHand, seat: int, others_waiting: bool, rng: random.Random,
             ids: CommandIds) -> Command:
        cards = hand.seat(seat).cards
        declaration: str | None = None
        found = arrange.automatic(cards)
        segments: tuple[tuple[int, ...], ...]
        if found is not None and rng.random() < self.declare_rate:
            win, segments = found
            declaration = win.value
        elif rng.random() < self.foul_rate:
            segments = arrange.fouled(cards, rng)
        elif rng.random() < 0.75:
            segments = arrange.greedy(cards)
        else:
            segments = arrange.random_legal(cards, rng)
        front, middle, back = segments
        separately = declaration is not None and others_waiting and rng.random() < 0.5
        if separately:
            self._queue.append(Act(command_id=ids.next(), table=ids.table, seat=seat,
                                   action="declare", declaration=declaration))
        return Act(command_id=ids.next(), table=ids.table, seat=seat, action="set",
                   front=front, middle=middle, back=back,
                   declaration=None if separately else declaration)


def top_up(table: TableView, seat: int) -> tuple[int, str] | None:
    """Chips a seat buys before a hand, as ``(amount, kind)``, or None (CHP-8).

    Below three points a player buys again: a short buy of 1 to 19 points (varied by hand
    and seat) when the last full buy-in still allows one and the hand number is not a multiple
    of three, else a full buy-in of 20 points.
    """
    config: ChineseConfig = table.config
    player = table.seats.get(seat)
    if player is None or table.stack(player) >= 3 * config.point_value + config.fee:
        return None
    memo = table.memo if isinstance(table.memo, ChineseMemo) else ChineseMemo()
    history = memo.buys.get(player)
    if history is not None and history.short_buy_open and table.hand_no % 3:
        points = 1 + (7 * table.hand_no + seat) % (BUY_IN_POINTS - 1)
        return points * config.point_value, SHORT_BUY
    return config.buy_in_amount, BUY_IN
