"""Shared fixtures: the same tests run on SQLite and on PostgreSQL.

PostgreSQL tests use ``LEDGER_TEST_POSTGRES_URL`` (default: the local server, user postgres) to
create a database for the session and a schema per test, dropped afterwards. Without a server
they skip with a message; with ``LEDGER_REQUIRE_POSTGRES=1`` (CI) they fail instead.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TypedDict
from urllib.parse import urlparse, urlunparse

import pytest
from hypothesis import HealthCheck, settings

from ledger.logs import configure
from ledger.settings import Settings

configure("WARNING")

# The tests read the tables the command line prints to a pipe, every row whole. A terminal width
# exported by whoever runs them (COLUMNS, LINES) would reach each `ledger` process and wrap those
# tables; a test about widths sets its own.
for _inherited in ("COLUMNS", "LINES"):
    os.environ.pop(_inherited, None)

# Property tests: no per-example deadline (a loaded 2-core CI machine is slow, not wrong). Under
# CI (LEDGER_REQUIRE_POSTGRES=1) the examples are derived from each test's name, so a landing run
# is reproducible; local runs draw fresh examples every time and print a blob to replay a failure.
settings.register_profile(
    "local", deadline=None, suppress_health_check=[HealthCheck.too_slow], print_blob=True
)
settings.register_profile(
    "ci", parent=settings.get_profile("local"), derandomize=True, print_blob=True
)

ADMIN_URL = os.environ.get(
    "LEDGER_TEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/postgres"
)
REQUIRE_POSTGRES = os.environ.get("LEDGER_REQUIRE_POSTGRES", "") not in ("", "0", "no")
settings.load_profile(
    os.environ.get("LEDGER_HYPOTHESIS_PROFILE", "ci" if REQUIRE_POSTGRES else "local")
)


def _with_db(url: str, dbname: str) -> str:
    return urlunparse(urlparse(url)._replace(path=f"/{dbname}"))


@contextmanager
def fresh_databases(prefix: str, count: int = 1) -> Iterator[list[str]]:
    """``count`` new, empty PostgreSQL databases (their URLs), dropped afterwards. An
    unreachable server skips the test, or fails it under ``LEDGER_REQUIRE_POSTGRES``."""
    import psycopg

    names = [f"{prefix}_{uuid.uuid4().hex[:12]}" for _ in range(count)]
    try:
        admin = psycopg.connect(ADMIN_URL, autocommit=True, connect_timeout=3)
    except psycopg.OperationalError as exc:
        message = (
            f"PostgreSQL is not reachable at {ADMIN_URL} ({exc}); start it or set "
            "LEDGER_TEST_POSTGRES_URL to run the PostgreSQL tests"
        )
        if REQUIRE_POSTGRES:
            pytest.fail(message)
        pytest.skip(message)
    with admin:
        for name in names:
            admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield [_with_db(ADMIN_URL, name) for name in names]
    finally:
        with psycopg.connect(ADMIN_URL, autocommit=True) as admin:
            for name in names:
                admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture(scope="session")
def postgres_database() -> Iterator[str]:
    """A fresh PostgreSQL database for this test session (dropped at the end)."""
    with fresh_databases("ledger_test") as (url,):
        yield url


@pytest.fixture
def postgres_schema(postgres_database: str) -> Iterator[tuple[str, str]]:
    """A fresh schema in the session database: (database url, schema)."""
    import psycopg

    schema = f"t_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(postgres_database, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    try:
        yield postgres_database, schema
    finally:
        with psycopg.connect(postgres_database, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


class _StoreSettings(TypedDict):
    """The settings every fresh test store shares, whatever its database."""

    deck_key_file: Path
    snapshot_interval: int
    log_level: str


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def store_settings(request: pytest.FixtureRequest, tmp_path: Path) -> Settings:
    """Settings for a fresh, empty store: SQLite file or PostgreSQL schema."""
    base: _StoreSettings = {
        "deck_key_file": tmp_path / "deck.key",
        "snapshot_interval": 50,
        "log_level": "WARNING",
    }
    if request.param == "sqlite":
        return Settings(database_url=f"sqlite:///{tmp_path}/ledger.sqlite3", **base)
    url, schema = request.getfixturevalue("postgres_schema")
    return Settings(database_url=url, postgres_schema=schema, **base)


@pytest.fixture
def sqlite_settings(tmp_path: Path) -> Settings:
    return Settings(
        database_url=f"sqlite:///{tmp_path}/ledger.sqlite3",
        deck_key_file=tmp_path / "deck.key",
        snapshot_interval=50,
    )
