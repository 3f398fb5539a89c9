"""A store the ledger cannot use ends every command with a coded error, never a traceback:
an unreachable server or a missing database (``store_unavailable``, quickly), a user without
the rights a command needs (``store_permission_denied``), a missing schema
(``store_schema_missing``, or created when the user may).

Each PostgreSQL test here makes its own database and roles and drops them afterwards.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlparse, urlunparse

import pytest

from tests.conftest import ADMIN_URL, REQUIRE_POSTGRES

pytestmark = pytest.mark.postgres
PASSWORD = "pw-not-shown-7431"


def ledger(*args: str, url: str, tmp: Path, **env: str) -> subprocess.CompletedProcess[str]:
    full = {k: v for k, v in os.environ.items() if not k.startswith("LEDGER_")}
    full.update({"LEDGER_DATABASE_URL": url, "LEDGER_DECK_KEY_FILE": str(tmp / "deck.key"),
                 "LEDGER_LOG_LEVEL": "WARNING", **env})
    return subprocess.run([sys.executable, "-m", "ledger", *args], capture_output=True,
                          text=True, env=full, timeout=120, check=False, cwd=tmp)


def url_for(user: str, dbname: str, *, password: str | None = None,
            port: int | None = None) -> str:
    parsed = urlparse(ADMIN_URL)
    host = parsed.hostname or "127.0.0.1"
    auth = user if password is None else f"{user}:{password}"
    return urlunparse(parsed._replace(netloc=f"{auth}@{host}:{port or parsed.port or 5432}",
                                      path=f"/{dbname}"))


def coded(out: subprocess.CompletedProcess[str], code: str) -> str:
    """The error line of a command that failed with ``code``, checked for the CLI's shape."""
    assert out.returncode == 2, out.stdout + out.stderr
    assert "Traceback" not in out.stderr, out.stderr
    assert out.stderr.startswith(f"error [{code}] "), out.stderr
    return out.stderr


@dataclass
class Server:
    admin: Any  # psycopg connection to the maintenance database, autocommit
    database: str
    owner_url: str
    reader: str
    """A role that may log in and read (USAGE on the schema, SELECT on its tables)."""
    stranger: str
    """A role that may log in and nothing else."""


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    """A database of its own (the ledger's tables made by its owner) and two roles."""
    import psycopg

    try:
        admin = psycopg.connect(ADMIN_URL, autocommit=True, connect_timeout=3)
    except psycopg.OperationalError as exc:
        if REQUIRE_POSTGRES:
            pytest.fail(f"PostgreSQL is not reachable at {ADMIN_URL}: {exc}")
        pytest.skip(f"PostgreSQL is not reachable at {ADMIN_URL}: {exc}")
    tag = uuid.uuid4().hex[:10]
    database, reader, stranger = f"ledger_store_{tag}", f"ledger_ro_{tag}", f"ledger_no_{tag}"
    with admin:
        admin.execute(f'CREATE DATABASE "{database}"')
        admin.execute(f"CREATE ROLE \"{reader}\" LOGIN PASSWORD '{PASSWORD}'")
        admin.execute(f'CREATE ROLE "{stranger}" LOGIN')
        try:
            yield Server(admin, database, url_for(urlparse(ADMIN_URL).username or "postgres",
                                                  database), reader, stranger)
        finally:
            admin.execute(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')
            admin.execute(f'DROP ROLE IF EXISTS "{reader}"')
            admin.execute(f'DROP ROLE IF EXISTS "{stranger}"')


def grant_read(server: Server, role: str) -> None:
    import psycopg

    with psycopg.connect(server.owner_url, autocommit=True) as conn:
        conn.execute(f'GRANT USAGE ON SCHEMA public TO "{role}"')
        conn.execute(f'GRANT SELECT ON ALL TABLES IN SCHEMA public TO "{role}"')


def test_a_role_that_may_only_read_uses_the_store_and_is_told_what_it_may_not(
        server: Server, tmp_path: Path) -> None:
    reader = url_for(server.reader, server.database, password=PASSWORD)
    # Nothing exists yet and the role may not create tables: coded, with what to grant.
    grant_read(server, server.reader)
    message = coded(ledger("tokens", "list", url=reader, tmp=tmp_path), "store_permission_denied")
    assert "GRANT CREATE ON SCHEMA public" in message and server.reader in message
    assert PASSWORD not in message
    # The owner sets the store up; the reader may then read it without any DDL.
    made = ledger("simulate", "--game", "caribbean-stud", "--hands", "2", "--table", "RO-1",
                  url=server.owner_url, tmp=tmp_path)
    assert made.returncode == 0, made.stderr
    # The read models are not set up yet, and the reader may not set them up.
    message = coded(ledger("projections", "status", url=reader, tmp=tmp_path),
                    "store_permission_denied")
    assert "ledger projections update" in message
    assert ledger("projections", "update", url=server.owner_url, tmp=tmp_path).returncode == 0
    grant_read(server, server.reader)
    for args in (("tokens", "list"), ("projections", "status"), ("audit", "verify"),
                 ("replay", "RO-1", "1")):
        out = ledger(*args, url=reader, tmp=tmp_path)
        assert out.returncode == 0, (args, out.stderr)
    # Writing is refused with a coded error naming the privilege.
    message = coded(ledger("simulate", "--game", "caribbean-stud", "--hands", "1", "--table",
                           "RO-1", url=reader, tmp=tmp_path), "store_permission_denied")
    assert "permission denied for table" in message and "GRANT" in message
    # A role granted nothing at all on the ledger's tables.
    stranger = url_for(server.stranger, server.database)
    message = coded(ledger("audit", "verify", url=stranger, tmp=tmp_path),
                    "store_permission_denied")
    assert "permission denied for table" in message and server.stranger in message


def test_a_missing_database_or_an_unreachable_server_fails_fast(
        server: Server, tmp_path: Path) -> None:
    missing = url_for(server.reader, f"{server.database}_nonexistent", password=PASSWORD)
    started = time.monotonic()
    message = coded(ledger("projections", "status", url=missing, tmp=tmp_path),
                    "store_unavailable")
    assert time.monotonic() - started < 20
    assert f"{server.database}_nonexistent" in message and "does not exist" in message
    assert "createdb" in message and PASSWORD not in message

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        closed = s.getsockname()[1]
    refused = url_for("postgres", "ledger", password=PASSWORD, port=closed)
    started = time.monotonic()
    message = coded(ledger("tokens", "list", url=refused, tmp=tmp_path), "store_unavailable")
    assert time.monotonic() - started < 20
    assert f"127.0.0.1:{closed}" in message and PASSWORD not in message

    # A server that accepts the connection and never answers: LEDGER_CONNECT_TIMEOUT applies.
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        hung = url_for("postgres", "ledger", port=silent.getsockname()[1])
        started = time.monotonic()
        message = coded(ledger("audit", "verify", url=hung, tmp=tmp_path,
                               LEDGER_CONNECT_TIMEOUT="2"), "store_unavailable")
        assert time.monotonic() - started < 20
    assert "LEDGER_CONNECT_TIMEOUT" in message


def test_a_missing_schema_is_created_when_the_user_may(server: Server, tmp_path: Path) -> None:
    import psycopg

    out = ledger("simulate", "--game", "stud-hilo", "--hands", "1", "--table", "SCH-1",
                 url=server.owner_url, tmp=tmp_path, LEDGER_POSTGRES_SCHEMA="made_on_demand")
    assert out.returncode == 0, out.stderr
    with psycopg.connect(server.owner_url) as conn:
        count = conn.execute("SELECT COUNT(*) FROM made_on_demand.ledger_events").fetchone()
    assert count is not None and count[0] > 0
    reader = url_for(server.reader, server.database, password=PASSWORD)
    message = coded(ledger("tokens", "list", url=reader, tmp=tmp_path,
                           LEDGER_POSTGRES_SCHEMA="some_missing_schema"),
                    "store_schema_missing")
    assert "some_missing_schema" in message and "CREATE SCHEMA" in message
    # A schema that exists but that the user may not use.
    message = coded(ledger("tokens", "list", url=reader, tmp=tmp_path,
                           LEDGER_POSTGRES_SCHEMA="made_on_demand"), "store_permission_denied")
    assert f"GRANT USAGE ON SCHEMA made_on_demand TO {server.reader}" in message
