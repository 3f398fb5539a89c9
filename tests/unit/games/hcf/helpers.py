"""Scripted High Card Flush tables on the pure table state machine (no event store)."""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ledger.domain import accounts
from ledger.domain.cards import parse_cards
from ledger.domain.commands import (
    Act,
    BuyIn,
    Command,
    DealCards,
    OpenTable,
    PlaceWager,
    Reveal,
    SeatPlayer,
    Settle,
    StartHand,
    UnseatPlayer,
)
from ledger.domain.records import HandSettled, Record
from ledger.games.base import Step, TableView
from ledger.games.hcf import HcfConfig, HcfHand
from ledger.table.dealing import OpenDeckKeeper
from ledger.table.state import TableState

TABLE = "HCF1"


class PureExecutor:
    """The simulation's Executor over a TableState (``ledger.sim.base.play_hand``)."""

    def __init__(self, state: TableState, keeper: OpenDeckKeeper) -> None:
        self.state = state
        self.keeper = keeper
        self.log: list[Record] = []

    def execute(self, command: Command) -> list[Record]:
        records = self.state.execute(command, self.keeper)
        self.log.extend(records)
        return records

    def observe(self) -> tuple[TableView, Any, Step]:
        return self.state.view(), self.state.hand, self.state.next_step()


class Table:
    """A table with players ``p<seat>`` and helpers named after the table's commands."""

    def __init__(
        self,
        stacks: Mapping[int, int],
        config: Mapping[str, Any] | None = None,
        *,
        source: str = "recorded",
        decks: Iterable[Sequence[int]] | None = None,
    ) -> None:
        cfg = {"card_source": source, **(config or {})}
        opened = TableState.open(
            OpenTable(command_id="open", table=TABLE, game="high-card-flush", config=cfg)
        )
        self.opened = opened
        self.state = TableState(opened)
        self.keeper = OpenDeckKeeper(decks)
        self.log: list[Record] = []
        self._n = 0
        for seat, amount in stacks.items():
            self.run(SeatPlayer(command_id=self.cid(), table=TABLE, seat=seat, player=f"p{seat}"))
            if amount:
                self.run(BuyIn(command_id=self.cid(), table=TABLE, seat=seat, amount=amount))

    def cid(self) -> str:
        self._n += 1
        return f"c{self._n}"

    def run(self, command: Command) -> list[Record]:
        records = self.state.execute(command, self.keeper)
        self.log.extend(records)
        return records

    # --- reading ------------------------------------------------------------------------

    @property
    def hand(self) -> HcfHand:
        assert isinstance(self.state.hand, HcfHand)
        return self.state.hand

    @property
    def config(self) -> HcfConfig:
        assert isinstance(self.state.config, HcfConfig)
        return self.state.config

    def stack(self, seat: int) -> int:
        return self.state.balances.get(accounts.player(f"p{seat}"), 0)

    def balance(self, account: str) -> int:
        return self.state.balances.get(account, 0)

    def step(self) -> Step:
        return self.state.next_step()

    # --- commands -----------------------------------------------------------------------

    def start(self) -> list[Record]:
        return self.run(StartHand(command_id=self.cid(), table=TABLE))

    def act(self, seat: int, action: str, amount: int | None = None) -> list[Record]:
        return self.run(
            Act(command_id=self.cid(), table=TABLE, seat=seat, action=action, amount=amount)
        )

    def wager(self, seat: int, kind: str, amount: int) -> list[Record]:
        return self.run(
            PlaceWager(command_id=self.cid(), table=TABLE, seat=seat, kind=kind, amount=amount)
        )

    def deal(self, cards: Mapping[int, str] | None = None) -> list[Record]:
        reported = None
        if cards is not None:
            reported = {str(t): parse_cards(c, count=7) for t, c in cards.items()}
        return self.run(DealCards(command_id=self.cid(), table=TABLE, cards=reported))

    def reveal(self) -> list[Record]:
        return self.run(Reveal(command_id=self.cid(), table=TABLE))

    def settle(self) -> HandSettled:
        records = self.run(Settle(command_id=self.cid(), table=TABLE))
        assert len(records) == 1 and isinstance(records[0], HandSettled)
        return records[0]

    def close(self) -> list[Record]:
        """Settle a hand that has nothing to settle yet (closes it unplayed, HCF-2)."""
        return self.run(Settle(command_id=self.cid(), table=TABLE))

    def unseat(self, seat: int) -> list[Record]:
        return self.run(UnseatPlayer(command_id=self.cid(), table=TABLE, seat=seat))

    def play(
        self,
        dp: int,
        wagers: Mapping[int, Mapping[str, int]],
        cards: Mapping[int, str],
        decisions: Mapping[int, int | None],
    ) -> HandSettled:
        """A whole hand: ``dp`` accepts at once (earlier offers are declined), the wagers, the
        cards (DP included), each decision (an amount raises, None folds), reveal, settle."""
        self.start()
        while self.hand.offered_to != dp:
            self.act(self.hand.offered[-1], "decline")
        self.act(dp, "accept")
        for seat, kinds in wagers.items():
            for kind, amount in kinds.items():
                self.wager(seat, kind, amount)
        self.deal(cards)
        while self.hand.phase == "decisions":
            nxt = self.hand.to_act
            assert nxt is not None
            decision = decisions[nxt.seat]
            if decision is None:
                self.act(nxt.seat, "fold")
            else:
                self.act(nxt.seat, "raise", decision)
        self.reveal()
        return self.settle()


def outcome(settled: HandSettled, seat: int, wager: str) -> Any:
    found = [o for o in settled.outcomes if o.seat == seat and o.wager == wager]
    assert len(found) == 1, (seat, wager, settled.outcomes)
    return found[0]


def net_of(settled: HandSettled, account: str) -> int:
    return accounts.net_flows(settled.transfers).get(account, 0)


def random_rng(seed: int) -> random.Random:
    return random.Random(seed)


def arranged_deck(hands: list[str]) -> tuple[int, ...]:
    """A deck that deals ``hands`` (seven cards each, in dealing order) round-robin (HCF-3),
    the unused cards after them."""
    parsed = [parse_cards(h, count=7) for h in hands]
    order = [h[k] for k in range(7) for h in parsed]
    rest = [c for c in range(52) if c not in order]
    deck = tuple(order + rest)
    assert sorted(deck) == list(range(52))
    return deck
