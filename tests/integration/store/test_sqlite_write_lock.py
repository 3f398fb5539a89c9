"""SQLite in write-ahead-log mode: a transaction that reads before it writes cannot become a
writer once another connection has committed since its read began ("database is locked" at
once, whatever the busy timeout). The read side's write transactions take the write lock first,
so such a commit waits for them instead: a `projections update --follow` beside a table in play
(an e2e test of it failed this way when a command committed between the follower's reads and
its writes)."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

from ledger.app.application import LedgerApp
from ledger.domain.commands import OpenTable
from ledger.settings import Settings
from projections.db import Store


def test_a_write_transaction_that_reads_first_outlasts_a_writer_beside_it(
        sqlite_settings: Settings) -> None:
    app = LedgerApp(sqlite_settings)
    try:
        app.execute(OpenTable(command_id="open", table="LOCK-1", game="caribbean-stud"))
        path = Path(sqlite_settings.database_url.removeprefix("sqlite:///"))
        failures: list[BaseException] = []

        def other_writer() -> None:
            try:
                conn = sqlite3.connect(path, timeout=10, isolation_level=None)
                conn.execute("BEGIN")
                conn.execute("CREATE TABLE IF NOT EXISTS beside (x INTEGER)")
                conn.execute("INSERT INTO beside VALUES (1)")
                conn.execute("COMMIT")
                conn.close()
            except BaseException as exc:  # reported below
                failures.append(exc)

        store = Store(app.recorder)
        writer = threading.Thread(target=other_writer)
        with store.transaction() as tx:
            assert tx.scalar("SELECT COUNT(*) AS n FROM sqlite_master") > 0  # a read first
            writer.start()
            writer.join(timeout=0.5)  # it commits now, or waits for this transaction
            tx.execute("CREATE TABLE IF NOT EXISTS mine (x INTEGER)")
            tx.execute("INSERT INTO mine VALUES (2)")
        writer.join(timeout=20)
        assert not writer.is_alive() and not failures, failures
        with sqlite3.connect(path) as check:
            assert check.execute("SELECT x FROM mine").fetchall() == [(2,)]
            assert check.execute("SELECT x FROM beside").fetchall() == [(1,)]
    finally:
        app.close()
