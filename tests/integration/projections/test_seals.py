"""Ed25519 seals in a chain, checked with the public key only; the read models reconciled with
the events; the incremental audit from the previous day's seal (counted in rows read)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from ledger.app.application import LedgerApp
from ledger.settings import Settings
from ledger.sim.runner import simulate
from ledger.table.events import table_id
from projections.audit import AuditReport, parallel, verify
from projections.audit.seal import make_seal, seal_digest
from projections.db import Store
from projections.views.runner import Runner
from tests.support import tamper

KEY = Ed25519PrivateKey.generate()
PUBLIC = KEY.public_key()
DAYS = ("2026-03-10", "2026-03-11", "2026-03-12")


class Clock:
    moment = datetime(2026, 3, 10, 20, 0, tzinfo=UTC)

    @classmethod
    def now(cls, tz: object = None) -> datetime:
        return cls.moment


@pytest.fixture
def app(store_settings: Settings, monkeypatch: pytest.MonkeyPatch) -> Iterator[LedgerApp]:
    monkeypatch.setattr("ledger.app.application.datetime", Clock)
    ledger = LedgerApp(store_settings)
    yield ledger
    ledger.close()


@pytest.fixture
def seals(app: LedgerApp) -> list[dict[str, Any]]:
    """Three gaming days of play at two tables, each day sealed and linked to the one before."""
    made: list[dict[str, Any]] = []
    for n, day in enumerate(DAYS):
        Clock.moment = datetime.fromisoformat(f"{day}T20:00:00+00:00")
        simulate(app, "caribbean-stud", "CSP-S", 3, seed=3 + n)
        simulate(app, "high-card-flush", "HCF-S", 2, seed=7 + n)
        made.append(make_seal(app, day, KEY, previous=made[-1] if made else None,
                              now=datetime.fromisoformat(f"{day}T23:59:00+00:00")))
    return made


def kinds(report: AuditReport) -> list[tuple[str, str]]:
    return [(d.table, d.kind) for d in report.discrepancies]


def test_a_chain_of_seals_holds_and_needs_only_the_public_key(
        app: LedgerApp, seals: list[dict[str, Any]]) -> None:
    assert [s["previous"] for s in seals[1:]] == [
        {"gaming_day": s["gaming_day"], "digest": seal_digest(s)} for s in seals[:-1]]
    head = seals[-1]["tables"][0]
    assert head["events"] == head["version"] and head["balances"]["cage"] < 0
    assert set(seals[0]["projections"]) == {"accounting", "hands", "bankrolls"}
    report = verify(app, seals=seals, public_key=PUBLIC)
    assert report.ok, report.as_dict()
    wrong = verify(app, seals=seals, public_key=Ed25519PrivateKey.generate().public_key())
    assert {k for _, k in kinds(wrong)} == {"seal_signature"} and wrong.chain_ok
    assert len(wrong.discrepancies) == len(seals)


def test_a_forged_seal_fails(app: LedgerApp, seals: list[dict[str, Any]]) -> None:
    forged = {**seals[-1], "tables": [{**h, "balances": {**h["balances"], "house": 0}}
                                      for h in seals[-1]["tables"]]}
    report = verify(app, seal=forged, public_key=PUBLIC)
    assert ("*", "seal_signature") in kinds(report) and not report.seal_ok
    by_other = make_seal(app, DAYS[-1], Ed25519PrivateKey.generate())
    other = verify(app, seal={**by_other, "key_id": seals[-1]["key_id"]}, public_key=PUBLIC)
    assert kinds(other) == [("*", "seal_signature")]


def test_a_missing_day_is_named(app: LedgerApp, seals: list[dict[str, Any]]) -> None:
    report = verify(app, seals=[seals[0], seals[2]], public_key=PUBLIC)
    missing = [d for d in report.discrepancies if d.kind == "seal_day_missing"]
    assert [d.expected["gaming_day"] for d in missing] == [DAYS[1]]
    skipped = make_seal(app, DAYS[2], KEY, previous=seals[0])  # the chain itself skips a day
    report = verify(app, seals=[seals[0], skipped], public_key=PUBLIC)
    assert [d.expected["gaming_day"] for d in report.discrepancies
            if d.kind == "seal_day_missing"] == [DAYS[1]]


def test_a_consistent_insider_rewrite_is_named_by_the_seal(
        app: LedgerApp, seals: list[dict[str, Any]]) -> None:
    tid = table_id("CSP-S")
    version, old, new = _a_payout(app, tid)
    tamper.replace_in_event(app, tid, version, old, new)
    tamper.rechain(app, tid, version)
    tamper.rewrite_command_log(app, tid)
    assert verify(app).chain_ok  # chain and command log recomputed: they hold
    report = verify(app, seals=seals, public_key=PUBLIC)
    found = kinds(report)
    assert ("CSP-S", "seal_mismatch") in found and ("CSP-S", "seal_balances") in found
    balances = next(d for d in report.discrepancies if d.kind == "seal_balances")
    assert balances.expected["balances"] != balances.recorded["balances"]


def test_a_deleted_last_hand_with_its_command_rows_is_named(
        app: LedgerApp, seals: list[dict[str, Any]]) -> None:
    tid = table_id("HCF-S")
    last = app.load("HCF-S").version
    start = _last_hand_start(app, tid)
    tamper.delete_command(app, tid, start)
    for version in range(start, last + 1):
        tamper.delete_event(app, tid, version)
    # the chains hold: only a signed snapshot taken past the cut (if any) and the seal show it
    assert {d.kind for d in verify(app).discrepancies} <= {"snapshot_mismatch"}
    report = verify(app, seals=seals, public_key=PUBLIC)
    assert ("HCF-S", "seal_truncated") in kinds(report)


def test_a_deleted_table_is_named(app: LedgerApp, seals: list[dict[str, Any]]) -> None:
    tid = table_id("CSP-S")
    for version in range(app.load("CSP-S").version, 0, -1):
        tamper.delete_event(app, tid, version)
    tamper.delete_command(app, tid, 1)
    report = verify(app, seals=seals, public_key=PUBLIC)
    assert ("CSP-S", "seal_missing_table") in kinds(report)
    assert "CSP-S" not in report.tables


def test_a_table_added_to_the_sealed_past_is_named(
        app: LedgerApp, seals: list[dict[str, Any]]) -> None:
    Clock.moment = datetime.fromisoformat(f"{DAYS[1]}T21:00:00+00:00")  # backdated
    simulate(app, "caribbean-stud", "CSP-NEW", 1, seed=5)
    report = verify(app, seals=seals, public_key=PUBLIC)
    assert [d.expected["gaming_day"] for d in report.discrepancies
            if d.kind == "seal_unknown_table" and d.table == "CSP-NEW"] == list(DAYS[1:])
    assert not report.chain_ok


def test_an_edited_read_model_row_is_a_projection_mismatch(
        app: LedgerApp, seals: list[dict[str, Any]], monkeypatch: pytest.MonkeyPatch) -> None:
    runner = Runner(app)
    runner.catch_up()
    assert verify(app).ok
    store = Store(app.recorder)
    with store.transaction() as tx:
        tx.execute("UPDATE {proj_accounting} SET drop_minor = drop_minor + 12345600 "
                   "WHERE table_code = ? AND gaming_day = ?", ("CSP-S", DAYS[1]))
    report = verify(app)
    [found] = [d for d in report.discrepancies if d.kind == "projection_mismatch"]
    assert found.expected["view"] == "accounting" and found.expected["day"] == DAYS[1]
    assert found.expected["field"] == "drop_minor" and found.table == "CSP-S"
    assert found.recorded["value"] - found.expected["value"] == 12345600
    status = {s.view: s for s in Runner(app).status()}
    assert status["accounting"].outdated and not status["hands"].outdated
    # until rebuilt; the row's column is named too (projections.audit.viewrows)
    assert [d.kind for d in verify(app).discrepancies] == ["projection_mismatch",
                                                          "view_row_mismatch"]
    monkeypatch.setattr(parallel, "MIN_EVENTS", 0)  # the same with the tables in workers
    assert verify(app, jobs=2).discrepancies == report.discrepancies
    Runner(app).rebuild()
    assert verify(app).ok


def test_the_incremental_audit_reads_only_the_events_after_the_sealed_heads(
        app: LedgerApp, seals: list[dict[str, Any]]) -> None:
    Runner(app).catch_up()
    full = verify(app, day=DAYS[2])
    since = verify(app, day=DAYS[2], seal=seals[1], public_key=PUBLIC)
    assert since.ok, since.as_dict()
    assert since.incremental_from == DAYS[1] and full.incremental_from is None
    after = {h["table"]: h["version"] for h in seals[1]["tables"]}
    day_events = sum(app.load(code).version - v for code, v in after.items())
    assert since.events_read == day_events + len(after)  # and each sealed head, once
    assert full.events_read == sum(app.load(code).version for code in after) + len(after)
    assert since.hands_checked == full.hands_checked == 5
    tid = table_id("CSP-S")
    version, old, new = _a_payout(app, tid, after["CSP-S"])  # an edit on the day is found
    tamper.replace_in_event(app, tid, version, old, new)
    edited = verify(app, day=DAYS[2], seal=seals[1], public_key=PUBLIC)
    assert ("CSP-S", "transfer") in kinds(edited), kinds(edited)


def _a_payout(app: LedgerApp, tid: Any, after: int = 0) -> tuple[int, str, str]:
    """The last settlement of a table (after version ``after``) and one of its transfers:
    (version, old, new). A transfer whose amount is written once in the row is preferred (the
    edit then touches that transfer alone); when the deals left none, every transfer of that
    amount in the last settlement is edited, which the audit names the same way."""
    import json

    fallback = None
    for row in reversed(list(app.recorder.select_events(tid, gt=after))):
        data = json.loads(row.state)
        for t in data.get("transfers", []) if "outcomes" in data else []:
            old = f'"amount":{t["amount"]}'
            edit = (row.originator_version, old, f'"amount":{t["amount"] + 100}')
            if bytes(row.state).decode().count(old) == 1:
                return edit
            fallback = fallback or edit
    if fallback is None:
        raise AssertionError("no payout to edit")
    return fallback


def _last_hand_start(app: LedgerApp, tid: Any) -> int:
    import json

    rows = list(app.recorder.select_events(tid))
    return max(r.originator_version for r in rows
               if "deck_commitment" in json.loads(r.state))


def test_the_seal_names_a_cut_or_rewritten_access_log(
        app: LedgerApp, seals: list[dict[str, Any]]) -> None:
    """The last rows of the access log deleted leave a shorter chain that holds; the seal of
    the day holds the log's head, so the cut is named (``seal_access_log``)."""
    from ledger.access.accesslog import record_access, verify_access_log
    from ledger.store.sidetables import ACCESS_TABLE, SideTable

    for hand in (1, 2, 3):
        record_access(app, who="cli:eve", what="hand_replay", table="CSP-S", hand=hand)
    sealed = make_seal(app, DAYS[-1], KEY, previous=seals[-2],
                       now=datetime.fromisoformat(f"{DAYS[-1]}T23:59:00+00:00"))
    assert sealed["access_log"]["rows"] == 3
    record_access(app, who="cli:eve", what="hand_replay", table="CSP-S", hand=4)
    assert verify(app, seals=[*seals[:-1], sealed], public_key=PUBLIC).ok  # later rows: fine
    db = SideTable(app.recorder, ACCESS_TABLE)
    db.execute(f"DELETE FROM {db.name} WHERE seq >= 3", ())
    assert verify_access_log(app) == []  # what is left still chains
    report = verify(app, seals=[*seals[:-1], sealed], public_key=PUBLIC)
    assert kinds(report) == [("access-log", "seal_access_log")]
    found = report.discrepancies[0]
    assert found.expected["rows"] == 3 and found.recorded is None
