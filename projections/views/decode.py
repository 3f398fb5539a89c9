"""Reading the log for the views: the rows of the events table as they are, and each event
decoded once, exactly as the application's mapper decodes it.

:func:`select` reads a page of the log with one statement and no per-row objects beyond the
driver's (the library's ``select_notifications`` parses every row's stream id into a ``UUID``
and wraps it in a dataclass). :class:`Decoder` turns a row into its event: the stream ids are
parsed once per table; an event whose class is at version 1 and whose stored JSON is an object
without a ``class_version`` is validated in one step by its pydantic model, with the envelope
(the row's id and version) appended as the object's last keys, as
:meth:`ledger.store.mapper.PydanticMapper.to_domain_event` does; every other row, and every row
that step refuses for any reason, goes to the application's mapper, which decides the outcome
and the error exactly as before. So the events the views see are the mapper's, value for value.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from uuid import UUID

from eventsourcing.persistence import StoredEvent

from ledger.store.mapper import PydanticMapper
from projections.db import Store

Row = tuple[int, Any, int, str, Any]
"""(log position, stream id as stored, version, topic, state) of one stored event."""


def select(store: Store, after: int, limit: int, stop: int | None = None,
           streams: Sequence[Any] | None = None) -> list[Row]:
    """The events after log position ``after`` (up to ``stop``), at most ``limit``, in log
    order: what ``select_notifications(after, limit, stop, inclusive_of_start=False)``
    returns, as plain tuples; with ``streams`` (stream ids as stored; SQLite only), only
    theirs."""
    column = store.notification_column
    text = (f"SELECT {column} AS id, originator_id, originator_version, topic, state "
            f"FROM {store.name(store.events_table)} WHERE {column} > ?")
    params: list[Any] = [after]
    if stop is not None:
        text += f" AND {column} <= ?"
        params.append(stop)
    if streams is not None:  # the rows in log order, not by the index of the streams (``+``)
        text += f" AND +originator_id IN ({','.join('?' * len(streams))})"
        params.extend(streams)
    text += f" ORDER BY {column} LIMIT ?"
    params.append(limit)
    with store.transaction(commit=False) as tx:
        tx.cursor.execute(store.sql(text), params)
        found = tx.cursor.fetchall()
    if store.postgres:  # dictionaries
        return [(r["id"], r["originator_id"], r["originator_version"], r["topic"], r["state"])
                for r in found]
    return [(r[0], r[1], r[2], r[3], r[4]) for r in found]


class Decoder:
    """Decodes rows into events, as the application's ``mapper.to_domain_event`` does."""

    def __init__(self, mapper: Any) -> None:
        self._mapper = mapper
        self._fast = type(mapper) is PydanticMapper
        self._ids: dict[Any, tuple[UUID, bytes]] = {}

    def stream_id(self, stored: Any) -> tuple[UUID, bytes]:
        """The stream id of a row (as a ``UUID`` and as the text the mapper writes)."""
        found = self._ids.get(stored)
        if found is None:
            uid = stored if isinstance(stored, UUID) else UUID(str(stored))
            if len(self._ids) >= 100_000:
                self._ids.clear()
            found = self._ids[stored] = (uid, str(uid).encode())
        return found

    def __call__(self, stored_id: Any, version: int, topic: str, state: Any) -> Any:
        uid, text = self.stream_id(stored_id)
        if self._fast and type(version) is int:
            try:
                event = PydanticMapper.fast_event(topic, state, text, version)
            except Exception:  # an unknown topic, a state of another type: the mapper reports
                event = None
            if event is not None:
                return event
        return self._mapper.to_domain_event(StoredEvent(uid, version, topic, state))
