"""Signed approvals: what the signatures cost.

Printed per store: the register verified from its rows with N principals (a process's first
approval; later ones read only the rows added since), a tray fill signed in one step by its two
signers against an unsigned command of the same table (a seat), and the audit of the table
with its signed fills.
Run: ``.venv/bin/python -O ops/bench/signatures.py [--principals 200] [--fills 50]``.
"""

from __future__ import annotations

import argparse
import statistics
import time

from _common import fresh_store, optimised

from ledger.access.register import Register
from ledger.app.application import LedgerApp
from ledger.domain.commands import Fill, OpenTable, SeatPlayer, UnseatPlayer
from ledger.sim.principals import ensure_principals
from projections.audit import verify


def _ms(samples: list[float]) -> str:
    return f"{statistics.median(samples) * 1000:7.2f} ms"


def run(kind: str, principals: int, fills: int) -> None:
    with fresh_store(kind) as settings:
        app = LedgerApp(settings)
        try:
            people = {f"floor-{n}": (f"Floor {n}", "floor") for n in range(principals)}
            people.update({"sup-a": ("A", "supervisor"), "sup-b": ("B", "supervisor")})
            started = time.perf_counter()
            ensure_principals(app, people)
            registered = time.perf_counter() - started
            cold = []
            for _ in range(5):
                fresh = Register(app.recorder)
                begin = time.perf_counter()
                fresh.verified()
                cold.append(time.perf_counter() - begin)
            app.execute(OpenTable(command_id="o", table="B-1", game="caribbean-stud"))
            signed, plain = [], []
            for n in range(fills):
                begin = time.perf_counter()
                app.execute(Fill(command_id=f"f{n}", table="B-1", chips={100: 1},
                                 signers=("floor-0", "floor-1")))
                signed.append(time.perf_counter() - begin)
                begin = time.perf_counter()
                app.execute(SeatPlayer(command_id=f"s{n}", table="B-1", seat=1, player="p"))
                plain.append(time.perf_counter() - begin)
                app.execute(UnseatPlayer(command_id=f"u{n}", table="B-1", seat=1))
            begin = time.perf_counter()
            report = verify(app)
            audited = time.perf_counter() - begin
        finally:
            app.close()
    print(f"  {kind:<8} register of {principals + 3} principals made in {registered:.2f} s; "
          f"verified from its rows {_ms(cold)}")
    print(f"  {kind:<8} fill signed by two (one step) {_ms(signed)}; a seat, unsigned "
          f"{_ms(plain)}; audit of {fills} signed fills {audited:.2f} s "
          f"(signatures {'verified' if report.signatures_ok else 'BAD'})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--principals", type=int, default=200)
    parser.add_argument("--fills", type=int, default=50)
    parser.add_argument("--postgres", action="store_true", help="also on PostgreSQL")
    args = parser.parse_args()
    print(f"signatures benchmark ({optimised()})")
    for kind in ("sqlite", "postgres") if args.postgres else ("sqlite",):
        run(kind, args.principals, args.fills)


if __name__ == "__main__":
    main()
