"""The daily audit from the previous day's seal against the full audit, as the store ages.

    .venv/bin/python -O ops/bench/incremental_audit.py [--days 2,4,8] [--hands 10]
        [--store sqlite|postgres]

The defaults take about 20 seconds on SQLite (the store is built, then audited twice).

Method. For each number of days N, a fresh store gets N gaming days of play (two tables,
``--hands`` hands each per day, the application's clock set per day), each day sealed with
the previous day's seal (not timed). Then, on the same store, for the last day D:

- full: ``verify(app, day=D)``: every table's whole stream read, chain and command log checked
  whole, the day's hands decided again;
- incremental: ``verify(app, day=D, seal=<seal of D-1>)``: each table from its sealed head.

Printed per N: events in the store, events read and seconds for each, and the ratios
(full / incremental). The full audit grows with N; the incremental one should not.
"""

from __future__ import annotations

import argparse
import time
from datetime import UTC, datetime, timedelta
from typing import Any
from unittest import mock

from _common import fresh_store, optimised
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from ledger.app.application import LedgerApp
from ledger.sim.runner import simulate
from projections.audit import verify
from projections.audit.seal import make_seal

START = datetime(2026, 1, 1, 20, 0, tzinfo=UTC)


class Clock:
    moment = START

    @classmethod
    def now(cls, tz: object = None) -> datetime:
        return cls.moment


def build(app: LedgerApp, days: int, hands: int, key: Ed25519PrivateKey) -> list[Any]:
    seals: list[Any] = []
    for n in range(days):
        Clock.moment = START + timedelta(days=n)
        simulate(app, "caribbean-stud", "CSP-1", hands, seed=n)
        simulate(app, "high-card-flush", "HCF-1", hands, seed=100 + n)
        day = Clock.moment.date().isoformat()
        seals.append(make_seal(app, day, key, previous=seals[-1] if seals else None,
                               now=Clock.moment + timedelta(hours=3)))
    return seals


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--days", default="2,4,8", help="store ages to measure, in days (>= 2)")
    parser.add_argument("--hands", type=int, default=10, help="hands per table per day")
    parser.add_argument("--store", default="sqlite", choices=("sqlite", "postgres"))
    args = parser.parse_args()
    key = Ed25519PrivateKey.generate()
    print(f"incremental audit, {args.store}, {args.hands} hands per table per day, "
          f"{optimised()}")
    print(f"{'days':>5} {'events':>7} | {'full read':>9} {'full s':>7} | {'incr read':>9} "
          f"{'incr s':>7} | {'read x':>6} {'time x':>6}")
    for days in (int(d) for d in args.days.split(",")):
        with fresh_store(args.store) as settings, \
                mock.patch("ledger.app.application.datetime", Clock):
            app = LedgerApp(settings)
            try:
                seals = build(app, days, args.hands, key)
                day = seals[-1]["gaming_day"]
                events = int(app.recorder.max_notification_id() or 0)
                started = time.perf_counter()
                full = verify(app, day=day)
                full_s = time.perf_counter() - started
                started = time.perf_counter()
                incr = verify(app, day=day, seal=seals[-2], public_key=key.public_key())
                incr_s = time.perf_counter() - started
            finally:
                app.close()
        assert full.ok and incr.ok and incr.incremental_from == seals[-2]["gaming_day"]
        print(f"{days:>5} {events:>7} | {full.events_read:>9} {full_s:>7.2f} | "
              f"{incr.events_read:>9} {incr_s:>7.2f} | "
              f"{full.events_read / incr.events_read:>6.1f} {full_s / incr_s:>6.1f}")


if __name__ == "__main__":
    main()
