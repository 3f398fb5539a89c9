"""Say what is true under a role that may only read (issue 30), on PostgreSQL: a command is
``store_permission_denied`` at once (from the application as from the command line; never
``store_unavailable`` after retries, never ``internal_error``), and ``/ready`` says the
instance cannot write (``writable`` false, the store ``read-only``)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlparse, urlunparse

import pytest
from fastapi.testclient import TestClient

from ledger.api import create_app
from ledger.app.application import LedgerApp
from ledger.domain.commands import OpenTable
from ledger.domain.errors import LedgerError
from ledger.settings import Settings
from ledger.sim.runner import simulate
from ledger.store.errors import store_error
from projections.views.runner import Runner
from tests.conftest import fresh_databases

pytestmark = pytest.mark.postgres

ROLES = {"select_only": "", "read_only_sessions": "default_transaction_read_only = on"}


@pytest.fixture(params=sorted(ROLES))
def reader_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[str, str]]:
    """(the owner's URL, the URL of a role that may only read), a store with one table."""
    import psycopg

    with fresh_databases("ledger_ro") as (url,):
        owner = LedgerApp(Settings(database_url=url, deck_key_file=tmp_path / "deck.key"))
        simulate(owner, "caribbean-stud", "CSP-1", 1, seed=3)
        Runner(owner).catch_up()  # the views, set up by their owner
        owner.close()
        role = f"ro_{uuid.uuid4().hex[:8]}"
        grants = ("SELECT" if request.param == "select_only"
                  else "SELECT, INSERT, UPDATE, DELETE")
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(f"CREATE ROLE {role} LOGIN")
            conn.execute(f"GRANT USAGE ON SCHEMA public TO {role}")
            conn.execute(f"GRANT {grants} ON ALL TABLES IN SCHEMA public TO {role}")
            conn.execute(f"GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO {role}")
            if ROLES[request.param]:
                conn.execute(f"ALTER ROLE {role} SET {ROLES[request.param]}")
        parsed = urlparse(url)
        host = parsed.netloc.rpartition("@")[2]
        try:
            yield url, urlunparse(parsed._replace(netloc=f"{role}@{host}"))
        finally:
            with psycopg.connect(url, autocommit=True) as conn:
                conn.execute(f"DROP OWNED BY {role}")
                conn.execute(f"DROP ROLE {role}")


def test_a_read_only_role_is_told_permission_denied_at_once(
        reader_url: tuple[str, str], tmp_path: Path) -> None:
    _, url = reader_url
    settings = Settings(database_url=url, deck_key_file=tmp_path / "deck.key")
    app = LedgerApp(settings)
    try:
        started = time.monotonic()
        with pytest.raises(Exception) as refused:
            app.execute(OpenTable(command_id="o-2", table="CSP-2", game="caribbean-stud"))
        assert time.monotonic() - started < 1.0
        found = refused.value if isinstance(refused.value, LedgerError) else \
            store_error(refused.value, settings)  # what the API and the CLI answer
        assert found is not None and found.code == "store_permission_denied", refused.value

        with TestClient(create_app(settings, ledger=app)) as client:
            ready = client.get("/ready")
            assert ready.status_code == 200
            assert ready.json()["writable"] is False
            assert ready.json()["stores"][0]["state"] == "read-only"
    finally:
        app.close()

    env = {**os.environ, "LEDGER_DATABASE_URL": url, "LEDGER_LOG_LEVEL": "WARNING",
           "LEDGER_DECK_KEY_FILE": str(tmp_path / "deck.key")}
    env.pop("LEDGER_SHARDS", None)
    done = subprocess.run([sys.executable, "-m", "ledger", "simulate", "--game",
                           "caribbean-stud", "--table", "CSP-3", "--hands", "1"],
                          capture_output=True, text=True, env=env, timeout=120, check=False)
    assert done.returncode == 2 and "error [store_permission_denied]" in done.stderr, done
