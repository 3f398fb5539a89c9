"""Fresh reads between instances: what it costs to serve a table that reflects every committed
event, against serving the cache as it is (stale when another process wrote), in the same run.

    .venv/bin/python -O ops/bench/fresh_reads.py [--reads 3000] [--history 2000]

Three ways to read a table through an instance that has it cached:

- ``stale``: the cache as it is (the baseline; what the ledger did before: wrong in a fleet);
- ``fastforward``: the library's fast-forward (one query for the events after the cached
  version, applied to the cached table) — what the ledger uses;
- ``version check``: one query for the table's latest stored version; when newer, evict and
  load again from the latest snapshot plus the events after it.

Measured twice: reads of a table nobody else writes (the common case: each fresh read costs
one query that returns nothing), and reads through B right after each write through A (every
read must catch up one event).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

from _common import fresh_store, optimised, postgres_available
from ledger_commands import workload

from ledger.app.application import LedgerApp
from ledger.table.dealing import OpenDeckKeeper
from ledger.table.events import table_id

Reader = Callable[[LedgerApp, str], int]


def stale(app: LedgerApp, code: str) -> int:
    with app.reading(code) as table:
        return table.version


def version_check(app: LedgerApp, code: str) -> int:
    tid = table_id(code)
    latest = app.recorder.select_events(tid, desc=True, limit=1)
    with app.reading(code) as table:
        if latest and latest[0].originator_version > table.version:
            app._evict(tid)
        else:
            return table.version
    with app.reading(code) as table:
        return table.version


def run(kind: str, reads: int, history: int) -> dict[str, Any]:
    code = "FR-1"
    commands, decks = workload(code, history // 10 + reads // 40 + 10, seed=7)
    results: dict[str, Any] = {}
    with fresh_store(kind) as settings:
        settings = settings.model_copy(update={"snapshot_interval": 500})
        keeper = OpenDeckKeeper(decks)
        writer = LedgerApp(settings, keeper=keeper, allow_seeded=True)
        for command in commands[:history]:
            writer.execute(command)
        rest = commands[history:]
        modes: list[tuple[str, Reader, dict[str, str]]] = [
            ("stale", stale, {"AGGREGATE_CACHE_FASTFORWARD": "n"}),
            ("fastforward", stale, {}),
            ("version check", version_check, {"AGGREGATE_CACHE_FASTFORWARD": "n"}),
        ]
        for name, read, env in modes:
            reader = LedgerApp(settings, keeper=keeper, env=env, allow_seeded=True)
            read(reader, code)
            started = time.perf_counter()
            for _ in range(reads):
                read(reader, code)
            quiet = reads / (time.perf_counter() - started)
            # Reads through this instance, each right after a write through the writer.
            steps = min(len(rest), max(50, reads // 10))
            behind = 0
            started = time.perf_counter()
            for command in rest[:steps]:
                writer.execute(command)
                seen = read(reader, code)
                behind += seen != writer.load(code).version
            elapsed = time.perf_counter() - started
            results[name] = (quiet, steps / elapsed, behind, steps)
            rest = rest[steps:]
            reader.close()
        writer.close()
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reads", type=int, default=3000)
    parser.add_argument("--history", type=int, default=2000,
                        help="commands on the table before the reads")
    args = parser.parse_args()
    print(f"fresh reads ({optimised()}), {args.reads} reads, table history {args.history} "
          "commands")
    kinds = ["sqlite"] + (["postgres"] if postgres_available() else [])
    for kind in kinds:
        results = run(kind, args.reads, args.history)
        base = results["stale"][0]
        for name, (quiet, mixed, behind, steps) in results.items():
            print(f"  {kind:8s} {name:14s} quiet reads {quiet:8,.0f}/s (x{quiet / base:.2f} of "
                  f"stale)  write-then-read pairs {mixed:6,.0f}/s  stale answers "
                  f"{behind}/{steps}")


if __name__ == "__main__":
    main()
