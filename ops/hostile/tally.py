"""The hostile HTTP cases of ``tests/support/hostile.py`` against fresh SQLite stores: prints
how many were tried, refused with a coded 4xx, accepted, answered 500 or crashed, the slowest
answer, and whether every read, export and ``projections rebuild`` still work after the
command cases. The command cases and the query cases run on two stores, so that a command that
breaks the read side (as one did before the bounds) does not make every query case wait for it.

    .venv/bin/python -m ops.hostile.tally [--list] [--out FILE]

``--out FILE`` writes each outcome as it comes (one line each), for runs that are cut short.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from fastapi.testclient import TestClient  # noqa: E402

from ledger.api import create_app  # noqa: E402
from ledger.logs import configure  # noqa: E402
from ledger.settings import Settings  # noqa: E402
from projections.views.context import current_gaming_day  # noqa: E402
from tests.support import hostile  # noqa: E402


def store() -> tuple[Settings, Any, dict[str, str]]:
    tmp = Path(tempfile.mkdtemp(prefix="hostile-"))
    settings = Settings(database_url=f"sqlite:///{tmp}/ledger.sqlite3",
                        deck_key_file=tmp / "deck.key")
    configure(settings.log_level, settings.log_format)  # as `ledger serve` does
    app = create_app(settings)
    tokens_store = app.state.tokens
    tokens = {role: tokens_store.create(role, label=f"hostile {role}")[0]
              for role in ("admin", "auditor", "accounting")}
    tokens["device"] = tokens_store.create("device", tables=[hostile.IDLE, hostile.HAND],
                                           label="hostile device")[0]
    return settings, app, tokens


def run(cases: list[hostile.Case], out: Any, after: bool) -> tuple[list[Any], dict[str, Any]]:
    settings, app, tokens = store()
    outcomes: list[Any] = []
    found: dict[str, Any] = {}
    with TestClient(app, raise_server_exceptions=False) as client:
        hostile.prepare(client, tokens)
        before = app.state.ledger.recorder.max_notification_id() or 0
        for case in cases:
            outcome = hostile.send_case(client, case, tokens)
            outcomes.append(outcome)
            if out is not None:
                print(f"{outcome.kind}\t{outcome.status}\t{outcome.seconds:.3f}\t"
                      f"{case.name}", file=out, flush=True)
            if outcome.kind == "accepted":
                hostile.restore(client, tokens, case)
        found["appended"] = (app.state.ledger.recorder.max_notification_id() or 0) - before
        if after:
            day = current_gaming_day("Europe/Amsterdam", settings.gaming_day_start)
            started = time.perf_counter()
            found["reads"] = hostile.reads_after(client, tokens, day)
            found["reads_seconds"] = time.perf_counter() - started
            found["rebuild"] = hostile.rebuild(app.state.ledger)
    return outcomes, found


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--list", action="store_true",
                        help="name every case not refused with a coded 4xx")
    parser.add_argument("--out", type=Path, help="write each outcome as it comes")
    args = parser.parse_args()
    out = args.out.open("w") if args.out else None
    cases = hostile.hostile_cases()
    commands = [c for c in cases if not c.name.startswith("GET ")]
    queries = [c for c in cases if c.name.startswith("GET ")]
    started = time.perf_counter()
    first, found = run(commands, out, after=True)
    second, _ = run(queries, out, after=False)
    outcomes = first + second
    counts = Counter("accepted_ok" if o.kind == "accepted" and hostile.acceptable(o.case.name)
                     else o.kind for o in outcomes)
    slowest = max(outcomes, key=lambda o: o.seconds)
    print(f"cases {len(outcomes)}  coded_4xx {counts['coded_4xx']}  uncoded_4xx "
          f"{counts['uncoded_4xx']}  accepted {counts['accepted']} (+{counts['accepted_ok']} not "
          f"hostile after all)  500 {counts['500']}  crash {counts['crash']}  "
          f"({time.perf_counter() - started:.1f} s)")
    print(f"slowest answer {slowest.seconds * 1000:.0f} ms ({slowest.case.name}: "
          f"{slowest.status})")
    print(f"events appended by the command cases (with the restoring commands): "
          f"{found['appended']}")
    reads = found["reads"]
    broken = {path: status for path, status in reads.items() if status != 200}
    print(f"reads after the command cases: {len(reads) - len(broken)}/{len(reads)} answer 200 "
          f"({found['reads_seconds']:.1f} s)" + (f"; broken: {broken}" if broken else ""))
    print(f"projections rebuild after: {found['rebuild']}")
    if args.list:
        for o in outcomes:
            if o.kind != "coded_4xx" and not hostile.acceptable(o.case.name):
                print(f"  {o.kind:11} {o.status} {o.case.name}: {o.detail[:120]!r}")


if __name__ == "__main__":
    main()
