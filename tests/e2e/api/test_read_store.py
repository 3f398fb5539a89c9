"""LEDGER_READ_DATABASE_URL: the read routes and the reading commands (views, audit, exports,
reports, projections status) go to a standby, while commands, the table state and the views'
catch-up use the primary. The standby is a real one (this test's own throwaway primary and
streaming standby, built with ops/ha/pgcluster.py: initdb, pg_basebackup -R, pg_ctl).

The routing is shown by stopping the standby: every read route answers 503 store_unavailable
within LEDGER_CONNECT_TIMEOUT (+1 s) and the reading commands exit with it, while commands,
the table's state and the other commands go on; once the standby is back the reads recover by
themselves and show what was written meanwhile."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import psycopg
import pytest

from ledger.api.app import create_app
from ledger.settings import Settings
from tests.conftest import REQUIRE_POSTGRES
from tests.support.http import bearer, make_tokens, serve

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "ops" / "ha"))
import pgcluster

pytestmark = pytest.mark.postgres

TIMEOUT_S = 2
POSITION = "X-Ledger-Views-Position"
PRIMARY = "X-Ledger-Primary-Position"


@pytest.fixture(scope="module")
def pair() -> Iterator[tuple[pgcluster.Server, pgcluster.Server]]:
    why = pgcluster.available()
    if why is not None:
        if REQUIRE_POSTGRES:
            pytest.fail(why)
        pytest.skip(why)
    root = pgcluster.workspace("ledger-replica-")
    primary, standby = pgcluster.Server(root, "primary"), pgcluster.Server(root, "standby")
    try:
        primary.initdb()
        primary.start()
        standby.standby_of(primary, app_name="standby").start()
        yield primary, standby
    finally:
        pgcluster.remove(root, primary, standby)


def timed(client: httpx.Client, path: str, headers: dict[str, str]) -> tuple[int, str, float]:
    started = time.monotonic()
    r = client.get(path, headers=headers)
    code = r.json().get("error", {}).get("code", "") if r.status_code >= 400 else ""
    return r.status_code, code, time.monotonic() - started


def views_at(client: httpx.Client, auditor: dict[str, str], head: int) -> httpx.Response:
    """``/hands`` once the standby's views have replayed the primary's up to ``head`` (the
    service waits up to a second for it; a loaded machine may take longer)."""
    deadline = time.monotonic() + 20
    while True:
        answer = client.get("/hands", headers=auditor)
        assert answer.status_code in (200, 503), answer.text  # 503: tables not replayed yet
        if answer.status_code == 200:
            # The primary's views had read up to head; the standby's at most as far.
            assert int(answer.headers[PRIMARY]) >= head, answer.headers
            assert int(answer.headers[POSITION]) <= int(answer.headers[PRIMARY])
            if int(answer.headers[POSITION]) >= head:
                return answer
        assert time.monotonic() < deadline, f"the standby never reached {head}: {answer.text}"
        time.sleep(0.05)


def test_reads_go_to_the_read_store_and_commands_to_the_primary(
        pair: tuple[pgcluster.Server, pgcluster.Server], tmp_path: Path) -> None:
    primary, standby = pair
    settings = Settings(database_url=primary.url(), read_database_url=standby.url(),
                        deck_key_file=tmp_path / "deck.key", connect_timeout=TIMEOUT_S,
                        log_level="CRITICAL")
    app = create_app(settings)
    tokens = make_tokens(app, ["R1"])
    device, auditor = bearer(tokens.device), bearer(tokens.auditor)
    env = {**os.environ, "LEDGER_DATABASE_URL": primary.url(),
           "LEDGER_READ_DATABASE_URL": standby.url(), "LEDGER_CONNECT_TIMEOUT": str(TIMEOUT_S),
           "LEDGER_DECK_KEY_FILE": str(tmp_path / "deck.key"), "LEDGER_LOG_LEVEL": "CRITICAL"}

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "ledger", *args], env=env,
                              capture_output=True, text=True, timeout=120, check=False)

    def command(path: str, **body: Any) -> dict[str, Any]:
        token = tokens.admin if path == "/tables" else tokens.device
        done = client.post(path, headers=bearer(token), json=body)
        assert done.status_code == 201, done.text
        return dict(done.json())

    with serve(app) as url, httpx.Client(base_url=url, timeout=30) as client:
        command("/tables", command_id="o", table="R1", game="caribbean-stud")
        command("/tables/R1/seats", command_id="s", seat=1, player="p1")
        command("/tables/R1/buy-ins", command_id="b", seat=1, amount=5_000)
        started = command("/tables/R1/hands", command_id="h")
        head = client.get("/projections", headers=auditor).json()[0]["head"]
        hands = views_at(client, auditor, head)  # the primary's catch-up, replayed
        assert [h["hand_no"] for h in hands.json()["items"]] == [1]
        assert client.get("/audit/verify", headers=auditor).json()["ok"]
        assert client.get("/ready").status_code == 200
        status = cli("projections", "status", "--json")  # the standby's views: no DDL there
        assert status.returncode == 0, status.stderr
        # Read on the standby; who saw the hand in progress is written on the primary.
        replay = cli("replay", "R1", "1")
        assert replay.returncode == 0 and "R1" in replay.stdout, replay.stderr
        with psycopg.connect(primary.url(), autocommit=True) as conn:
            rows = conn.execute("SELECT what, hand_no FROM ledger_access_log").fetchall()
        assert ("hand_replay", 1) in rows, rows

        standby.stop("immediate")
        try:
            reads = ["/hands", "/tables", "/bankrolls", "/jackpot", "/audit/verify",
                     "/tables/R1/hands/1/replay", "/reports/hold?month=2026-12",
                     "/exports/accounting/2026-12-01"]
            with ThreadPoolExecutor(max_workers=8) as pool:
                answers = list(pool.map(lambda p: timed(client, p, auditor), reads * 2))
            assert [(s, c) for s, c, _ in answers] == [(503, "store_unavailable")] * 16, answers
            assert max(t for _, _, t in answers) <= TIMEOUT_S + 1, answers
            status_code, code, took = timed(client, "/ready", {})
            assert (status_code, code) == (503, "store_unavailable") and took <= TIMEOUT_S + 1
            # The primary: the table's state, commands and the views' catch-up go on.
            seen = client.get("/tables/R1", headers=device).json()
            assert seen["version"] == started["table_version"]
            wager = command("/tables/R1/hands/current/wagers", command_id="w", seat=1,
                            kind="ante", amount=500)
            seen = client.get("/tables/R1", headers=device).json()
            assert seen["version"] == wager["table_version"] > started["table_version"]
            audit = cli("audit", "verify")
            assert audit.returncode == 2, audit.stdout + audit.stderr
            assert "error [store_unavailable] read store (LEDGER_READ_DATABASE_URL)" in \
                audit.stderr and "Traceback" not in audit.stderr, audit.stderr
            listed = cli("tokens", "list")  # not a reading command: the primary
            assert listed.returncode == 0, listed.stderr
        finally:
            standby.start()
        # Back by itself, with what was written while the standby was down.
        head = client.get("/projections", headers=auditor).json()[0]["head"]
        assert views_at(client, auditor, head).json()["items"][0]["hand_no"] == 1
        assert client.get("/ready").status_code == 200
        audit = cli("audit", "verify")
        assert audit.returncode == 0, audit.stdout + audit.stderr
