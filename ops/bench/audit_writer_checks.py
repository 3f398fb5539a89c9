"""What the audit's signs-of-a-writer checks cost (issue 30): the snapshots checked against
their signature and chain, the command log's rows without events, the views' layout, timed
beside a whole ``audit verify`` of the same store.

    .venv/bin/python -O ops/bench/audit_writer_checks.py [--hands N] [--store sqlite|postgres]
"""

from __future__ import annotations

import argparse
import time

from _common import fresh_store, optimised

from ledger.app.application import LedgerApp
from ledger.sim.runner import simulate
from projections.audit import writers
from projections.audit.reader import consistent_read
from projections.audit.verify import snapshot_discrepancies, verify


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=150, help="hands on each of two tables")
    parser.add_argument("--store", choices=("sqlite", "postgres"), default="sqlite")
    args = parser.parse_args()
    with fresh_store(args.store) as settings:
        app = LedgerApp(settings)
        try:
            for i, code in enumerate(("CSP-1", "CSP-2")):
                simulate(app, "caribbean-stud", code, args.hands, seed=i)
            with consistent_read(app) as reader:
                tids = reader.table_ids()
            started = time.perf_counter()
            report = verify(app)
            whole = time.perf_counter() - started
            figures = {}
            for name, check in (
                    ("snapshots", lambda: snapshot_discrepancies(app, tids)),
                    ("command log", lambda: writers.commands_without_events(
                        app, {str(t) for t in tids})),
                    ("views' layout", lambda: writers.layout_findings(app, ["accounting"]))):
                started = time.perf_counter()
                check()
                figures[name] = time.perf_counter() - started
            events = app.recorder.max_notification_id()
        finally:
            app.close()
    print(f"{args.store}, {events} events on 2 tables, {optimised()}")
    print(f"audit verify: {whole:.2f} s (ok={report.ok})")
    for name, took in figures.items():
        print(f"  {name}: {took * 1000:.0f} ms ({took / whole:.1%} of the audit)")


if __name__ == "__main__":
    main()
