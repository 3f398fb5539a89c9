"""Property tests: many random hands played by the simulation bot on the pure table.

Invariants (CHP-3..9, CHP-11, COM-2, COM-3): chips are conserved, every transfer moves a
positive amount, wager spots are empty after every hand, points net to zero, nobody pays or
receives more than the stake in play, the settlement is reproducible from the hand state, and a
replay of the records rebuilds the same table.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ledger.domain import accounts
from ledger.domain.commands import BuyIn
from ledger.domain.records import (
    CardsDealt,
    ChipsBoughtIn,
    ChipsCashedOut,
    HandSettled,
    Record,
)
from ledger.games.chinese import ChineseConfig, ChineseHand, settle
from ledger.games.chinese.hand import STAKE
from ledger.sim.base import CommandIds, play_hand
from ledger.sim.chinese import ChineseBot, top_up
from tests.unit.games.chinese.deals import KINDS, deck_with
from tests.unit.games.chinese.support import CODE, PureExecutor, Table


def decks(rng: random.Random, plant_rate: float) -> Iterator[tuple[int, ...]]:
    """Shuffled decks; now and then one or two seats get an automatic win (CHP-7)."""
    while True:
        plants: dict[int, str] = {}
        while rng.random() < plant_rate and len(plants) < 2:
            plants[rng.randrange(4)] = rng.choice(KINDS)
        yield deck_with(rng, plants)


def play(seed: int, seats: list[int], config: dict[str, object], hands: int,
         short: dict[int, int], plant_rate: float = 0.3,
         bot: ChineseBot | None = None) -> tuple[Table, PureExecutor]:
    rng = random.Random(seed)
    table = Table(config, decks=decks(random.Random(seed + 1), plant_rate))
    ids = CommandIds(CODE, "prop")
    for seat in seats:
        table.seat(seat, buy=None)
    point_value = table.config.point_value
    for seat in seats:
        table.buy(seat, 20 * point_value)
        if seat in short:  # a short stack: cash out part of the buy-in
            table.cash_out(seat, short[seat] * point_value)
    executor = PureExecutor(table)
    bot = bot or ChineseBot(leave_rate=0.02, arrive_rate=0.03)
    for _ in range(hands):
        view = table.state.view()
        for seat in sorted(table.state.seats):
            buy = top_up(view, seat)
            if buy is not None:
                executor.execute(BuyIn(command_id=ids.next(), table=CODE, seat=seat,
                                       amount=buy[0], kind=buy[1]))
                view = table.state.view()
        if sum(table.stack(p) > table.config.fee
               for p in table.state.seats.values()) < 2:
            break
        play_hand(executor, bot, rng, ids)
        check_between_hands(table, executor.records)
    return table, executor


def check_between_hands(table: Table, records: list[Record]) -> None:
    balances = table.state.balances
    assert sum(balances.values()) == 0
    bought = sum(r.amount for r in records if isinstance(r, ChipsBoughtIn))
    cashed = sum(r.amount for r in records if isinstance(r, ChipsCashedOut))
    setup = -balances.get(accounts.CAGE, 0)
    assert sum(v for k, v in balances.items() if k != accounts.CAGE) == setup
    assert setup >= bought - cashed
    assert not any(accounts.is_hand_scoped(k) for k in balances), balances
    assert all(v >= 0 for k, v in balances.items() if accounts.is_player(k)), balances
    assert table.state.hand is None


def check_records(table: Table, executor: PureExecutor) -> None:
    settled = [r for r in executor.records if isinstance(r, HandSettled)]
    assert len(settled) == len(executor.before_settle)
    for record in executor.records:
        for t in getattr(record, "transfers", ()):
            assert t.amount > 0
        if isinstance(record, CardsDealt):
            cards = [c for d in record.dealt for c in d.cards]
            assert len(cards) == 52 == len(set(cards))
            assert sorted(d.target for d in record.dealt) == [1, 2, 3, 4]
    for record, (config, hand) in zip(settled, executor.before_settle, strict=True):
        again = settle(config, hand)
        assert again == record.model_copy(update={"deck": None, "salt": None})
        check_settlement(record, config, hand)


def check_settlement(record: HandSettled, config: ChineseConfig, hand: ChineseHand) -> None:
    points = {(p.seat, p.opponent): p.points for p in record.points}
    assert sum(points.values()) == 0
    assert all(points[(b, a)] == -v for (a, b), v in points.items())
    assert sum(o.amount for o in record.outcomes) == 0
    for o in record.outcomes:
        opponent = int(o.wager.removeprefix("points_vs_"))
        assert o.seat is not None  # points are owed seat to seat
        owed = points[(o.seat, opponent)] * config.point_value
        assert o.withheld >= 0 and o.rule.startswith("CHP-")
        assert o.amount + (o.withheld if owed > 0 else -o.withheld) == owed
        assert (o.rule == "CHP-8") == (o.withheld > 0)
    flows = accounts.net_flows(record.transfers)
    for s in hand.seats:
        spot = accounts.spot(s.seat, STAKE)
        stack = accounts.player(s.player)
        assert -flows.get(spot, 0) == s.stake  # the whole stake leaves the spot
        received = sum(t.amount for t in record.transfers if t.dst == stack and t.src != spot)
        paid = sum(t.amount for t in record.transfers if t.src == spot and t.dst != stack)
        assert received <= s.stake and paid <= s.stake  # CHP-8 table stakes
    assert sum(r.amount for r in record.rake) == sum(s.fee for s in hand.seats)
    assert all(r.rule == "CHP-11" for r in record.rake)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32 - 1),
    seats=st.permutations([1, 2, 3, 4]).flatmap(
        lambda p: st.integers(2, 4).map(lambda n: sorted(p[:n]))),
    scoring=st.sampled_from(["basic", "mandarin"]),
    fee=st.sampled_from([0, 0, 5, 50]),
    point_value=st.sampled_from([1, 100, 250]),
    hands=st.integers(1, 4),
    short=st.dictionaries(st.sampled_from([1, 2, 3, 4]), st.integers(5, 19), max_size=3),
)
def test_chp_3_to_chp_11_random_hands_conserve_chips_and_settle_reproducibly(
    seed: int, seats: list[int], scoring: str, fee: int, point_value: int, hands: int,
    short: dict[int, int],
) -> None:
    config = {"scoring": scoring, "fee": fee, "point_value": point_value}
    table, executor = play(seed, seats, config, hands,
                              {s: n for s, n in short.items() if s in seats})
    check_records(table, executor)
    assert table.replayed().to_snapshot() == table.state.to_snapshot()
