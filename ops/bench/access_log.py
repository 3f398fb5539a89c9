"""What the access log costs: appends one after another and from threads side by side, and
walking its chain (``ledger access verify``).

    .venv/bin/python -O ops/bench/access_log.py [--rows 500] [--threads 4] [--store sqlite|postgres]

Method. A fresh store; ``--rows`` rows appended by one writer (per-append latency, p50 and
p99), then as many again by ``--threads`` writers at once (appends/s, retries show as a lower
rate; the chain must still hold), then the whole chain verified (rows/s).
"""

from __future__ import annotations

import argparse
import statistics
import time
from concurrent.futures import ThreadPoolExecutor

from _common import fresh_store, optimised

from ledger.access.accesslog import record_access, verify_access_log
from ledger.app.application import LedgerApp


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=500)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--store", default="sqlite", choices=("sqlite", "postgres"))
    args = parser.parse_args()
    print(f"access log, {args.store}, {args.rows} rows, {optimised()}")
    with fresh_store(args.store) as settings:
        app = LedgerApp(settings)
        try:
            lat = []
            for n in range(args.rows):
                started = time.perf_counter()
                record_access(app, who="token:bench", what="table_state", table="CSP-1",
                              hand=n, detail={"role": "auditor", "path": "/tables/CSP-1"})
                lat.append(time.perf_counter() - started)
            lat.sort()
            print(f"one writer: p50 {statistics.median(lat) * 1e3:.2f} ms, "
                  f"p99 {lat[int(len(lat) * 0.99) - 1] * 1e3:.2f} ms per append")

            def write(k: int) -> None:
                for n in range(args.rows // args.threads):
                    record_access(app, who=f"token:w{k}", what="hand", table="CSP-1", hand=n)

            started = time.perf_counter()
            with ThreadPoolExecutor(args.threads) as pool:
                list(pool.map(write, range(args.threads)))
            took = time.perf_counter() - started
            done = args.threads * (args.rows // args.threads)
            print(f"{args.threads} writers at once: {done / took:,.0f} appends/s")
            started = time.perf_counter()
            problems = verify_access_log(app)
            took = time.perf_counter() - started
            assert problems == [], problems
            print(f"verify: {args.rows + done} rows in {took * 1e3:.0f} ms "
                  f"({(args.rows + done) / took:,.0f} rows/s), chain intact")
        finally:
            app.close()


if __name__ == "__main__":
    main()
