"""Nothing read back from the store is trusted until it matches the chain: a forged snapshot is
never paid out (the table is replayed from its first event instead), and an event edited,
deleted, inserted or reordered anywhere in a table's history (before or after its latest
snapshot) makes the table refuse commands with ``table_chain_broken``."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from typing import Any
from uuid import UUID

import pytest
from structlog.testing import capture_logs

from ledger.app.application import LedgerApp
from ledger.domain.commands import CashOut, StartHand
from ledger.domain.errors import LedgerError
from ledger.logs import configure
from ledger.settings import Settings
from ledger.sim.runner import simulate
from ledger.store.trust import snapshot_hmac
from ledger.table.events import table_id
from tests.support import tamper

CODE = "CSP-Z"
SNAPSHOT = 50
"""The store's snapshot interval (``store_settings``)."""


@pytest.fixture
def app(store_settings: Settings) -> Iterator[LedgerApp]:
    ledger = LedgerApp(store_settings)
    simulate(ledger, "caribbean-stud", CODE, 5, seed=11)
    assert ledger.load(CODE).version > SNAPSHOT + 15
    yield ledger
    ledger.close()


def cold(app: LedgerApp) -> LedgerApp:
    """Another process on the same store (nothing cached, nothing verified yet)."""
    return LedgerApp(app.settings)


def stack_of(app: LedgerApp, seat: int) -> int:
    state = app.load(CODE).state
    return state.balances[f"player:{state.seats[seat]}"]


def snapshot_stack(app: LedgerApp, player: str) -> tuple[Any, int]:
    assert app.snapshots is not None
    snap: Any = next(iter(app.snapshots.get(table_id(CODE), desc=True, limit=1)))
    return snap, snap.state["table"]["balances"][f"player:{player}"]


def test_an_edited_snapshot_is_never_paid_out(app: LedgerApp) -> None:
    tid = table_id(CODE)
    honest = stack_of(app, 1)
    player = app.load(CODE).state.seats[1]
    _, then = snapshot_stack(app, player)
    version = tamper.edit_snapshot(app, tid, f'"player:{player}":{then}',
                                   f'"player:{player}":{then + 100_000_000}')
    assert version % SNAPSHOT == 0
    assert snapshot_stack(app, player)[1] == then + 100_000_000
    other = cold(app)
    try:
        with capture_logs() as logs:
            result = other.execute(CashOut(command_id="out", table=CODE, seat=1))
        assert result.events[-1]["amount"] == honest
        rejected = [e for e in logs if e["event"] == "snapshot_rejected"]
        assert rejected and "edited" in rejected[0]["reason"]
    finally:
        other.close()


def test_a_snapshot_resigned_without_the_key_is_refused_too(app: LedgerApp) -> None:
    """A forger who recomputes the snapshot's digest has no deck key: a digest made with any
    other key does not match, and the table is replayed from its first event."""
    tid = table_id(CODE)
    honest = stack_of(app, 1)
    player = app.load(CODE).state.seats[1]
    snap, then = snapshot_stack(app, player)
    state = json.loads(json.dumps(snap.state))
    state["table"]["balances"][f"player:{player}"] = then + 100_000_000
    forged = snapshot_hmac(b"\0" * 32, tid, snap.originator_version, state)
    tamper.edit_snapshot(app, tid, f'"player:{player}":{then}',
                         f'"player:{player}":{then + 100_000_000}')
    tamper.edit_snapshot(app, tid, snap.state["state_hmac"], forged)
    other = cold(app)
    try:
        assert stack_of(other, 1) == honest
    finally:
        other.close()


def test_a_snapshot_of_another_chain_is_set_aside(app: LedgerApp) -> None:
    """A snapshot whose recorded chain digest is not the stored event's (moved, or taken of
    another history) is not used."""
    tid = table_id(CODE)
    snap, _ = snapshot_stack(app, "player-01")
    tamper.edit_snapshot(app, tid, snap.state["chain_head"], "0" * 64)
    other = cold(app)
    try:
        with capture_logs() as logs:
            assert other.load(CODE).version == app.load(CODE).version
        assert any("chain digest" in e.get("reason", "") for e in logs)
    finally:
        other.close()


def _player_in(app: LedgerApp, version: int) -> str:
    (row,) = app.recorder.select_events(table_id(CODE), gt=version - 1, lte=version)
    found = re.search(r'"player":"([^"]+)"', bytes(row.state).decode())
    assert found is not None, bytes(row.state)
    return found.group(0)


Tamper = Callable[[LedgerApp, UUID, int], Any]
TAMPERS: dict[str, Tamper] = {
    "edited": lambda app, tid, v: tamper.replace_in_event(app, tid, v, _player_in(app, v),
                                                          '"player":"someone-else"'),
    "deleted": tamper.delete_event,
    "inserted": lambda app, tid, v: tamper.insert_at(app, tid, v + 3, v),
    "reordered": lambda app, tid, v: tamper.swap_events(app, tid, v, v + 1),
}


@pytest.mark.parametrize("where", ["before the snapshot", "after the snapshot"])
@pytest.mark.parametrize("how", sorted(TAMPERS))
def test_a_tampered_history_refuses_commands(app: LedgerApp, how: str, where: str) -> None:
    tid = table_id(CODE)
    latest = snapshot_stack(app, "player-01")[0].originator_version
    assert app.load(CODE).version > latest + 8
    version = 3 if where == "before the snapshot" else latest + 2
    if how == "edited":  # an event that names a player: seats are versions 2.. of the table
        version = 2 if where == "before the snapshot" else next(
            v for v in range(latest + 2, latest + 40) if '"player":"' in
            bytes(app.recorder.select_events(tid, gt=v - 1, lte=v)[0].state).decode())
    TAMPERS[how](app, tid, version)
    before = app.recorder.max_notification_id()
    other = cold(app)
    try:
        for command in (StartHand(command_id="next", table=CODE),
                        CashOut(command_id="out", table=CODE, seat=1)):
            with pytest.raises(LedgerError) as err:
                other.execute(command)
            assert err.value.code == "table_chain_broken", err.value.message
        assert "refuses commands" in err.value.message and err.value.details["version"]
    finally:
        other.close()
    assert app.recorder.max_notification_id() == before


def test_an_intact_table_loads_from_its_snapshot_without_a_warning(app: LedgerApp) -> None:
    other = cold(app)
    try:
        with capture_logs() as logs:
            assert other.load(CODE).state.to_snapshot() == app.load(CODE).state.to_snapshot()
        assert not [e for e in logs if e["event"] == "snapshot_rejected"]
    finally:
        other.close()


def test_the_chain_walked_by_a_replay_is_not_walked_again_by_the_load(app: LedgerApp) -> None:
    """``ledger replay`` checks the chain and the command log (``chain_breaks``) and then loads
    the table: an intact chain is walked once per process, its verified head shared."""
    from projections.audit.chain import chain_breaks

    other = cold(app)
    tid = table_id(CODE)
    try:
        assert chain_breaks(other, tid) == []
        walked: list[Any] = []
        select = other.recorder.select_events

        def counting(*args: Any, **kwargs: Any) -> Any:
            rows = select(*args, **kwargs)
            walked.extend(r.originator_version for r in rows)
            return rows

        other.recorder.select_events = counting  # type: ignore[method-assign]
        assert other.load(CODE).version == app.load(CODE).version
        assert 1 not in walked  # nothing before the snapshot was read again
    finally:
        other.close()


def test_a_chain_found_broken_by_a_replay_still_refuses_the_load(app: LedgerApp) -> None:
    from projections.audit.chain import chain_breaks

    tamper.delete_event(app, table_id(CODE), 3)
    other = cold(app)
    try:
        assert chain_breaks(other, table_id(CODE))[0]["kind"] == "event_deleted"
        with pytest.raises(LedgerError) as raised:
            other.load(CODE)
        assert raised.value.code == "table_chain_broken"
    finally:
        other.close()


def test_replay_and_audit_hand_of_a_broken_chain_say_so(app: LedgerApp) -> None:
    from typer.testing import CliRunner

    from ledger.cli import _register
    from ledger.cli import app as cli
    from projections.audit.handreplay import hand_replay

    tamper.delete_event(app, table_id(CODE), 3)
    replay = hand_replay(app, CODE, 2)
    assert not replay.ok and replay.chain_breaks[0]["kind"] == "event_deleted"
    _register()
    url = ["--database-url", app.settings.database_url]
    env = {"LEDGER_DECK_KEY_FILE": str(app.settings.deck_key_file),
           "LEDGER_POSTGRES_SCHEMA": app.settings.postgres_schema}
    try:
        for args in (["replay", CODE, "2"], ["audit", "hand", CODE, "2"]):
            result = CliRunner().invoke(cli, [*args, *url], env=env)
            assert result.exit_code == 1, result.output
            lines = result.stdout.splitlines()
            assert lines[0].startswith("WARNING: THE HASH CHAIN OF TABLE CSP-Z IS BROKEN")
            assert "event_deleted at v3" in lines[0] and lines[-1] == lines[0]
    finally:
        configure("WARNING")  # the commands logged to the runner's streams, now closed


def test_the_api_refuses_a_broken_table_with_409(app: LedgerApp) -> None:
    from fastapi.testclient import TestClient

    from ledger.api import create_app
    from tests.support.http import assert_error, bearer, make_tokens

    tamper.swap_events(app, table_id(CODE), 10, 11)
    api = create_app(app.settings)
    tokens = make_tokens(api, [CODE])
    with TestClient(api, raise_server_exceptions=False) as client:
        assert_error(client.post(f"/tables/{CODE}/hands", json={"command_id": "h"},
                                 headers=bearer(tokens.device)), 409, "table_chain_broken")
