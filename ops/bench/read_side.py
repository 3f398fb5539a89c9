"""Projection rebuild (events/s) and audit (hands/s) against a raw scan of the notification
log in the same run, on SQLite and PostgreSQL.

    .venv/bin/python -O ops/bench/read_side.py [--hands 500] [--stores sqlite,postgres]

Method. Hands of every game are played into a fresh store by the simulator's bots first (not
timed). Then, on the same store:

- raw scan: ``select_notifications`` page by page (1,000 rows) from the start to the head, rows
  counted and nothing else: the floor any reader of the log pays;
- scan + decode: the same, each row turned into its event (``mapper.to_domain_event``), which
  every view and the audit must do;
- rebuild: ``Runner(app).rebuild()``: every view emptied and rebuilt, one transaction per
  1,000 events (decode, seven views, tracking rows);
- audit: ``verify(app)``: per table, the raw rows read again, the hash chain and the command-log
  copies checked, every command decided again by the rules and compared, conservation checked.

Ratios are against the raw scan (events/s of the step / events/s of the raw scan).
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from _common import fresh_store, optimised, postgres_available

from ledger.app.application import LedgerApp
from ledger.settings import Settings
from ledger.sim.profiles import PROFILES
from ledger.sim.runner import simulate
from projections.audit import verify
from projections.views.registry import view_names
from projections.views.runner import Runner

PAGE = 1_000


def play(app: LedgerApp, hands: int) -> tuple[int, float]:
    started = time.perf_counter()
    total = 0
    for i, game in enumerate(sorted(PROFILES)):
        total += simulate(app, game, f"{PROFILES[game].code}-B", hands, seed=40 + i).hands
    return total, time.perf_counter() - started


def scan(app: LedgerApp, decode: bool) -> tuple[int, float]:
    started = time.perf_counter()
    position, count = 0, 0
    while True:
        notes = app.recorder.select_notifications(position, PAGE, inclusive_of_start=False)
        if not notes:
            break
        if decode:
            for note in notes:
                app.mapper.to_domain_event(note)
        count += len(notes)
        position = notes[-1].id
    return count, time.perf_counter() - started


def timed(step: Any) -> tuple[Any, float]:
    started = time.perf_counter()
    result = step()
    return result, time.perf_counter() - started


def run(kind: str, hands: int, per_view: bool) -> None:
    with fresh_store(kind) as settings:
        app = LedgerApp(Settings(**{**settings.model_dump(), "log_level": "WARNING"}))
        try:
            played, sim_s = play(app, hands)
            events, raw_s = scan(app, decode=False)
            _, decode_s = scan(app, decode=True)
            _, rebuild_s = timed(lambda: Runner(app).rebuild())
            report, audit_s = timed(lambda: verify(app))
            assert report.ok, report.as_dict()["discrepancies"][:3]
            raw = events / raw_s
            print(f"{kind:<8} store: {played} hands, {events} events "
                  f"(played in {sim_s:.1f} s, not timed below)")
            print(f"{kind:<8} raw scan        {raw:10.0f} events/s  ({raw_s:.2f} s)")
            print(f"{kind:<8} scan + decode   {events / decode_s:10.0f} events/s  "
                  f"({decode_s:.2f} s)  ratio {raw_s / decode_s:.2f}")
            print(f"{kind:<8} rebuild (all)   {events / rebuild_s:10.0f} events/s  "
                  f"({rebuild_s:.2f} s)  ratio {raw_s / rebuild_s:.2f}")
            print(f"{kind:<8} audit           {report.hands_checked / audit_s:10.0f} hands/s "
                  f"{events / audit_s:8.0f} events/s  ({audit_s:.2f} s)  ratio "
                  f"{raw_s / audit_s:.2f}")
            if per_view:
                for game in sorted(PROFILES):
                    code = f"{PROFILES[game].code}-B"
                    one, game_s = timed(lambda c=code: verify(app, table=c))
                    print(f"{kind:<8}   audit {game:<16} {one.hands_checked / game_s:8.0f} "
                          f"hands/s {one.events_checked / game_s:8.0f} events/s")
                for name in view_names():
                    _, view_s = timed(lambda n=name: Runner(app, [n]).rebuild())
                    print(f"{kind:<8}   view {name:<11} {events / view_s:10.0f} events/s")
        finally:
            app.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=500, help="hands per game")
    parser.add_argument("--stores", default="sqlite,postgres")
    parser.add_argument("--per-view", action="store_true",
                        help="also rebuild each view alone and audit each game's table alone")
    args = parser.parse_args()
    print(f"read-side benchmark ({optimised()}); {args.hands} hands of each of "
          f"{len(PROFILES)} games")
    for kind in args.stores.split(","):
        if kind == "postgres" and not postgres_available():
            print("postgres: not reachable, skipped")
            continue
        run(kind, args.hands, args.per_view)


if __name__ == "__main__":
    main()
