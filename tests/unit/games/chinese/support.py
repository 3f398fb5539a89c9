"""Helpers for the Chinese Poker tests: hands from text, scripted tables, a pure executor."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ledger.domain.cards import FULL_DECK, parse_cards
from ledger.domain.commands import (
    Act,
    BuyIn,
    CashOut,
    Command,
    DealCards,
    OpenTable,
    Reveal,
    SeatPlayer,
    Settle,
    StartHand,
)
from ledger.domain.records import Record
from ledger.games.base import Step, TableView
from ledger.games.chinese import ChineseConfig, ChineseHand, ChineseSeat
from ledger.table.dealing import OpenDeckKeeper
from ledger.table.state import TableState

CODE = "CHP1"


def seg(text: str) -> tuple[int, ...]:
    return parse_cards(text)


def hand_of(front: str, middle: str, back: str) -> tuple[tuple[int, ...], ...]:
    return seg(front), seg(middle), seg(back)


def seat_of(number: int, front: str, middle: str, back: str, *, declaration: str | None = None,
            stake: int = 10_000, player: str | None = None) -> ChineseSeat:
    """A seat that has set ``front``/``middle``/``back`` (its cards are exactly those)."""
    segments = hand_of(front, middle, back)
    return ChineseSeat(
        seat=number, player=player or f"p{number}", stake=stake,
        cards=tuple(c for s in segments for c in s), segments=segments, declaration=declaration,
    )


def opened(config: Mapping[str, Any] | None = None) -> TableState:
    return TableState(TableState.open(OpenTable(
        command_id="open", table=CODE, game="chinese-poker", config=dict(config or {}),
    )))


class Table:
    """A scripted table: a TableState, a keeper and command ids."""

    def __init__(self, config: Mapping[str, Any] | None = None,
                 decks: Iterable[Sequence[int]] | None = None) -> None:
        self.opened = TableState.open(OpenTable(
            command_id="open", table=CODE, game="chinese-poker", config=dict(config or {}),
        ))
        self.state = TableState(self.opened)
        self.log: list[Record] = []
        """Every record appended since the opening, in order (for replays)."""
        self.keeper = OpenDeckKeeper(decks)
        self._n = 0

    def id(self) -> str:
        self._n += 1
        return f"c{self._n}"

    def run(self, command: Command) -> list[Record]:
        records = self.state.execute(command, self.keeper)
        self.log.extend(records)
        return records

    def replayed(self) -> TableState:
        """A new table state rebuilt from the opening and every record appended since."""
        state = TableState(self.opened)
        for record in self.log:
            state.apply(record)
        return state

    def seat(self, seat: int, player: str | None = None, buy: int | None = 2_000,
             kind: str = "buy_in") -> None:
        self.run(SeatPlayer(command_id=self.id(), table=CODE, seat=seat,
                            player=player or f"p{seat}"))
        if buy:
            self.buy(seat, buy, kind)

    def buy(self, seat: int, amount: int, kind: str = "buy_in") -> list[Record]:
        return self.run(BuyIn(command_id=self.id(), table=CODE, seat=seat, amount=amount,
                              kind=kind))

    def cash_out(self, seat: int, amount: int) -> list[Record]:
        return self.run(CashOut(command_id=self.id(), table=CODE, seat=seat, amount=amount))

    def start(self) -> list[Record]:
        return self.run(StartHand(command_id=self.id(), table=CODE))

    def deal(self, cards: Mapping[int, Sequence[int]] | None = None) -> list[Record]:
        given = None if cards is None else {str(k): tuple(v) for k, v in cards.items()}
        return self.run(DealCards(command_id=self.id(), table=CODE, cards=given))

    def set(self, seat: int, segments: Sequence[Sequence[int]],
            declaration: str | None = None) -> list[Record]:
        front, middle, back = (tuple(s) for s in segments)
        return self.run(Act(command_id=self.id(), table=CODE, seat=seat, action="set",
                            front=front, middle=middle, back=back, declaration=declaration))

    def declare(self, seat: int, declaration: str) -> list[Record]:
        return self.run(Act(command_id=self.id(), table=CODE, seat=seat, action="declare",
                            declaration=declaration))

    def reveal(self) -> list[Record]:
        return self.run(Reveal(command_id=self.id(), table=CODE))

    def settle(self) -> list[Record]:
        return self.run(Settle(command_id=self.id(), table=CODE))

    @property
    def hand(self) -> ChineseHand:
        assert isinstance(self.state.hand, ChineseHand)
        return self.state.hand

    @property
    def config(self) -> ChineseConfig:
        assert isinstance(self.state.config, ChineseConfig)
        return self.state.config

    def stack(self, seat_or_player: int | str) -> int:
        player = (self.state.seats[seat_or_player] if isinstance(seat_or_player, int)
                  else seat_or_player)
        return self.state.balances.get(f"player:{player}", 0)


def full_deal(hands: Mapping[int, Sequence[Sequence[int]]]) -> dict[int, tuple[int, ...]]:
    """Cards for all four seats: the given hands (segments), the rest of the deck elsewhere."""
    dealt = {seat: tuple(c for s in segments for c in s) for seat, segments in hands.items()}
    used = {c for cards in dealt.values() for c in cards}
    rest = [c for c in FULL_DECK if c not in used]
    for seat in range(1, 5):
        if seat not in dealt:
            dealt[seat], rest = tuple(rest[:13]), rest[13:]
    return dealt


def arranged_deck(button: int, hands: Mapping[int, Sequence[int]]) -> tuple[int, ...]:
    """A deck whose round-robin deal from left of ``button`` gives each seat its 13 cards."""
    order = [(button + i) % 4 + 1 for i in range(4)]
    deck: list[int] = []
    for k in range(13):
        deck.extend(hands[seat][k] for seat in order)
    return tuple(deck)


class PureExecutor:
    """The simulation's Executor over a TableState, keeping every record it appended."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self.records: list[Record] = []
        self.before_settle: list[tuple[ChineseConfig, ChineseHand]] = []

    def execute(self, command: Command) -> list[Record]:
        if isinstance(command, Settle) and self.table.state.hand is not None:
            self.before_settle.append((self.table.config, self.table.state.hand))
        records = self.table.run(command)
        self.records.extend(records)
        return records

    def observe(self) -> tuple[TableView, Any, Step]:
        state = self.table.state
        return state.view(), state.hand, state.next_step()
