"""Run every benchmark in this folder with ``python -O`` and print what each reports.

    .venv/bin/python ops/bench/run_all.py [--quick]

``--quick`` passes each script its own small-size flags where it has them (a smoke run).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
QUICK_ARGS: dict[str, list[str]] = {
    "api.py": ["--seconds", "1", "--clients", "4"],
    "ledger_commands.py": ["--hands", "100", "--history", "5000"],
    "read_side.py": ["--hands", "50"],
    "corrections.py": ["--hands", "50"],
    "read_store.py": ["--reads", "50", "--pairs", "20"],
    "incremental_audit.py": ["--days", "2,4", "--hands", "5"],
    "access_log.py": ["--rows", "100"],
    "signatures.py": ["--principals", "20", "--fills", "10"],
    "capacity.py": ["--hands", "2", "--tables", "2", "--only", "1,4"],
    "audit_writer_checks.py": ["--hands", "10"],
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, for a smoke run")
    args = parser.parse_args()
    scripts = sorted(p for p in HERE.glob("*.py") if not p.name.startswith(("_", "run_all")))
    failures = 0
    for script in scripts:
        extra = QUICK_ARGS.get(script.name, []) if args.quick else []
        print(f"=== {script.name} {' '.join(extra)}".rstrip(), flush=True)
        started = time.perf_counter()
        done = subprocess.run([sys.executable, "-O", str(script), *extra], cwd=HERE, check=False)
        print(f"--- {script.name}: exit {done.returncode}, {time.perf_counter() - started:.0f} s\n")
        failures += done.returncode != 0
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
