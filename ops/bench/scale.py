"""The read side as a store grows: audit, rebuild and raw scan at 10k, 100k, 1M events.

    .venv/bin/python -O ops/bench/scale.py [--sizes 10000,100000,1000000]
        [--stores sqlite,postgres] [--jobs N] [--baseline [--baseline-upto EVENTS]]
        [--keep DIR] [--build-jobs N] [--merge] [--plot PATH]

Method. For each size a store is filled by the simulator's bots with hands of all four games
(two tables of each game, the same number of hands at each table, in rounds, until the store
holds at least the size's events; not timed). The first nine tenths are played on the day
before (the application's clock set back one day), the rest today, so that there is a gaming
day to seal and a day to audit after it. ``--keep DIR`` keeps the SQLite stores there (and the
PostgreSQL ones as databases ``ledger_scale_<size>``) and reuses one that is big enough. Then
every step runs in a process of its own (``python -O``),
so that its peak memory (resident set) is its own:

- raw scan: ``select_notifications`` page by page (1,000 rows) to the head, rows counted: the
  floor any reader of the log pays;
- audit: ``verify(app)`` in one process, then with ``--jobs`` processes (tables side by side);
- rebuild: ``Runner(app).rebuild()`` (every view emptied and built again), then with
  ``--jobs`` processes;
- whole-store checks: ``ledger audit verify --day D`` for a gaming day without hands (the
  chains, the command log and conservation, which are always checked whole), as a whole
  process;
- the daily audit of today: ``ledger audit verify --day TODAY`` without a seal (everything
  read) and with the seal of yesterday (``ledger audit seal``, then ``--seal FILE
  --public-key KEY``: the incremental audit reads only the events after the sealed heads);
- one hand: ``ledger replay`` and ``ledger audit hand`` of one hand, and ``ledger --help``,
  as whole processes (startup included), best of three.

``--baseline`` runs the audit, the rebuild and a hand's replay again with the code as it was
before this work (``BASELINE_REV``, unpacked from git into a temporary folder; it checks less:
no actors, seals, anchors or read-model reconciliation yet), side by side,
on a store of the same size that this code built with the same seeds (it cannot read events
written since: they carry an actor it does not know). Results are printed as a table, written as
JSON and as the markdown table beside the plot (``--merge``: rows of other sizes or stores
already there are kept, so that runs done apart make one table; each row names the load average
before and after it, its time and the code's revision), and drawn (events/s against the
store's size) to ``--plot`` (default ``ops/bench/results/scale.png``; needs matplotlib:
``pip install -e '.[bench]'``). ``--baseline-upto`` limits the code before to the smaller sizes
(its store must be built too); ``--build-jobs N`` fills an empty store with N processes.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
BASELINE_REV = "e941330"
"""The code before issues 11 to 18 landed (this work among them): the last revision of the
history before them (the revision the first figures were taken against, 836ee94, is no longer
in it)."""
"""Main just before the read side was made faster (issue 14)."""
GAMES = ("caribbean-stud", "chinese-poker", "high-card-flush", "stud-hilo")
TABLES_PER_GAME = 2
PAGE = 1_000


# --- steps, each run in a process of its own --------------------------------------------------


def step(name: str, url: str, root: str, jobs: int, size: int,
         games: str = "") -> dict[str, Any]:
    sys.path.insert(0, root)
    import resource

    from ledger.logs import configure

    configure("WARNING")
    from ledger.app.application import LedgerApp
    from ledger.settings import Settings

    if name == "build":
        _no_sync()
    settings = Settings(database_url=url, deck_key_file=Path(tempfile.gettempdir()) /
                        "ledger-bench-scale.key", log_level="WARNING")
    app = LedgerApp(settings, allow_seeded=True) if name == "build" else LedgerApp(settings)
    import projections.audit
    import projections.views.runner  # noqa: F401  (imported before the clock starts)

    started, cpu = time.perf_counter(), time.process_time()
    out: dict[str, Any] = {}
    if name == "build":
        if games:  # one share of a build in several processes: its own tables only
            out["events"], out["hands"] = _build(app, size, 0, [int(g) for g in games.split(",")])
        else:
            out["events"], out["hands"] = _build(app, size, events_before=_count(app))
    elif name == "scan":
        out["events"] = _scan(app)
    elif name == "audit":
        from projections.audit import verify

        report = verify(app, jobs=jobs) if jobs > 1 else verify(app)
        out.update(events=report.events_checked, ok=report.ok,
                   discrepancies=len(report.discrepancies))
    elif name == "rebuild":
        from projections.views.runner import Runner

        runner = Runner(app)  # the code before takes no jobs
        out["events"] = runner.rebuild(jobs=jobs) if jobs > 1 else runner.rebuild()
    out["seconds"] = time.perf_counter() - started
    out["cpu_seconds"] = time.process_time() - cpu
    out["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    out["code"] = str(Path(sys.modules["ledger"].__file__ or "?").parents[1])
    app.close()
    return out


def _no_sync() -> None:
    """The build is not timed: SQLite writes without waiting for the disk at each commit (one
    commit per command; on a disk shared with other work a 1M-event store would take hours).
    The rows written are the same."""
    import sqlite3

    connect = sqlite3.connect

    def unsynced(*args: Any, **kwargs: Any) -> sqlite3.Connection:
        conn: sqlite3.Connection = connect(*args, **kwargs)
        conn.execute("PRAGMA synchronous=OFF")
        return conn

    sqlite3.connect = unsynced  # type: ignore[assignment]


def _count(app: Any) -> int:
    return int(app.recorder.max_notification_id() or 0)


def _build(app: Any, size: int, events_before: int,
           games: list[int] | None = None) -> tuple[int, int]:
    from datetime import datetime as real

    import ledger.app.application
    from ledger.sim.profiles import PROFILES
    from ledger.sim.runner import simulate

    class Yesterday(real):
        @classmethod
        def now(cls, tz: Any = None) -> Any:
            return real.now(tz) - timedelta(days=1)

    total = size * len(GAMES) // len(games) if games else size
    chunk = max(5, total // 3_000)
    events = events_before
    hands, round_no = 0, 0
    while events < size:
        ledger.app.application.datetime = (  # type: ignore[attr-defined]
            Yesterday if events < 0.9 * size else real)
        for i, game in enumerate(GAMES):
            if games is not None and i not in games:
                continue
            for t in range(TABLES_PER_GAME):
                code = f"{PROFILES[game].code}-S{t + 1}"
                stats = simulate(app, game, code, chunk, seed=1_000 * round_no + 10 * i + t,
                                 seeded=True)
                events += stats.events
                hands += stats.hands
        round_no += 1
    ledger.app.application.datetime = real  # type: ignore[attr-defined]
    return events, hands


def _scan(app: Any) -> int:
    position, count = 0, 0
    while True:
        notes = app.recorder.select_notifications(position, PAGE, inclusive_of_start=False)
        if not notes:
            return count
        count += len(notes)
        position = notes[-1].id


# --- the parent: stores, steps, commands -----------------------------------------------------


def run_step(name: str, url: str, root: Path, jobs: int = 1, size: int = 0) -> dict[str, Any]:
    done = subprocess.run(_step_args(name, url, root, jobs, size),
                          capture_output=True, text=True, check=False, cwd=ROOT)
    if done.returncode != 0:
        tail = (done.stderr.strip().splitlines() or ["?"])[-1]
        return {"failed": tail[:200]}
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def _step_args(name: str, url: str, root: Path, jobs: int, size: int,
               games: str = "") -> list[str]:
    return [sys.executable, "-O", str(HERE / "scale.py"), "--step", name, "--url", url,
            "--root", str(root), "--jobs", str(jobs), "--size", str(size), "--games", games]


def build(url: str, root: Path, size: int, procs: int) -> dict[str, Any]:
    """Fill a store (not timed). ``procs`` > 1: an empty store is filled by that many
    processes side by side, each playing the tables of its share of the games with the seeds a
    single process would use (the hands are the same; only their interleaving in the log
    differs), each stopping at its share of the events."""
    if procs <= 1:
        return run_step("build", url, root, size=size)
    counted = run_step("scan", url, root)
    if int(counted.get("events") or 0) > 0:  # reused (or continued) in one process
        return run_step("build", url, root, size=size)
    shares = [",".join(str(i) for i in range(len(GAMES)) if i % procs == p)
              for p in range(min(procs, len(GAMES)))]
    running = [subprocess.Popen(_step_args("build", url, root, 1, size * len(s.split(","))
                                           // len(GAMES), s),
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                cwd=ROOT) for s in shares]
    out: dict[str, Any] = {"events": 0, "hands": 0, "seconds": 0.0, "processes": len(shares)}
    for proc in running:
        stdout, stderr = proc.communicate()
        if proc.returncode != 0:
            return {"failed": (stderr.strip().splitlines() or ["?"])[-1][:200]}
        part = json.loads(stdout.strip().splitlines()[-1])
        out["events"] += part["events"]
        out["hands"] += part["hands"]
        out["seconds"] = max(out["seconds"], part["seconds"])
    return out


def cli(args: list[str], url: str, root: Path,
        extra_env: dict[str, str] | None = None) -> tuple[float, str | None]:
    """One whole ``ledger`` process: (wall seconds, standard output; None when it failed).

    Bytecode may be written (the first run of a module compiles it; later runs read it, as an
    installed package does)."""
    code = f"import sys; sys.path.insert(0, {str(root)!r}); from ledger.cli import main; main()"
    env = {**os.environ, "LEDGER_DATABASE_URL": url,
           "LEDGER_DECK_KEY_FILE": str(Path(tempfile.gettempdir()) / "ledger-bench-scale.key"),
           **(extra_env or {})}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    started, cpu = time.perf_counter(), _children_cpu()
    done = subprocess.run([sys.executable, "-O", "-c", code, *args], env=env, cwd=ROOT,
                          capture_output=True, text=True, check=False)
    took = time.perf_counter() - started
    LAST_CPU[0] = _children_cpu() - cpu
    return took, (done.stdout if done.returncode in (0, 1) else None)


LAST_CPU = [0.0]
"""CPU seconds (user and system) of the last whole ``ledger`` process: what the machine's load
does not change."""
CPU_BEST: dict[str, float] = {}
"""The least CPU seconds of each command timed by :func:`timed_cli` (by its arguments)."""


def _children_cpu() -> float:
    import resource

    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return float(used.ru_utime + used.ru_stime)


def timed_cli(args: list[str], url: str, root: Path, repeat: int = 3) -> float | None:
    """Best wall time of a whole ``ledger`` process over ``repeat`` runs (None: it failed)."""
    best = None
    for _ in range(repeat):
        took, out = cli(args, url, root)
        if out is None:
            return None
        best = took if best is None else min(best, took)
        key = f"{url} {root} {' '.join(args)}"
        CPU_BEST[key] = min(CPU_BEST.get(key, LAST_CPU[0]), LAST_CPU[0])
    return best


def cpu_of(args: list[str], url: str, root: Path) -> float | None:
    return CPU_BEST.get(f"{url} {root} {' '.join(args)}")


def whole_store_checks(row: dict[str, Any], url: str, empty_day: str) -> None:
    """The whole-store checks in one process (``--jobs 1``), so that its CPU seconds are all
    the work (the workers of ``--jobs N`` are not counted in their parent's)."""
    checks = ["audit", "verify", "--day", empty_day, "--jobs", "1"]
    row["day_audit_1_s"] = timed_cli(checks, url, ROOT, repeat=1)
    row["day_audit_1_cpu_s"] = cpu_of(checks, url, ROOT)


def daily_audits(url: str, jobs: int, folder: Path) -> dict[str, Any]:
    """Today's audit without a seal and from the seal of yesterday (as whole processes)."""
    today = datetime.now(UTC).date()
    yesterday = (today - timedelta(days=1)).isoformat()
    out: dict[str, Any] = {}
    env = {"LEDGER_SIGNING_KEY_FILE": str(folder / "signing.key")}
    _, shown = cli(["keys", "create", "--json"], url, ROOT, env)
    seal = folder / f"seal-{yesterday}.json"
    took, sealed = cli(["audit", "seal", "--day", yesterday, "--out", str(seal)], url, ROOT, env)
    if shown is None or sealed is None:
        out["seal_failed"] = True
        return out
    key = json.loads(shown)["public_key"]
    out["seal_s"] = took
    for name, extra in (("day_audit_full", []), ("day_audit_seal",
                                                  ["--seal", str(seal), "--public-key", key])):
        took, text = cli(["audit", "verify", "--day", today.isoformat(), "--jobs", str(jobs),
                          "--json", *extra], url, ROOT, env)
        if text is None:
            continue
        report = json.loads(text)
        out[name] = {"seconds": took, "cpu_seconds": LAST_CPU[0],
                     "events_read": report.get("events_read"),
                     "ok": not report["discrepancies"],
                     "incremental_from": report.get("incremental_from")}
    return out


def baseline_tree(stack: ExitStack) -> Path | None:
    folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="ledger-base-")))
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", BASELINE_REV, "ledger",
                              "projections"], capture_output=True, check=False)
    if archive.returncode != 0:
        return None
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive.stdout, check=True)
    return folder


def store_url(kind: str, size: int, keep: Path | None, stack: ExitStack,
              suffix: str = "") -> str:
    if kind == "sqlite":
        folder = keep or Path(stack.enter_context(tempfile.TemporaryDirectory(
            prefix="ledger-scale-")))
        folder.mkdir(parents=True, exist_ok=True)
        return f"sqlite:///{folder.resolve()}/scale-{size}{suffix}.sqlite3"
    if keep is not None:  # a database of its own per size, kept (and reused) like the files
        return kept_database(f"ledger_scale_{size}{suffix.replace('-', '_')}")
    from _common import fresh_store

    return str(stack.enter_context(fresh_store("postgres")).database_url)


def kept_database(name: str) -> str:
    """The URL of PostgreSQL database ``name``, created when missing and never dropped."""
    import psycopg
    from _common import PG_ADMIN

    with psycopg.connect(PG_ADMIN, autocommit=True) as admin:
        if admin.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone() \
                is None:
            admin.execute(f'CREATE DATABASE "{name}"')
    return PG_ADMIN.rsplit("/", 1)[0] + f"/{name}"


def measure(kind: str, size: int, args: argparse.Namespace, base: Path | None,
            stack: ExitStack) -> dict[str, Any]:
    url = store_url(kind, size, args.keep, stack)
    built = build(url, ROOT, size, args.build_jobs)
    row: dict[str, Any] = {"store": kind, "size": size, "build": built}
    if "failed" in built:
        return row
    row["load_start"] = os.getloadavg()[0]
    row["measured_at"] = datetime.now(UTC).isoformat(timespec="seconds")
    row["rev"] = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                                capture_output=True, text=True, check=False).stdout.strip()
    row["scan"] = run_step("scan", url, ROOT)
    row["audit"] = run_step("audit", url, ROOT)
    row["audit_jobs"] = run_step("audit", url, ROOT, jobs=args.jobs)
    row["rebuild"] = run_step("rebuild", url, ROOT)
    row["rebuild_jobs"] = run_step("rebuild", url, ROOT, jobs=args.jobs)
    if base is not None and size <= args.baseline_upto:
        # the code before, on a store it wrote itself (same hands and seeds)
        base_url = store_url(kind, size, args.keep, stack, "-before")
        row["build_base"] = build(base_url, base, size, args.build_jobs)
        row["audit_base"] = run_step("audit", base_url, base)
        row["rebuild_base"] = run_step("rebuild", base_url, base)
        row["replay_base_s"] = timed_cli(["replay", "STUD8-S1", "3"], base_url, base)
        row["replay_base_cpu_s"] = cpu_of(["replay", "STUD8-S1", "3"], base_url, base)
    empty_day = (datetime.now(UTC) - timedelta(days=3)).date().isoformat()
    checks = ["audit", "verify", "--day", empty_day, "--jobs", str(args.jobs)]
    row["day_audit_s"] = timed_cli(checks, url, ROOT, repeat=1)
    row["day_audit_cpu_s"] = cpu_of(checks, url, ROOT)
    whole_store_checks(row, url, empty_day)
    folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="ledger-seal-")))
    row["daily"] = daily_audits(url, args.jobs, folder)
    row["replay_s"] = timed_cli(["replay", "STUD8-S1", "3"], url, ROOT)
    row["audit_hand_s"] = timed_cli(["audit", "hand", "STUD8-S1", "3"], url, ROOT)
    row["help_s"] = timed_cli(["--help"], url, ROOT)
    row["cpu_s"] = {"replay": cpu_of(["replay", "STUD8-S1", "3"], url, ROOT),
                    "audit_hand": cpu_of(["audit", "hand", "STUD8-S1", "3"], url, ROOT),
                    "help": cpu_of(["--help"], url, ROOT),
                    "replay_base": row.pop("replay_base_cpu_s", None)}
    row["load_end"] = os.getloadavg()[0]
    return row


# --- reporting ---------------------------------------------------------------------------------


def rate(part: dict[str, Any] | None, events: int) -> float | None:
    if not part or "failed" in part or not part.get("seconds"):
        return None
    return events / float(part["seconds"])


def fmt(value: float | None, unit: str = "", digits: int = 0) -> str:
    return "-" if value is None else f"{value:,.{digits}f}{unit}"


def report(rows: list[dict[str, Any]], jobs: int) -> list[str]:
    lines = [f"| store | events | raw scan ev/s | audit ev/s (x raw) | audit {jobs} jobs ev/s "
             "| audit, code before, ev/s (gain) | rebuild ev/s (x raw) "
             f"| rebuild {jobs} jobs ev/s | rebuild, code before, ev/s (gain) | "
             "whole-store checks s (x raw) | today's audit s: all / from yesterday's seal "
             "(events read) | peak MB audit / rebuild | replay s (CPU s) | audit hand s (CPU s) "
             "| --help s (CPU s) |",
             "|" + "---|" * 15]
    lines[0] += " load (1 min) start / end |"
    lines[1] += "---|"
    for row in rows:
        events = int(row.get("scan", {}).get("events") or row["build"].get("events") or 0)
        raw = rate(row.get("scan"), events)
        audit, rebuild = rate(row.get("audit"), events), rate(row.get("rebuild"), events)
        before = _events(row.get("build_base"))
        a_base, r_base = rate(row.get("audit_base"), before), rate(row.get("rebuild_base"), before)
        day = row.get("day_audit_s")
        checks_x = (events / day) / raw if day and raw else None

        def x(a: float | None, b: float | None) -> str:
            return f"{a / b:.2f}x" if a and b else "-"

        lines.append(
            f"| {row['store']} | {events:,} | {fmt(raw)} | {fmt(audit)} ({x(audit, raw)}) | "
            f"{fmt(rate(row.get('audit_jobs'), events))} | {fmt(a_base)} ({x(audit, a_base)}) | "
            f"{fmt(rebuild)} ({x(rebuild, raw)}) | {fmt(rate(row.get('rebuild_jobs'), events))} | "
            f"{fmt(r_base)} ({x(rebuild, r_base)}) | "
            f"{fmt(day, digits=2)} ({x(checks_x, 1.0)}) | {_daily(row.get('daily', {}))} | "
            f"{fmt(row.get('audit', {}).get('peak_mb'))} / "
            f"{fmt(row.get('rebuild', {}).get('peak_mb'))} | {_whole(row, 'replay')} | "
            f"{_whole(row, 'audit_hand')} | {_whole(row, 'help')} |"
            f" {fmt(row.get('load_start'), digits=1)} / {fmt(row.get('load_end'), digits=1)} |")
    lines += ["", "CPU seconds of the step's own process (the load changes them far less "
              "than the wall clock):",
              "", "| store | events | raw scan ev/CPU-s | audit ev/CPU-s (x raw; gain) | "
              "rebuild ev/CPU-s (x raw; gain) | whole-store checks, one whole process, ev/CPU-s "
              "(x raw) | today's audit CPU s: all / from the seal | replay / audit hand / "
              "--help CPU s | replay CPU s, code before |", "|---|---|---|---|---|---|---|---|---|"]
    for row in rows:
        events = int(row.get("scan", {}).get("events") or 0)
        before = _events(row.get("build_base"))
        cpu = {k: _cpu_rate(row.get(k), before if k.endswith("_base") else events) for k in
               ("scan", "audit", "audit_base", "rebuild", "rebuild_base")}

        def gain(a: float | None, b: float | None) -> str:
            return f"{a / b:.2f}x" if a and b else "-"

        checks = events / row["day_audit_1_cpu_s"] if row.get("day_audit_1_cpu_s") else None
        daily = row.get("daily") or {}
        whole = row.get("cpu_s") or {}
        lines.append(
            f"| {row['store']} | {events:,} | {fmt(cpu['scan'])} | {fmt(cpu['audit'])} "
            f"({gain(cpu['audit'], cpu['scan'])}; {gain(cpu['audit'], cpu['audit_base'])}) | "
            f"{fmt(cpu['rebuild'])} ({gain(cpu['rebuild'], cpu['scan'])}; "
            f"{gain(cpu['rebuild'], cpu['rebuild_base'])}) | {fmt(checks)} "
            f"({gain(checks, cpu['scan'])}) | "
            f"{fmt((daily.get('day_audit_full') or {}).get('cpu_seconds'), digits=2)} / "
            f"{fmt((daily.get('day_audit_seal') or {}).get('cpu_seconds'), digits=2)} | "
            f"{fmt(whole.get('replay'), digits=2)} / {fmt(whole.get('audit_hand'), digits=2)} / "
            f"{fmt(whole.get('help'), digits=2)} | {fmt(whole.get('replay_base'), digits=2)} |")
    return lines


def _whole(row: dict[str, Any], name: str) -> str:
    """A whole process: wall seconds (CPU seconds)."""
    cpu = (row.get("cpu_s") or {}).get(name)
    wall = fmt(row.get(f"{name}_s"), digits=2)
    return wall if cpu is None else f"{wall} ({cpu:.2f})"


def _events(build: dict[str, Any] | None) -> int:
    return int((build or {}).get("events") or 0)


def _cpu_rate(part: dict[str, Any] | None, events: int) -> float | None:
    if not part or "failed" in part or not part.get("cpu_seconds"):
        return None
    return events / float(part["cpu_seconds"])


def _daily(daily: dict[str, Any]) -> str:
    full, sealed = daily.get("day_audit_full") or {}, daily.get("day_audit_seal") or {}
    if not full and not sealed:
        return "-"
    return (f"{fmt(full.get('seconds'), digits=2)} ({fmt(full.get('events_read'))}) / "
            f"{fmt(sealed.get('seconds'), digits=2)} ({fmt(sealed.get('events_read'))})")


COLOURS = {"scan": "tab:blue", "audit": "tab:orange", "audit_jobs": "tab:green",
           "rebuild": "tab:red", "rebuild_jobs": "tab:purple", "audit_base": "tab:orange",
           "rebuild_base": "tab:red"}


def plot(rows: list[dict[str, Any]], path: Path, jobs: int) -> bool:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    stores = sorted({r["store"] for r in rows})
    fig, axes = plt.subplots(2, len(stores), figsize=(6.5 * len(stores), 9), squeeze=False)
    series = [("scan", "raw scan"), ("audit", "audit"), ("audit_jobs", f"audit, {jobs} jobs"),
              ("rebuild", "rebuild"), ("rebuild_jobs", f"rebuild, {jobs} jobs"),
              ("audit_base", "audit (before)"),
              ("rebuild_base", "rebuild (before)")]
    for (ax, cpu_ax), store in zip(zip(axes[0], axes[1], strict=True), stores, strict=True):
        mine = [r for r in rows if r["store"] == store]
        for target, measure_rate, unit in ((ax, rate, "events/s (wall clock)"),
                                           (cpu_ax, _cpu_rate, "events per CPU second")):
            for key, label in series:
                if key.endswith("_jobs") and target is cpu_ax:
                    continue  # its workers' CPU is not the parent's
                points = [(n, measure_rate(r.get(key), n)) for r in mine
                          if (n := _events(r.get("build_base")) if key.endswith("_base")
                              else int(r.get("scan", {}).get("events") or 0))]
                points = [(n, v) for n, v in points if v]
                if points:
                    style = "--" if key.endswith("_base") else "-"
                    target.plot(*zip(*points, strict=True), style, marker="o", label=label,
                                color=COLOURS[key])
            checks = [(n, n / float(r["day_audit_1_cpu_s"])) for r in mine
                      if r.get("day_audit_1_cpu_s")
                      and (n := int(r.get("scan", {}).get("events") or 0))]
            if checks and target is cpu_ax:
                target.plot(*zip(*checks, strict=True), ":", marker="s", color="black",
                            label="whole-store checks (one whole process)")
            target.set_xscale("log")
            target.set_yscale("log")
            target.set_xlabel("events in the store")
            target.set_ylabel(unit)
            target.grid(True, which="both", alpha=0.3)
            target.legend(fontsize=8)
        ax.set_title(f"{store}: read side against the store's size (wall clock)")
        cpu_ax.set_title(f"{store}: the same per CPU second of the step's process")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    return True


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000,1000000")
    parser.add_argument("--stores", default="sqlite,postgres")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--baseline", action="store_true",
                        help=f"also run the audit and rebuild of {BASELINE_REV} side by side")
    parser.add_argument("--baseline-upto", type=int, default=10**12, metavar="EVENTS",
                        help="run the code before only at sizes up to this many events")
    parser.add_argument("--merge", action="store_true",
                        help="keep the rows of the JSON beside the plot that this run does not "
                        "measure again (sizes or stores run separately, one table and plot)")
    parser.add_argument("--keep", type=Path, help="keep (and reuse) the stores: SQLite files here, "
                        "PostgreSQL databases ledger_scale_<size>")
    parser.add_argument("--plot", type=Path, default=HERE / "results" / "scale.png")
    parser.add_argument("--step", help=argparse.SUPPRESS)
    parser.add_argument("--url", help=argparse.SUPPRESS)
    parser.add_argument("--root", default=str(ROOT), help=argparse.SUPPRESS)
    parser.add_argument("--size", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--games", default="", help=argparse.SUPPRESS)
    parser.add_argument("--build-jobs", type=int, default=1, metavar="N",
                        help="fill an empty store with N processes side by side (not timed)")
    args = parser.parse_args()
    if args.step:
        print(json.dumps(step(args.step, args.url, args.root, args.jobs, args.size,
                              args.games)))
        return
    sys.path.insert(0, str(HERE))
    from _common import optimised, postgres_available

    print(f"scale benchmark ({optimised()}), sizes {args.sizes}, jobs {args.jobs}", flush=True)
    rows: list[dict[str, Any]] = []
    with ExitStack() as stack:
        base = baseline_tree(stack) if args.baseline else None
        if args.baseline and base is None:
            print(f"baseline {BASELINE_REV}: not in this repository's history, skipped")
        for kind in args.stores.split(","):
            if kind == "postgres" and not postgres_available():
                print("postgres: not reachable, skipped")
                continue
            for size in (int(s) for s in args.sizes.split(",")):
                started = time.perf_counter()
                with ExitStack() as store_stack:
                    rows.append(measure(kind, size, args, base, store_stack))
                print(f"{kind} {size:,}: measured in {time.perf_counter() - started:.0f} s "
                      f"{json.dumps(rows[-1])}", flush=True)
    data = args.plot.with_suffix(".json")
    if args.merge and data.exists():
        done = {(r["store"], r["size"]) for r in rows}
        rows = [r for r in json.loads(data.read_text())["rows"]
                if (r["store"], r["size"]) not in done] + rows
        rows.sort(key=lambda r: (r["store"] != "sqlite", r["store"], r["size"]))
    lines = report(rows, args.jobs)
    print("\n".join(lines))
    data.parent.mkdir(parents=True, exist_ok=True)
    data.write_text(json.dumps({"jobs": args.jobs, "rows": rows}, indent=1) + "\n")
    data.with_suffix(".md").write_text("\n".join(lines) + "\n")
    if plot(rows, args.plot, args.jobs):
        print(f"plot: {args.plot}")
    else:
        print("plot: matplotlib is missing (pip install -e '.[bench]')")


if __name__ == "__main__":
    main()
