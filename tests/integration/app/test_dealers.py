"""Dealers sign in and out at a table, between hands, as events of the table's stream; every
hand names the dealer on duty (DLR-1, DLR-2); the audit replays it all."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from ledger.app.application import LedgerApp
from ledger.domain.actors import Actor
from ledger.domain.commands import SeatPlayer, SignInDealer, SignOutDealer, StartHand
from ledger.domain.errors import LedgerError
from ledger.settings import Settings
from ledger.sim.principals import ensure_principals
from ledger.sim.runner import simulate
from ledger.table.events import table_id
from projections.audit.verify import verify


@pytest.fixture
def app(store_settings: Settings) -> Iterator[LedgerApp]:
    ledger = LedgerApp(store_settings, actor=Actor.cli("pit-ops"))
    ensure_principals(ledger, {"dlr-ann": ("Ann (dealer)", "dealer"),
                               "dlr-bo": ("Bo (dealer)", "dealer"),
                               "sup-cy": ("Cy (supervisor)", "supervisor")})
    yield ledger
    ledger.close()


def _refused(app: LedgerApp, command: object, code: str) -> None:
    with pytest.raises(LedgerError) as err:
        app.execute(command)  # type: ignore[arg-type]
    assert err.value.code == code, err.value


def test_dealers_sign_in_and_out_and_hands_name_them(app: LedgerApp) -> None:
    simulate(app, "caribbean-stud", "CSP-D", 1, seed=3)
    with app.reading("CSP-D") as table:
        assert table.state.dealer is None
    result = app.execute(SignInDealer(command_id="d1", table="CSP-D", dealer="dlr-ann"))
    assert [e["type"] for e in result.events] == ["DealerSignedIn"]
    simulate(app, "caribbean-stud", "CSP-D", 2, seed=4)
    relief = app.execute(SignInDealer(command_id="d2", table="CSP-D", dealer="dlr-bo"))
    assert [(e["type"], e["dealer"]) for e in relief.events] == [
        ("DealerSignedOut", "dlr-ann"), ("DealerSignedIn", "dlr-bo")]
    assert relief.events[0]["reason"] == "relieved"
    simulate(app, "caribbean-stud", "CSP-D", 1, seed=5)
    app.execute(SignOutDealer(command_id="d3", table="CSP-D", dealer="dlr-bo"))
    simulate(app, "caribbean-stud", "CSP-D", 1, seed=6)
    stored = [json.loads(bytes(e.state)) for e in app.recorder.select_events(table_id("CSP-D"))
              if e.topic.endswith(":HandStarted")]
    assert [e["dealer"] for e in stored] == [None, "dlr-ann", "dlr-ann", "dlr-bo", None]
    report = verify(app, table="CSP-D")
    assert report.ok, report.discrepancies


def test_refusals_are_coded_and_append_nothing(app: LedgerApp) -> None:
    simulate(app, "caribbean-stud", "CSP-R", 0, seed=1)
    before = len(app.recorder.select_events(table_id("CSP-R")))
    for who, code in (("nobody", "unknown_approver"), ("sup-cy", "dealer_on_duty")):
        if code == "dealer_on_duty":
            app.execute(SignInDealer(command_id="ok", table="CSP-R", dealer=who))
        _refused(app, SignInDealer(command_id=f"x-{who}", table="CSP-R", dealer=who), code)
    _refused(app, SignOutDealer(command_id="o1", table="CSP-R", dealer="dlr-ann"),
             "dealer_not_on_duty")
    _refused(app, SignInDealer(command_id="p2", table="CSP-R", dealer="player-01"),
             "dealer_cannot_play")
    _refused(app, SeatPlayer(command_id="s1", table="CSP-R", seat=6, player="sup-cy"),
             "dealer_cannot_play")
    # The rules refuse first (a player of the table), then the register is asked (DLR-1).
    assert len(app.recorder.select_events(table_id("CSP-R"))) == before + 1  # the one sign-in
    app.execute(StartHand(command_id="h1", table="CSP-R"))
    _refused(app, SignInDealer(command_id="h2", table="CSP-R", dealer="dlr-ann"),
             "hand_in_progress")
    _refused(app, SignOutDealer(command_id="h3", table="CSP-R", dealer="sup-cy"),
             "hand_in_progress")
