"""Helpers shared by the benchmark scripts: fresh stores and timing."""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from ledger.logs import configure  # noqa: E402
from ledger.settings import Settings  # noqa: E402

configure("WARNING")

PG_ADMIN = os.environ.get(
    "LEDGER_TEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/postgres"
)


def optimised() -> str:
    return "python -O" if not __debug__ else "python (asserts on; run with -O for ~10-30% more)"


@contextmanager
def fresh_store(kind: str) -> Iterator[Settings]:
    """Settings for an empty SQLite file or a fresh PostgreSQL database (dropped after)."""
    with tempfile.TemporaryDirectory(prefix="ledger-bench-") as tmp:
        deck_key_file = Path(tmp) / "deck.key"
        if kind == "sqlite":
            yield Settings(
                database_url=f"sqlite:///{tmp}/bench.sqlite3", deck_key_file=deck_key_file
            )
            return
        import psycopg

        name = f"ledger_bench_{uuid.uuid4().hex[:10]}"
        with psycopg.connect(PG_ADMIN, autocommit=True) as admin:
            admin.execute(f'CREATE DATABASE "{name}"')
        url = PG_ADMIN.rsplit("/", 1)[0] + f"/{name}"
        try:
            yield Settings(database_url=url, deck_key_file=deck_key_file)
        finally:
            with psycopg.connect(PG_ADMIN, autocommit=True) as admin:
                admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def postgres_available() -> bool:
    try:
        import psycopg

        with psycopg.connect(PG_ADMIN, connect_timeout=2):
            return True
    except Exception:
        return False


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    k = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[k]


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")
