"""The ``ledger`` command line run as a user runs it (a subprocess per call) against the store
of a test's settings: a SQLite file or a PostgreSQL schema."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

from ledger.settings import Settings


def env_of(settings: Settings, **extra: str) -> dict[str, str]:
    """The environment that points the command line at ``settings``' store."""
    env = {**os.environ, "LEDGER_DATABASE_URL": settings.database_url,
           "LEDGER_LOG_LEVEL": "WARNING", "LEDGER_ACTOR": "auditor-test", **extra}
    if settings.database_url.startswith("postgresql"):
        env["LEDGER_POSTGRES_SCHEMA"] = settings.postgres_schema
    if settings.deck_key_file is not None:
        env["LEDGER_DECK_KEY_FILE"] = str(settings.deck_key_file)
    return env


def run_cli(settings: Settings, *args: str, stdin: str | None = None,
            **extra: str) -> subprocess.CompletedProcess[str]:
    """``ledger ARGS...`` on ``settings``' store."""
    return subprocess.run([sys.executable, "-m", "ledger", *args], capture_output=True,
                          text=True, env=env_of(settings, **extra), input=stdin, timeout=300,
                          check=False)


def cli_json(settings: Settings, *args: str, **extra: str) -> Any:
    """The JSON a command prints with ``--json`` (it must succeed)."""
    done = run_cli(settings, *args, "--json", **extra)
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout)
