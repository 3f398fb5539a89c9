"""Properties over many random hands played by the bot through ``play_hand`` on the pure table:
chips conserved, transfers positive, hand-scoped accounts empty after every hand, every pot fully
distributed, and the settlement reproducible from the hand state (STUD8-7..11)."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ledger.domain import accounts
from ledger.domain.commands import Command, Settle
from ledger.domain.errors import LedgerError
from ledger.domain.records import (
    CardsDealt,
    ChipsBoughtIn,
    ChipsCashedOut,
    HandSettled,
    HandStarted,
    PlayerActed,
    Record,
)
from ledger.games.stud8 import settle as settle_hand
from ledger.games.stud8.model import StudConfig
from ledger.sim.base import CommandIds, play_hand
from ledger.sim.stud8 import StudBot, starting_stack

from .helpers import TABLE, Executor, open_table, seeded_decks


class CheckingExecutor(Executor):
    """Before each Settle, settles the hand itself to compare with what the table appends."""

    def __init__(self, inner: Executor) -> None:
        super().__init__(inner.state, inner.keeper)
        self.records = inner.records
        self.expected: list[HandSettled] = []

    def execute(self, command: Command) -> list[Record]:
        if isinstance(command, Settle):
            self.expected.append(settle_hand(self.config, self.state.hand))
        return super().execute(command)


def play_session(seed: int, players: int, hands: int, config: dict[str, Any]) -> CheckingExecutor:
    rng = random.Random(seed)
    cfg = StudConfig(**config)
    ex = CheckingExecutor(open_table(
        {s: starting_stack(cfg, rng) for s in range(1, players + 1)}, config,
        seeded_decks(random.Random(seed))))
    bot = StudBot()
    ids = CommandIds(TABLE, f"h{seed}")
    for _ in range(hands):
        try:
            play_hand(ex, bot, rng, ids)
        except LedgerError as exc:
            assert exc.code == "not_enough_players"
            break
        check_hand_invariants(ex)
    return ex


def check_hand_invariants(ex: CheckingExecutor) -> None:
    balances = ex.state.balances
    assert sum(balances.values()) == 0
    cage = sum(t.amount for r in ex.records if isinstance(r, ChipsBoughtIn) for t in r.transfers)
    cage -= sum(t.amount for r in ex.records if isinstance(r, ChipsCashedOut) for t in r.transfers)
    assert sum(v for k, v in balances.items() if k != accounts.CAGE) == cage
    assert not [k for k in balances if accounts.is_hand_scoped(k)]
    assert all(v >= 0 for k, v in balances.items() if k != accounts.CAGE)
    assert ex.state.hand is None
    record = ex.records[-1]
    assert isinstance(record, HandSettled)
    # the settlement is reproducible from the hand (the table adds the revealed deck, COM-8)
    assert record.deck is not None
    assert record.model_copy(update={"deck": None, "salt": None}) == ex.expected[-1]
    for r in ex.records:
        for t in getattr(r, "transfers", ()):
            assert t.amount > 0 and t.src != t.dst
    assert all(o.rule.startswith(("STUD8-", "COM-")) for o in record.outcomes)
    unit = ex.config.chip_unit
    for pot in record.pots:
        assert pot.high_amount + pot.low_amount + pot.rake == pot.amount
        if pot.low_amount:
            assert pot.low_winners
        if not pot.low_winners:
            assert pot.low_amount == 0
        assert pot.high_amount % unit == 0 and pot.low_amount % unit == 0
        assert set(pot.high_winners) | set(pot.low_winners) <= set(pot.eligible)
    paid = sum(t.amount for t in record.transfers if t.src.startswith("spot:"))
    started = max(i for i, r in enumerate(ex.records) if isinstance(r, HandStarted))
    put_in = sum(t.amount for r in ex.records[started:] for t in getattr(r, "transfers", ())
                 if t.dst.startswith("spot:"))
    assert paid == put_in  # every chip on the spots is paid out: pots fully distributed


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32 - 1),
    players=st.integers(2, 8),
    rake_bps=st.sampled_from([0, 0, 500, 1_000]),
    rake_cap=st.sampled_from([None, 300, 1_000]),
    tiebreak=st.sampled_from(["suit", "seat"]),
    max_raises=st.sampled_from([3, 3, 1, None]),
)
def test_stud8_9_random_hands_conserve_chips_and_settle_reproducibly(
    seed: int, players: int, rake_bps: int, rake_cap: int | None, tiebreak: str,
    max_raises: int | None,
) -> None:
    config = {"rake_bps": rake_bps, "rake_cap": rake_cap, "bring_in_tiebreak": tiebreak,
              "max_raises": max_raises}
    play_session(seed, players, 8, config)


def test_stud8_6_the_bot_reaches_every_interesting_path() -> None:
    """Over a fixed sample the bot folds, goes all-in, builds side pots, splits hi/lo, mucks,
    and eight-handed tables get the STUD8-6 community card."""
    seen: Counter[str] = Counter()
    for seed in range(60):
        ex = play_session(seed, 8 if seed % 2 else 2 + seed % 6, 6, {"rake_bps": 500})
        for r in ex.records:
            if isinstance(r, PlayerActed):
                seen[r.action] += 1
            if isinstance(r, CardsDealt) and any(d.target == "community" for d in r.dealt):
                seen["community"] += 1
            if isinstance(r, HandSettled):
                seen["hands"] += 1
                seen["side_pots"] += len(r.pots) > 1
                seen["hi_lo"] += any(p.low_winners for p in r.pots)
                seen["raked"] += bool(r.rake)
        seen["all_in"] += sum(
            1 for r in ex.records if isinstance(r, HandSettled) and len(r.pots) > 1)
    for path in ("fold", "call", "raise", "complete", "bring_in", "show", "muck", "community",
                 "side_pots", "hi_lo", "raked"):
        assert seen[path] > 0, path
    assert seen["fold"] / seen["hands"] > 0.5
    assert seen["community"] / seen["hands"] > 0.01
