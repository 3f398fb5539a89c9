"""Seeded random players for Seven Card Stud Hi/Lo Eight or Better.

Each hand draws a table mood: most hands are played tight (weak starts fold on third street),
about one in six is a loose "family pot" where nearly everyone sees seventh street, so that
eight-handed tables reach the community card (STUD8-6). Within a hand a seat's decisions follow
a rough strength (pairs and better for high, low cards for the low) with randomness: strong
hands raise, middling hands call, weak hands fold to a bet; at the showdown a seat mucks a
hand beaten both ways by the hands already shown, and shows otherwise. Short stacks
(:func:`starting_stack`) make all-ins and side pots (STUD8-9) common.
"""

from __future__ import annotations

import random
from typing import Any

from ledger.domain.commands import Act, Command
from ledger.evaluation import high, low
from ledger.games.base import Option, Step, TableView
from ledger.games.stud8.model import StudConfig, StudHand, StudSeat
from ledger.sim.base import CommandIds


def starting_stack(config: StudConfig, rng: random.Random) -> int:
    """A buy-in for a simulated seat: usually 15 to 60 big bets, one in four a short stack of
    one to eight big bets (whole chips)."""
    big = config.big_bet
    if rng.random() < 0.25:
        amount = rng.randint(max(config.ante // big, 1), 8) * big - rng.randint(0, 3) * config.ante
    else:
        amount = rng.randint(15, 60) * big
    unit = config.chip_unit
    return max(amount // unit * unit, config.ante + unit)


def strength(seat: StudSeat, community: tuple[int, ...] = ()) -> float:
    """A rough 0..1 value of a seat's cards so far, high and low together."""
    cards = seat.cards + community
    if len(cards) >= 5:
        hi = high.category(high.evaluate(cards))
        hi_score = min(int(hi) / 4, 1.0)
        lo = low.evaluate_low8(cards)
        lo_score = 0.0 if lo is None else 0.4 + lo / 224 * 0.6
    else:
        value = high.evaluate_showing(cards)
        pairs = int(high.category(value))
        top = max(c >> 2 for c in cards)
        hi_score = min(pairs / 2 + (0.15 if top >= 10 else 0.0), 1.0)
        low_ranks = {c >> 2 for c in cards if (c >> 2) <= 6 or (c >> 2) == 12}
        lo_score = len(low_ranks) / len(cards) * 0.7
    return max(hi_score, lo_score)


class StudBot:
    """Seeded random but legal decisions for every step of a stud hi/lo hand."""

    def __init__(self, family_pot_rate: float = 0.17, open_pair_big_bet: bool = True) -> None:
        self.family_pot_rate = family_pot_rate
        self.open_pair_big_bet = open_pair_big_bet
        """Whether a seat may take the STUD8-3 big-bet option on fourth street."""
        self._hand_no = -1
        self._loose = False

    def choose(
        self, table: TableView, hand: Any, step: Step, rng: random.Random, ids: CommandIds
    ) -> Command | None:
        assert isinstance(hand, StudHand)
        if step.kind != "act":
            return None
        if hand.hand_no != self._hand_no:
            self._hand_no = hand.hand_no
            self._loose = rng.random() < self.family_pot_rate
        seat = hand.seat(step.seats[0])
        options = {o.action: o for o in step.options}
        if "show" in options:
            action = self._showdown(hand, seat, options, rng)
            return Act(command_id=ids.next(), table=ids.table, seat=seat.seat, action=action)
        action, amount = self._bet(hand, seat, options, rng)
        return Act(command_id=ids.next(), table=ids.table, seat=seat.seat, action=action,
                   amount=amount)

    def _bet(
        self, hand: StudHand, seat: StudSeat, options: dict[str, Option], rng: random.Random
    ) -> tuple[str, int | None]:
        value = strength(seat, hand.community)
        roll = rng.random()
        if "bring_in" in options:
            if "complete" in options and roll < 0.1 + value * 0.3:
                return "complete", None
            return "bring_in", None
        aggressive = next((a for a in ("bet", "raise", "complete") if a in options), None)
        if aggressive and roll < value * 0.45 + 0.03:
            option = options[aggressive]
            big = self.open_pair_big_bet and rng.random() < 0.5
            amount = option.max_amount if big else option.min_amount
            return aggressive, amount
        if "check" in options:
            return "check", None
        if self._loose:
            fold_rate = 0.02
        elif hand.street == 3:
            fold_rate = max(0.1, 0.85 - value * 1.3)  # most weak starts fold to the bring-in
        else:
            fold_rate = max(0.05, 0.55 - value)
        if hand.street >= 7 and not self._loose:
            fold_rate *= 0.5
        if rng.random() < fold_rate:
            return "fold", None
        return "call", None

    @staticmethod
    def _showdown(
        hand: StudHand, seat: StudSeat, options: dict[str, Option], rng: random.Random
    ) -> str:
        if "muck" not in options:
            return "show"
        shown = [s for s in hand.seats if s.showdown == "show"]
        cards = seat.cards + hand.community
        mine_high = high.evaluate(cards)
        mine_low = low.evaluate_low8(cards)
        best_high = max(high.evaluate(s.cards + hand.community) for s in shown)
        lows = [low.evaluate_low8(s.cards + hand.community) for s in shown]
        best_low = max((v for v in lows if v is not None), default=None)
        beaten_high = mine_high < best_high
        beaten_low = mine_low is None or (best_low is not None and mine_low < best_low)
        if beaten_high and beaten_low and rng.random() < 0.9:
            return "muck"
        return "show"
