"""What a read store costs and gives: view reads through an instance that reads the primary
against one that reads a streaming standby (``LEDGER_READ_DATABASE_URL``), same run, same
cluster (a throwaway primary and standby built with ops/ha/pgcluster.py).

    .venv/bin/python -O ops/bench/read_store.py [--reads 300] [--pairs 100]

Two measures, each for both instances, interleaved:

- ``reads``: ``GET /hands`` over and over, nothing written meanwhile (each read catches the
  views up on the primary, a no-op, then queries; on the read store it also checks how far the
  standby's views are);
- ``write then read``: a buy-in through the instance, then ``GET /bankrolls`` through it; the
  read store's answer counts as fresh when its ``X-Ledger-Views-Position`` reached the
  primary's (the standby had replayed the catch-up within the 1 s it waits).

Prints reads/s, median and 95th percentile latency (of the reads alone), and for the read
store how many answers were fresh.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from _common import ROOT, optimised

sys.path.insert(0, str(ROOT / "ops" / "ha"))
import pgcluster
from fastapi.testclient import TestClient

from ledger.api.app import create_app
from ledger.logs import configure
from ledger.settings import Settings
from tests.support.http import bearer, make_tokens


def summary(label: str, took: list[float]) -> str:
    ms = sorted(t * 1000 for t in took)
    p95 = ms[min(len(ms) - 1, int(len(ms) * 0.95))]
    return (f"{label:<34} {len(ms) / (sum(took) or 1):7.0f}/s  median {statistics.median(ms):5.1f} "
            f"ms  p95 {p95:5.1f} ms")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reads", type=int, default=300)
    parser.add_argument("--pairs", type=int, default=100)
    args = parser.parse_args()
    why = pgcluster.available()
    if why is not None:
        print(f"read_store: cannot run: {why}", file=sys.stderr)
        return 2
    configure("CRITICAL")
    root = pgcluster.workspace("ledger-bench-replica-")
    primary, standby = pgcluster.Server(root, "primary"), pgcluster.Server(root, "standby")
    try:
        primary.initdb()
        primary.start()
        standby.standby_of(primary, app_name="standby").start()
        base: dict[str, Any] = {"database_url": primary.url(), "log_level": "CRITICAL",
                                "deck_key_file": Path(root) / "deck.key"}
        direct = create_app(Settings(**base))
        replica = create_app(Settings(**base, read_database_url=standby.url()))
        tokens = make_tokens(direct, ["RS-1"])
        auditor, device = bearer(tokens.auditor), bearer(tokens.device)
        with TestClient(direct) as a, TestClient(replica) as b:
            a.post("/tables", headers=bearer(tokens.admin), json={
                "command_id": "open", "table": "RS-1", "game": "caribbean-stud"})
            a.post("/tables/RS-1/seats", headers=device, json={
                "command_id": "seat", "seat": 1, "player": "p1"})
            clients = {"primary": a, "read store": b}
            for client in clients.values():  # warm up (the standby replays the views' tables)
                deadline = time.monotonic() + 30
                while client.get("/hands", headers=auditor).status_code != 200:
                    if time.monotonic() > deadline:
                        raise RuntimeError("the standby never answered")
                    time.sleep(0.1)
            print(f"read store benchmark ({optimised()}), PostgreSQL primary and streaming "
                  "standby on this machine")
            took: dict[str, list[float]] = {name: [] for name in clients}
            for _ in range(args.reads):
                for name, client in clients.items():
                    started = time.perf_counter()
                    status = client.get("/hands", headers=auditor).status_code
                    took[name].append(time.perf_counter() - started)
                    if status != 200:
                        raise RuntimeError(f"{name}: /hands answered {status}")
            for name in clients:
                print(summary(f"reads, {name}", took[name]))
            took = {name: [] for name in clients}
            fresh = 0
            n = 0
            for _ in range(args.pairs):
                for name, client in clients.items():
                    n += 1
                    done = client.post("/tables/RS-1/buy-ins", headers=device, json={
                        "command_id": f"b{n}", "seat": 1, "amount": 100})
                    if done.status_code != 201:
                        raise RuntimeError(done.text)
                    started = time.perf_counter()
                    answer = client.get("/bankrolls", headers=auditor)
                    took[name].append(time.perf_counter() - started)
                    if answer.status_code != 200:
                        raise RuntimeError(answer.text)
                    if name == "read store":
                        fresh += answer.headers["X-Ledger-Views-Position"] == \
                            answer.headers["X-Ledger-Primary-Position"]
            for name in clients:
                print(summary(f"write then read, {name}", took[name]))
            print(f"read store answers that reflected the write just made: {fresh}/{args.pairs}")
    finally:
        pgcluster.remove(root, primary, standby)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
