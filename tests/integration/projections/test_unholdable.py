"""A row the views cannot hold: an event written before the bounds (here forced past the
command's validation) with an amount past a signed 64-bit integer. The views leave that event
out and report it (table, version, why), every read and export still answers, a rebuild works,
and the audit reports it as a discrepancy."""

from __future__ import annotations

from typing import Any

import pytest
from eventsourcing.persistence import StoredEvent
from fastapi.testclient import TestClient
from pydantic import ValidationError

from ledger.api import create_app
from ledger.app.application import LedgerApp
from ledger.domain.commands import BuyIn, CorrectMovement, OpenTable, SeatPlayer
from ledger.settings import Settings
from ledger.table.events import table_id
from projections.audit.verify import verify
from projections.views import unholdable
from projections.views.context import current_gaming_day
from projections.views.runner import Runner
from tests.support.driver import with_supervisors
from tests.support.http import bearer, make_tokens
from tests.support.ranges import balance_past_the_range
from tests.support.tamper import replace_in_event

HUGE = 2**63


def written(app: LedgerApp) -> int:
    app.execute(OpenTable(command_id="o", table="T1", game="caribbean-stud"))
    app.execute(SeatPlayer(command_id="s", table="T1", seat=1, player="p1"))
    app.execute(BuyIn(command_id="b1", table="T1", seat=1, amount=1_000))
    # What an unbounded API once accepted: built without validation, as stored then.
    app.execute(BuyIn.model_construct(command_id="huge", table="T1", seat=1, amount=HUGE,
                                      kind="buy_in"))
    app.execute(BuyIn(command_id="b2", table="T1", seat=1, amount=2_000))
    with app.reading("T1") as table:
        return table.version - 1  # the huge buy-in's version


def test_an_event_no_view_can_hold_is_left_out_reported_and_audited(
    store_settings: Settings,
) -> None:
    api = create_app(store_settings)
    app: LedgerApp = api.state.ledger
    version = written(app)
    runner = Runner(app)
    runner.catch_up()
    assert [(r.table_code, r.version) for r in runner.rejected] == [("T1", version)]
    assert "outside a signed 64-bit integer" in runner.rejected[0].why
    assert [(r.table_code, r.version) for r in unholdable.recorded(runner.store)] == [
        ("T1", version)]
    tokens = make_tokens(api, ["T1"])
    day = current_gaming_day("Europe/Amsterdam", store_settings.gaming_day_start)
    with TestClient(api) as client:
        auditor = bearer(tokens.auditor)
        rows = client.get("/bankrolls?table=T1", headers=auditor)
        assert rows.status_code == 200
        player = next(r for r in rows.json() if r["account"].startswith("player:"))
        assert player["balance_minor"] == 3_000  # the other buy-ins, not the one left out
        for path in ("/tables", "/accounting", f"/exports/accounting/{day}",
                     f"/exports/hands/{day}", "/hands"):
            assert client.get(path, headers=auditor).status_code == 200, path
        again = Runner(app)
        again.rebuild()
        assert [r.version for r in again.rejected] == [version]
        report = verify(app, table="T1")
        found = [d for d in report.discrepancies if d.kind == "unholdable_value"]
        assert found and {d.recorded["version"] for d in found} == {version}
        assert any("left out of the views" in d.recorded.get("why", "") for d in found)
        assert [d.recorded["version"] for d in report.discrepancies
                if d.kind == "out_of_bounds"] == [version]  # the command is refused now
        assert not report.ok
        # The audit leaves the event out of its totals as the views do: no mismatch, so the
        # views are not marked outdated (a rebuild would not change them) and reads go on.
        assert not [d for d in report.discrepancies if d.kind == "projection_mismatch"]
        assert client.get("/accounting", headers=auditor).status_code == 200
        # A rebuild in worker processes writes each table's rows the same way.
        apart = Runner(app)
        apart.reset()
        head = apart.head()
        apart.replay_streams({table_id("T1")}, head)
        apart.built(head)
        assert [r.version for r in apart.rejected] == [version]
        # The recovery the docs give (docs/architecture/projections.md): an approved
        # correction, never an edit of the store.
        with_supervisors(app, {name: (name, "supervisor") for name in ("sup-1", "sup-2")})
        app.execute(CorrectMovement(command_id="c", table="T1", version=version, amount=0,
                                    approvers=("sup-1", "sup-2"), reason="never moved"))
        after = Runner(app)
        after.catch_up()
        assert [r.version for r in after.rejected] == [version + 2]
        assert client.get("/bankrolls?table=T1&prefix=player:", headers=auditor).json()[0][
            "balance_minor"] == 3_000


def test_an_event_that_takes_a_total_past_the_range_is_found_left_out_and_audited(
    store_settings: Settings,
) -> None:
    """No single event past the range, but a balance past it with the second: the runner finds
    that event (by halves of its batch), leaves it out and reports it; the views go on, and the
    audit names the event and the balance without a mismatch."""
    api = create_app(store_settings)
    app: LedgerApp = api.state.ledger
    second = balance_past_the_range(app)
    runner = Runner(app)
    runner.catch_up()
    assert [(r.table_code, r.version) for r in runner.rejected] == [("T2", second)]
    assert "total of the views" in runner.rejected[0].why
    tokens = make_tokens(api, ["T2"])
    with TestClient(api) as client:
        auditor = bearer(tokens.auditor)
        answer = client.get("/bankrolls?table=T2&prefix=player:", headers=auditor)
        assert answer.status_code == 200 and answer.json()[0]["balance_minor"] == 2**62 + 500
        report = verify(app, table="T2")
        found = {(d.recorded["version"], "balance" in d.recorded)
                 for d in report.discrepancies if d.kind == "unholdable_value"}
        assert {(second, False), (second, True)} <= found  # the event; the balances past range
        assert not [d for d in report.discrepancies if d.kind == "projection_mismatch"]
        # A worker of a rebuild in several processes stops; the rebuild starts again in one.
        apart = Runner(app)
        apart.reset()
        with pytest.raises(unholdable.TotalsOverflow):
            apart.replay_streams({table_id("T2")}, apart.head())
        again = Runner(app)
        again.rebuild()
        assert [r.version for r in again.rejected] == [second]
        assert client.get("/accounting", headers=auditor).status_code == 200


PAST = str(2**63)
WRITTEN_AS_AN_INT = {
    "a number": PAST,
    "a string": f'"{PAST}"',
    "a string with underscores": '"' + "_".join(PAST[i:i + 3] for i in range(0, 19, 3)) + '"',
    "a string with a sign and spaces": f'" +{PAST} "',
    "a string with a fraction": f'"{PAST}.000"',
    "a string of escaped digits": '"' + "".join(f"\\u{ord(c):04x}" for c in PAST) + '"',
}
"""Ways stored JSON may write an integer past a signed 64-bit integer that the events' models
read (pydantic's lax mode)."""
REFUSED = {"an exponent": "9.3e18", "an exponent in capitals": "1E+19",
           "a number with a fraction": f"{PAST}.0", "a string with an exponent": '"1e19"'}
"""Ways the models refuse: the event cannot be read at all (``undecodable_event``)."""


def _bought_in(app: LedgerApp) -> tuple[Any, int]:
    app.execute(OpenTable(command_id="o", table="T3", game="caribbean-stud"))
    app.execute(SeatPlayer(command_id="s", table="T3", seat=1, player="p1"))
    app.execute(BuyIn(command_id="b1", table="T3", seat=1, amount=1_234))
    app.execute(BuyIn(command_id="b2", table="T3", seat=1, amount=1_234))
    app.execute(BuyIn(command_id="b3", table="T3", seat=1, amount=500))
    with app.reading("T3") as table:
        last = table.version
    stored = app.recorder.select_events(table_id("T3"), gt=last - 1)[0]
    return stored, last - 2


def test_the_screen_of_stored_json_lets_through_no_way_of_writing_a_number_past_the_range(
    store_settings: Settings,
) -> None:
    """The screen decides from the stored JSON (one pass over the text) that an event holds no
    number past the range and skips the walk of its values; every way the models read such a
    number from the JSON still sends it to the walk, which finds it."""
    app = LedgerApp(store_settings)
    try:
        stored, _ = _bought_in(app)
        event = app.mapper.to_domain_event(stored)
        assert unholdable.holdable_as_stored(event)  # the fast path: no walk
        assert unholdable.too_large(event) is None
        text = bytes(stored.state).decode()
        assert text.count('"amount":500') == 2  # the event's amount and its transfer's
        for how, written in {**WRITTEN_AS_AN_INT, **REFUSED}.items():
            edited = StoredEvent(stored.originator_id, stored.originator_version, stored.topic,
                                 text.replace('"amount":500', f'"amount":{written}').encode())
            try:
                event = app.mapper.to_domain_event(edited)
            except ValidationError:
                assert how in REFUSED, how
                continue
            assert how in WRITTEN_AS_AN_INT, how
            assert getattr(event, "amount") == 2**63, how  # noqa: B009 - any event kind
            assert not unholdable.holdable_as_stored(event), how
            assert unholdable.too_large(event) == f"amount = {2**63}", how
        bigger = StoredEvent(stored.originator_id, 2**63, stored.topic, stored.state)
        assert not unholdable.holdable_as_stored(app.mapper.to_domain_event(bigger))
    finally:
        app.close()


def test_a_rebuild_leaves_out_events_edited_in_the_store_past_the_range(
    store_settings: Settings,
) -> None:
    """Stored events edited by hand to hold a number past the range (as a string with
    underscores, as escaped digits) are left out of every view by a rebuild and by a catch-up,
    as one holding it as a plain number is."""
    app = LedgerApp(store_settings)
    try:
        _, first = _bought_in(app)
        tid = table_id("T3")
        replace_in_event(app, tid, first, '"amount":1234',
                         f'"amount":{WRITTEN_AS_AN_INT["a string with underscores"]}')
        replace_in_event(app, tid, first + 1, '"amount":1234',
                         f'"amount":{WRITTEN_AS_AN_INT["a string of escaped digits"]}')
        runner = Runner(app)
        runner.rebuild()
        assert [r.version for r in runner.rejected] == [first, first + 1]
        assert all("outside a signed 64-bit integer" in r.why for r in runner.rejected)
        balances = runner.store.fetchall(
            "SELECT balance_minor FROM {proj_balances} WHERE table_code = 'T3' AND "
            "account = 'player:p1'")
        assert [int(b["balance_minor"]) for b in balances] == [500]
        again = Runner(app)
        again.reset()
        again.catch_up()
        assert [r.version for r in again.rejected] == [first, first + 1]
    finally:
        app.close()
