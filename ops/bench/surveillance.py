"""Game protection: how often honest players, pairs and dealers are flagged, and how many hands
each simulated cheat needs before it is.

False positives: ``--honest-days`` seeded days of the protection day's tables
(:mod:`ledger.sim.protection_day`) played by honest players only (the cheats' seats play as
everyone does, the crooked dealer deals straight), each surveyed as one report (every test of
the day adjusted together, Benjamini-Hochberg at ``--rate``); per kind of test, how many tests
ran and how many flagged. With no cheat at the table a report's flags are all false, and
Benjamini-Hochberg keeps the chance that a report flags anything at most the rate.

Power: for each cheat (cheating in every hand, ``--cheat-rate``), its table alone played at
several numbers of hands with ``--seeds`` seeds; the share of runs where its flag came up (a
report of that table, adjusted over its own tests), the median decisions or hands its test
counted, and whether every hand the flag listed was a hand where it cheated.

Stores are SQLite files in ``--dir`` (default ``/dev/shm`` where it exists: a day is played
through the ledger, and a disk's fsync per command would be most of the time).

    .venv/bin/python ops/bench/surveillance.py                      # the tables of the docs
    .venv/bin/python ops/bench/surveillance.py --honest-days 4 --seeds 2   # a quick look
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from _common import optimised

from ledger.app.application import LedgerApp
from ledger.settings import Settings
from ledger.sim.protection_day import PLANTED, TABLES, Planted, key, play_day
from projections.protection.report import surveillance
from projections.read.fleet import read_model
from projections.reports.periods import Period
from projections.views.runner import Runner

SIZES: dict[str, tuple[int, ...]] = {
    "CSP-P": (10, 20, 40), "CSP-R": (30, 60, 90), "HCF-P": (10, 20, 40),
    "HCF-Q": (60, 120, 240), "STUD-D": (20, 40, 80), "STUD-S": (25, 50, 100),
    "CHP-P": (20, 40, 80),
}
"""Hands at the cheat's table (the dealer deals half of CSP-R's; the HCF pair's DP is one
player of four)."""


def _store(folder: str) -> Settings:
    tmp = tempfile.mkdtemp(prefix="ledger-protect-", dir=folder)
    return Settings(database_url=f"sqlite:///{tmp}/bench.sqlite3",
                    deck_key_file=Path(tmp) / "deck.key", log_level="WARNING")


def _survey(app: LedgerApp, rate: float, table: str | None = None) -> dict[str, Any]:
    Runner(app).catch_up()
    model = read_model(app)
    days = model.gaming_days()
    return surveillance(model, Period(days[0], days[-1], "range"), table, rate=rate)


def honest_day(args: tuple[int, str, float]) -> list[tuple[str, bool]]:
    """(kind, flagged) of every test of one honest day."""
    seed, folder, rate = args
    app = LedgerApp(_store(folder), allow_seeded=True)
    try:
        play_day(app, 1000 + seed, cheats=False)
        report = _survey(app, rate)
    finally:
        app.close()
    return [(t["kind"], t["flagged"]) for t in report["all"]]


def cheat_run(args: tuple[str, int, int, str, float, float]) -> dict[str, Any]:
    """One run of one cheat's table: was its flag raised, on hands where it cheated?"""
    table, hands, seed, folder, rate, cheat_rate = args
    app = LedgerApp(_store(folder), allow_seeded=True)
    try:
        cheated = play_day(app, seed, only={table}, hands={table: hands}, rate=cheat_rate)
        report = _survey(app, rate, table)
    finally:
        app.close()
    out = {}
    for planted in (p for p in PLANTED if p.table == table):
        found = [f for f in report["flags"] if planted.found_by(f)]
        best = min(found, key=lambda f: f["p_value"]) if found else None
        tested = sorted((t for t in report["all"] if planted.found_by(t)),
                        key=lambda t: t["p_value"])
        size = (tested[0]["decisions"] or tested[0]["hands_tested"] or 0) if tested else 0
        listed = {h["hand_no"] for f in found for h in f["hands"]}
        out[key(planted)] = {"flagged": best is not None, "tested": size,
                             "listed_cheated": listed <= set(cheated.get(key(planted), []))}
    return out


def _timing(decisions: int = 2_000) -> None:
    """The exact analysis of one decision: fresh (each decision's cards new) and cached (the
    same cards up to a permutation of suits seen before), in milliseconds."""
    import random

    from ledger.games.caribbean.config import CaribbeanConfig
    from ledger.games.hcf.model import HcfConfig
    from projections.protection import caribbean, hcf

    rng = random.Random(7)
    deals = [rng.sample(range(52), 14) for _ in range(decisions)]
    csp_config, hcf_config = CaribbeanConfig(), HcfConfig()
    caribbean.dealer_counts(tuple(deals[0][:5]), deals[0][5])  # the shared tables, made once
    hcf.dp_cells(tuple(deals[0][:7]))
    print("\n## Time per decision (exact; one process)\n")
    print("| game | hidden hands per decision | fresh ms | cached ms |")
    print("| --- | ---: | ---: | ---: |")

    def csp_decision(d: list[int]) -> object:
        counts = caribbean.dealer_counts(tuple(d[:5]), d[5])
        return caribbean.action_odds(counts, 500, csp_config.play_paytable)

    def hcf_decision(d: list[int]) -> object:
        return hcf.action_odds(d[:7], hcf.dp_cells(tuple(d[:7])), hcf.Stakes(500, 100, 100),
                               hcf_config.flush_bonus_paytable,
                               hcf_config.straight_flush_bonus_paytable,
                               hcf.raise_sizes(d[:7], 500))

    runs: tuple[tuple[str, str, Callable[[list[int]], object]], ...] = (
        ("Caribbean Stud (Play/fold)", "163,185", csp_decision),
        ("High Card Flush (fold/raise)", "45,379,620", hcf_decision))
    for label, hidden, run in runs:
        times = []
        for _ in range(2):
            started = time.perf_counter()
            for deal in deals:
                run(deal)
            times.append((time.perf_counter() - started) * 1000 / len(deals))
        print(f"| {label} | {hidden} | {times[0]:.2f} | {times[1]:.2f} |")


def _kind_of(planted: Planted) -> str:
    return "/".join(k.removeprefix("stud_") for k in planted.flag_kinds)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--honest-days", type=int, default=20)
    parser.add_argument("--seeds", type=int, default=5, help="Seeds per cheat and size.")
    parser.add_argument("--rate", type=float, default=0.05, help="False discovery rate.")
    parser.add_argument("--cheat-rate", type=float, default=1.0,
                        help="Share of its hands each cheat cheats in.")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--dir", default="/dev/shm" if Path("/dev/shm").is_dir() else None)
    parser.add_argument("--timing", action="store_true",
                        help="Only the time per decision (Caribbean Stud, High Card Flush).")
    args = parser.parse_args(argv)
    if args.timing:
        _timing()
        return 0
    folder = args.dir or tempfile.gettempdir()
    print(f"# game protection: false positives and power ({optimised()}; SQLite in {folder}; "
          f"false discovery rate {args.rate}; {args.jobs} processes)")
    started = time.perf_counter()
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        days = list(pool.map(honest_day, [(s, folder, args.rate)
                                          for s in range(args.honest_days)]))
        runs = [(t, n, s, folder, args.rate, args.cheat_rate)
                for t, sizes in SIZES.items() for n in sizes for s in range(1, args.seeds + 1)]
        results = list(pool.map(cheat_run, runs))
    _false_positives(days, args.rate)
    _power(runs, results)
    print(f"\n({time.perf_counter() - started:.0f} s)")
    return 0


def _false_positives(days: list[list[tuple[str, bool]]], rate: float) -> None:
    hands = sum(t.hands for t in TABLES.values())
    print(f"\n## Honest days: {len(days)} seeded days, {hands} hands each at "
          f"{len(TABLES)} tables\n")
    print("| kind of test | tests | flagged | share flagged |")
    print("| --- | ---: | ---: | ---: |")
    by_kind: dict[str, list[bool]] = defaultdict(list)
    for day in days:
        for kind, flagged in day:
            by_kind[kind].append(flagged)
    for kind, flags in sorted(by_kind.items()):
        print(f"| {kind} | {len(flags)} | {sum(flags)} | {sum(flags) / len(flags):.2%} |")
    every = [f for flags in by_kind.values() for f in flags]
    flagged_days = sum(1 for day in days if any(f for _, f in day))
    print(f"| all | {len(every)} | {sum(every)} | {sum(every) / max(len(every), 1):.2%} |")
    print(f"\nDays with any flag: {flagged_days} of {len(days)} (Benjamini-Hochberg keeps this "
          f"at most {rate:.0%} in expectation when nobody cheats).")


def _power(runs: list[tuple[Any, ...]], results: list[dict[str, Any]]) -> None:
    print("\n## Power: each cheat alone at its table, cheating in every hand\n")
    print("| cheat | flag | hands at the table | decisions or hands its test counted (median) | "
          "flagged | listed hands all cheated |")
    print("| --- | --- | ---: | ---: | ---: | ---: |")
    grouped: dict[tuple[str, int], list[dict[str, Any]]] = defaultdict(list)
    for run, result in zip(runs, results, strict=True):
        for name, found in result.items():
            grouped[(name, run[1])].append(found)
    for planted in PLANTED:
        for size in SIZES[planted.table]:
            found = grouped.get((key(planted), size), [])
            if not found:
                continue
            hits = sum(f["flagged"] for f in found)
            tested = statistics.median(f["tested"] for f in found)
            clean = sum(f["listed_cheated"] for f in found if f["flagged"])
            print(f"| {key(planted)} | {_kind_of(planted)} | {size} | {tested:g} | "
                  f"{hits}/{len(found)} | {clean}/{hits} |")


if __name__ == "__main__":
    sys.exit(main())
