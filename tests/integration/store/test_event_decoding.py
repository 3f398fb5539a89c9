"""Reading a stored event: the fast path (pydantic validating the stored JSON in one step) gives
exactly the event the full path (``json.loads``, then the model) gives, keeps the very bytes
read for the chain, and leaves every row it does not accept to the full path, which accepts or
refuses it as before."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest
from eventsourcing.persistence import StoredEvent

from ledger.app.application import LedgerApp
from ledger.settings import Settings
from ledger.sim.runner import simulate
from ledger.store.mapper import PydanticMapper

GAMES = (("caribbean-stud", "CSP-D"), ("stud-hilo", "STUD8-D"), ("chinese-poker", "CHP-D"),
         ("high-card-flush", "HCF-D"))


@pytest.fixture(scope="module")
def rows(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[StoredEvent]]:
    folder = tmp_path_factory.mktemp("decoding")
    settings = Settings(database_url=f"sqlite:///{folder / 'store.sqlite3'}",
                        deck_key_file=folder / "deck.key")
    ledger = LedgerApp(settings)
    try:
        for game, code in GAMES:
            simulate(ledger, game, code, 3, seed=5)
        stored = ledger.recorder.select_notifications(start=1, limit=100_000)
        assert len({s.topic for s in stored}) >= 8
        yield list(stored)
    finally:
        ledger.close()


def full_path(mapper: PydanticMapper, row: StoredEvent) -> Any:
    return mapper.from_data(row, json.loads(row.state))


def outcome(call: Any) -> tuple[str, Any]:
    try:
        event = call()
    except Exception as exc:  # the outcome compared is the error kind
        return "refused", type(exc).__name__
    return "read", (type(event), event.model_dump(), event.stored_state())


def test_every_stored_event_reads_the_same_on_both_paths(rows: list[StoredEvent]) -> None:
    mapper = PydanticMapper()
    for row in rows:
        fast = mapper.to_domain_event(row)
        full = full_path(mapper, row)
        assert type(fast) is type(full)
        assert fast == full
        assert fast.model_dump() == full.model_dump()
        assert fast.stored_state() == bytes(row.state)  # the chain hashes the bytes read


@pytest.mark.parametrize("edit", [
    lambda s: s.replace(b'"prev_hash":', b'"prev_hash":"x","prev_hash":', 1),  # duplicate key
    lambda s: s[:-1] + b',"originator_version":999}',  # the envelope in the bytes
    lambda s: s[:-1] + b',"class_version":1}',  # an upcast marker: the full path only
    lambda s: s[:-1] + b',"surplus":1}',  # a field the model forbids
    lambda s: s[:-1] + b' } ',  # trailing blanks
    lambda s: s[:-1],  # cut short
    lambda s: s + b"}",  # extra data
    lambda s: s.replace(b'"timestamp":"', b'"timestamp":"x', 1),  # a bad time
    lambda s: s.replace(b'"prev_hash":"', b'"prev_hash":"}', 1),  # a brace inside a string
    lambda s: b"{}",
    lambda s: b"[]",
    lambda s: b"",
    lambda s: s.decode().encode("utf-16"),
])
def test_an_altered_row_reads_or_is_refused_as_on_the_full_path(
        rows: list[StoredEvent], edit: Any) -> None:
    mapper = PydanticMapper()
    for row in rows[:40]:
        altered = replace(row, state=edit(bytes(row.state)))
        assert outcome(lambda a=altered: mapper.to_domain_event(a)) == outcome(
            lambda a=altered: full_path(mapper, a))


def test_the_fast_path_reads_a_row_as_written(rows: list[StoredEvent],
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    mapper = PydanticMapper()

    def no_full_path(*_: Any) -> Any:
        raise AssertionError("the full path was taken")

    monkeypatch.setattr(mapper, "from_data", no_full_path)
    for row in rows:
        mapper.to_domain_event(row)
