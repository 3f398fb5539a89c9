"""``ledger backup``: a consistent copy of the store, taken while tables play.

- SQLite: the online backup API of SQLite copies the database page by page into a new file; the
  copy is one consistent state of the store (writers carry on; pages they change meanwhile are
  copied again).
- PostgreSQL: ``pg_dump`` of the ledger's schema in the custom format (``pg_restore`` reads it);
  pg_dump reads in one snapshot of its own.

Beside the copy, ``backup.json`` records what it holds: the store's kind, the copy's file and
its SHA-256, the time, and for SQLite the head of the notification log and each stream's last
version in the copy (read from the copy itself); a restore is checked against the last seal
with ``ledger audit verify --seal``.
The deck key and the signing key are not copied: they are secrets kept apart from the data
(docs/operations/backup.md says where they go).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ledger.domain.errors import InvalidInput, LedgerError
from ledger.settings import Settings
from ledger.store.errors import PostgresTarget
from ledger.store.urls import sqlite_path


def backup(settings: Settings, out: Path) -> dict[str, Any]:
    """Copy the store into the directory ``out``; the manifest written there."""
    if settings.shards.strip():  # LEDGER_DATABASE_URL is not the fleet's store: never copy it
        from ledger.store.fleet import not_across_shards

        raise not_across_shards("a backup")
    url = settings.database_url.strip()
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InvalidInput("output_not_writable", f"cannot write {out}: "
                           f"{exc.strerror or exc}") from None
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    if url.startswith("sqlite"):
        source = sqlite_path(url)
        if source == ":memory:":
            raise InvalidInput("invalid_database_url", "an in-memory store cannot be backed up")
        target = out / f"ledger-{stamp}.sqlite3"
        _sqlite_backup(source, target)
        kind = "sqlite"
    else:
        target = out / f"ledger-{stamp}.pgdump"
        _pg_dump(settings, target)
        kind = "postgresql"
    heads = _heads(target) if kind == "sqlite" else {}  # before the digest: the copy as left
    manifest = {"store": kind, "file": target.name, "sha256": _sha256(target),
                "created_at": datetime.now(UTC).isoformat(),
                "schema": settings.postgres_schema.strip() if kind == "postgresql" else None,
                **heads}
    (out / "backup.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    return manifest


def _sqlite_backup(source: str, target: Path) -> None:
    if not Path(source).exists():
        raise LedgerError("store_unavailable", f"no SQLite store at {source}", path=source)
    src = sqlite3.connect(f"file:{source}?mode=ro", uri=True, timeout=30)
    dst = sqlite3.connect(target)
    try:
        with dst:
            src.backup(dst, pages=256)
    finally:
        dst.close()
        src.close()


def _pg_dump(settings: Settings, target: Path) -> None:
    if shutil.which("pg_dump") is None:
        raise LedgerError("pg_dump_missing", "pg_dump is not installed here: install the "
                          "PostgreSQL client tools (the same major version as the server)")
    db = PostgresTarget.of(settings)
    env = {**os.environ, "PGPASSWORD": db.password, "PGCONNECT_TIMEOUT":
           str(settings.connect_timeout)}
    command = ["pg_dump", "--host", db.host, "--port", str(db.port), "--username", db.user,
               "--dbname", db.dbname, "--schema", db.schema, "--format", "custom",
               "--file", str(target)]
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        target.unlink(missing_ok=True)
        raise LedgerError("backup_failed", f"pg_dump failed: "
                          f"{db.scrub(done.stderr.strip()) or done.returncode}")


def _heads(copy: Path) -> dict[str, Any]:
    """The notification log's head and each stream's last version, read from the copy."""
    conn = sqlite3.connect(copy)  # read-write and closed: the last connection to a WAL
    try:  # database removes its -wal and -shm files only then (a read-only one leaves them)
        tables = [r[0] for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE '%_events'")]
        if not tables:
            return {"head": 0, "streams": {}}
        events = tables[0]
        head = conn.execute(f"SELECT MAX(rowid) FROM {events}").fetchone()[0] or 0
        streams = dict(conn.execute(f"SELECT originator_id, MAX(originator_version) FROM "
                                    f"{events} GROUP BY originator_id"))
    finally:
        conn.close()
    return {"head": head, "streams": streams}


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as data:
        for block in iter(lambda: data.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
