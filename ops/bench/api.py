"""Requests/s and p50/p99 latency of the HTTP API with concurrent clients, on SQLite and
PostgreSQL.

    .venv/bin/python ops/bench/api.py [--clients 8] [--seconds 5] [--stores sqlite,postgres]

Method. ``ledger serve`` runs as its own process (``python -O``) on a free loopback port over a
fresh store; tokens are made in the store beforehand. Client threads (httpx, keep-alive, one
connection each) send requests for a fixed time after a warm-up, each timing its own requests.
Workloads:

- ``commands, many tables``: each client buys chips in at its own table (a valid command every
  time: validate, append the event and the command-log row, answer with the event);
- ``commands, one table``: every client buys in at the same table (the table's lock serialises
  them, so this is the one-table ceiling);
- ``table reads``: ``GET /tables/{code}`` with a device token (hidden cards masked);
- ``hands``: every client plays Caribbean Stud hands at its own table with the simulator's bot
  (observe with an auditor token, act with a device token): the mixed load of a real table;
- ``hands from the answers``: every client plays Caribbean Stud hands at its own table as a
  table device does, from the command answers alone (the step each answer carries: who is to
  wager or act, what to deal, and the per-seat results that end the hand), with no read in
  between.

Latency is measured at the client, so it includes HTTP and the client's own share of the two
cores; the figures are for this machine, with the server and the clients on it.
"""

from __future__ import annotations

import argparse
import os
import random
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import httpx
from _common import fresh_store, median, percentile, postgres_available

from ledger.access.tokens import TokenStore
from ledger.app.application import LedgerApp
from ledger.settings import Settings
from ledger.sim.base import CommandIds, play_hand
from ledger.sim.profiles import profile_for

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.support.http import HttpExecutor, bearer, send  # noqa: E402

Work = Callable[[httpx.Client, int, int], None]
"""One request (or one unit of work) of client ``n``, ``k``-th time."""


def expect(response: httpx.Response, status: int) -> None:
    """Checked even under ``python -O``: a benchmark of refusals measures nothing."""
    if response.status_code != status:
        raise RuntimeError(f"{response.status_code}: {response.text}")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    """``ledger serve`` in its own process over ``settings``' store."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        env = {**os.environ, "LEDGER_DATABASE_URL": settings.database_url,
               "LEDGER_POSTGRES_SCHEMA": settings.postgres_schema,
               "LEDGER_DECK_KEY_FILE": str(settings.deck_key_file),
               "LEDGER_LOG_LEVEL": "WARNING", "LEDGER_POSTGRES_POOL_SIZE": "10"}
        self.process = subprocess.Popen(
            [sys.executable, "-O", "-m", "ledger", "serve", "--port", str(self.port)],
            env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        )
        for _ in range(400):
            try:
                if httpx.get(f"{self.url}/health").status_code == 200:
                    return
            except httpx.TransportError:
                time.sleep(0.05)
        raise RuntimeError(f"the server did not start: {self.process.stderr}")

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=30)


def run_clients(url: str, clients: int, seconds: float, work: Work) -> tuple[int, list[float]]:
    """Run ``work`` in ``clients`` threads for ``seconds`` (after 0.5 s of warm-up)."""
    latencies: list[list[float]] = [[] for _ in range(clients)]
    start = threading.Barrier(clients + 1)
    stop_at = [0.0]

    def client(n: int) -> None:
        with httpx.Client(base_url=url, timeout=60) as http:
            warm_until = time.perf_counter() + 0.5
            k = 0
            while time.perf_counter() < warm_until:
                work(http, n, k)
                k += 1
            start.wait()
            while True:
                began = time.perf_counter()
                if began >= stop_at[0]:
                    return
                work(http, n, k)
                latencies[n].append(time.perf_counter() - began)
                k += 1

    threads = [threading.Thread(target=client, args=(n,)) for n in range(clients)]
    for t in threads:
        t.start()
    stop_at[0] = time.perf_counter() + 3600
    start.wait()
    began = time.perf_counter()
    stop_at[0] = began + seconds
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - began
    flat = [x for per in latencies for x in per]
    return round(len(flat) / elapsed), flat


def report(store: str, name: str, rate: int, flat: list[float], unit: str = "requests") -> None:
    print(f"{store:<8} {name:<24} {rate:7d} {unit}/s   p50 {median(flat) * 1e3:7.2f} ms   "
          f"p99 {percentile(flat, 0.99) * 1e3:7.2f} ms   ({len(flat)} timed)")


def bench(store: str, clients: int, seconds: float) -> None:
    with fresh_store(store) as settings:
        ledger = LedgerApp(settings)
        tokens = TokenStore.of(ledger)
        codes = [f"B-{n}" for n in range(clients)] + ["ONE"] + [f"D-{n}" for n in
                                                                 range(clients)]
        admin = tokens.create("admin")[0]
        device = tokens.create("device", tables=codes)[0]
        auditor = tokens.create("auditor")[0]
        ledger.close()
        server = Server(settings)
        try:
            with httpx.Client(base_url=server.url) as http:
                for code in codes:
                    http.post("/tables", headers=bearer(admin), json={
                        "command_id": f"open-{code}", "table": code, "game": "caribbean-stud"})
                    for seat in range(1, 8):
                        http.post(f"/tables/{code}/seats", headers=bearer(device), json={
                            "command_id": f"{code}-seat-{seat}", "seat": seat,
                            "player": f"p{seat}"})

            def buy(code_of: Callable[[int], str]) -> Work:
                def work(http: httpx.Client, n: int, k: int) -> None:
                    r = http.post(f"/tables/{code_of(n)}/buy-ins", headers=bearer(device),
                                  json={"command_id": f"buy-{code_of(n)}-{n}-{k}",
                                        "seat": k % 7 + 1, "amount": 100})
                    expect(r, 201)
                return work

            def read(http: httpx.Client, n: int, k: int) -> None:
                expect(http.get(f"/tables/B-{n}", headers=bearer(device)), 200)

            rate, flat = run_clients(server.url, clients, seconds, buy(lambda n: f"B-{n}"))
            report(store, "commands, many tables", rate, flat)
            rate, flat = run_clients(server.url, clients, seconds, buy(lambda n: "ONE"))
            report(store, "commands, one table", rate, flat)
            rate, flat = run_clients(server.url, clients, seconds, read)
            report(store, "table reads", rate, flat)
            hands(store, server.url, clients, seconds, device, auditor)
            device_hands(store, server.url, clients, seconds, device)
        finally:
            server.stop()


def hands(store: str, url: str, clients: int, seconds: float, device: str, auditor: str) -> None:
    """Bots play whole hands; requests counted are every command and every observation."""
    profile = profile_for("caribbean-stud")
    counts, played_hands = [0] * clients, [0] * clients  # warm-up included in both

    def work(http: httpx.Client, n: int, k: int) -> None:
        code = f"B-{n}"
        executor = HttpExecutor(http, code, device, auditor)
        ids = CommandIds(code, f"h{n}-{k}")
        table, _, _ = executor.observe()
        for seat in sorted(table.seats):
            if table.seat_stack(seat) < 20_000:
                from ledger.domain.commands import BuyIn

                send(http, device, BuyIn(command_id=ids.next(), table=code, seat=seat,
                                         amount=100_000))
        played = play_hand(executor, profile.make_bot(), random.Random(k), ids)
        counts[n] += 2 * played + 1  # each command is preceded by an observation
        played_hands[n] += 1

    rate, flat = run_clients(url, clients, seconds, work)
    per_hand = sum(counts) / max(1, sum(played_hands))
    report(store, "hands (whole hands)", rate, flat, unit="hands")
    print(f"{store:<8} {'':<24} ~{per_hand:.0f} requests per hand")


def device_hands(store: str, url: str, clients: int, seconds: float, device: str) -> None:
    """A device plays whole hands from the command answers alone: every request is a command
    and each answer says what the table waits for next (seven players, stacks bought in
    beforehand, each seat plays or folds at random)."""
    counts, played_hands = [0] * clients, [0] * clients  # warm-up included in both
    with httpx.Client(base_url=url) as http:
        for n in range(clients):
            for seat in range(1, 8):
                expect(http.post(f"/tables/D-{n}/buy-ins", headers=bearer(device), json={
                    "command_id": f"D-{n}-buy-{seat}", "seat": seat, "amount": 10_000_000}),
                    201)

    def work(http: httpx.Client, n: int, k: int) -> None:
        code, rng, sent = f"D-{n}", random.Random(k), [0]

        def post(path: str, **body: object) -> dict[str, object]:
            sent[0] += 1
            r = http.post(f"/tables/{code}{path}", headers=bearer(device),
                          json={"command_id": f"d{n}-{k}-{sent[0]}", **body})
            expect(r, 201)
            answer: dict[str, object] = r.json()
            return answer

        answer = post("/hands")
        wagered: set[int] = set()
        while answer["results"] is None:
            step = answer["step"]
            assert isinstance(step, dict)
            kind, seats = step["kind"], set(step["seats"])
            if kind == "wager" and seats - wagered:
                seat = min(seats - wagered)
                wagered.add(seat)
                answer = post("/hands/current/wagers", seat=seat, kind="ante", amount=1_000)
            elif kind in ("wager", "deal"):
                answer = post("/hands/current/deal")
            elif kind == "act":
                answer = post("/hands/current/actions", seat=min(seats),
                              action="play" if rng.random() < 0.7 else "fold")
            elif kind in ("reveal", "settle"):
                answer = post(f"/hands/current/{kind}")
            else:
                raise RuntimeError(f"unexpected step {step}")
        counts[n] += sent[0]
        played_hands[n] += 1

    rate, flat = run_clients(url, clients, seconds, work)
    per_hand = sum(counts) / max(1, sum(played_hands))
    report(store, "hands from the answers", rate, flat, unit="hands")
    print(f"{store:<8} {'':<24} ~{per_hand:.0f} requests per hand, no reads")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--stores", default="sqlite,postgres")
    args = parser.parse_args()
    print(f"HTTP API benchmark: server `python -O -m ledger serve`, {args.clients} client "
          f"threads, {args.seconds:.0f} s per workload, {os.cpu_count()} cores shared")
    for store in args.stores.split(","):
        if store == "postgres" and not postgres_available():
            print("postgres: not reachable, skipped")
            continue
        bench(store, args.clients, args.seconds)


if __name__ == "__main__":
    main()
