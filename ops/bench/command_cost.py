"""What each kind of command asks of the store: statements, commits and rollbacks per command,
through the ledger application and for a raw eventsourcing save of the same events.

    .venv/bin/python -O ops/bench/command_cost.py [--hands 30] [--stores sqlite,postgres]

Counted, not timed (``tests/support/statements.py``): the figures do not depend on the load of
the machine. The counted guard (tests/integration/store/test_command_cost.py) holds the ledger
to ceilings set from these figures.
"""

from __future__ import annotations

import argparse
from collections import defaultdict

from _common import fresh_store, postgres_available
from ledger_commands import RawApp, run_ledger, workload

from ledger.app.application import LedgerApp
from ledger.store.persistence import store_env
from ledger.table.dealing import OpenDeckKeeper
from tests.support.statements import Counts, counting


def ledger_costs(kind: str, hands: int) -> tuple[dict[str, list[Counts]], Counts]:
    commands, decks = workload("COST-1", hands, seed=11)
    per: dict[str, list[Counts]] = defaultdict(list)
    total = Counts()
    with fresh_store(kind) as settings:
        app = LedgerApp(settings, keeper=OpenDeckKeeper(decks))
        try:
            with counting(app) as counts:
                for command in commands:
                    before = counts.snapshot()
                    app.execute(command)
                    per[command.name].append(counts.snapshot() - before)
                total = counts.snapshot()
        finally:
            app.close()
    return per, total


def raw_costs(kind: str, hands: int) -> tuple[int, Counts]:
    commands, decks = workload("COST-1", hands, seed=11)
    with fresh_store(kind) as settings:
        _, _, batches = run_ledger(settings, commands, decks)
    with fresh_store(kind) as settings:
        env = {k: v for k, v in store_env(settings).items() if k != "APPLICATION_RECORDER_TOPIC"}
        app = RawApp(env=env)
        try:
            with counting(app) as counts:
                for batch in batches:
                    app.save(*batch)
                return len(batches), counts.snapshot()
        finally:
            app.close()


def _row(label: str, n: int, c: Counts) -> str:
    return (f"  {label:<18} {n:>6} {c.statements / n:>10.2f} {c.begins / n:>7.2f} "
            f"{c.commits / n:>8.2f} {c.rollbacks / n:>9.2f}")


def report(kind: str, hands: int) -> None:
    per, total = ledger_costs(kind, hands)
    n = sum(len(v) for v in per.values())
    print(f"{kind}: per command (statements exclude BEGIN/COMMIT/ROLLBACK; a statement sent "
          "outside BEGIN runs in autocommit mode, its own transaction)")
    print(f"  {'command':<18} {'count':>6} {'statements':>10} {'begins':>7} {'commits':>8} "
          f"{'rollbacks':>9}")
    for name, costs in sorted(per.items()):
        summed = Counts()
        for c in costs:
            summed = _add(summed, c)
        print(_row(name, len(costs), summed))
    print(_row("ledger, all", n, total))
    saves, raw = raw_costs(kind, hands)
    print(_row("raw save", saves, raw))
    print("  statements by kind (ledger, all):")
    for key, count in total.kinds.most_common(12):
        if count:
            print(f"    {count / n:6.2f}  {key}")


def _add(a: Counts, b: Counts) -> Counts:
    return Counts(a.statements + b.statements, a.begins + b.begins, a.commits + b.commits,
                  a.rollbacks + b.rollbacks, a.kinds + b.kinds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=30)
    parser.add_argument("--stores", default="sqlite,postgres")
    args = parser.parse_args()
    for kind in args.stores.split(","):
        if kind == "postgres" and not postgres_available():
            print("postgres: not reachable, skipped")
            continue
        report(kind, args.hands)


if __name__ == "__main__":
    main()
