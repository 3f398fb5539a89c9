"""The ledger as separate processes: twenty started at once on a fresh PostgreSQL database
(the schema is created under an advisory lock, so none fails), and two ``ledger serve``
processes on one store, each reading what the other wrote."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.conftest import ADMIN_URL, fresh_databases
from tests.e2e.api.test_api_serve import free_port
from tests.e2e.cli.test_cli import ledger


@pytest.fixture
def fresh_database() -> Iterator[str]:
    with fresh_databases("ledger_start") as (url,):
        yield url


@pytest.mark.postgres
def test_twenty_processes_started_at_once_on_a_fresh_database_all_succeed(
        fresh_database: str, tmp_path: Path) -> None:
    env = {**os.environ, "LEDGER_DATABASE_URL": fresh_database, "LEDGER_LOG_LEVEL": "WARNING",
           "LEDGER_DECK_KEY_FILE": str(tmp_path / "deck.key"), "LEDGER_CONNECT_TIMEOUT": "30",
           "LEDGER_POSTGRES_SCHEMA": "fleet"}  # the schema too is created by the first
    # Each creates the store's tables and the read models' tables if they are missing.
    runs = [subprocess.Popen([sys.executable, "-m", "ledger", "projections", "update"],
                             env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True) for _ in range(20)]
    results = [(run.wait(timeout=240), *run.communicate()) for run in runs]
    failed = [err for code, _, err in results if code != 0]
    assert failed == [], failed[0]


@pytest.mark.postgres
def test_a_process_refused_for_want_of_connection_slots_waits_for_one(
        fresh_database: str, tmp_path: Path) -> None:
    """A server with every slot taken (here: a role allowed one connection, holding it) is asked
    again until ``LEDGER_CONNECT_TIMEOUT`` runs out: the command succeeds once a slot frees, and
    fails with ``store_unavailable`` and what to change when none does."""
    import psycopg

    role = f"ledger_one_{uuid.uuid4().hex[:8]}"
    name = fresh_database.rsplit("/", 1)[1]
    with psycopg.connect(ADMIN_URL, autocommit=True) as admin:
        admin.execute(f'CREATE ROLE "{role}" LOGIN CONNECTION LIMIT 1')
        admin.execute(f'ALTER DATABASE "{name}" OWNER TO "{role}"')
    url = fresh_database.replace("postgres@", f"{role}@", 1)
    try:
        env = {**os.environ, "LEDGER_DATABASE_URL": url, "LEDGER_LOG_LEVEL": "WARNING",
               "LEDGER_DECK_KEY_FILE": str(tmp_path / "deck.key")}
        with psycopg.connect(url, autocommit=True):  # the role's one slot, taken
            started = time.monotonic()
            refused = subprocess.run([sys.executable, "-m", "ledger", "projections", "update"],
                                     env={**env, "LEDGER_CONNECT_TIMEOUT": "2"},
                                     capture_output=True, text=True, timeout=120)
            waited = time.monotonic() - started
            assert refused.returncode == 2, refused.stderr
            assert "store_unavailable" in refused.stderr
            assert "too many connections for role" in refused.stderr
            assert "CONNECTION LIMIT" in refused.stderr  # what to change
            assert "password" not in refused.stderr.lower()
            assert waited >= 2  # it asked again for the whole wait
            waiting = subprocess.Popen(
                [sys.executable, "-m", "ledger", "projections", "update"],
                env={**env, "LEDGER_CONNECT_TIMEOUT": "60"},
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            time.sleep(3)  # refused meanwhile; the slot frees when this block ends
        code = waiting.wait(timeout=120)
        out, err = waiting.communicate()
        assert code == 0, err
        assert "0 events read" in out
    finally:
        with psycopg.connect(ADMIN_URL, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            admin.execute(f'DROP ROLE IF EXISTS "{role}"')


def test_two_serve_processes_on_one_store_read_each_others_writes(tmp_path: Path) -> None:
    db = tmp_path / "ledger.sqlite3"
    made = ledger("tokens", "create", "--role", "admin", "--label", "ops", db=db)
    assert made.returncode == 0, made.stderr
    admin = {"Authorization": f"Bearer {made.stdout.strip()}"}
    made = ledger("tokens", "create", "--role", "device", "--table", "P1", db=db)
    assert made.returncode == 0, made.stderr
    token = {"Authorization": f"Bearer {made.stdout.strip()}"}
    env = {**os.environ, "LEDGER_DATABASE_URL": f"sqlite:///{db}", "LEDGER_LOG_LEVEL":
           "WARNING", "LEDGER_DECK_KEY_FILE": str(tmp_path / "deck.key")}
    ports = [free_port(), free_port()]
    servers = [subprocess.Popen(
        [sys.executable, "-m", "ledger", "serve", "--host", "127.0.0.1", "--port", str(port)],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE) for port in ports]
    try:
        a, b = (httpx.Client(base_url=f"http://127.0.0.1:{p}", headers=token, timeout=30)
                for p in ports)
        for client in (a, b):
            for _ in range(300):
                try:
                    if client.get("/ready").status_code == 200:
                        break
                except httpx.TransportError:
                    pass
                time.sleep(0.05)
        opened = a.post("/tables", headers=admin, json={
            "command_id": "o", "table": "P1", "game": "caribbean-stud"})
        assert opened.status_code == 201, opened.text
        seated = a.post("/tables/P1/seats", json={"command_id": "s", "seat": 1, "player": "p1"})
        assert seated.status_code == 201, seated.text
        assert b.get("/tables/P1").json()["version"] == 2
        for n in range(3):
            done = a.post("/tables/P1/buy-ins", json={"command_id": f"b{n}", "seat": 1,
                                                      "amount": 100})
            assert done.status_code == 201, done.text
            seen = b.get("/tables/P1").json()
            assert (seen["version"], seen["balances"]["player:p1"]) == (
                done.json()["table_version"], 100 * (n + 1))
    finally:
        for server in servers:
            server.terminate()
            server.wait(timeout=20)


@pytest.mark.postgres
def test_applications_that_open_while_another_creates_the_store_wait_for_it(
        fresh_database: str, tmp_path: Path) -> None:
    """The library creates its composite types in transactions of their own, outside the one
    that creates the tables. Two processes creating the same type at once: the second waits
    for the first's commit and then fails with a unique violation (``IntegrityError``), not the
    ``DuplicateObject`` the library expects. Here another process holds the schema lock while
    it creates those types; the applications opened meanwhile must wait for it, then succeed."""
    import threading

    import psycopg

    from ledger.app.application import LedgerApp
    from ledger.settings import Settings
    from ledger.store.postgres import schema_lock

    settings = Settings(database_url=fresh_database, deck_key_file=tmp_path / "deck.key",
                        log_level="WARNING", connect_timeout=30)
    # The library's statements, as a store in another schema of the database has them.
    probe = LedgerApp(settings.model_copy(update={"postgres_schema": "probe"}))
    assert probe.snapshots is not None
    recorders: list[Any] = [probe.recorder, probe.snapshots.recorder]
    types = sorted({statement.as_string().replace('"probe".', '"public".')
                    for recorder in recorders for statement in recorder.sql_create_statements
                    if "CREATE TYPE" in statement.as_string()})
    probe.close()
    assert types, "the library no longer creates composite types: drop this test"
    errors: list[BaseException] = []

    def open_one() -> None:
        try:
            LedgerApp(settings).close()
        except BaseException as exc:
            errors.append(exc)

    with psycopg.connect(fresh_database) as other:  # one transaction, committed at the end
        schema_lock(other)
        for statement in types:
            other.execute(statement.encode())
        threads = [threading.Thread(target=open_one) for _ in range(6)]
        for thread in threads:
            thread.start()
        time.sleep(1.0)
    for thread in threads:
        thread.join(timeout=60)
    assert errors == [], repr(errors[0])
