"""``/health`` latency while other requests fail with a 500, against the same without failures.

    .venv/bin/python ops/bench/health_under_500.py [--probes 200] [--failers 2]

Method. The API runs under uvicorn in this process (one event loop, the server as served) over a
fresh SQLite store, logging as ``ledger serve`` does (``LEDGER_LOG_LEVEL`` / ``_FORMAT``, default
WARNING / console) to a temporary file. The command path is made to fail: every command raises an
error after building a large local value (the events and cards a real failing request holds), so
each command is a 500. ``--failers`` threads send commands without pause while one client asks
``/health`` ``--probes`` times; the same client first asks it alone for the baseline. Printed:
median, p99 and worst ``/health`` latency in both runs, their ratio, the 500s answered, and the
bytes of log each 500 wrote. Run it from another checkout (``cd /other && python
/this/ops/bench/health_under_500.py``) to compare code before and after a change: it imports
the ledger from the current directory first.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, os.getcwd())

import httpx

from ledger.api import create_app
from ledger.logs import configure
from ledger.settings import Settings
from tests.support.http import bearer, make_tokens, serve


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def timed_health(client: httpx.Client, probes: int) -> list[float]:
    found = []
    for _ in range(probes):
        started = time.perf_counter()
        assert client.get("/health").status_code == 200
        found.append((time.perf_counter() - started) * 1000)
    return found


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--probes", type=int, default=200)
    parser.add_argument("--failers", type=int, default=2)
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="ledger-bench-500-"))
    settings = Settings(database_url=f"sqlite:///{tmp}/bench.sqlite3",
                        deck_key_file=tmp / "deck.key")
    log_path = tmp / "server.log"
    log_file = open(log_path, "w")  # noqa: SIM115
    saved = sys.stderr
    sys.stderr = log_file  # the server's log goes to the file, as a deployment's would
    configure(settings.log_level, settings.log_format)
    app = create_app(settings)
    tokens = make_tokens(app, ["B1"])

    def failing(*_: Any, **__: Any) -> None:
        held = {"events": [{"cards": ["As", "Kd", "7h"] * 10, "n": n} for n in range(200)],
                "token": tokens.device}
        raise RuntimeError(f"command failed holding {len(held)} values")

    app.state.ledger.execute = failing
    stop = threading.Event()
    failures = [0]
    with serve(app) as url, httpx.Client(base_url=url, timeout=120) as probe:
        baseline = timed_health(probe, args.probes)

        def fail_loop() -> None:
            with httpx.Client(base_url=url, timeout=120) as client:
                while not stop.is_set():
                    r = client.post("/tables/B1/hands", json={"command_id": "x"},
                                    headers=bearer(tokens.device))
                    if r.status_code == 500:
                        failures[0] += 1

        threads = [threading.Thread(target=fail_loop) for _ in range(args.failers)]
        for thread in threads:
            thread.start()
        time.sleep(0.5)
        loaded = timed_health(probe, args.probes)
        stop.set()
        for thread in threads:
            thread.join(120)
    sys.stderr = saved
    log_file.close()
    size = log_path.stat().st_size
    print(f"/health alone:            median {percentile(baseline, 0.5):7.2f} ms  "
          f"p99 {percentile(baseline, 0.99):8.2f} ms  max {max(baseline):8.2f} ms")
    print(f"/health beside 500s:      median {percentile(loaded, 0.5):7.2f} ms  "
          f"p99 {percentile(loaded, 0.99):8.2f} ms  max {max(loaded):8.2f} ms  "
          f"(p99 x{percentile(loaded, 0.99) / percentile(baseline, 0.99):.1f})")
    print(f"500s answered meanwhile: {failures[0]}; log written per 500: "
          f"{size / max(failures[0], 1):,.0f} bytes")


if __name__ == "__main__":
    main()
