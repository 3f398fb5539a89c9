"""The audit decides every command again: a stored decision the rules would not make is found
there, even when the forger recomputes the chain and the command log, and in the middle of a
stud betting round too, where the rules read the round kept with the hand (advanced by one
action at a time, not replayed from the street's start)."""

from __future__ import annotations

import json
from typing import Any

from ledger.app.application import LedgerApp
from ledger.sim.runner import simulate
from ledger.table.events import table_id
from projections.audit import verify
from tests.support import tamper

CODE = "STUD-R"


def _call_mid_street(app: LedgerApp) -> tuple[int, int, str, int]:
    """A call that is not the first action of its street: (version, hand, its JSON, amount)."""
    last: tuple[int, str] | None = None  # (hand, round) of the previous action
    for row in app.recorder.select_events(table_id(CODE)):
        topic = row.topic.rsplit(":", 1)[1]
        data = json.loads(row.state)
        if topic == "CardsDealt":
            last = None
        elif topic == "PlayerActed":
            here = (data["hand_no"], "street")
            if data["action"] == "call" and data["amount"] > 0 and last == here:
                return row.originator_version, data["hand_no"], bytes(row.state).decode(), \
                    data["amount"]
            last = here
    raise AssertionError("no call after another action of its street")


def _rewrite(app: LedgerApp, version: int, old: str, new: str) -> None:
    tamper.replace_in_event(app, table_id(CODE), version, old, new)
    tamper.rechain(app, table_id(CODE), version)
    tamper.rewrite_command_log(app, table_id(CODE))
    tamper.drop_snapshots(app, table_id(CODE))  # or the snapshot's signature would tell


def test_a_stud_call_of_the_wrong_amount_is_refused_by_the_rules(app: LedgerApp) -> None:
    simulate(app, "stud-hilo", CODE, 8, seed=5)
    assert verify(app).ok
    version, hand, text, amount = _call_mid_street(app)
    more = amount + 100
    edited = text.replace(f'"amount":{amount}', f'"amount":{more}')
    assert edited.count(f'"amount":{more}') == 2  # the action and its transfer: still balanced
    _rewrite(app, version, text, edited)
    report = verify(app)
    assert report.chain_ok  # only the rules can tell
    first = report.discrepancies[0]
    assert (first.kind, first.hand) == ("rejected", hand), report.as_dict()
    refusal: dict[str, Any] = first.expected
    assert refusal["code"] == "wrong_amount"
    assert first.recorded[0]["version"] == version


def test_a_stud_action_recorded_under_another_rule_is_found_field_by_field(
    app: LedgerApp,
) -> None:
    simulate(app, "stud-hilo", CODE, 8, seed=5)
    version, hand, text, _ = _call_mid_street(app)
    rule = json.loads(text)["rule"]
    assert text.count(f'"rule":"{rule}"') == 2
    edited = text.replace(f'"rule":"{rule}"', '"rule":"STUD8-5"')
    _rewrite(app, version, text, edited)
    report = verify(app)
    assert report.chain_ok
    found = [(d.kind, d.hand, d.rule) for d in report.discrepancies]
    assert found and found[0][1] == hand and found[0][0] != "rejected", found
