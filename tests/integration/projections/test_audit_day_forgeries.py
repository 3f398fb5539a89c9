"""Forged events outside the audited day that ``audit verify --day`` must still report (and a
forged event before the day must not quietly stop the day's own audit). Each event is forged
as an insider would: the chain recomputed and the command log rewritten, so only decoding the
event (or folding the record into the table's state) can see it."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from ledger.app.application import LedgerApp
from ledger.sim.runner import simulate
from ledger.table.events import table_id
from projections.audit import verify
from projections.views.context import gaming_day
from tests.support import tamper

CSP, HCF = "CSP-F", "HCF-F"
ELSEWHERE = "2000-01-01"


@pytest.fixture
def two_tables(app: LedgerApp) -> LedgerApp:
    simulate(app, "caribbean-stud", CSP, 5, seed=5)
    simulate(app, "high-card-flush", HCF, 4, seed=6)
    return app


def _forge(app: LedgerApp, code: str, topic: str, old: str, new: str,
           before: datetime | None = None) -> int:
    tid = table_id(code)
    for row in app.recorder.select_events(tid):
        text = bytes(row.state).decode()
        at = datetime.fromisoformat(json.loads(text)["timestamp"])
        if row.topic.endswith(topic) and old in text and (before is None or at < before):
            tamper.replace_in_event(app, tid, row.originator_version, old, new)
            tamper.rechain(app, tid, row.originator_version)
            tamper.rewrite_command_log(app, tid)
            return int(row.originator_version)
    raise AssertionError(f"no {topic} with {old}")


UNDECODABLE = {  # a value the event's class refuses, in a plain event (fastpath.RAW_KINDS)
    "card not a card": (CSP, ":CardsDealt", '"down":["', '"down":["Z'),
    "card source unknown": (CSP, ":HandStarted", '"card_source":"', '"card_source":"x'),
    "outcome result unknown": (CSP, ":HandSettled", '"result":"', '"result":"x'),
}
UNFOLDABLE = {  # decodes, but the table's state cannot fold it
    "deal to an empty seat": (CSP, ":CardsDealt", '{"target":1,', '{"target":7,'),
    "wager of an unknown kind": (CSP, ":WagerPlaced", '"kind":"ante"', '"kind":"zzz"'),
}


@pytest.mark.parametrize("name", sorted(UNDECODABLE))
def test_an_undecodable_event_outside_the_day_is_reported(two_tables: LedgerApp,
                                                          name: str) -> None:
    app = two_tables
    _forge(app, *UNDECODABLE[name])
    assert "undecodable_event" in {d.kind for d in verify(app).discrepancies}
    day = verify(app, day=ELSEWHERE)
    assert "undecodable_event" in {d.kind for d in day.discrepancies}, day.as_dict()


@pytest.mark.parametrize("name", sorted(UNFOLDABLE))
def test_an_event_the_state_cannot_fold_outside_the_day_is_reported(
        two_tables: LedgerApp, name: str) -> None:
    app = two_tables
    _forge(app, *UNFOLDABLE[name])
    assert "replay_failed" in {d.kind for d in verify(app).discrepancies}
    day = verify(app, day=ELSEWHERE)
    assert "replay_failed" in {d.kind for d in day.discrepancies}, day.as_dict()


class _TwoDaysAgo(datetime):
    @classmethod
    def now(cls, tz: Any = None) -> Any:
        return datetime.now(tz) - timedelta(days=2)


def test_an_undecodable_event_before_the_day_does_not_silently_stop_the_days_audit(
        app: LedgerApp, monkeypatch: pytest.MonkeyPatch) -> None:
    """A table with hands two days ago and today, audited for today: a forged event of two
    days ago makes the replay stop before today's hands; that must be reported."""
    monkeypatch.setattr("ledger.app.application.datetime", _TwoDaysAgo)
    simulate(app, "caribbean-stud", CSP, 3, seed=5)
    monkeypatch.undo()
    simulate(app, "caribbean-stud", CSP, 3, seed=5)
    rows = list(app.recorder.select_events(table_id(CSP)))
    last, opened = rows[-1], json.loads(rows[0].state)
    today = gaming_day(datetime.fromisoformat(json.loads(last.state)["timestamp"]),
                       opened["timezone"], app.settings.gaming_day_start)
    clean = verify(app, day=today)
    assert clean.ok and clean.hands_checked == 3
    _forge(app, CSP, ":CardsDealt", '"down":["', '"down":["Z',
           before=datetime.now(UTC) - timedelta(days=1))
    day = verify(app, day=today)
    assert not day.ok, (day.hands_checked, day.as_dict())
