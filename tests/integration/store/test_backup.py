"""Backup and restore: a copy taken while tables play, restored, verifies against the last seal
(SQLite's online backup; pg_dump and pg_restore on PostgreSQL)."""

from __future__ import annotations

import hashlib
import json
import subprocess
import threading
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import urlparse, urlunparse

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from ledger.app.application import LedgerApp
from ledger.settings import Settings
from ledger.sim.runner import simulate
from ledger.store.backup import backup
from projections.audit import verify
from projections.audit.seal import make_seal
from projections.views.context import gaming_day

KEY = Ed25519PrivateKey.generate()
TABLES = {"caribbean-stud": "CSP-B", "high-card-flush": "HCF-B"}


@pytest.fixture
def app(store_settings: Settings) -> Iterator[LedgerApp]:
    ledger = LedgerApp(store_settings)
    yield ledger
    ledger.close()


def test_a_backup_taken_under_load_restores_and_verifies_against_the_last_seal(
        app: LedgerApp, store_settings: Settings, tmp_path: Path) -> None:
    for n, (game, code) in enumerate(TABLES.items()):
        simulate(app, game, code, 2, seed=n)
    day = gaming_day(datetime.now(UTC), "Europe/Amsterdam", app.settings.gaming_day_start)
    seal = make_seal(app, day, KEY)
    stop, errors = threading.Event(), []

    writers = {code: LedgerApp(store_settings) for code in TABLES.values()}  # one at a time:
    # their DDL at start would race

    def play(game: str, code: str) -> None:
        writer = writers[code]
        try:
            while not stop.is_set():
                simulate(writer, game, code, 1)
        except BaseException as exc:
            errors.append(exc)
        finally:
            writer.close()

    threads = [threading.Thread(target=play, args=item) for item in TABLES.items()]
    for thread in threads:
        thread.start()
    try:
        manifest = backup(store_settings, tmp_path / "backup")
    finally:
        stop.set()
        for thread in threads:
            thread.join(timeout=120)
    assert not errors, errors
    saved = json.loads((tmp_path / "backup" / "backup.json").read_text())
    assert saved == manifest and len(saved["sha256"]) == 64
    if manifest["store"] == "sqlite":  # the copy alone, no -wal or -shm left open beside it
        assert sorted(p.name for p in (tmp_path / "backup").iterdir()) == [
            "backup.json", manifest["file"]]
    copied = (tmp_path / "backup" / manifest["file"]).read_bytes()
    assert hashlib.sha256(copied).hexdigest() == manifest["sha256"]
    with _restored(store_settings, tmp_path / "backup" / manifest["file"]) as restored:
        copy = LedgerApp(restored)
        try:
            report = verify(copy, seal=seal, public_key=KEY.public_key())
        finally:
            copy.close()
    assert report.ok, report.as_dict()
    assert sorted(report.tables) == sorted(TABLES.values())


class _restored:
    """Settings of a store restored from a backup file (a fresh database on PostgreSQL)."""

    def __init__(self, settings: Settings, path: Path) -> None:
        self.settings, self.path = settings, path
        self.database: str | None = None

    def __enter__(self) -> Settings:
        if self.settings.database_url.startswith("sqlite"):
            target = self.path.parent / "restored.sqlite3"
            target.write_bytes(self.path.read_bytes())
            return self.settings.model_copy(update={"database_url": f"sqlite:///{target}"})
        import psycopg

        self.database = f"ledger_restore_{uuid.uuid4().hex[:10]}"
        with psycopg.connect(self.settings.database_url, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{self.database}"')
        url = urlunparse(urlparse(self.settings.database_url)._replace(
            path=f"/{self.database}"))
        done = subprocess.run(["pg_restore", "--dbname", url, "--no-owner", str(self.path)],
                              capture_output=True, text=True, check=False)
        assert done.returncode == 0, done.stderr
        return self.settings.model_copy(update={"database_url": url})

    def __exit__(self, *exc: object) -> None:
        if self.database is not None:
            import psycopg

            with psycopg.connect(self.settings.database_url, autocommit=True) as conn:
                conn.execute(f'DROP DATABASE IF EXISTS "{self.database}" WITH (FORCE)')
