"""The topics the store holds for the table's stream are names, not module paths: every event
class, the table and its snapshot keep ``ledger.table:<name>`` wherever their module lives,
so moving code never changes a stored row, a chain link or the corrections index."""

from __future__ import annotations

from eventsourcing.utils import resolve_topic

from ledger.store.mapper import _topic
from ledger.table.events import EVENT_FOR, Table, TableSnapshot, chain_digest, topic_of


def test_every_class_of_the_stream_keeps_its_stored_topic() -> None:
    classes = [*EVENT_FOR.values(), Table, TableSnapshot]
    assert len(classes) >= 24
    for cls in classes:
        topic = f"ledger.table:{cls.__qualname__}"
        assert topic_of(cls) == topic == _topic(cls)
        assert resolve_topic(topic) is cls


def test_a_chain_link_digests_the_stored_topic() -> None:
    opened = next(c for c in EVENT_FOR.values() if c.__name__ == "TableOpened")
    assert chain_digest("t", 1, topic_of(opened), b"{}") == chain_digest(
        "t", 1, "ledger.table:TableOpened", b"{}")
