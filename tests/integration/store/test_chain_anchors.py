"""Chain anchors (``ledger.store.trust``): a cold load walks a table's chain from its latest anchor,
and ``ledger replay`` / ``ledger audit hand`` check the stretches between signed snapshots that
hold what they show (``projections.audit.handchain``). Edits, deletions, insertions and
reorderings are still found, before and after an anchor; a rewrite that recomputes every
digest after an edit (no key needed) is found even where the whole walk from the first event
finds nothing; an anchor whose HMAC does not verify is not used (issue 12; RULES COM-8 is the
deck's, not concerned here)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any
from uuid import UUID

import pytest

from ledger.app.application import LedgerApp
from ledger.domain.commands import StartHand
from ledger.domain.errors import LedgerError
from ledger.settings import Settings
from ledger.sim.runner import simulate
from ledger.table.events import table_id
from projections.audit.chain import chain_breaks
from projections.audit.handchain import anchored, span_breaks
from tests.support import tamper

CODE = "CSP-A"
EVERY = 100
"""Events between two anchors here (snapshots every 50: ``store_settings``)."""


@pytest.fixture
def app(store_settings: Settings) -> Iterator[LedgerApp]:
    settings = store_settings.model_copy(update={"chain_anchor_interval": EVERY})
    ledger = LedgerApp(settings)
    simulate(ledger, "caribbean-stud", CODE, 24, seed=5)
    # The deck is the table's rng: hands vary in length. Play on until a snapshot (every 50)
    # lies past the anchor (the first after 300), so that a cold load has a stretch to walk.
    while ledger.load(CODE).version < 3 * EVERY + 60:
        simulate(ledger, "caribbean-stud", CODE, 1, seed=6)
    assert ledger.load(CODE).version < 4 * EVERY  # the anchor stays the first after 300
    yield ledger
    ledger.close()


def cold(app: LedgerApp) -> LedgerApp:
    return LedgerApp(app.settings)


def latest_anchor(app: LedgerApp) -> int:
    found = app.repository.anchor(table_id(CODE))
    assert found is not None
    return found[0]


def walked_from(app: LedgerApp) -> list[int]:
    """The versions a cold load's chain walk reads (in another process's place)."""
    import ledger.store.trust as trust

    seen: list[int] = []
    rows = trust._stored_rows

    def counting(recorder: Any, tid: UUID, after: int, upto: int | None) -> Any:
        seen.append(after + 1)
        return rows(recorder, tid, after, upto)

    trust._stored_rows = counting
    try:
        other = cold(app)
        try:
            assert other.load(CODE).state.to_snapshot() == app.load(CODE).state.to_snapshot()
        finally:
            other.close()
    finally:
        trust._stored_rows = rows
    return seen


def test_a_cold_load_walks_from_the_latest_anchor(app: LedgerApp) -> None:
    anchor = latest_anchor(app)
    assert anchor >= 3 * EVERY and anchor % 50 < 10  # the first snapshot after a multiple
    assert walked_from(app) == [anchor + 1]
    off = LedgerApp(app.settings.model_copy(update={"chain_anchor_interval": 0}))
    try:
        assert off.repository.anchor(table_id(CODE)) is None
    finally:
        off.close()


def _version_naming_a_player(app: LedgerApp, tid: UUID, after: int) -> tuple[int, str]:
    for row in app.recorder.select_events(tid, gt=after, limit=60):
        text = bytes(row.state).decode()
        if '"player":"' in text:
            player = json.loads(text)["player"]
            return row.originator_version, f'"player":"{player}"'
    raise AssertionError("no event names a player")


Tamper = Callable[[LedgerApp, UUID, int], Any]
TAMPERS: dict[str, Tamper] = {
    "edited": lambda app, tid, v: tamper.replace_in_event(
        app, tid, v, '"actor":{"id":"', '"actor":{"id":"someone-else-'),
    "deleted": tamper.delete_event,
    "inserted": lambda app, tid, v: tamper.insert_at(app, tid, v + 3, v),
    "reordered": lambda app, tid, v: tamper.swap_events(app, tid, v, v + 1),
}
KINDS = {"edited": "event_edited", "deleted": "event_deleted", "inserted": "event_inserted",
         "reordered": "events_reordered"}


@pytest.mark.parametrize("how", sorted(TAMPERS))
def test_a_tampered_history_after_the_anchor_refuses_commands(app: LedgerApp, how: str) -> None:
    tid = table_id(CODE)
    anchor = latest_anchor(app)
    TAMPERS[how](app, tid, anchor + 3)
    other = cold(app)
    try:
        with pytest.raises(LedgerError) as err:
            other.execute(StartHand(command_id="next", table=CODE))
        assert err.value.code == "table_chain_broken", err.value.message
        assert CODE in err.value.message  # named from the anchor, not by its id
    finally:
        other.close()


def test_a_rewrite_before_the_anchor_with_every_digest_recomputed_refuses_commands(
        app: LedgerApp) -> None:
    """What the whole walk from the first event cannot see (the chain and the command log
    recomputed hold), the anchor's signed digest does."""
    tid = table_id(CODE)
    anchor = latest_anchor(app)
    version, player = _version_naming_a_player(app, tid, 10)
    tamper.replace_in_event(app, tid, version, player, '"player":"someone-else"')
    tamper.rechain(app, tid, version)
    tamper.rewrite_command_log(app, tid)
    assert chain_breaks(app, tid) == []
    other = cold(app)
    try:
        with pytest.raises(LedgerError) as err:
            other.load(CODE)
        assert err.value.code == "table_chain_broken"
        assert err.value.details["version"] == anchor + 1  # its link is not the signed one
    finally:
        other.close()


def _edit_snapshot_at(app: LedgerApp, tid: UUID, version: int, old: str, new: str) -> None:
    recorder: Any = app.recorder
    name = recorder.events_table_name.replace("_events", "_snapshots")
    postgres = type(recorder).__name__.startswith("LedgerPostgres")
    if postgres:
        sql = (f'UPDATE "{recorder.datastore.schema}"."{name}" SET state = convert_to(replace('
               "convert_from(state, 'UTF8'), %s, %s), 'UTF8') WHERE originator_id = %s AND "
               "originator_version = %s")
    else:
        sql = (f"UPDATE {name} SET state = CAST(replace(CAST(state AS TEXT), ?, ?) AS BLOB) "
               "WHERE originator_id = ? AND originator_version = ?")
    with recorder.datastore.transaction(commit=True) as cursor:
        cursor.execute(sql, (old, new, tid if postgres else tid.hex, version))


def test_an_anchor_that_does_not_verify_is_not_used(app: LedgerApp) -> None:
    """Every anchor edited (or moved to other digests): the walk starts from the first event,
    so an edit of an early event is found by the load again."""
    tid = table_id(CODE)
    assert app.snapshots is not None
    for snap in app.snapshots.get(tid):
        head = snap.state["chain_head"]  # type: ignore[attr-defined]
        _edit_snapshot_at(app, tid, snap.originator_version, head, "0" * 64)
    assert app.repository.anchor(tid) is None
    tamper.delete_event(app, tid, 3)
    other = cold(app)
    try:
        with pytest.raises(LedgerError) as err:
            other.load(CODE)
        assert err.value.code == "table_chain_broken" and err.value.details["version"] == 3
    finally:
        other.close()


def _hand_span(app: LedgerApp, tid: UUID, after: int) -> tuple[int, int]:
    """The versions of the first whole hand that starts after version ``after``."""
    rows = list(app.recorder.select_events(tid, gt=after))
    datas = [(r.originator_version, json.loads(r.state)) for r in rows]
    start = next(v for v, d in datas if "deck_commitment" in d)
    end = next(v for v, d in datas if v > start and "outcomes" in d)
    return start, end


@pytest.mark.parametrize("where", ["before the latest anchor", "after it"])
@pytest.mark.parametrize("how", sorted(TAMPERS))
def test_a_hand_s_stretch_names_what_was_done_to_it(app: LedgerApp, how: str,
                                                    where: str) -> None:
    tid = table_id(CODE)
    anchor = latest_anchor(app)
    assert anchored(app, tid)
    first, last = _hand_span(app, tid, EVERY + 5 if where.startswith("before") else anchor + 1)
    assert (last < anchor) == where.startswith("before")
    assert span_breaks(app, tid, [(first, last)]) == []
    TAMPERS[how](app, tid, first + 2)
    found = span_breaks(app, tid, [(first, last)])
    assert KINDS[how] in {f["kind"] for f in found}, found


def test_an_edit_of_the_last_event_shows_in_the_command_log(app: LedgerApp) -> None:
    tid = table_id(CODE)
    head = app.load(CODE).version
    tamper.replace_in_event(app, tid, head, '"actor":{"id":"', '"actor":{"id":"someone-else-')
    found = span_breaks(app, tid, [(head - 5, head)])
    assert "command_log_mismatch" in {f["kind"] for f in found}, found


def test_a_cut_tail_whose_command_rows_were_kept_shows(app: LedgerApp) -> None:
    tid = table_id(CODE)
    head = app.load(CODE).version
    for version in (head, head - 1):
        tamper.delete_event(app, tid, version)
    found = span_breaks(app, tid, [(head - 8, head - 2)])
    assert "command_log_missing" in {f["kind"] for f in found}, found


def test_replay_and_audit_hand_name_a_break_in_their_stretch(app: LedgerApp) -> None:
    from projections.audit.handreplay import hand_replay

    tid = table_id(CODE)
    first, _last = _hand_span(app, tid, EVERY + 5)
    hand = json.loads(app.recorder.select_events(tid, gt=first - 1, lte=first)[0].state)[
        "hand_no"]
    tamper.delete_event(app, tid, first + 2)
    replay = hand_replay(app, CODE, hand)
    assert not replay.ok and replay.chain_breaks[0]["kind"] == "event_deleted"
    for result in _replay_and_audit_hand(app, hand):
        assert result.exit_code == 1, result.output
        lines = result.stdout.splitlines()
        assert lines[0].startswith("WARNING: THE HASH CHAIN OF TABLE CSP-A IS BROKEN")
        assert f"event_deleted at v{first + 2}" in lines[0] and lines[-1] == lines[0]


def _replay_and_audit_hand(app: LedgerApp, hand: int) -> list[Any]:
    """``ledger replay`` and ``ledger audit hand`` of ``hand`` through the CLI, on ``app``'s
    store with its anchor interval (the log level put back after)."""
    from typer.testing import CliRunner

    from ledger.cli import _register
    from ledger.cli import app as cli
    from ledger.logs import configure

    _register()
    env = {"LEDGER_DECK_KEY_FILE": str(app.settings.deck_key_file),
           "LEDGER_POSTGRES_SCHEMA": app.settings.postgres_schema,
           "LEDGER_CHAIN_ANCHOR_INTERVAL": str(EVERY)}
    url = ["--database-url", app.settings.database_url]
    try:
        return [CliRunner().invoke(cli, [*args, *url], env=env)
                for args in (["replay", CODE, str(hand)], ["audit", "hand", CODE, str(hand)])]
    finally:
        configure("WARNING")


def test_an_anchored_audit_of_a_hand_is_the_whole_replay_s(app: LedgerApp) -> None:
    """From the signed snapshot before the hand, the same steps, verdicts and balances as the
    replay of the table from its first event."""
    from dataclasses import asdict

    from projections.audit.handreplay import hand_replay

    tid = table_id(CODE)
    whole = LedgerApp(app.settings.model_copy(update={"chain_anchor_interval": 0}))
    try:
        for after in (EVERY + 5, latest_anchor(app) + 1):
            first, _ = _hand_span(app, tid, after)
            hand = json.loads(app.recorder.select_events(tid, gt=first - 1, lte=first)[0]
                              .state)["hand_no"]
            fast, slow = hand_replay(app, CODE, hand), hand_replay(whole, CODE, hand)
            assert not fast.walked_whole and slow.walked_whole
            assert fast.ok and slow.ok and fast.steps and fast.steps[0].version == first
            assert [asdict(s) for s in fast.steps] == [asdict(s) for s in slow.steps]
            assert (fast.commitment, fast.commitment_ok) == (slow.commitment, slow.commitment_ok)
    finally:
        whole.close()


@pytest.mark.parametrize("where", ["inside", "after"])
@pytest.mark.parametrize("how", sorted(tamper.UNDECODABLE))
def test_an_undecodable_row_in_an_anchored_hand_s_stretch_is_named(app: LedgerApp, how: str,
                                                                   where: str) -> None:
    """In a table with anchors, a row of the hand's stretch that cannot be decoded (the chain
    recomputed after it, the command log rewritten) is named by ``ledger replay`` (an error,
    exit status 1) and ``ledger audit hand`` (a discrepancy ``undecodable_event``), never an
    unknown hand or an internal error."""
    from ledger.domain.errors import UndecodableEvent
    from ledger.store.history import hand_events
    from projections.audit.handreplay import hand_replay

    tid = table_id(CODE)
    first, last = _hand_span(app, tid, EVERY + 5)
    hand = json.loads(app.recorder.select_events(tid, gt=first - 1, lte=first)[0].state)[
        "hand_no"]
    version = first + 2 if where == "inside" else last + 1
    tamper.make_undecodable(app, tid, version, how)
    other = cold(app)
    try:
        with pytest.raises(UndecodableEvent) as caught:
            hand_events(other, CODE, hand)
        assert caught.value.details == {"table": CODE, "version": version,
                                        "error": caught.value.details["error"]}
        replay = hand_replay(other, CODE, hand)
        named = [d.recorded for d in replay.discrepancies if d.kind == "undecodable_event"] + [
            b["recorded"] for b in replay.chain_breaks if b["kind"] == "undecodable_event"]
        assert not replay.ok and named and named[0]["version"] == version
    finally:
        other.close()
    for result in _replay_and_audit_hand(app, hand):
        assert result.exit_code == 1, result.output
        assert "undecodable_event" in result.output, result.output
        assert f"v{version}" in result.output or f'"version": {version}' in result.output
        assert "unknown_hand" not in result.output
        assert "internal_error" not in result.output
