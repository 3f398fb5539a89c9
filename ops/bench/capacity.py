"""Capacity of one PostgreSQL server: commands/s through 1, 2 and 4 ``ledger serve`` instances on
one store, and through instances over 2 shards (two databases on the same server), each beside
raw eventsourcing saves of the same events by as many processes in the same run; and how many
tables that rate serves at a realistic pace.

    .venv/bin/python -O ops/bench/capacity.py [--hands 12] [--tables 3] [--pace 60 20]

Method. Every scenario starts on fresh databases. The commands are generated beforehand
(Caribbean Stud hands of five players with the simulator's bot; the bots are not timed; the
commands do not depend on the cards dealt). Three measurements per scenario, each with all its
processes released together (a barrier) and timed from the first start to the last end:

- ``serve``: N ``ledger serve`` processes (``python -O``, each its own uvicorn, connection pool
  and table cache; with shards, each with the whole ``LEDGER_SHARDS`` map); one client process
  per instance sends that instance's tables' commands over HTTP (keep-alive; one thread per
  table, each table's commands one after another, as its device would). The rate is what a
  deployment sees, HTTP, JSON and tokens included.
- ``library``: N processes each executing the same commands through ``LedgerApp.execute``
  (``Fleet.execute`` over shards), no HTTP: what the ledger itself costs.
- ``raw``: N processes each saving the very events the library run appended (one ``save`` per
  command with the library's own recorder: no rules, no command log, no hash chain), into
  databases of their own laid out the same way (one, or the two shards).

``cpu ms``: CPU the ``ledger serve`` processes used, per command; ``pg ms``: CPU their
PostgreSQL backends used, per command (the backends connected to the run's databases, read from
``/proc``: the server must run on this machine; its shared processes, the WAL writer and
checkpointer, are not counted); ``load``: the
machine's 1-minute load average sampled during the scenario (mean and max). The machine these
figures come from has 2 cores shared with the clients, PostgreSQL and other people's work: where
the load exceeds the cores, the rates measure CPU, not PostgreSQL.

Tables served = rate / (hands per hour x commands per hand / 3600): the commands one table
sends at that pace (default 60 hands an hour, 20 commands a hand: 1/3 command/s a table).
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from typing import Any

import httpx
from _common import ROOT, fresh_store, optimised, postgres_available
from ledger_commands import RawApp, workload

from ledger.access.tokens import TokenStore
from ledger.app.application import LedgerApp
from ledger.app.fleet import Fleet, home_of, open_ledger
from ledger.domain.commands import Command, OpenTable
from ledger.settings import Settings
from ledger.store.history import stream
from ledger.store.persistence import store_env
from ledger.table.dealing import OpenDeckKeeper
from tests.support.http import send

NO_DDL = {"CREATE_TABLE": "no"}


@dataclass
class Plan:
    """One instance's tables: their commands in the order played, and the decks they deal."""

    tables: list[str]
    commands: list[Command]
    decks: list[tuple[int, ...]]

    def by_table(self) -> dict[str, list[Command]]:
        out: dict[str, list[Command]] = {code: [] for code in self.tables}
        for command in self.commands:
            out[command.table].append(command)
        return out


def plans(instances: int, tables: int, hands: int, prefixes: tuple[str, ...]) -> list[Plan]:
    """``tables`` tables per instance, codes cycling over ``prefixes`` (one per shard)."""
    out = []
    for i in range(instances):
        codes = [f"{prefixes[t % len(prefixes)]}-{i}-{t}" for t in range(tables)]
        commands: list[Command] = []
        decks: list[tuple[int, ...]] = []
        for t, code in enumerate(codes):
            more, more_decks = workload(code, hands, seed=1000 * i + t)
            commands += more
            decks += more_decks
        out.append(Plan(codes, commands, decks))
    return out


# --- the three measurements -----------------------------------------------------------------


def _open(settings: Settings, keeper: OpenDeckKeeper | None = None) -> LedgerApp | Fleet:
    """The process's ledger on a store whose schema the parent made (no DDL here: concurrent
    ``CREATE ... IF NOT EXISTS`` would only wait on the advisory lock)."""
    if settings.shards:
        return Fleet.open(settings, keeper=keeper, env=NO_DDL)
    return LedgerApp(settings, keeper=keeper, env=NO_DDL)


def _library_worker(settings: Settings, plan: Plan, barrier: Any, times: Any, i: int) -> None:
    app = _open(settings, OpenDeckKeeper(plan.decks))
    try:
        barrier.wait()
        times[2 * i] = time.monotonic()
        for command in plan.commands:
            app.execute(command)
        times[2 * i + 1] = time.monotonic()
    finally:
        app.close()


def _raw_worker(source: Settings, target: Settings, plan: Plan, barrier: Any, times: Any,
                i: int) -> None:
    """Read the events the library run appended for the plan's tables, then save them raw."""
    ledger = _open(source)
    batches: list[tuple[str, list[Any]]] = []
    try:
        for code in plan.tables:
            groups: dict[str | None, list[Any]] = {}
            for event in stream(ledger, code):
                groups.setdefault(event.command_id, []).append(event)
            batches += [(code, g) for g in groups.values()]
    finally:
        ledger.close()
    apps = _raw_apps(target, NO_DDL)
    try:
        barrier.wait()
        times[2 * i] = time.monotonic()
        for code, batch in batches:
            apps[_prefix(code)].save(*batch)
        times[2 * i + 1] = time.monotonic()
    finally:
        for app in set(apps.values()):
            app.close()


def _http_worker(url: str, admin: str, device: str, plan: Plan, barrier: Any, times: Any,
                 i: int) -> None:
    """One client per instance: a thread per table, each sending its commands in order."""
    failures: list[BaseException] = []

    def table(commands: list[Command]) -> None:
        try:
            with httpx.Client(base_url=url, timeout=120) as http:
                for command in commands:
                    send(http, admin if isinstance(command, OpenTable) else device, command)
        except BaseException as exc:  # reported by the process's exit status
            failures.append(exc)

    threads = [threading.Thread(target=table, args=(commands,))
               for commands in plan.by_table().values()]
    barrier.wait()
    times[2 * i] = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    times[2 * i + 1] = time.monotonic()
    if failures:
        print(f"client {i}: {failures[0]!r}", file=sys.stderr)
        raise SystemExit(1)


def _prefix(code: str) -> str:
    return code.split("-", 1)[0]


def _raw_apps(settings: Settings, extra: dict[str, str] | None = None) -> dict[str, RawApp]:
    """One raw application per store, keyed by the code prefix it holds (``*``: any)."""
    if not settings.shards:
        return _AnyKey(_raw(settings, extra))
    from ledger.store.shards import parse_shards

    return {s.patterns[0].prefix.rstrip("-"):
            _raw(settings.model_copy(update={"database_url": s.url, "shards": ""}), extra)
            for s in parse_shards(settings.shards, settings).shards}


class _AnyKey(dict[str, RawApp]):
    def __init__(self, app: RawApp) -> None:
        super().__init__(any=app)

    def __getitem__(self, _: str) -> RawApp:
        return dict.__getitem__(self, "any")


def _raw(settings: Settings, extra: dict[str, str] | None = None) -> RawApp:
    env = {k: v for k, v in store_env(settings).items() if k != "APPLICATION_RECORDER_TOPIC"}
    return RawApp(env={**env, **(extra or {})})


def run(target: Callable[..., None], work: list[Plan],
        args_of: Callable[[int], tuple[Any, ...]]) -> float:
    """One process per plan, released together; the wall seconds from the first start to the
    last end."""
    ctx = mp.get_context("fork")
    barrier = ctx.Barrier(len(work))
    times = ctx.Array("d", 2 * len(work))
    procs = [ctx.Process(target=target, args=(*args_of(i), plan, barrier, times, i))
             for i, plan in enumerate(work)]
    for p in procs:
        p.start()
    for p in procs:
        p.join()
        if p.exitcode != 0:
            raise SystemExit(f"a process failed (exit {p.exitcode})")
    starts, ends = times[0::2], times[1::2]
    return float(max(ends) - min(starts))


# --- stores and servers -----------------------------------------------------------------------


@contextmanager
def stores(shards: int) -> Iterator[Settings]:
    """Settings of a fresh store, or of a fleet of ``shards`` fresh databases on the one server
    (codes S0-*, S1-*, ...)."""
    with ExitStack() as stack:
        made = [stack.enter_context(fresh_store("postgres")) for _ in range(max(shards, 1))]
        base = made[0].model_copy(update={"log_level": "WARNING"})
        if shards <= 1:
            yield base
            return
        spec = "; ".join(f"s{k}: S{k}-* = {s.database_url}" for k, s in enumerate(made))
        yield base.model_copy(update={"shards": spec})


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    """``ledger serve`` in its own process (``python -O``)."""

    def __init__(self, settings: Settings) -> None:
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        env = {**os.environ, "LEDGER_DATABASE_URL": settings.database_url,
               "LEDGER_SHARDS": settings.shards,
               "LEDGER_DECK_KEY_FILE": str(settings.deck_key_file),
               "LEDGER_LOG_LEVEL": "WARNING"}
        self.process = subprocess.Popen(
            [sys.executable, "-O", "-m", "ledger", "serve", "--port", str(self.port)],
            env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)

    def wait_ready(self) -> None:
        for _ in range(1200):
            if self.process.poll() is not None:
                raise RuntimeError(f"ledger serve ended: {self.process.stderr}")
            try:
                if httpx.get(f"{self.url}/ready", timeout=5).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.1)
        raise RuntimeError("ledger serve did not become ready")

    def cpu_seconds(self) -> float:
        with open(f"/proc/{self.process.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def _databases(settings: Settings) -> list[str]:
    urls = [settings.database_url]
    if settings.shards:
        from ledger.store.shards import parse_shards

        urls = [s.url for s in parse_shards(settings.shards, settings).shards]
    return [url.rsplit("/", 1)[1].split("?", 1)[0] for url in urls]


def backend_cpu(databases: list[str]) -> dict[int, float]:
    """CPU seconds so far of each PostgreSQL backend connected to one of ``databases`` (its
    process title names the database; the server's shared processes are not counted)."""
    ticks = os.sysconf("SC_CLK_TCK")
    found = {}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                title = f.read().decode(errors="replace")
            if not title.startswith("postgres:") or not any(f" {d} " in title
                                                              for d in databases):
                continue
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        found[int(pid)] = (int(fields[11]) + int(fields[12])) / ticks
    return found


def serve_run(settings: Settings, work: list[Plan]) -> tuple[float, float, float]:
    """The ``serve`` measurement: wall seconds, CPU seconds of the servers and of their
    PostgreSQL backends."""
    ledger = open_ledger(settings)
    try:
        tokens = TokenStore.of(home_of(ledger))
        admin = tokens.create("admin")[0]
        devices = [tokens.create("device", tables=plan.tables)[0] for plan in work]
    finally:
        ledger.close()
    servers = [Server(settings) for _ in work]
    try:
        for server in servers:
            server.wait_ready()
        databases = _databases(settings)
        before = sum(s.cpu_seconds() for s in servers)
        backends = backend_cpu(databases)
        wall = run(_http_worker, work, lambda i: (servers[i].url, admin, devices[i]))
        cpu = sum(s.cpu_seconds() for s in servers) - before
        pg = sum(t - backends.get(pid, 0.0) for pid, t in backend_cpu(databases).items())
        return wall, cpu, pg
    finally:
        for server in servers:
            server.stop()


# --- the scenarios ------------------------------------------------------------------------------


class LoadSampler:
    """The 1-minute load average, sampled every second while running."""

    def __init__(self) -> None:
        self.samples: list[float] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            self.samples.append(os.getloadavg()[0])
            self._stop.wait(1.0)

    def __enter__(self) -> LoadSampler:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join()

    def text(self) -> str:
        if not self.samples:
            return "-"
        return f"{sum(self.samples) / len(self.samples):.1f}/{max(self.samples):.1f}"


def scenario(label: str, instances: int, shards: int, tables: int, hands: int,
             pace: float) -> dict[str, Any]:
    prefixes = tuple(f"S{k}" for k in range(shards)) if shards > 1 else ("T",)
    work = plans(instances, tables, hands, prefixes)
    commands = sum(len(p.commands) for p in work)
    with LoadSampler() as load:
        with stores(shards) as served:
            open_ledger(served).close()  # the schema, made once before the instances start
            serve_s, cpu_s, pg_s = serve_run(served, work)
        with stores(shards) as library:
            open_ledger(library).close()
            library_s = run(_library_worker, work, lambda i: (library,))
            with stores(shards) as raw:
                for app in set(_raw_apps(raw).values()):
                    app.close()
                raw_s = run(_raw_worker, work, lambda i: (library, raw))
    row: dict[str, Any] = {"scenario": label, "instances": instances, "shards": max(shards, 1),
                           "commands": commands, "serve_cps": commands / serve_s,
                           "library_cps": commands / library_s, "raw_cps": commands / raw_s,
                           "cpu_ms": 1000 * cpu_s / commands, "pg_ms": 1000 * pg_s / commands,
                           "load": load.text()}
    row["ratio"] = row["serve_cps"] / row["raw_cps"]
    row["tables"] = row["serve_cps"] / pace
    print(f"{label:<24} {instances:>4} {max(shards, 1):>6} {commands:>8} "
          f"{row['serve_cps']:>8.0f} {row['library_cps']:>8.0f} {row['raw_cps']:>8.0f} "
          f"{row['ratio']:>6.2f} {row['cpu_ms']:>7.2f} {row['pg_ms']:>6.2f} {row['tables']:>7.0f} "
          f"{row['load']:>10}",
          flush=True)
    return row


CASES = [("one store, 1 instance", 1, 1), ("one store, 2 instances", 2, 1),
         ("one store, 4 instances", 4, 1), ("2 shards, 2 instances", 2, 2),
         ("2 shards, 4 instances", 4, 2)]


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--hands", type=int, default=12, help="hands per table")
    parser.add_argument("--tables", type=int, default=3, help="tables per instance")
    parser.add_argument("--pace", type=float, nargs=2, default=(60, 20),
                        metavar=("HANDS_PER_HOUR", "COMMANDS_PER_HAND"))
    parser.add_argument("--only", default="",
                        help=f"comma-separated scenario numbers (1-{len(CASES)})")
    args = parser.parse_args()
    if not postgres_available():
        print("postgres: not reachable, skipped")
        return
    pace = args.pace[0] * args.pace[1] / 3600
    print(f"capacity of one PostgreSQL server ({optimised()}, {os.cpu_count()} cores); per "
          f"instance {args.tables} Caribbean Stud tables of {args.hands} hands; shards are "
          "databases on the same server; a table's pace "
          f"{args.pace[0]:g} hands/h x {args.pace[1]:g} commands/hand = {pace:.3f} commands/s; "
          f"load average before: {_load()}")
    print(f"{'scenario':<24} {'inst':>4} {'shards':>6} {'commands':>8} {'serve/s':>8} "
          f"{'lib/s':>8} {'raw/s':>8} {'s/raw':>6} {'cpu ms':>7} {'pg ms':>6} {'tables':>7} "
          f"{'load avg':>10}")
    chosen = {int(x) for x in args.only.split(",") if x}
    for n, (label, instances, shards) in enumerate(CASES, 1):
        if not chosen or n in chosen:
            scenario(label, instances, shards, args.tables, args.hands, pace)
    print(f"load average after: {_load()}; serve/s: commands/s through ledger serve over "
          "HTTP; lib/s: through the library in-process; raw/s: raw saves of the same events; "
          "s/raw = serve/raw; cpu ms: CPU of the ledger serve processes per command; pg ms: CPU "
          "of their PostgreSQL backends per command; tables: "
          "served at serve/s; load avg: 1-minute load during the scenario, mean/max")


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


if __name__ == "__main__":
    main()
