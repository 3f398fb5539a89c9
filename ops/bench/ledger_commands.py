"""Commands/s and events/s through the ledger application, against raw eventsourcing saves of
the same events in the same run, on SQLite and PostgreSQL; and command latency at a short and a
long table history.

    .venv/bin/python -O ops/bench/ledger_commands.py [--hands 400] [--history 100000]

Method. A workload of Caribbean Stud hands is generated first on a pure table with scripted
decks (the bots' thinking is not timed). Ledger: each command goes through
``LedgerApp.execute`` (load from the cache, validate, decide, hash-chain, append events plus the
command-log row in one transaction). Baseline: a plain eventsourcing ``Application`` with the same
mapper saves the very same events, one ``save`` per command, nothing else. Ratio = ledger rate /
baseline rate (issue 29: 0.8 or better on SQLite, 0.9 on PostgreSQL), with each side's p50/p99
per command. The two run interleaved, each in its own fresh store: command 1 through the ledger,
then the raw save of its events, then command 2..., so that both see the same load of a shared
machine (the cost of a commit is the disk's fsync, which other processes' writes slow down by
several times); ``--rounds`` such runs are summed. ``cpu ms``: this process's CPU per command
(the store's own work, fsync waits and PostgreSQL's backend excluded), which the load changes
least.

The raw baseline opens its store as the ledger does (the ledger's pool: on SQLite, connections
that keep their prepared statements; on PostgreSQL, the pool's check skipped for a connection
just used). ``--raw-library-pool`` (SQLite) gives it the library's own factory instead, whose
connections keep one prepared statement.

``--raw-functions`` (PostgreSQL) gives the raw baseline the library's own one-statement insert
(``POSTGRES_ENABLE_DB_FUNCTIONS``: a function call in autocommit mode, one round trip, like the
ledger's ``ledger_record_command``, but without the table lock that keeps notification ids in
commit order) instead of its default pipeline (two round trips).

``--own-work`` also prints a command's own CPU: the workload through ``LedgerApp.execute`` with
the store's insert replaced by nothing (the rules, the events built and hashed into the chain,
the result and the command-log row made, the log line), best of three runs.

``--fresh`` brings each table forward before every decision (one indexed read, as before issue
29) instead of deciding on the cached table and letting the save's version check catch a table
another process moved: the alternative the issue asked to measure.
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


def throughput(kind: str, hands: int, rounds: int = 3, *, fresh: bool = False,
               raw_functions: bool = False, raw_library_pool: bool = False) -> None:
    commands, decks = workload("BENCH-1", hands, seed=11)
    with fresh_store(kind) as settings:  # untimed: the events each command appends
        _, events, batches = run_ledger(settings, commands, decks)
    by_command = {batch[0].command_id: batch for batch in batches}
    ledger_took: list[float] = []
    raw_took: list[float] = []
    cpu = [0.0, 0.0]  # this process's CPU seconds: ledger, raw
    for _ in range(rounds):
        with fresh_store(kind) as ledger_settings, fresh_store(kind) as raw_settings:
            app = LedgerApp(ledger_settings, keeper=OpenDeckKeeper(decks))
            if fresh:
                app._shared = lambda tid: True  # type: ignore[method-assign]
            env = {k: v for k, v in store_env(raw_settings).items()
                   if k != "APPLICATION_RECORDER_TOPIC"}
            if raw_functions and kind == "postgres":
                env["POSTGRES_ENABLE_DB_FUNCTIONS"] = "y"
            if raw_library_pool and kind == "sqlite":
                env["PERSISTENCE_MODULE"] = "eventsourcing.sqlite"
            raw = RawApp(env=env)
            try:
                for command in commands:
                    c0, t0 = time.process_time(), time.perf_counter()
                    app.execute(command)
                    c1, t1 = time.process_time(), time.perf_counter()
                    batch = by_command.get(command.command_id)
                    if batch:
                        raw.save(*batch)
                    c2, t2 = time.process_time(), time.perf_counter()
                    ledger_took.append(t1 - t0)
                    raw_took.append(t2 - t1)
                    cpu[0] += c1 - c0
                    cpu[1] += c2 - c1
            finally:
                app.close()
                raw.close()
    n = len(commands) * rounds
    ledger_s, raw_s = sum(ledger_took), sum(raw_took)
    ledger_cps, raw_cps = n / ledger_s, n / raw_s
    mode = "brought forward" if fresh else "cached"
    baseline = ("; raw saves through the library's insert function"
                if raw_functions and kind == "postgres" else
                "; raw saves on the library's own SQLite pool"
                if raw_library_pool and kind == "sqlite" else "")
    print(f"{kind:<8} {len(commands)} commands, {events} events, x{rounds} interleaved rounds; "
          f"the ledger decides on the {mode} table{baseline}")
    print(f"{kind:<8} {'':<7} {'per s':>8} {'events/s':>9} {'p50 ms':>8} {'p99 ms':>8} "
          f"{'cpu ms':>7}")
    for label, rate, took, seconds, used in (
            ("ledger", ledger_cps, ledger_took, ledger_s, cpu[0]),
            ("raw", raw_cps, raw_took, raw_s, cpu[1])):
        print(f"{kind:<8} {label:<7} {rate:8.0f} {events * rounds / seconds:9.0f} "
              f"{percentile(took, 0.5) * 1e3:8.3f} {percentile(took, 0.99) * 1e3:8.3f} "
              f"{used / n * 1e3:7.3f}")
    print(f"{kind:<8} ratio ledger/raw = {ledger_cps / raw_cps:.2f}")


def own_work(hands: int) -> None:
    """CPU per command with nothing written: what the ledger adds to a save of its events."""
    commands, decks = workload("OWN-1", hands, seed=11)
    best = float("inf")
    for _ in range(3):
        with fresh_store("sqlite") as settings:
            app = LedgerApp(settings, keeper=OpenDeckKeeper(decks))
            app.recorder.insert_events = lambda stored, **kwargs: None  # type: ignore[method-assign]
            try:
                started = time.process_time()
                for command in commands:
                    app.execute(command)
                best = min(best, (time.process_time() - started) / len(commands))
            finally:
                app.close()
    print(f"own work: {best * 1e6:.0f} µs of CPU per command with nothing written "
          f"({len(commands)} commands, best of 3)")


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
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--fresh", action="store_true",
                        help="bring each table forward before every decision (one read)")
    parser.add_argument("--raw-library-pool", action="store_true",
                        help="SQLite: the raw baseline on the library's own pool (one "
                             "prepared statement kept per connection)")
    parser.add_argument("--own-work", action="store_true",
                        help="also print a command's CPU with nothing written")
    parser.add_argument("--raw-functions", action="store_true",
                        help="PostgreSQL: the raw baseline inserts through the library's "
                             "function (one round trip) instead of its pipeline")
    args = parser.parse_args()
    print(f"ledger command benchmark ({optimised()}); deck order scripted; bots not timed")
    if args.own_work:
        own_work(args.hands)
    for kind in filter(None, args.stores.split(",")):
        if kind not in ("sqlite", "postgres"):
            parser.error(f"unknown store {kind!r}: sqlite, postgres (or none: --stores '')")
        if kind == "postgres" and not postgres_available():
            print("postgres: not reachable, skipped")
            continue
        throughput(kind, args.hands, args.rounds, fresh=args.fresh,
                   raw_functions=args.raw_functions, raw_library_pool=args.raw_library_pool)
        latency_by_history(kind, args.history)


if __name__ == "__main__":
    main()
