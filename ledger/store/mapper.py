"""The pydantic mapper: each event stored as exactly the JSON its model gives (the bytes the
table's hash chain digests), and read back validated in full by its model, upcast when an older
``class_version`` was stored."""

from __future__ import annotations

import json
from functools import cache
from typing import Any
from uuid import UUID

from eventsourcing.persistence import Mapper, StoredEvent
from eventsourcing.utils import resolve_topic


class PydanticMapper(Mapper[UUID]):
    """Stores each event as the JSON of its pydantic model, without a transcoder.

    The bytes stored are exactly those the aggregate hashed into the table's chain.
    """

    def __init__(self) -> None:
        super().__init__(transcoder=None)  # type: ignore[arg-type]

    def to_stored_event(self, domain_event: Any) -> StoredEvent:
        return StoredEvent(
            originator_id=domain_event.originator_id,
            originator_version=domain_event.originator_version,
            topic=_topic(domain_event.__class__),
            state=domain_event.stored_state(),
        )

    def to_domain_event(self, stored_event: StoredEvent) -> Any:
        """The event of a stored row, validated in full by its pydantic model.

        Fast path: pydantic parses and validates the stored JSON in one step, with the
        envelope (the row's id and version) appended as the object's last keys, so they win
        over any the bytes hold, as :meth:`from_data` sets them. Rows that need an upcast, or
        that the fast path refuses for any reason, take :meth:`from_data`, which decides the
        outcome (and the error) exactly as before: the fast path accepts nothing it refuses."""
        event = self.fast_event(stored_event.topic, stored_event.state,
                                str(stored_event.originator_id).encode(),
                                stored_event.originator_version)
        if event is not None:
            return event
        return self.from_data(stored_event, json.loads(stored_event.state))

    @staticmethod
    def fast_event(topic: str, state: Any, stream_id: bytes, version: int) -> Any:
        """The fast path of :meth:`to_domain_event` (``stream_id``: the row's id as text): the
        event, or None where it does not apply (an upcast is due, the JSON is not a plain
        object) or pydantic refuses the row, which the full path then decides and reports."""
        raw = state_bytes(state)
        cls = _resolve(topic)
        if cls.class_version != 1 or raw[:1] != b"{" or raw[-1:] != b"}" \
                or b'"class_version"' in raw:
            return None
        try:
            event = cls.__pydantic_validator__.validate_json(
                raw[:-1] + b',"originator_id":"%s","originator_version":%d}' % (stream_id, version))
        except Exception:  # the full path decides and reports
            return None
        event.keep_stored(raw)
        return event

    def from_data(self, stored_event: StoredEvent, data: dict[str, Any]) -> Any:
        """The event of a stored row whose JSON is already parsed (``data`` is consumed)."""
        cls = _resolve(stored_event.topic)
        data["originator_id"] = stored_event.originator_id
        data["originator_version"] = stored_event.originator_version
        from_version = data.pop("class_version", 1)
        while from_version < cls.class_version:
            getattr(cls, f"upcast_v{from_version}_v{from_version + 1}")(data)
            from_version += 1
        event = cls.model_validate(data)
        event.keep_stored(state_bytes(stored_event.state))
        return event


def state_bytes(state: Any) -> bytes:
    """A stored event's state as bytes. The ledger writes bytes; a row rewritten by hand may hold
    text instead (SQLite keeps what an UPDATE gives it), which must still be read and hashed."""
    if isinstance(state, str):
        return state.encode()
    return bytes(state)


@cache
def _resolve(topic: str) -> Any:
    return resolve_topic(topic)


@cache
def _topic(cls: Any) -> str:
    """The topic stored for ``cls``: the name it declares for the store (the table's events,
    ``ledger.table.events.topic_of``), else ``module:qualname``."""
    stored: str | None = getattr(cls, "stored_topic", None)
    return stored or f"{cls.__module__}:{cls.__qualname__}"
