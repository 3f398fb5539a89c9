"""The simulation loop shared by every game.

A :class:`Bot` plays the seats of one game: given what the hand waits for (a
:class:`~ledger.games.base.Step`), it picks a random but legal command. :func:`play_hand` drives
one hand through any executor (the pure :class:`~ledger.table.state.TableState` or the ledger
application), doing the dealer's part itself: deal, reveal, settle.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import count
from typing import Any, Protocol

from ledger.domain.commands import (
    Act,
    Command,
    DealCards,
    PlaceWager,
    Reveal,
    SeatPlayer,
    Settle,
    StartHand,
    UnseatPlayer,
)
from ledger.games.base import Step, TableView


class Bot(Protocol):
    def choose(
        self, table: TableView, hand: Any, step: Step, rng: random.Random, ids: CommandIds
    ) -> Command | None:
        """A legal command for ``step`` (kinds ``wager``, ``offer``, ``act``).

        For a ``wager`` step, None means the wagers are in and the table deals.
        """


class Executor(Protocol):
    """Something that runs commands on one table and shows its state."""

    def execute(self, command: Command) -> Any: ...

    def observe(self) -> tuple[TableView, Any, Step]:
        """The table, its hand (or None) and what the hand waits for."""
        ...


@dataclass
class CommandIds:
    """Makes command ids unique within a run: ``<prefix>-<n>``."""

    table: str
    prefix: str

    def __post_init__(self) -> None:
        self._n = count(1)

    def next(self) -> str:
        return f"{self.prefix}-{next(self._n)}"


MAX_COMMANDS_PER_HAND = 2_000


@dataclass
class Walkouts:
    """Players who get up in the middle of a hand (COM-6), whoever's turn it is.

    Before each step of a hand, with probability ``rate``, one player of the hand still at
    the table (drawn at random) leaves; :meth:`come_back` seats them again once the hand has
    ended. A rate of 0 draws nothing from the generator, so runs without walkouts are
    unchanged.
    """

    rate: float
    left: list[tuple[int, str]] = field(default_factory=list)

    def maybe_leave(self, table: TableView, hand: Any, rng: random.Random,
                    ids: CommandIds) -> UnseatPlayer | None:
        if self.rate <= 0 or rng.random() >= self.rate:
            return None
        present = [s for s in hand.participants() if s in table.seats]
        if not present:
            return None
        seat = rng.choice(present)
        self.left.append((seat, table.seats[seat]))
        return UnseatPlayer(command_id=ids.next(), table=ids.table, seat=seat,
                            reason="left during the hand")

    def come_back(self, executor: Executor, ids: CommandIds) -> None:
        """Seat the players who left again, each at its seat when it is free."""
        table, hand, _ = executor.observe()
        if hand is not None:
            return
        for seat, player in self.left:
            if seat not in table.seats and player not in table.seats.values():
                executor.execute(SeatPlayer(command_id=ids.next(), table=ids.table, seat=seat,
                                            player=player))
                table, _, _ = executor.observe()
        self.left.clear()


def play_hand(
    executor: Executor,
    bot: Bot,
    rng: random.Random,
    ids: CommandIds,
    *,
    recorded_cards: Callable[[TableView, Any], dict[str, tuple[int, ...]]] | None = None,
    walkouts: Walkouts | None = None,
) -> int:
    """Play one hand from start to end; returns the number of commands executed.

    ``recorded_cards`` supplies the cards for tables whose card source is ``recorded`` (a
    simulated card reader); ``rng`` tables deal from their own committed deck. ``walkouts``
    makes players leave during the hand now and then (COM-6).
    """
    executor.execute(StartHand(command_id=ids.next(), table=ids.table))
    commands = 1
    while True:
        table, hand, step = executor.observe()
        if hand is None or step.kind == "over":
            return commands
        command: Command | None
        leaving = walkouts.maybe_leave(table, hand, rng, ids) if walkouts else None
        if leaving is not None:
            command = leaving
        elif step.kind in ("wager", "offer", "act"):
            command = bot.choose(table, hand, step, rng, ids)
            while _for_departed(command, table):  # planned for a player who has left
                command = bot.choose(table, hand, step, rng, ids)
            if command is None and step.kind == "wager":
                command = _deal(table, hand, ids, recorded_cards)
            elif command is None:
                raise RuntimeError(f"bot gave no command for {step}")
        elif step.kind == "deal":
            command = _deal(table, hand, ids, recorded_cards)
        elif step.kind == "reveal":
            command = Reveal(command_id=ids.next(), table=ids.table)
        else:
            command = Settle(command_id=ids.next(), table=ids.table)
        executor.execute(command)
        commands += 1
        if commands > MAX_COMMANDS_PER_HAND:
            raise RuntimeError(f"hand did not end after {commands} commands; last step {step}")


def _for_departed(command: Command | None, table: TableView) -> bool:
    return isinstance(command, PlaceWager | Act) and command.seat in table.departed


def _deal(
    table: TableView,
    hand: Any,
    ids: CommandIds,
    recorded_cards: Callable[[TableView, Any], dict[str, tuple[int, ...]]] | None,
) -> DealCards:
    cards = None
    if table.config.card_source == "recorded":
        if recorded_cards is None:
            raise RuntimeError("a recorded-card table needs a card reader in the simulation")
        cards = recorded_cards(table, hand)
    return DealCards(command_id=ids.next(), table=ids.table, cards=cards)
