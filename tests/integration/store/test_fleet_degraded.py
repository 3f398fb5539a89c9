"""A fleet that never double-counts and degrades instead of stopping (issue 30), on SQLite files
and PostgreSQL databases: a store knows who it is (two map entries that are one store are
refused at start, whatever the spelling of their URLs); a shard whose store is gone leaves the
others served, its own tables answer 503 ``store_unavailable`` naming it, ``/ready`` reports
it, every answer over all tables names it and fails, and it is back without a restart."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from collections.abc import Callable, Iterator
from datetime import date
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from ledger.api import create_app
from ledger.app.fleet import Fleet
from ledger.domain.errors import LedgerError
from ledger.settings import Settings
from ledger.store import fleet as store_fleet
from ledger.store.identity import IDENTITY_TABLE, store_identity
from ledger.store.sidetables import SideTable
from projections.audit.verify import verify
from tests.conftest import ADMIN_URL, _with_db, fresh_databases
from tests.support.http import bearer, make_tokens, play_table

KINDS = ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]


def settings_of(shards: str, tmp_path: Path) -> Settings:
    return Settings(shards=shards, deck_key_file=tmp_path / "deck.key", log_level="WARNING",
                    connect_timeout=2)


@pytest.fixture(params=KINDS)
def one_store_twice(request: pytest.FixtureRequest, tmp_path: Path,
                    monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[str, str]]:
    """One store under two spellings of its URL."""
    if request.param == "sqlite":
        monkeypatch.chdir(tmp_path)
        yield "sqlite:///one.sqlite3", "sqlite:///./one.sqlite3"
        return
    with fresh_databases("ledger_twin") as (url,):
        assert "@127.0.0.1" in url
        yield url, url.replace("@127.0.0.1", "@localhost")


def test_two_map_entries_that_are_one_store_are_refused_at_start(
        one_store_twice: tuple[str, str], tmp_path: Path) -> None:
    first, second = one_store_twice
    settings = settings_of(f"east: A-* = {first}; west: B-* = {second}", tmp_path)
    with pytest.raises(LedgerError) as refused:
        Fleet.open(settings, allow_seeded=True)
    assert refused.value.code == "invalid_shards"
    assert "'east'" in refused.value.message and "'west'" in refused.value.message
    assert "one store" in refused.value.message
    assert refused.value.details["shards"] == ["east", "west"]
    done = cli("shards", shards=settings.shards, cwd=Path.cwd())  # refused at start
    assert done.returncode == 2 and done.stderr.startswith("error [invalid_shards]"), done
    assert "'east'" in done.stderr and "'west'" in done.stderr


@pytest.mark.parametrize("kind", KINDS)
def test_a_store_keeps_its_identity_and_one_made_before_it_gets_one(
        kind: str, tmp_path: Path) -> None:
    from ledger.store.base import LedgerStore

    with fresh_databases("ledger_identity") if kind == "postgres" else _nothing() as urls:
        url = urls[0] if urls else f"sqlite:///{tmp_path}/store.sqlite3"
        settings = Settings(database_url=url, deck_key_file=tmp_path / "deck.key")
        store = LedgerStore(settings)
        first = store_identity(store.recorder)
        assert first.startswith("id:")
        SideTable(store.recorder, IDENTITY_TABLE).execute(
            f"DROP TABLE {SideTable(store.recorder, IDENTITY_TABLE).name}", ())
        store.close()
        again = LedgerStore(settings)  # the migration: made before identities
        try:
            second = store_identity(again.recorder)
            assert second.startswith("id:") and second != first
            reopened = LedgerStore(settings)
            assert store_identity(reopened.recorder) == second  # written once
            reopened.close()
        finally:
            again.close()


class _nothing:
    def __enter__(self) -> list[str]:
        return []

    def __exit__(self, *exc: object) -> None:
        return None


@pytest.fixture(params=KINDS)
def one_down(request: pytest.FixtureRequest, tmp_path: Path
             ) -> Iterator[tuple[str, str, Callable[[], None]]]:
    """A healthy store, the URL of a store that is gone, and what brings it back: a SQLite
    path under a regular file (then a folder), a PostgreSQL database that does not exist
    (then created)."""
    if request.param == "sqlite":
        blocker = tmp_path / "west"
        blocker.write_text("not a folder")

        def back_sqlite() -> None:
            blocker.unlink()
            blocker.mkdir()

        yield (f"sqlite:///{tmp_path}/east.sqlite3", f"sqlite:///{blocker}/west.sqlite3",
               back_sqlite)
        return
    import psycopg

    name = f"ledger_down_{uuid.uuid4().hex[:12]}"

    def back_postgres() -> None:
        with psycopg.connect(ADMIN_URL, autocommit=True) as admin:
            admin.execute(f'CREATE DATABASE "{name}"')

    with fresh_databases("ledger_up") as (east,):
        try:
            yield east, _with_db(ADMIN_URL, name), back_postgres
        finally:
            with psycopg.connect(ADMIN_URL, autocommit=True) as admin:
                admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def cli(*args: str, shards: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "LEDGER_SHARDS": shards, "LEDGER_DECK_KEY_FILE": str(cwd / "deck.key"),
           "LEDGER_LOG_LEVEL": "WARNING", "LEDGER_CONNECT_TIMEOUT": "2"}
    return subprocess.run([sys.executable, "-m", "ledger", *args], capture_output=True,
                          text=True, env=env, timeout=300, check=False, cwd=cwd)


def test_a_shard_down_leaves_the_others_served_and_is_back_without_a_restart(
        one_down: tuple[str, str, Callable[[], None]], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    east, west, bring_back = one_down
    shards = f"east: CSP-* = {east}; west: CHP-* = {west}"
    monkeypatch.setattr(store_fleet, "RETRY_S", 0.0)
    fleet = Fleet.open(settings_of(shards, tmp_path), allow_seeded=True)
    assert list(fleet.down) == ["west"]
    api = create_app(fleet.settings, ledger=fleet)
    tokens = make_tokens(api, ["CSP-1", "CHP-1"])
    auditor, admin = bearer(tokens.auditor), bearer(tokens.admin)
    try:
        with TestClient(api, raise_server_exceptions=False) as client:
            play_table(client, tokens, "caribbean-stud", "CSP-1", 2, seed=3)  # east: served
            assert client.get("/tables/CSP-1", headers=auditor).status_code == 200
            hands = client.get("/tables/CSP-1/hands/1", headers=auditor)
            assert hands.status_code == 200, hands.text

            opened = client.post("/tables", headers=admin, json={
                "command_id": "w-1", "table": "CHP-1", "game": "chinese-poker"})
            assert opened.status_code == 503, opened.text
            error = opened.json()["error"]
            assert error["code"] == "store_unavailable" and "west" in error["message"]
            read = client.get("/tables/CHP-1", headers=auditor)
            assert read.status_code == 503 and "west" in read.json()["error"]["message"]
            every = client.get("/hands", headers=auditor)  # over every table: never partial
            assert every.status_code == 503 and "west" in every.json()["error"]["message"]

            ready = client.get("/ready")
            assert ready.status_code == 200, ready.text
            body = ready.json()
            assert body["status"] == "degraded"
            assert [(s["shard"], s["state"]) for s in body["stores"]] == [
                ("east", "ready"), ("west", "down")]

            with pytest.raises(LedgerError) as uncovered:
                verify(fleet)
            assert uncovered.value.code == "store_unavailable"
            assert uncovered.value.details["shards"] == ["west"]
            for args in (("audit", "verify"), ("export", "accounting", "--day", str(date.today()),
                                                "--out", str(tmp_path / "out"))):
                done = cli(*args, shards=shards, cwd=tmp_path)
                assert done.returncode == 2, (args, done.stdout, done.stderr)
                assert "store_unavailable" in done.stderr and "west" in done.stderr

            bring_back()
            play_table(client, tokens, "chinese-poker", "CHP-1", 1, seed=4)
            body = client.get("/ready").json()
            assert body["status"] == "ready" and body["writable"] is True
            assert [s["state"] for s in body["stores"]] == ["ready", "ready"]
            listed = client.get("/tables", headers=auditor).json()
            assert [t["table_code"] for t in listed] == ["CHP-1", "CSP-1"]
            report = verify(fleet)
            assert report.ok and sorted(report.tables) == ["CHP-1", "CSP-1"]
    finally:
        fleet.close()


@pytest.fixture(params=KINDS)
def two_stores(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[str, str]]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path}/east.sqlite3", f"sqlite:///{tmp_path}/west.sqlite3"
        return
    with fresh_databases("ledger_moved", 2) as (east, west):
        yield east, west


def test_a_table_moved_by_an_edited_map_is_reported_by_ready_and_the_audit(
        two_stores: tuple[str, str], tmp_path: Path) -> None:
    east, west = two_stores
    first = Fleet.open(settings_of(f"east: CSP-* = {east}; west: CHP-* = {west}", tmp_path),
                       allow_seeded=True)
    api = create_app(first.settings, ledger=first)
    tokens = make_tokens(api, ["CSP-1"])
    with TestClient(api, raise_server_exceptions=False) as client:
        play_table(client, tokens, "caribbean-stud", "CSP-1", 1, seed=3)
    first.close()

    edited = Fleet.open(settings_of(f"east: CHP-* = {east}; west: CSP-* = {west}", tmp_path),
                        allow_seeded=True)
    try:
        report = verify(edited)
        moved = [d for d in report.discrepancies if d.kind == "table_moved"]
        assert [(d.table, d.expected["shard"], d.recorded["shard"]) for d in moved] == [
            ("CSP-1", "west", "east")]
        assert not report.ok
        with TestClient(create_app(edited.settings, ledger=edited)) as client:
            body = client.get("/ready").json()
        assert body["status"] == "degraded"
        assert body["tables_out_of_place"] == [
            {"table": "CSP-1", "held_by": "east", "mapped_to": "west"}]
    finally:
        edited.close()
