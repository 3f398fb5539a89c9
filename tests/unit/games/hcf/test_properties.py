"""Properties over many random hands played by the bot through ``play_hand`` (HCF-1..14).

Chips are conserved, every transfer moves a positive amount, wager spots and the bank are empty
after every hand, the bank never goes below zero while a settlement runs (the DP never pays more
than its funds in action, HCF-12), coverage lines chain, dead hands are never raked (HCF-13),
every outcome names its rule, and settling the hand state again gives the identical record.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Iterator
from typing import Any

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from ledger.domain import accounts
from ledger.domain.commands import BuyIn, Command, SeatPlayer, Settle, UnseatPlayer
from ledger.domain.errors import StateConflict
from ledger.domain.records import HAND_ENDINGS, ChipsBoughtIn, HandSettled, PlayerActed, Record
from ledger.games.base import Step, TableView
from ledger.games.hcf import HcfConfig, HcfHand, settle
from ledger.sim.base import CommandIds, play_hand
from ledger.sim.hcf import HcfBot, top_up
from ledger.table.state import TableState

from .helpers import TABLE, PureExecutor, Table

HANDS_PER_TABLE = 20


class CheckingExecutor(PureExecutor):
    """Checks the settlement against a fresh ``settle`` of the hand state it started from."""

    def __init__(self, table: Table) -> None:
        super().__init__(table.state, table.keeper)
        self.table = table
        self.reproduced = 0
        self.all_ins = 0

    def execute(self, command: Command) -> list[Record]:
        hand = self.state.hand
        config = self.state.config
        records = self.table.run(command)
        self.log.extend(records)
        for record in records:
            assert type(record).model_validate(record.model_dump(mode="json")) == record
            assert all(t.amount > 0 for t in getattr(record, "transfers", ()))
            assert all(v >= 0 for a, v in self.state.balances.items()
                       if accounts.is_player(a) or accounts.is_hand_scoped(a)), record
            if isinstance(record, PlayerActed) and record.action == "raise":
                self.all_ins += self.state.view().seat_stack(record.seat) == 0
        snapshot = self.state.to_snapshot()  # snapshots survive JSON, mid-hand too
        assert TableState.from_snapshot(json.loads(json.dumps(snapshot))).to_snapshot() == snapshot
        if isinstance(command, Settle) and isinstance(records[0], HandSettled):
            assert isinstance(hand, HcfHand) and isinstance(config, HcfConfig)
            again = settle(config, hand)
            assert records[0].model_copy(update={"deck": None, "salt": None}) == again
            self.reproduced += 1
        return records


class LeavingBot(HcfBot):
    """The bot, except that now and then the seat to answer leaves the table (COM-6)."""

    def __init__(self, leave_rate: float) -> None:
        super().__init__()
        self.leave_rate = leave_rate
        self.left: list[tuple[int, str]] = []

    def choose(self, table: TableView, hand: Any, step: Step, rng: random.Random,
               ids: CommandIds) -> Command | None:
        if step.kind in ("offer", "act") and rng.random() < self.leave_rate:
            seat = step.seats[0]
            self.left.append((seat, table.seats[seat]))
            return UnseatPlayer(command_id=ids.next(), table=ids.table, seat=seat)
        return super().choose(table, hand, step, rng, ids)


def check_settlement(record: HandSettled, funds_at_settle: int) -> set[int]:
    """Coverage chain, bank never negative, rake never on a dead seat; returns the dead seats."""
    cov = record.coverage
    assert cov is not None
    funds = cov.funds_at_start
    for line in cov.lines:
        assert line.funds_before == funds
        if line.covered:
            assert line.liability <= line.funds_before
        else:
            assert line.liability > line.funds_before and line.funds_after == line.funds_before
        funds = line.funds_after
    assert funds == cov.funds_left
    bank = funds_at_settle
    for move in record.transfers:
        bank += move.amount * ((move.dst == accounts.BANK) - (move.src == accounts.BANK))
        assert bank >= 0, "the DP paid more than its funds in action (HCF-12)"
        assert move.rule is not None
    assert bank == 0
    assert all(o.rule for o in record.outcomes)
    dead = {line.seat for line in cov.lines if not line.covered}
    assert not dead & {r.seat for r in record.rake}, "a dead hand was raked (HCF-13)"
    dp = [o for o in record.outcomes if o.wager == "designated_player"]
    assert len(dp) == 1 and dp[0].rule == "HCF-14" and dp[0].amount >= -cov.funds_at_start
    return dead


def reader(rng: random.Random) -> Any:
    """A card reader for ``recorded`` tables: cards of a fresh shuffle, by the deal plan."""
    def read(table: TableView, hand: Any) -> dict[str, tuple[int, ...]]:
        from ledger.games.registry import get_game

        plan = get_game(table.game).deal_plan(table, hand)
        deck = list(range(52))
        rng.shuffle(deck)
        return {str(slot.target): tuple(deck.pop() for _ in range(slot.count))
                for slot in plan.slots}
    return read


def decks(rng: random.Random) -> Iterator[list[int]]:
    """Reproducible deck orders for ``rng`` tables."""
    while True:
        deck = list(range(52))
        rng.shuffle(deck)
        yield deck


configs = st.fixed_dictionaries({
    "card_source": st.sampled_from(["rng", "recorded"]),
    "coverage_policy": st.sampled_from(["in-order", "collect-first"]),
    "rake": st.fixed_dictionaries({"method": st.sampled_from(["i", "ii", "iii"]),
                                   "fee": st.sampled_from([0, 25, 100])}),
    "max_aggregate_payout": st.sampled_from([None, None, 5_000, 50_000]),
    "dp_minimum_bank": st.sampled_from([2_000, 10_000]),
})
stacks = st.dictionaries(st.integers(1, 7), st.integers(0, 60_000), min_size=2, max_size=7)


def play_table(seed: int, config: dict[str, Any], start: dict[int, int],
               leave_rate: float) -> Counter[str]:
    rng = random.Random(seed)
    t = Table({s: start[s] for s in sorted(start)}, config, decks=decks(rng))
    executor = CheckingExecutor(t)
    bot = LeavingBot(leave_rate)
    ids = CommandIds(TABLE, f"h{seed}")
    seen: Counter[str] = Counter()
    bought = 0
    for _ in range(HANDS_PER_TABLE):
        for seat, player in bot.left:  # players who left come back between hands
            if seat not in t.state.seats and player not in t.state.seats.values():
                executor.execute(SeatPlayer(command_id=ids.next(), table=TABLE, seat=seat,
                                            player=player))
        bot.left.clear()
        for seat in sorted(t.state.seats):
            if t.state.view().seat_stack(seat) < 3_000 and rng.random() < 0.7:
                amount = rng.choice([2_000, 5_000, 12_000, 40_000])
                executor.execute(BuyIn(command_id=ids.next(), table=TABLE, seat=seat,
                                       amount=amount))
                bought += amount
        start_at = len(executor.log)
        try:
            play_hand(executor, bot, rng, ids, recorded_cards=reader(rng))
        except StateConflict as exc:
            assert exc.code in ("no_eligible_designated_player", "not_enough_players")
            seen[exc.code] += 1
            continue
        hand_records = executor.log[start_at:]
        endings = [r for r in hand_records if isinstance(r, HAND_ENDINGS)]
        assert len(endings) == 1 and t.state.hand is None
        ending = endings[0]
        seen[type(ending).__name__] += 1
        if isinstance(ending, HandSettled):
            folded = sum(m.amount for r in hand_records if isinstance(r, PlayerActed)
                         and r.action == "fold" for m in r.transfers)
            accepted = [r for r in hand_records if isinstance(r, PlayerActed)
                        and r.action == "accept"]
            dead = check_settlement(ending, accepted[0].amount + folded)
            seen["dead"] += len(dead)
            seen.update(o.result for o in ending.outcomes)
        seen.update(r.action for r in hand_records if isinstance(r, PlayerActed))
        balances = t.state.balances
        assert sum(balances.values()) == 0
        assert not [a for a in balances if accounts.is_hand_scoped(a)], balances
        buy_ins = sum(r.amount for r in executor.log if isinstance(r, ChipsBoughtIn))
        assert buy_ins == bought
        in_play = sum(v for a, v in balances.items() if a != accounts.CAGE)
        assert in_play == -balances.get(accounts.CAGE, 0) == sum(start.values()) + buy_ins
    assert executor.reproduced == seen["HandSettled"]
    seen["all_in"] = executor.all_ins
    replayed = TableState(t.opened)  # the state is a fold of its records
    for record in t.log:
        replayed.apply(record)
    assert replayed.to_snapshot() == t.state.to_snapshot()
    return seen


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), config=configs, start=stacks,
       leave_rate=st.sampled_from([0.0, 0.0, 0.03]))
def test_hcf_12_hcf_13_chips_are_conserved_and_the_dp_pays_at_most_its_funds(
    seed: int, config: dict[str, Any], start: dict[int, int], leave_rate: float
) -> None:
    seen = play_table(seed, config, start, leave_rate)
    event(f"hands settled: {min(seen['HandSettled'] // 5 * 5, 20)}+")
    if seen["dead"]:
        event("dead hands")


def test_hcf_1_hcf_12_the_bot_reaches_every_path_at_realistic_rates() -> None:
    seen: Counter[str] = Counter()
    start = {1: 8_000, 2: 30_000, 3: 12_000, 4: 50_000, 5: 20_000, 6: 10_000}
    for seed in range(25):
        config = {"rake": {"method": "i", "fee": 50}, "dp_minimum_bank": 5_000,
                  "card_source": "rng"}
        seen += play_table(seed, config, start, 0.02)
    settled = seen["HandSettled"]
    assert settled >= 200
    assert seen["decline"] >= 0.1 * settled
    assert seen["fold"] >= settled and seen["raise"] >= settled
    assert seen["dead"] >= 5 and seen["all_in"] >= 5, seen
    assert seen["win"] and seen["lose"] and seen["push"]


def test_hcf_1_the_simulators_top_up_keeps_stacks_near_the_dp_minimum_bank() -> None:
    t = Table({1: 9_999, 2: 10_000}, {"dp_minimum_bank": 10_000})
    view = t.state.view()
    assert top_up(view, 1) == (20_000, "buy_in")
    assert top_up(view, 2) is None
