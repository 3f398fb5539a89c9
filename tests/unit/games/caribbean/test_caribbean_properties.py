"""Properties of random Caribbean Stud hands played by the simulator's bots (pure tables)."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ledger.domain import accounts
from ledger.domain.commands import BuyIn
from ledger.domain.records import HandSettled, Record
from ledger.games.caribbean import CaribbeanConfig, CaribbeanHand, settle
from ledger.sim.base import CommandIds, play_hand
from ledger.sim.caribbean import CaribbeanBot
from ledger.table.dealing import OpenDeckKeeper
from tests.support.pure import PureTable, cid


def cage_net(records: list[Record]) -> int:
    net = 0
    for r in records:
        for t in getattr(r, "transfers", ()):
            net += (t.amount if t.src == accounts.CAGE else 0) - (
                t.amount if t.dst == accounts.CAGE else 0
            )
    return net


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32), players=st.integers(1, 7), cap=st.sampled_from([None, 2_000]))
def test_chips_are_conserved_and_settlements_reproduce(
    seed: int, players: int, cap: int | None
) -> None:
    config = {"max_aggregate_payout": cap} if cap else {}
    rng = random.Random(seed)
    decks = OpenDeckKeeper(tuple(rng.sample(range(52), 52)) for _ in range(100))
    t = PureTable(
        "caribbean-stud", config, {s: 30_000 for s in range(1, players + 1)}, keeper=decks
    )
    bot = CaribbeanBot()
    ids = CommandIds("T1", "p")
    for _ in range(20):
        for seat in t.state.seats:
            if t.stack(seat) < 5_000:
                t.run(BuyIn(command_id=cid(), table="T1", seat=seat, amount=30_000))
        before = len(t.records)
        play_hand(t, bot, rng, ids)
        new = t.records[before:]
        for r in new:
            assert all(tr.amount > 0 for tr in getattr(r, "transfers", ()))
        # conservation: every account sums to zero; the non-cage ones hold what the cage issued
        assert sum(t.state.balances.values()) == 0
        assert sum(v for k, v in t.state.balances.items() if k != accounts.CAGE) == cage_net(
            t.records
        )
        # between hands, wager spots are empty
        assert not [a for a in t.state.balances if accounts.is_hand_scoped(a)]
        # the recorded settlement is what the rules compute again from the hand before it
        settled = new[-1]
        assert isinstance(settled, HandSettled) and isinstance(t.hand_before, CaribbeanHand)
        rules = t.state.config
        assert isinstance(rules, CaribbeanConfig)
        meter = t.balances_before.get(accounts.JACKPOT, 0)
        again = settle(rules, t.hand_before, meter)
        assert again.model_copy(update={"deck": settled.deck, "salt": settled.salt}) == settled
