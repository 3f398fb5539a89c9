"""Audits while tables play: each reads one consistent snapshot, so none reports a discrepancy
that is only a race (a command's events seen without its command-log row, a view caught
between two batches), on SQLite and PostgreSQL; an export's reads all see one snapshot too."""

from __future__ import annotations

import threading
import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from ledger.app.application import LedgerApp
from ledger.settings import Settings
from ledger.sim.runner import simulate
from projections.audit import verify
from projections.audit.reader import ReadOnlySnapshot, snapshot_transaction
from projections.db import Store
from projections.read.queries import ReadModel
from projections.views.runner import Runner

TABLES = {"caribbean-stud": "CSP-L", "high-card-flush": "HCF-L", "stud-hilo": "STUD8-L",
          "chinese-poker": "CHP-L"}
AUDITS = 20


@pytest.fixture
def app(store_settings: Settings) -> Iterator[LedgerApp]:
    ledger = LedgerApp(store_settings)
    yield ledger
    ledger.close()


@pytest.mark.slow
def test_twenty_audits_while_four_tables_play_find_nothing(
        app: LedgerApp, store_settings: Settings) -> None:
    for n, (game, code) in enumerate(TABLES.items()):
        simulate(app, game, code, 1, seed=n)
    Runner(app).catch_up()
    stop = threading.Event()
    errors: list[str] = []

    writers = {code: LedgerApp(store_settings) for code in TABLES.values()}  # one at a time:
    # their DDL at start would race
    runner = Runner(LedgerApp(store_settings), batch_size=50)
    runner.setup()  # its DDL too (on SQLite, a deferred transaction that reads then writes
    # while others write is refused at once: "database is locked")

    def play(game: str, code: str, seed: int) -> None:
        writer = writers[code]
        try:
            while not stop.is_set():
                simulate(writer, game, code, 1, seed=seed)
                seed += 1
        except BaseException as exc:
            errors.append(''.join(traceback.format_exception(exc)))
        finally:
            writer.close()

    def project() -> None:
        try:
            while not stop.is_set():
                runner.catch_up(max_batches=1)
        except BaseException as exc:
            errors.append(''.join(traceback.format_exception(exc)))
        finally:
            runner.app.close()

    threads = [threading.Thread(target=play, args=(game, code, 100 * n))
               for n, (game, code) in enumerate(TABLES.items())]
    threads.append(threading.Thread(target=project))
    for thread in threads:
        thread.start()
    reports = []
    try:
        for _ in range(AUDITS):
            reports.append(verify(app))
    finally:
        stop.set()
        for thread in threads:
            thread.join(timeout=120)
    assert not errors, errors
    assert [r.discrepancies for r in reports] == [[] for _ in reports]
    assert reports[-1].events_read > reports[0].events_read  # the tables did play meanwhile
    assert sorted(reports[-1].tables) == sorted(TABLES.values())


def test_an_export_reads_one_snapshot_while_tables_play(app: LedgerApp) -> None:
    simulate(app, "caribbean-stud", "CSP-X", 1, seed=1)
    runner = Runner(app)
    runner.catch_up()
    read = ReadModel(app)
    with read.snapshot() as pinned:
        before = pinned.accounting()
        simulate(app, "caribbean-stud", "CSP-X", 2, seed=2)  # committed meanwhile
        runner.catch_up()
        assert pinned.accounting() == before  # the export still reads its snapshot
        assert pinned.count_hands() == 1
    assert read.count_hands() == 3 and read.accounting() != before


def test_a_failure_caught_inside_a_snapshot_leaves_it_readable(app: LedgerApp) -> None:
    """Code reading through a snapshot may catch a failed statement and go on (a cache that
    is not there yet). On PostgreSQL the failure aborted the whole snapshot transaction, and
    every later read of the export failed; now it is rolled back alone."""
    simulate(app, "caribbean-stud", "CSP-X", 1, seed=1)
    Runner(app).catch_up()
    read = ReadModel(app)
    expected = read.accounting()
    with read.snapshot() as pinned:
        with pytest.raises(Exception), pinned.store.transaction(commit=False) as tx:  # noqa: B017
            tx.fetchall("SELECT * FROM {no_such_table}")
        assert pinned.accounting() == expected
        with pytest.raises(ReadOnlySnapshot), pinned.store.transaction() as tx:
            tx.execute("DELETE FROM {proj_accounting}")  # a snapshot writes nothing
        assert pinned.accounting() == expected
        with pinned.snapshot() as inner:  # a snapshot within a snapshot is the same one
            assert inner.accounting() == expected
        assert pinned.count_hands() == 1
    assert read.accounting() == expected


@pytest.mark.postgres
def test_a_snapshot_starts_a_fresh_repeatable_read_whatever_its_connection_held(
        postgres_schema: tuple[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The snapshot's isolation is part of the statement that opens its transaction, on a
    connection known to be idle: a connection handed over inside a transaction (a statement
    already run) is rolled back first, and the pool's connections keep their defaults."""
    url, schema = postgres_schema
    ledger = LedgerApp(Settings(database_url=url, postgres_schema=schema,
                                deck_key_file=tmp_path / "deck.key"))
    try:
        store = Store(ledger.recorder)
        own = store.datastore.get_connection

        @contextmanager
        def left_in_a_transaction() -> Iterator[Any]:
            with own() as conn:
                conn.execute("BEGIN")
                conn.execute("SELECT 1")
                yield conn

        with monkeypatch.context() as patch:
            patch.setattr(store.datastore, "get_connection", left_in_a_transaction)
            with snapshot_transaction(store) as tx:
                assert tx.scalar("SHOW transaction_isolation") == "repeatable read"
                assert tx.scalar("SHOW transaction_read_only") == "on"
        with snapshot_transaction(store) as tx:
            assert tx.scalar("SHOW transaction_isolation") == "repeatable read"
        for _ in range(3):  # whichever pooled connection comes next
            assert store.fetchone("SHOW transaction_isolation") == {
                "transaction_isolation": "read committed"}
            assert store.fetchone("SHOW transaction_read_only") == {
                "transaction_read_only": "off"}
    finally:
        ledger.close()
