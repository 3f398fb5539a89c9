"""A pure executor over TableState and table set-up helpers for the stud hi/lo tests."""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from ledger.domain import accounts
from ledger.domain.cards import parse_cards
from ledger.domain.commands import (
    Act,
    BuyIn,
    Command,
    DealCards,
    OpenTable,
    SeatPlayer,
    Settle,
    StartHand,
)
from ledger.domain.records import Record
from ledger.games.base import Step, TableView
from ledger.games.stud8.model import StudConfig
from ledger.table.dealing import OpenDeckKeeper
from ledger.table.state import TableState

TABLE = "STUD1"

# Cards reported for a street: "Ah Kh 2d" per seat number, or per "community" (STUD8-6).
StreetCards = Mapping[int, str] | Mapping[str, str] | Mapping[int | str, str]


class Executor:
    """Runs commands on a pure TableState and keeps every record (the sim's Executor)."""

    def __init__(self, state: TableState, keeper: OpenDeckKeeper | None = None) -> None:
        self.state = state
        self.keeper = keeper or OpenDeckKeeper()
        self.records: list[Record] = []
        self.cage_out = 0

    def execute(self, command: Command) -> list[Record]:
        records = self.state.execute(command, self.keeper)
        self.records.extend(records)
        return records

    def observe(self) -> tuple[TableView, Any, Step]:
        return self.state.view(), self.state.hand, self.state.next_step()

    @property
    def config(self) -> StudConfig:
        config = self.state.config
        assert isinstance(config, StudConfig)
        return config


_ids = iter(range(1, 10**9))


def cid() -> str:
    return f"c{next(_ids)}"


def open_table(
    stacks: dict[int, int], config: dict[str, Any] | None = None,
    decks: Iterable[Sequence[int]] | None = None,
) -> Executor:
    opened = TableState.open(OpenTable(command_id=cid(), table=TABLE, game="stud-hilo",
                                       config=config or {}))
    ex = Executor(TableState(opened), OpenDeckKeeper(decks) if decks is not None else None)
    ex.records.append(opened)
    for seat, stack in stacks.items():
        ex.execute(SeatPlayer(command_id=cid(), table=TABLE, seat=seat, player=f"p{seat}"))
        if stack:
            ex.execute(BuyIn(command_id=cid(), table=TABLE, seat=seat, amount=stack))
    return ex


def start(ex: Executor) -> list[Record]:
    return ex.execute(StartHand(command_id=cid(), table=TABLE))


def deal(ex: Executor, cards: StreetCards | None = None) -> list[Record]:
    given = None if cards is None else {str(k): parse_cards(v) for k, v in cards.items()}
    return ex.execute(DealCards(command_id=cid(), table=TABLE, cards=given))


def act(ex: Executor, seat: int, action: str, amount: int | None = None) -> list[Record]:
    return ex.execute(Act(command_id=cid(), table=TABLE, seat=seat, action=action, amount=amount))


def settle(ex: Executor) -> list[Record]:
    return ex.execute(Settle(command_id=cid(), table=TABLE))


def stack(ex: Executor, seat: int) -> int:
    return ex.state.balances.get(accounts.player(f"p{seat}"), 0)


def arranged_deck(per_seat: dict[int, str], community: str = "") -> list[int]:
    """A deck that deals ``per_seat`` cards (in street order: 2 down, 1 up, 3 up, 1 down) to the
    seats, all seats staying in every street; the rest of the deck follows in order."""
    seats = sorted(per_seat)
    cards = {s: list(parse_cards(per_seat[s])) for s in seats}
    order: list[int] = []
    for k in range(3):  # third street, round-robin
        order.extend(cards[s][k] for s in seats)
    for k in range(3, 7):
        order.extend(cards[s][k] for s in seats if len(cards[s]) > k)
    order.extend(parse_cards(community))
    rest = [c for c in range(52) if c not in order]
    random.Random(7).shuffle(rest)
    return order + rest


def recorded_table(stacks: dict[int, int], **config: Any) -> Executor:
    """A table whose device reports every card (COM-8), started and anted (STUD8-1)."""
    ex = open_table(stacks, {"card_source": "recorded", **config})
    start(ex)
    return ex


def snapshot(ex: Executor) -> dict[str, Any]:
    return ex.state.to_snapshot()


def step(ex: Executor) -> Step:
    return ex.state.next_step()


def settled(ex: Executor) -> Any:
    from ledger.domain.records import HandSettled

    return next(r for r in reversed(ex.records) if isinstance(r, HandSettled))


def passive(ex: Executor) -> None:
    """Everyone brings in, calls or checks until the table must deal, show or settle."""
    while True:
        now = step(ex)
        if now.kind != "act" or now.note == "showdown (STUD8-10)":
            return
        actions = {o.action for o in now.options}
        choice = next(a for a in ("bring_in", "check", "call") if a in actions)
        act(ex, now.seats[0], choice)


def show_down(ex: Executor, mucks: Sequence[int] = ()) -> None:
    """Every seat at the showdown shows, except ``mucks``."""
    while step(ex).note == "showdown (STUD8-10)":
        seat = step(ex).seats[0]
        act(ex, seat, "muck" if seat in mucks else "show")


def play_streets(ex: Executor, streets: Sequence[StreetCards]) -> None:
    """Deal each street's cards and play it passively."""
    for cards in streets:
        deal(ex, cards)
        passive(ex)


def seeded_decks(rng: random.Random) -> Iterator[list[int]]:
    """Deck orders drawn from ``rng``, so a seeded session deals the same cards every run."""
    while True:
        deck = list(range(52))
        rng.shuffle(deck)
        yield deck
