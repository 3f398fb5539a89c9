"""Hostile cases against a checkout, HTTP and CLI, counted for a before/after table: cases tried,
refused with a coded 4xx (CLI: a coded ``error [code]`` line, exit 2), answered 500, crashed
(a traceback, or a client that broke), and other ends (accepted, an uncoded refusal).

The cases are this checkout's (``tests/support/hostile.py`` for HTTP, ``tests/support/
hostile_cli.py`` for the CLI); the code they run against is ``--checkout DIR`` (default: this
one), imported with ``PYTHONPATH=DIR`` in child processes and run with this venv's Python
(its dependencies serve both). For the code before issue 11::

    git worktree add --detach /tmp/hostile-before c61d8e8^
    .venv/bin/python ops/hostile/cases.py --checkout /tmp/hostile-before
    .venv/bin/python ops/hostile/cases.py            # this checkout

``--only http|cli`` runs one half; ``--list`` prints every case that is not a coded refusal.
HTTP runs in process (FastAPI's TestClient) on fresh SQLite stores, the command cases and the
query cases on two stores (as ``ops/hostile/tally.py``); the CLI cases run the real ``python -m
ledger`` one after another (a few minutes on a busy 2-core machine).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def _load(name: str) -> ModuleType:
    """A module of this checkout's test support, by its file (``tests`` of the checkout under
    test would shadow it on ``sys.path``)."""
    path = ROOT / "tests" / "support" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"hostile_support_{name}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


# --- HTTP: in a child process whose `ledger` is the checkout's ---------------------------------


def http_child(out_path: str) -> None:
    import logging

    from fastapi.testclient import TestClient

    from ledger.api import create_app
    from ledger.settings import Settings

    hostile = _load("hostile")
    logging.disable(logging.CRITICAL)  # the code before wrote megabytes of traceback per 500

    def run(cases: list[Any], after: dict[str, Any] | None) -> list[dict[str, Any]]:
        tmp = Path(tempfile.mkdtemp(prefix="hostile-http-"))
        settings = Settings(database_url=f"sqlite:///{tmp}/ledger.sqlite3",
                            deck_key_file=tmp / "deck.key")
        app = create_app(settings)
        store = app.state.tokens
        tokens = {role: store.create(role, label=f"hostile {role}")[0]
                  for role in ("admin", "auditor", "accounting")}
        tokens["device"] = store.create("device", tables=[hostile.IDLE, hostile.HAND],
                                        label="hostile device")[0]
        found = []
        with TestClient(app, raise_server_exceptions=False) as client:
            hostile.prepare(client, tokens)
            for case in cases:
                o = hostile.send_case(client, case, tokens)
                found.append({"name": case.name, "kind": o.kind, "status": o.status,
                              "seconds": round(o.seconds, 3), "detail": o.detail[:160]})
                if o.kind == "accepted":
                    hostile.restore(client, tokens, case)
            if after is not None:  # what the command cases left: the reads and a rebuild
                from projections.views.context import current_gaming_day

                day = current_gaming_day("Europe/Amsterdam", settings.gaming_day_start)
                auditor = {"Authorization": f"Bearer {tokens['auditor']}"}
                for path in READS_AFTER:
                    started = time.perf_counter()
                    try:
                        status = client.get(path.format(day=day), headers=auditor).status_code
                    except Exception:
                        status = -1
                    after[path] = [status, round(time.perf_counter() - started, 1)]
                after["rebuild"] = hostile.rebuild(app.state.ledger)
        return found

    cases = hostile.hostile_cases()
    after: dict[str, Any] = {}
    outcomes = run([c for c in cases if not c.name.startswith("GET ")], after)
    outcomes += run([c for c in cases if c.name.startswith("GET ")], None)
    for o in outcomes:
        if o["kind"] == "accepted" and hostile.acceptable(o["name"]):
            o["kind"] = "accepted_ok"
    Path(out_path).write_text(json.dumps({"outcomes": outcomes, "after": after}))


READS_AFTER = ("/tables", "/bankrolls", "/accounting", "/hands", "/jackpot",
               "/exports/accounting/{day}")
"""Reads tried after the command cases (the issue: one accepted amount broke them all)."""
AFTER: dict[str, Any] = {}


def http(checkout: Path) -> list[dict[str, Any]]:
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as fh:
        out = fh.name
    env = {k: v for k, v in os.environ.items() if not k.startswith("LEDGER_")}
    env["PYTHONPATH"] = str(checkout)
    done = subprocess.run([sys.executable, __file__, "--http-child", out], env=env,
                          cwd=tempfile.gettempdir(), capture_output=True, text=True,
                          check=False)
    if done.returncode != 0:
        raise SystemExit(f"the HTTP cases did not run: {done.stderr[-3000:]}")
    found = json.loads(Path(out).read_text())
    os.unlink(out)
    AFTER.update(found["after"])
    outcomes: list[dict[str, Any]] = found["outcomes"]
    return outcomes


# --- CLI: the real command line --------------------------------------------------------------


def cli(checkout: Path) -> list[dict[str, Any]]:
    support = _load("hostile_cli")
    tmp = Path(tempfile.mkdtemp(prefix="hostile-cli-"))
    files = support.make_files(sys.executable, tmp, pythonpath=str(checkout))
    outcomes = []
    for case in support.cli_cases():
        o = support.run_case(sys.executable, files, case, pythonpath=str(checkout))
        last = o.stderr.strip().splitlines()[-1] if o.stderr.strip() else ""
        outcomes.append({"name": case.name, "kind": o.kind, "status": o.status,
                         "code": o.code, "detail": last[:160]})
    return outcomes


# --- the table ----------------------------------------------------------------------------------


def summary(label: str, outcomes: list[dict[str, Any]], seconds: float) -> str:
    counts = Counter(o["kind"] for o in outcomes)
    if label == "HTTP":
        coded, others = counts["coded_4xx"], counts["uncoded_4xx"] + counts["accepted"]
        crashes, five = counts["crash"], counts["500"]
        note = (f"uncoded 4xx {counts['uncoded_4xx']}, accepted {counts['accepted']} "
                f"(+{counts['accepted_ok']} not hostile after all)")
    else:
        coded, others = counts["coded"], counts["uncoded"] + counts["ok"]
        crashes, five = counts["crash"], 0
        note = f"uncoded error {counts['uncoded']}, exit 0/1 {counts['ok']}"
    return (f"| {label} | {len(outcomes)} | {coded} | {five if label == 'HTTP' else '-'} | "
            f"{crashes} | {others} ({note}) | {seconds:.0f} s |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--checkout", type=Path, default=ROOT)
    parser.add_argument("--only", choices=("http", "cli"))
    parser.add_argument("--list", action="store_true")
    parser.add_argument("--json", type=Path, help="write every outcome to this file")
    parser.add_argument("--http-child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.http_child:
        http_child(args.http_child)
        return
    checkout = args.checkout.resolve()
    head = subprocess.run(["git", "-C", str(checkout), "rev-parse", "--short", "HEAD"],
                          capture_output=True, text=True, check=False).stdout.strip()
    rows, every = [], {}
    for label, run in (("HTTP", http), ("CLI", cli)):
        if args.only and args.only != label.lower():
            continue
        started = time.perf_counter()
        outcomes = run(checkout)
        rows.append(summary(label, outcomes, time.perf_counter() - started))
        every[label] = outcomes
    print(f"checkout {checkout} ({head or '?'})")
    print("| | cases | coded 4xx (CLI: coded error, exit 2) | 500 | crashes (tracebacks) | "
          "other | run time |")
    print("|---|---|---|---|---|---|---|")
    for row in rows:
        print(row)
    if AFTER:
        reads = {k: v for k, v in AFTER.items() if k != "rebuild"}
        good = sum(1 for status, _ in reads.values() if status == 200)
        slow = max(seconds for _, seconds in reads.values())
        print(f"after the HTTP command cases: {good}/{len(reads)} reads answer 200 (slowest "
              f"{slow:.1f} s: {reads}); projections rebuild: {AFTER['rebuild']}")
    if args.list:
        for label, outcomes in every.items():
            for o in outcomes:
                if o["kind"] not in ("coded_4xx", "coded", "accepted_ok"):
                    print(f"  {label} {o['kind']:11} {o['status']} {o['name']}: "
                          f"{o['detail'][:120]!r}")
    if args.json:
        args.json.write_text(json.dumps(every, indent=1))


if __name__ == "__main__":
    main()
