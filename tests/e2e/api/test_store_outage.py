"""A PostgreSQL outage while the service runs (a throwaway server of its own, stopped and
started again): every request answers ``503 store_unavailable`` within LEDGER_CONNECT_TIMEOUT
(+1 s), ``/health`` stays up while ``/ready`` fails, and the service recovers by itself; the
CLI ends with the coded error, neither hanging nor printing a traceback."""

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
import pytest

from ledger.api.app import create_app
from ledger.settings import Settings
from tests.conftest import REQUIRE_POSTGRES
from tests.support.http import bearer, make_tokens, serve

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "ops" / "ha"))
import pgcluster

pytestmark = pytest.mark.postgres
TIMEOUT_S = 2


@pytest.fixture(scope="module")
def server() -> Iterator[pgcluster.Server]:
    why = pgcluster.available()
    if why is not None:
        if REQUIRE_POSTGRES:
            pytest.fail(why)
        pytest.skip(why)
    root = pgcluster.workspace("ledger-outage-")
    db = pgcluster.Server(root, "db")
    try:
        db.initdb()
        db.start()
        yield db
    finally:
        pgcluster.remove(root, db)


def settings_of(db: pgcluster.Server, tmp_path: Path, schema: str) -> Settings:
    return Settings(database_url=db.url(), postgres_schema=schema,
                    deck_key_file=tmp_path / "deck.key", connect_timeout=TIMEOUT_S,
                    postgres_pool_size=2, log_level="CRITICAL")


def timed(client: httpx.Client, method: str, path: str, **kwargs: Any
          ) -> tuple[int, str, float]:
    started = time.monotonic()
    r = client.request(method, path, **kwargs)
    code = r.json().get("error", {}).get("code", "") if r.status_code >= 400 else ""
    return r.status_code, code, time.monotonic() - started


def test_requests_answer_503_within_the_timeout_and_recover(
        server: pgcluster.Server, tmp_path: Path) -> None:
    app = create_app(settings_of(server, tmp_path, "outage_api"))
    tokens = make_tokens(app, ["T1"])
    device, auditor = bearer(tokens.device), bearer(tokens.auditor)
    with serve(app) as url, httpx.Client(base_url=url, timeout=30) as client:
        opened = client.post("/tables", headers=bearer(tokens.admin), json={
            "command_id": "open", "table": "T1", "game": "caribbean-stud"})
        assert opened.status_code == 201, opened.text
        assert client.get("/ready").status_code == 200
        server.stop("immediate")
        try:
            kinds: list[tuple[str, str, dict[str, Any]]] = [
                ("GET", "/tables/T1", {"headers": device}),
                ("POST", "/tables/T1/seats", {"headers": device, "json": {
                    "command_id": "s1", "seat": 1, "player": "p1"}}),
                ("GET", "/hands", {"headers": auditor}),
                ("GET", "/tables", {"headers": auditor}),
            ]
            requests = [kinds[n % len(kinds)] for n in range(20)]
            with ThreadPoolExecutor(max_workers=20) as pool:
                answers = list(pool.map(lambda r: timed(client, r[0], r[1], **r[2]), requests))
            assert [(s, c) for s, c, _ in answers] == [(503, "store_unavailable")] * 20
            slowest = max(t for _, _, t in answers)
            assert slowest <= TIMEOUT_S + 1, answers
            assert client.get("/health").status_code == 200  # alive, not ready
            status, code, took = timed(client, "GET", "/ready")
            assert (status, code) == (503, "store_unavailable") and took <= TIMEOUT_S + 1
        finally:
            server.start()
        seated = client.post("/tables/T1/seats", headers=device, json={
            "command_id": "after", "seat": 1, "player": "p1"})
        assert seated.status_code == 201, seated.text
        assert client.get("/ready").status_code == 200
        assert client.get("/tables/T1", headers=device).json()["seats"]["1"]


def test_cli_ends_with_the_coded_error_when_the_store_goes_away(
        server: pgcluster.Server, tmp_path: Path) -> None:
    env = {**os.environ, "LEDGER_DATABASE_URL": server.url(),
           "LEDGER_POSTGRES_SCHEMA": "outage_cli", "LEDGER_CONNECT_TIMEOUT": str(TIMEOUT_S),
           "LEDGER_DECK_KEY_FILE": str(tmp_path / "deck.key"), "LEDGER_LOG_LEVEL": "CRITICAL"}
    run = subprocess.Popen(
        [sys.executable, "-m", "ledger", "simulate", "--game", "caribbean-stud", "--hands",
         "100000", "--table", "SIM-1"], env=env, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True)
    try:
        time.sleep(3)  # playing by now
        assert run.poll() is None, run.communicate()
        server.stop("immediate")
        stopped = time.monotonic()
        _, err = run.communicate(timeout=60)
        took = time.monotonic() - stopped
    finally:
        if run.poll() is None:
            run.kill()
        server.start()
    assert run.returncode == 2, err
    assert "error [store_unavailable]" in err and "Traceback" not in err, err
    assert took <= TIMEOUT_S + 3, took
