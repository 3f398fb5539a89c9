"""A day-limited audit checks the whole store: each tampering outside the audited day is still
reported, as the full audit reports it, and the day's own hands are still decided again from
the state the record gives them."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from ledger.app.application import LedgerApp
from ledger.table.events import table_id
from projections.audit import AuditReport, verify
from projections.audit.model import CHAIN_KINDS, CONSERVATION_KINDS
from projections.db import Store
from projections.views.runner import Runner
from tests.integration.projections.test_audit_fast_paths import CSP, HCF, TAMPERS
from tests.integration.projections.test_audit_fast_paths import two_tables as two_tables
from tests.support import tamper

ELSEWHERE = "2000-01-01"
"""A gaming day without hands: only the whole-store checks run."""
WHOLE = CHAIN_KINDS | CONSERVATION_KINDS | {"projection_mismatch", "unholdable_value",
                                            "out_of_bounds"}


def _whole(report: AuditReport) -> list[tuple[str, str, Any]]:
    return sorted((d.table, d.kind, json.dumps(d.expected, sort_keys=True, default=str))
                  for d in report.discrepancies if d.kind in WHOLE)


def _swapped(app: LedgerApp) -> str:
    tamper.swap_events(app, table_id(CSP), 6, 7)
    return "events_reordered"


def _inserted(app: LedgerApp) -> str:
    tamper.insert_at(app, table_id(HCF), 5, 8)
    return "event_inserted"


def _log_copy_edited(app: LedgerApp) -> str:
    """The command log's copy of one event changed (the stored events untouched)."""
    schema, rows = tamper._command_rows(app, table_id(CSP))
    command_id, result = next((c, r) for c, r in rows if '"amount":' in r)
    edited = result.replace('"amount":', '"amount":1', 1)
    tamper._execute(app, f"UPDATE {schema}ledger_commands SET result = %s "
                    "WHERE table_id = %s AND command_id = %s",
                    (edited, str(table_id(CSP)), command_id))
    return "command_log_mismatch"


def _log_row_gone(app: LedgerApp) -> str:
    tamper.delete_command(app, table_id(HCF), app.load(HCF).version)
    return "command_log_unknown"


def _negative(app: LedgerApp) -> str:
    """A wager raised past the stack, stated and moved alike; chain and log recomputed:
    only conservation sees it."""
    for row in app.recorder.select_events(table_id(CSP)):
        if row.topic.endswith(":WagerPlaced"):
            data = json.loads(row.state)
            amount = data["amount"]
            text = bytes(row.state).decode()
            new = text.replace(f'"amount":{amount}', f'"amount":{amount + 10**9}')
            tamper.replace_in_event(app, table_id(CSP), row.originator_version, text, new)
            tamper.rechain(app, table_id(CSP), row.originator_version)
            tamper.rewrite_command_log(app, table_id(CSP))
            return "negative_balance"
    raise AssertionError("no wager")


DAY_TAMPERS: dict[str, Callable[[LedgerApp], str]] = {
    **{k: v for k, v in TAMPERS.items() if k != "forged payout"},  # a rule: the day's own
    "swapped": _swapped, "inserted": _inserted, "log copy edited": _log_copy_edited,
    "log row deleted": _log_row_gone, "negative balance": _negative,
}


@pytest.mark.parametrize("name", sorted(DAY_TAMPERS))
def test_every_whole_store_check_fires_outside_the_audited_day(
        two_tables: LedgerApp, name: str) -> None:
    app = two_tables
    assert verify(app, day=ELSEWHERE).ok
    kind = DAY_TAMPERS[name](app)
    full = verify(app)
    day = verify(app, day=ELSEWHERE)
    assert kind in {d.kind for d in day.discrepancies}, day.as_dict()
    assert day.hands_checked == 0
    assert set(_whole(full)) <= set(_whole(day)), (_whole(full), _whole(day))


def test_a_view_that_differs_is_found_outside_the_audited_day(two_tables: LedgerApp) -> None:
    app = two_tables
    Runner(app).catch_up()
    assert verify(app, day=ELSEWHERE).ok  # the totals made from the JSON are the views'
    with Store(app.recorder).transaction() as tx:
        tx.execute("UPDATE {proj_accounting} SET house_win_minor = house_win_minor + 7 "
                   "WHERE table_code = ?", (CSP,))
    found = [d for d in verify(app, day=ELSEWHERE).discrepancies]
    assert [d.kind for d in found] == ["projection_mismatch", "view_row_mismatch"]
    assert found[0].expected["field"] == "house_win_minor"
    assert found[1].expected["column"] == "house_win_minor"


def test_the_days_hands_are_decided_again_and_each_row_is_counted_once(
        two_tables: LedgerApp) -> None:
    app = two_tables
    today = _today(app)
    full, day = verify(app), verify(app, day=today)
    assert day.ok and full.ok
    assert day.hands_checked == full.hands_checked > 0
    assert day.events_read == full.events_read == verify(app, day=ELSEWHERE).events_read
    kind = _negative(app)
    full, day = verify(app), verify(app, day=today)
    assert kind in {d.kind for d in day.discrepancies}
    assert _whole(full) == _whole(day)


def _today(app: LedgerApp) -> str:
    from projections.audit.reader import consistent_read
    from projections.views.context import gaming_day

    with consistent_read(app) as reader:
        first = next(iter(reader.events(table_id(CSP))))
    opened = json.loads(first.state)
    from datetime import datetime

    return gaming_day(datetime.fromisoformat(opened["timestamp"]), opened["timezone"],
                      app.settings.gaming_day_start)
