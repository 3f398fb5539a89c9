"""The runner's reading of the log (``projections.views.decode``): the rows are those the library's
notifications hold, and each event is the application mapper's, value for value and error for
error, on the fast path and off it."""

from __future__ import annotations

from typing import Any

from eventsourcing.persistence import StoredEvent

from ledger.app.application import LedgerApp
from ledger.domain.commands import BuyIn, OpenTable, SeatPlayer
from ledger.store.mapper import state_bytes
from ledger.table.events import table_id
from projections.db import Store
from projections.views import decode
from tests.integration.projections.conftest import HANDS, play

FEW_HANDS = {game: 2 for game in HANDS}


def _outcome(call: Any) -> tuple[str, Any]:
    try:
        event = call()
    except Exception as exc:
        return "error", (type(exc), str(exc))
    return "event", (type(event), event.model_dump(), event.stored_state())


def test_the_rows_are_the_notifications_and_the_events_the_mappers(app: LedgerApp) -> None:
    play(app, FEW_HANDS)
    store = Store(app.recorder)
    head = int(app.recorder.max_notification_id() or 0)
    notes = app.recorder.select_notifications(3, 40, stop=head - 5, inclusive_of_start=False)
    ids = decode.Decoder(app.mapper).stream_id
    assert [(p, ids(i)[0], v, t, s) for p, i, v, t, s in decode.select(store, 3, 40, head - 5)
            ] == [(n.id, n.originator_id, n.originator_version, n.topic, n.state) for n in notes]
    rows = decode.select(store, 0, head + 10)
    assert [r[0] for r in rows] == [n.id for n in app.recorder.select_notifications(
        0, head + 10, inclusive_of_start=False)]
    decoder = decode.Decoder(app.mapper)
    for position, stored_id, version, topic, state in rows:
        uid = decoder.stream_id(stored_id)[0]
        expected: Any = app.mapper.to_domain_event(StoredEvent(uid, version, topic, state))
        event = decoder(stored_id, version, topic, state)
        assert type(event) is type(expected), position
        assert event == expected, position
        assert event.stored_state() == expected.stored_state() == state_bytes(state)


EDITS = {
    "an amount as a string": '"amount":"500"',
    "an amount past the range": f'"amount":{2**63}',
    "an amount with an exponent": '"amount":5e2',
    "an amount of escaped digits": '"amount":"\\u0035\\u0030\\u0030"',
    "a field too many": '"amount":500,"extra":1',
    "a class version": '"amount":500,"class_version":1',
    "an amount of the wrong kind": '"amount":[500]',
}


def test_rows_off_the_fast_path_decode_or_fail_as_the_mapper_decides(app: LedgerApp) -> None:
    app.execute(OpenTable(command_id="o", table="T9", game="caribbean-stud"))
    app.execute(SeatPlayer(command_id="s", table="T9", seat=1, player="p1"))
    app.execute(BuyIn(command_id="b", table="T9", seat=1, amount=500))
    with app.reading("T9") as table:
        last = table.version
    stored = app.recorder.select_events(table_id("T9"), gt=last - 1)[0]
    text = bytes(stored.state).decode()
    assert '"amount":500' in text
    decoder = decode.Decoder(app.mapper)
    for how, written in EDITS.items():
        for state in (text.replace('"amount":500', written, 1).encode(),
                      text.replace('"amount":500', written, 1)):  # text, as a hand edit leaves
            mine = _outcome(lambda s=state: decoder(str(stored.originator_id),
                                                    stored.originator_version, stored.topic, s))
            theirs = _outcome(lambda s=state: app.mapper.to_domain_event(
                StoredEvent(stored.originator_id, stored.originator_version, stored.topic, s)))
            assert mine == theirs, how
