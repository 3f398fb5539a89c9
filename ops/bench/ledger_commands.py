"""Commands/s and events/s through the ledger application, against raw eventsourcing saves of
the same events in the same run, on SQLite and PostgreSQL; and command latency at a short and a
long table history.

    .venv/bin/python -O ops/bench/ledger_commands.py [--hands 400] [--history 100000]

Method. A workload of Caribbean Stud hands is generated first on a pure table with scripted
decks (the bots' thinking is not timed). Ledger: each command goes through
``LedgerApp.execute`` (load from the cache, validate, decide, hash-chain, append events plus the
command-log row in one transaction). Baseline: a plain eventsourcing ``Application`` with the same
mapper saves the very same events, one ``save`` per command, nothing else. Ratio = ledger rate /
baseline rate (target 0.9 or better).
"""

from __future__ import annotations

import argparse
import random
import time
from typing import Any
from uuid import UUID

from _common import fresh_store, optimised, percentile, postgres_available
from eventsourcing.application import Application

from ledger.app.application import LedgerApp
from ledger.domain.commands import BuyIn, Command, OpenTable, SeatPlayer
from ledger.settings import Settings
from ledger.sim.base import CommandIds, play_hand
from ledger.sim.caribbean import CaribbeanBot
from ledger.store.mapper import PydanticMapper
from ledger.store.persistence import store_env
from ledger.table.dealing import OpenDeckKeeper
from ledger.table.state import TableState


class Recorder:
    """A pure executor that remembers the commands it ran."""

    def __init__(self, code: str, keeper: OpenDeckKeeper) -> None:
        self.keeper = keeper
        self.commands: list[Command] = []
        opened = OpenTable(command_id="open", table=code, game="caribbean-stud")
        self.commands.append(opened)
        self.state = TableState(TableState.open(opened))

    def execute(self, command: Command) -> Any:
        self.commands.append(command)
        return self.state.execute(command, self.keeper)

    def observe(self) -> Any:
        return self.state.view(), self.state.hand, self.state.next_step()


def workload(code: str, hands: int, seed: int) -> tuple[list[Command], list[tuple[int, ...]]]:
    rng = random.Random(seed)
    decks = [tuple(rng.sample(range(52), 52)) for _ in range(hands)]
    rec = Recorder(code, OpenDeckKeeper(decks))
    ids = CommandIds(code, f"w{seed}")
    for seat in range(1, 6):
        rec.execute(SeatPlayer(command_id=ids.next(), table=code, seat=seat, player=f"p{seat}"))
        rec.execute(BuyIn(command_id=ids.next(), table=code, seat=seat, amount=10_000_000))
    bot = CaribbeanBot()
    for _ in range(hands):
        play_hand(rec, bot, rng, ids)
    return rec.commands, decks


def run_ledger(
    settings: Settings, commands: list[Command], decks: list[tuple[int, ...]]
) -> tuple[float, int, list[Any]]:
    app = LedgerApp(settings, keeper=OpenDeckKeeper(decks))
    try:
        events = 0
        started = time.perf_counter()
        for command in commands:
            events += app.execute(command).count
        elapsed = time.perf_counter() - started
        batches = []
        for table_events in _batches(app, commands[0].table):
            batches.append(table_events)
        return elapsed, events, batches
    finally:
        app.close()


def _batches(app: LedgerApp, code: str) -> list[list[Any]]:
    """The stored events grouped by the command that appended them."""
    from ledger.store.history import stream

    groups: dict[str | None, list[Any]] = {}
    for event in stream(app, code):
        groups.setdefault(event.command_id, []).append(event)
    return list(groups.values())


class RawApp(Application[UUID]):
    name = "Ledger"

    def construct_mapper(self) -> PydanticMapper:
        return PydanticMapper()


def run_raw(settings: Settings, batches: list[list[Any]]) -> float:
    env = {k: v for k, v in store_env(settings).items() if k != "APPLICATION_RECORDER_TOPIC"}
    app = RawApp(env=env)
    try:
        started = time.perf_counter()
        for batch in batches:
            app.save(*batch)
        return time.perf_counter() - started
    finally:
        app.close()


def throughput(kind: str, hands: int) -> None:
    commands, decks = workload("BENCH-1", hands, seed=11)
    with fresh_store(kind) as settings:
        ledger_s, events, batches = run_ledger(settings, commands, decks)
    with fresh_store(kind) as settings:
        raw_s = run_raw(settings, batches)
    n = len(commands)
    ledger_cps, raw_cps = n / ledger_s, n / raw_s
    print(
        f"{kind:<8} ledger  {ledger_cps:8.0f} commands/s {events / ledger_s:8.0f} events/s "
        f"({n} commands, {events} events, {ledger_s:.2f} s)"
    )
    print(
        f"{kind:<8} raw     {raw_cps:8.0f} saves/s    {events / raw_s:8.0f} events/s "
        f"({raw_s:.2f} s)"
    )
    print(f"{kind:<8} ratio ledger/raw = {ledger_cps / raw_cps:.2f}")


def latency_by_history(kind: str, history: int) -> None:
    """p50/p99 command latency after ~1k and after ~``history`` events, warm and cold."""
    hands_needed = history // 15 + 50
    commands, decks = workload("LAT-1", hands_needed, seed=5)
    with fresh_store(kind) as settings:
        app = LedgerApp(settings, keeper=OpenDeckKeeper(decks))
        try:
            samples: dict[int, list[float]] = {}
            checkpoints = sorted({1_000, history})
            events = 0
            window: list[float] = []
            for command in commands:
                started = time.perf_counter()
                events += app.execute(command).count
                window.append(time.perf_counter() - started)
                window = window[-400:]
                for point in checkpoints:
                    if point not in samples and events >= point:
                        samples[point] = list(window)
                if len(samples) == len(checkpoints):
                    break
            for point in checkpoints:
                s = samples.get(point, [])
                p50, p99 = percentile(s, 0.5) * 1e3, percentile(s, 0.99) * 1e3
                print(
                    f"{kind:<8} at {point:>7} events: warm p50 {p50:6.3f} ms, "
                    f"p99 {p99:6.3f} ms (last {len(s)} commands)"
                )
            cold = LedgerApp(settings, keeper=OpenDeckKeeper(decks))
            started = time.perf_counter()
            table = cold.load("LAT-1")
            print(
                f"{kind:<8} cold load of a {table.version}-event table "
                f"(snapshot every {settings.snapshot_interval}): "
                f"{(time.perf_counter() - started) * 1e3:.1f} ms"
            )
            cold.close()
        finally:
            app.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=400)
    parser.add_argument("--history", type=int, default=100_000)
    parser.add_argument("--stores", default="sqlite,postgres")
    args = parser.parse_args()
    print(f"ledger command benchmark ({optimised()}); deck order scripted; bots not timed")
    for kind in args.stores.split(","):
        if kind == "postgres" and not postgres_available():
            print("postgres: not reachable, skipped")
            continue
        throughput(kind, args.hands)
        latency_by_history(kind, args.history)


if __name__ == "__main__":
    main()
