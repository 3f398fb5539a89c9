"""A hand is found by binary search over the stored versions without loading its table
(``ledger.store.history.hand_events``: the replay's start); what it finds is what a read of the
whole stream finds, and a record whose hand numbers were altered is still read through and
named broken by the replay."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from ledger.app.application import LedgerApp
from ledger.domain.errors import NotFound
from ledger.settings import Settings
from ledger.sim.runner import simulate
from ledger.store.history import hand_events, stream
from ledger.table.events import table_id
from tests.support import tamper

CODE = "STUD-L"
HANDS = 6


@pytest.fixture
def app(store_settings: Settings) -> Iterator[LedgerApp]:
    ledger = LedgerApp(store_settings)
    simulate(ledger, "stud-hilo", CODE, HANDS, seed=11)
    yield ledger
    ledger.close()


def _scanned(app: LedgerApp, hand_no: int) -> list[Any]:
    return [e for e in stream(app, CODE) if getattr(e, "hand_no", None) == hand_no]


def test_each_hand_is_found_without_loading_the_table(app: LedgerApp,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    def refused(*_args: Any, **_kwargs: Any) -> Any:
        raise AssertionError("the table was loaded")

    monkeypatch.setattr(app, "load", refused)
    for hand_no in range(1, HANDS + 1):
        found = hand_events(app, CODE, hand_no)
        assert found == _scanned(app, hand_no) and found, hand_no
        assert type(found[0]).__name__ == "HandStarted"


def test_an_unknown_hand_is_told_with_the_hands_there_are(app: LedgerApp) -> None:
    for hand_no in (0, -1, HANDS + 1):
        with pytest.raises(NotFound) as caught:
            hand_events(app, CODE, hand_no)
        assert caught.value.code == "unknown_hand"
        assert f"hands 1 to {HANDS}" in caught.value.message


def test_an_altered_hand_number_is_read_through_and_the_replay_says_the_chain_is_broken(
        app: LedgerApp) -> None:
    from typer.testing import CliRunner

    from ledger.cli import _register
    from ledger.cli import app as cli
    from ledger.logs import configure

    tid = table_id(CODE)
    started = next(e for e in stream(app, CODE)
                   if type(e).__name__ == "HandStarted" and getattr(e, "hand_no", 0) == 3)
    version = started.originator_version
    tamper.replace_in_event(app, tid, version, '"hand_no":3,', '"hand_no":2,')
    cold = LedgerApp(app.settings)
    try:
        found = hand_events(cold, CODE, 3)  # its start now claims hand 2: the stream is read
        assert found and version not in {e.originator_version for e in found}
        assert found == _scanned(cold, 3)
    finally:
        cold.close()
    _register()
    env = {"LEDGER_DECK_KEY_FILE": str(app.settings.deck_key_file),
           "LEDGER_POSTGRES_SCHEMA": app.settings.postgres_schema}
    try:
        for args in (["replay", CODE, "3"], ["audit", "hand", CODE, "3"]):
            result = CliRunner().invoke(cli, [*args, "--database-url",
                                              app.settings.database_url], env=env)
            assert result.exit_code == 1, result.output
            assert f"v{version}" in result.output, result.output
    finally:
        configure("WARNING")


def test_a_hands_corrections_are_found_through_the_corrections_index(
        app: LedgerApp) -> None:
    """A hand's corrections are looked up through a partial index that holds the correction
    events alone (the replay reads none of the table's other rows after the hand); a store
    made without that index gets it when next opened. The index's topics are those of the
    correction events."""
    from ledger.domain.records import HandCorrected, SeatCorrected
    from ledger.store.schema import CORRECTION_TOPICS, CORRECTIONS_WHERE
    from ledger.table.events import EVENT_FOR, topic_of
    from projections.db import Store

    topics = tuple(topic_of(EVENT_FOR[c]) for c in (HandCorrected, SeatCorrected))
    assert topics == CORRECTION_TOPICS
    assert f"topic IN ({', '.join(repr(t) for t in topics)})" == CORRECTIONS_WHERE
    store = Store(app.recorder)
    index = f"{store.events_table}_corrections"

    def indexes() -> set[str]:
        if store.postgres:
            rows = store.fetchall("SELECT indexname AS name FROM pg_indexes WHERE schemaname = ?",
                                  (app.settings.postgres_schema,))
        else:
            rows = store.fetchall("SELECT name FROM sqlite_master WHERE type = 'index'")
        return {str(r["name"]) for r in rows}

    assert index in indexes()
    if not store.postgres:
        plan = store.fetchall(
            "EXPLAIN QUERY PLAN SELECT originator_version FROM {" + store.events_table + "} "
            f"WHERE originator_id = ? AND originator_version > ? AND {CORRECTIONS_WHERE} "
            "ORDER BY originator_version", (table_id(CODE).hex, 0))
        assert any(index in str(row["detail"]) for row in plan), plan
    with store.transaction() as tx:
        tx.execute(f"DROP INDEX {f'{store.schema}.{index}' if store.postgres else index}")
    assert index not in indexes()
    again = LedgerApp(app.settings)
    again.close()
    assert index in indexes()


def test_a_store_made_before_the_corrections_index_opens_while_another_process_writes(
        sqlite_settings: Settings) -> None:
    """The first open of a SQLite store made without the corrections index makes it while the
    service may be writing: it waits for the writer (the store's lock timeout), as any write
    does, instead of failing at once with "database is locked" (a transaction that has read
    may not wait to become a writer)."""
    import sqlite3
    import threading

    from ledger.store.urls import sqlite_path

    ledger = LedgerApp(sqlite_settings)
    simulate(ledger, "stud-hilo", CODE, 1, seed=11)
    from projections.db import Store

    index = f"{Store(ledger.recorder).events_table}_corrections"
    ledger.close()
    path = sqlite_path(sqlite_settings.database_url)
    writer = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    writer.execute(f"DROP INDEX {index}")
    writer.execute("BEGIN IMMEDIATE")  # another process's command, mid-write
    release = threading.Timer(0.5, writer.execute, ("COMMIT",))
    release.start()
    try:
        again = LedgerApp(sqlite_settings)
        again.close()
    finally:
        release.join()
        writer.close()
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = ?",
                            (index,)).fetchone() is not None


def test_a_stale_corrections_index_is_reported_by_the_audit(sqlite_settings: Settings) -> None:
    """The corrections index is all a hand's replay reads of the table after the hand: an
    index rebuilt over nothing and given back the ledger's definition (no row edited, the
    chain and the command log intact) would hide a hand's correction from its replay. The
    audit, which reads every row, holds the index to the corrections it read."""
    import sqlite3

    from ledger.domain.cards import parse_card
    from ledger.domain.commands import CorrectHand
    from ledger.domain.records import CardFix
    from ledger.store.urls import sqlite_path
    from projections.audit import verify
    from projections.db import Store
    from projections.read.correction_queries import correction_events
    from tests.support.driver import stud_hand

    ledger = LedgerApp(sqlite_settings)
    driver = stud_hand(ledger)
    driver.do(CorrectHand, hand=1, fixes=(CardFix(target=3, recorded=parse_card("7h"),
                                                   actual=parse_card("6h")),),
              approvers=("sup-anna",), reason="dealer keyed 7h for 6h")
    assert len(correction_events(ledger, "STUD-C", 1)) == 1
    assert verify(ledger).ok
    corrected = driver.version
    index = f"{Store(ledger.recorder).events_table}_corrections"
    ledger.close()
    conn = sqlite3.connect(sqlite_path(sqlite_settings.database_url), isolation_level=None)
    (made,) = conn.execute("SELECT sql FROM sqlite_master WHERE name = ?", (index,)).fetchone()
    conn.execute(f"DROP INDEX {index}")
    conn.execute(made.replace("WHERE topic IN", "WHERE originator_version < 0 AND topic IN"))
    conn.execute("PRAGMA writable_schema = ON")
    conn.execute("UPDATE sqlite_master SET sql = ? WHERE name = ?", (made, index))
    conn.execute("PRAGMA writable_schema = OFF")
    conn.close()
    again = LedgerApp(sqlite_settings)
    try:
        assert correction_events(again, "STUD-C", 1) == []  # what the index hides
        report = verify(again)
        found = [d for d in report.discrepancies if d.kind == "corrections_index"]
        assert len(found) == 1, report.discrepancies
        assert found[0].table == "STUD-C"
        assert found[0].expected == {"versions": [corrected]}
        assert found[0].recorded == {"versions": []}
        assert not report.ok
    finally:
        again.close()


def _hand_span(app: LedgerApp, hand_no: int) -> tuple[int, int]:
    versions = [e.originator_version for e in _scanned(app, hand_no)]
    return versions[0], versions[-1]


def _where(app: LedgerApp, where: str) -> tuple[int, int]:
    """(hand, version of the row made undecodable): the row after hand 3's end, one inside
    it, or the first row the binary search's first probe reads (in a hand it does not seek)."""
    first, last = _hand_span(app, 3)
    if where == "after":
        return 3, last + 1
    if where == "inside":
        return 3, first + 2
    head = app.recorder.select_events(table_id(CODE), desc=True, limit=1)[0].originator_version
    mid = (1 + head) // 2
    probed = next(e for e in stream(app, CODE, after=mid - 1) if hasattr(e, "hand_no"))
    hand = 1 if probed.hand_no > 1 else HANDS
    return hand, probed.originator_version


def _cli(app: LedgerApp, *args: str) -> Any:
    from typer.testing import CliRunner

    from ledger.cli import _register
    from ledger.cli import app as cli
    from ledger.logs import configure

    _register()
    env = {"LEDGER_DECK_KEY_FILE": str(app.settings.deck_key_file),
           "LEDGER_POSTGRES_SCHEMA": app.settings.postgres_schema}
    try:
        return CliRunner().invoke(cli, [*args, "--database-url", app.settings.database_url],
                                  env=env)
    finally:
        configure("WARNING")


@pytest.mark.parametrize("where", ["after", "inside", "probe"])
@pytest.mark.parametrize("how", sorted(tamper.UNDECODABLE))
def test_an_undecodable_row_near_a_hand_is_named_not_taken_for_an_unknown_hand(
        app: LedgerApp, how: str, where: str) -> None:
    """A row that cannot be decoded (an unknown topic, not JSON, a field that fails validation,
    a class version there is none of), the chain recomputed after it and the command log
    rewritten as an insider would: where the hand's lookup, its replay or its audit reads it,
    it is named (the table, the version, what is wrong), never taken for an unknown hand."""
    from ledger.domain.errors import UndecodableEvent
    from projections.audit import verify
    from projections.audit.handreplay import hand_replay

    hand, version = _where(app, where)
    tamper.make_undecodable(app, table_id(CODE), version, how)
    cold = LedgerApp(app.settings)
    try:
        found = [d for d in verify(cold).discrepancies if d.kind == "undecodable_event"]
        assert found and found[0].recorded["version"] == version, found
        with pytest.raises(UndecodableEvent) as caught:
            hand_events(cold, CODE, hand)
        assert caught.value.code == "undecodable_event"
        assert caught.value.details["table"] == CODE
        assert caught.value.details["version"] == version
        assert f"v{version}" in caught.value.message and CODE in caught.value.message
        replay = hand_replay(cold, CODE, hand)
        assert not replay.ok
        named = [d.recorded for d in replay.discrepancies if d.kind == "undecodable_event"] + [
            b["recorded"] for b in replay.chain_breaks if b["kind"] == "undecodable_event"]
        assert named and named[0]["version"] == version, (replay.discrepancies,
                                                          replay.chain_breaks)
    finally:
        cold.close()
    replayed = _cli(app, "replay", CODE, str(hand))
    assert replayed.exit_code == 1, replayed.output
    assert "undecodable_event" in replayed.output and f"v{version}" in replayed.output
    assert CODE in replayed.output
    assert "unknown_hand" not in replayed.output and "internal_error" not in replayed.output
    audited = _cli(app, "audit", "hand", CODE, str(hand))
    assert audited.exit_code == 1, audited.output
    assert (f"undecodable_event at v{version}" in audited.output
            or ("DISCREPANCY undecodable_event" in audited.output
                and f'"version": {version}' in audited.output)), audited.output
    assert "unknown_hand" not in audited.output and "internal_error" not in audited.output


@pytest.mark.parametrize("how", ["class_version", "field", "json"])
def test_an_undecodable_correction_of_a_hand_is_named(store_settings: Settings,
                                                      how: str) -> None:
    """A correction of the hand (read after it, through the corrections index) that cannot be
    decoded is named by the replay and by the hand's audit, as a row of the hand is."""
    from ledger.domain.cards import parse_card
    from ledger.domain.commands import CorrectHand
    from ledger.domain.errors import UndecodableEvent
    from ledger.domain.records import CardFix
    from projections.audit.handreplay import hand_replay
    from projections.read.correction_queries import correction_events
    from tests.support.driver import stud_hand

    ledger = LedgerApp(store_settings)
    try:
        driver = stud_hand(ledger)
        driver.do(CorrectHand, hand=1, fixes=(CardFix(target=3, recorded=parse_card("7h"),
                                                       actual=parse_card("6h")),),
                  approvers=("sup-anna",), reason="dealer keyed 7h for 6h")
        version = driver.version
        tamper.make_undecodable(ledger, table_id("STUD-C"), version, how)
    finally:
        ledger.close()
    cold = LedgerApp(store_settings)
    try:
        with pytest.raises(UndecodableEvent) as caught:
            correction_events(cold, "STUD-C", 1)
        assert caught.value.details["version"] == version
        replay = hand_replay(cold, "STUD-C", 1)
        named = [d.recorded for d in replay.discrepancies if d.kind == "undecodable_event"] + [
            b["recorded"] for b in replay.chain_breaks if b["kind"] == "undecodable_event"]
        assert not replay.ok and named and named[0]["version"] == version
    finally:
        cold.close()
    app = LedgerApp(store_settings)
    try:
        for args in (["replay", "STUD-C", "1"], ["audit", "hand", "STUD-C", "1"]):
            result = _cli(app, *args)
            assert result.exit_code == 1, result.output
            assert "undecodable_event" in result.output, result.output
            assert "unknown_hand" not in result.output
            assert "internal_error" not in result.output
    finally:
        app.close()
