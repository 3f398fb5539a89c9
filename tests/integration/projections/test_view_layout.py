"""Views that repair themselves, and the audit naming every sign of a writer (issue 30), on
SQLite and PostgreSQL: a view table with a dropped column (or a missing table) is named by
``projections status`` as ``projection_outdated`` with the reason, refused by ``projections
update``, ``export accounting`` and named by ``audit verify`` (never ``internal_error``), and
made again by ``projections rebuild``; a command-log row planted without events and a snapshot
moved to another version are findings of their own."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import date
from typing import Any

from ledger.app.application import LedgerApp
from ledger.settings import Settings
from ledger.sim.runner import simulate
from ledger.store.sidetables import SideTable
from ledger.table.events import table_id
from projections.audit.verify import verify
from projections.db import Store
from projections.views.layout import stored
from projections.views.runner import Runner


def cli(settings: Settings, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "LEDGER_DATABASE_URL": settings.database_url,
           "LEDGER_POSTGRES_SCHEMA": settings.postgres_schema,
           "LEDGER_DECK_KEY_FILE": str(settings.deck_key_file), "LEDGER_LOG_LEVEL": "WARNING"}
    env.pop("LEDGER_SHARDS", None)
    return subprocess.run([sys.executable, "-m", "ledger", *args], capture_output=True,
                          text=True, env=env, timeout=300, check=False)


def columns(app: LedgerApp, table: str) -> dict[str, str]:
    store = Store(app.recorder)
    with store.transaction(commit=False) as tx:
        return stored(store, tx, table) or {}


def test_a_view_with_a_dropped_column_is_named_and_rebuilt(store_settings: Settings) -> None:
    app = LedgerApp(store_settings)
    try:
        simulate(app, "caribbean-stud", "CSP-1", 3, seed=5)
        Runner(app).catch_up()
        store = Store(app.recorder)
        with store.transaction() as tx:
            tx.execute("ALTER TABLE {proj_accounting} DROP COLUMN rake_minor")
            tx.execute("DROP TABLE {proj_dp_hands}")
    finally:
        app.close()

    status = cli(store_settings, "projections", "status", "--json")
    assert status.returncode == 1, status.stderr
    rows = {r["view"]: r for r in map(json.loads, status.stdout.splitlines())}
    assert rows["accounting"]["outdated"] and "rake_minor" in rows["accounting"]["reason"]
    assert not rows["hands"]["outdated"] and "reason" not in rows["hands"]
    text = cli(store_settings, "projections", "status")
    assert "projection_outdated" in text.stdout and "proj_accounting lacks column" in \
        text.stdout.replace("\n", " "), text.stdout

    for args in (("projections", "update"),
                 ("export", "accounting", "--day", str(date.today()), "--out", "/tmp/x-out")):
        done = cli(store_settings, *args)
        assert done.returncode == 2 and "projection_outdated" in done.stderr, (args, done)
        assert "internal_error" not in done.stderr and "Traceback" not in done.stderr
    audit = cli(store_settings, "audit", "verify", "--json")
    assert audit.returncode == 1 and "Traceback" not in audit.stderr, audit.stderr
    kinds = {d["kind"] for d in json.loads(audit.stdout)["discrepancies"]}
    assert "projection_outdated" in kinds

    rebuilt = cli(store_settings, "projections", "rebuild")
    assert rebuilt.returncode == 0, rebuilt.stderr
    status = cli(store_settings, "projections", "status", "--json")
    assert status.returncode == 0, status.stdout + status.stderr
    assert cli(store_settings, "audit", "verify").returncode == 0
    app = LedgerApp(store_settings)
    try:
        assert "rake_minor" in columns(app, "proj_accounting")
        assert columns(app, "proj_dp_hands")
    finally:
        app.close()


def test_a_planted_command_row_and_a_moved_snapshot_are_findings(
        store_settings: Settings) -> None:
    settings = store_settings.model_copy(update={"snapshot_interval": 10})
    app = LedgerApp(settings)
    try:
        simulate(app, "caribbean-stud", "CSP-1", 3, seed=5)
        assert verify(app).ok
        tid = str(table_id("CSP-1"))
        commands = SideTable(app.recorder, "ledger_commands")
        commands.execute(
            f"INSERT INTO {commands.name} (table_id, command_id, command, payload_sha256, "
            f"result) VALUES ({commands.marks(5)})",
            (tid, "forged-1", "PlaceWager", "0" * 64,
             json.dumps({"command_id": "forged-1", "command": "PlaceWager", "table": "CSP-1",
                         "table_version": 3}, separators=(",", ":"))[:-1] + ',"events":[]}'))
        recorder: Any = app.snapshots.recorder  # type: ignore[union-attr]
        snapshots = SideTable(app.recorder, recorder.events_table_name)
        moved = snapshots.query(f"SELECT MIN(originator_version) FROM {snapshots.name}")[0][0]
        assert moved is not None
        snapshots.execute(f"UPDATE {snapshots.name} SET originator_version = "
                          f"originator_version + 1 WHERE originator_version = {snapshots.p}",
                          (moved,))
        report = verify(app)
        found = {d.kind: d for d in report.discrepancies}
        assert found["command_log_without_events"].expected["command_id"] == "forged-1"
        assert found["command_log_without_events"].table == "CSP-1"
        assert found["snapshot_mismatch"].expected["version"] == moved + 1
        assert not report.ok
    finally:
        app.close()


def test_the_ledgers_own_tables_are_migrated_or_named(store_settings: Settings) -> None:
    """A command log without recorded_at is migrated when next opened by its owner; views
    whose positions (proj_tracking) are gone are outdated, not caught up twice."""
    app = LedgerApp(store_settings)
    try:
        simulate(app, "caribbean-stud", "CSP-1", 1, seed=5)
        Runner(app).catch_up()
        store = Store(app.recorder)
        with store.transaction() as tx:
            tx.execute("ALTER TABLE {ledger_commands} DROP COLUMN recorded_at")
            tx.execute("DROP TABLE {proj_tracking}")
    finally:
        app.close()

    status = cli(store_settings, "projections", "status", "--json")
    assert status.returncode == 1, status.stderr
    rows = [json.loads(line) for line in status.stdout.splitlines()]
    assert all(r["outdated"] and "proj_tracking" in r["reason"] for r in rows)
    export = cli(store_settings, "export", "accounting", "--day", str(date.today()),
                 "--out", "/tmp/x-out")
    assert export.returncode == 2 and "projection_outdated" in export.stderr, export.stderr
    assert cli(store_settings, "projections", "rebuild").returncode == 0
    audit = cli(store_settings, "audit", "verify")
    assert audit.returncode == 0, audit.stdout + audit.stderr
    app = LedgerApp(store_settings)
    try:
        assert "recorded_at" in columns(app, "ledger_commands")
    finally:
        app.close()
