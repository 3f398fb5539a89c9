"""Build and drive pure tables (no store) in a few lines."""

from __future__ import annotations

import itertools
from typing import Any

from ledger.domain import accounts
from ledger.domain.cards import parse_cards
from ledger.domain.commands import BuyIn, Command, DealCards, OpenTable, SeatPlayer
from ledger.domain.records import Record
from ledger.games.base import Step, TableView
from ledger.table.dealing import OpenDeckKeeper
from ledger.table.state import TableState

_ids = itertools.count(1)


def cid() -> str:
    return f"t-{next(_ids)}"


class PureTable:
    """A TableState with command helpers; every command goes through decide + apply."""

    def __init__(
        self,
        game: str,
        config: dict[str, Any] | None = None,
        players: dict[int, int] | None = None,
        code: str = "T1",
        keeper: OpenDeckKeeper | None = None,
    ) -> None:
        self.code = code
        self.keeper = keeper or OpenDeckKeeper()
        opened = TableState.open(
            OpenTable(command_id=cid(), table=code, game=game, config=config or {})
        )
        self.state = TableState(opened)
        self.records: list[Record] = [opened]
        self.hand_before: Any = None
        """The hand as it stood before the last command (e.g. before Settle)."""
        self.balances_before: dict[str, int] = {}
        for seat, chips in (players or {}).items():
            self.run(SeatPlayer(command_id=cid(), table=code, seat=seat, player=f"p{seat}"))
            if chips:
                self.run(BuyIn(command_id=cid(), table=code, seat=seat, amount=chips))

    def run(self, command: Command) -> list[Record]:
        self.hand_before = self.state.hand
        self.balances_before = dict(self.state.balances)
        records = self.state.execute(command, self.keeper)
        self.records.extend(records)
        return records

    def do(self, cls: type[Command], **fields: Any) -> list[Record]:
        return self.run(cls(command_id=cid(), table=self.code, **fields))

    def deal(self, **cards: str) -> list[Record]:
        """Recorded deal: ``deal(**{"1": "As Kd ...", "dealer": "..."})``."""
        return self.do(DealCards, cards={k: parse_cards(v) for k, v in cards.items()})

    def stack(self, seat: int) -> int:
        return self.state.balances.get(accounts.player(f"p{seat}"), 0)

    def balance(self, account: str) -> int:
        return self.state.balances.get(account, 0)

    def view(self) -> TableView:
        return self.state.view()

    def step(self) -> Step:
        return self.state.next_step()

    def observe(self) -> tuple[TableView, Any, Step]:
        return self.state.view(), self.state.hand, self.state.next_step()

    def execute(self, command: Command) -> list[Record]:
        return self.run(command)


def snapshot(state: TableState) -> dict[str, Any]:
    """Everything observable about a table's state (to prove a refused command changed nothing)."""
    return state.to_snapshot()
