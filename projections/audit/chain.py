"""The hash chain of one table, checked over the raw stored rows.

Each stored event carries, in its JSON, the digest of the event before it (``prev_hash``; the
first carries the genesis hash), and an event's digest covers its table, version, topic and the
exact stored bytes (``ledger.table.chain_digest``). Walking the rows in version order:

- a missing version is ``event_deleted``;
- a row whose link does not match the digest of the row before it is classified: a link already
  carried by an earlier row is ``event_inserted`` (a copied event); a row out of time order, or
  whose link is the digest of the next row's content at this place, is ``events_reordered``;
  anything else is ``event_edited``: the event before no longer hashes to what this one carries.

An event edited in place at the head of a stream has no successor to expose it: the command-log
copy (``ledger_commands`` keeps every event a command appended, written in the same transaction)
and the daily seal catch that, and a truncated tail too. Each stored event is compared with its
copy in the command log: ``command_log_mismatch`` (the stored event differs from the copy),
``command_log_missing`` (the log has an event the store lacks), ``command_log_unknown``
(a stored event no command appended).
"""

from __future__ import annotations

import hashlib
import itertools
import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from ledger.persistence import state_bytes
from ledger.table import TableOpened as TableOpenedEvent
from ledger.table import chain_digest, topic_of
from ledger.tablestate import GENESIS_HASH
from projections.db import Store

Report = Callable[[str, int | None, Any, Any], None]
"""``report(kind, hand, expected, recorded)``."""
OPENED_TOPIC = topic_of(TableOpenedEvent)


@dataclass
class Row:
    version: int
    topic: str
    state: bytes
    data: dict[str, Any] | None
    digest: str

    @property
    def prev_hash(self) -> str | None:
        return None if self.data is None else self.data.get("prev_hash")

    @property
    def timestamp(self) -> str | None:
        return None if self.data is None else self.data.get("timestamp")

    @property
    def hand(self) -> int | None:
        return None if self.data is None else self.data.get("hand_no")


def canonical(data: dict[str, Any]) -> str:
    """A digest of an event's JSON content that does not depend on key order or spacing."""
    text = json.dumps(data, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


class ChainCheck:
    """Feed the stored rows of one table in version order, then :meth:`finish`."""

    def __init__(self, table_id: UUID, report: Report,
                 command_log: dict[int, str] | None = None,
                 wanted: set[int] | None = None) -> None:
        self.table_id = table_id
        self.report = report
        self.log = command_log
        self.wanted = wanted or set()
        self.seen_links: dict[str, int] = {}
        self.versions: set[int] = set()
        self.digests: dict[int, str] = {}
        """Digests of the ``wanted`` versions (the sealed heads)."""
        self.last_version = 0
        self._done: list[Row] = []
        self._pending: Row | None = None
        self._skip_until = 0

    def feed(self, version: int, topic: str, state: bytes) -> Row:
        try:
            data = json.loads(state)
            if not isinstance(data, dict):
                raise ValueError("not an object")
        except ValueError as exc:
            data = None
            self.report("undecodable_event", None, "an event in JSON",
                        {"version": version, "error": str(exc)})
        raw = state_bytes(state)
        row = Row(version, topic, raw, data, chain_digest(self.table_id, version, topic, raw))
        self.versions.add(version)
        if version in self.wanted:
            self.digests[version] = row.digest
        if self._pending is not None:
            self._check(self._pending, row)
        self._pending = row
        return row

    def finish(self) -> None:
        if self._pending is not None:
            self._check(self._pending, None)
            self._pending = None
        if self.log is not None:
            missing = sorted(v for v in self.log if v not in self.versions)
            if missing:
                self.report("command_log_missing", None,
                            {"versions": missing[:50], "count": len(missing)},
                            {"last_version": self.last_version})

    # --- one row ---------------------------------------------------------------------------

    def _check(self, row: Row, nxt: Row | None) -> None:
        prev = self._done[-1] if self._done else None
        expected_version = prev.version + 1 if prev else 1
        gap = row.version != expected_version
        if gap:
            self.report("event_deleted", None, {"version": expected_version},
                        {"version": row.version, "missing": list(range(expected_version,
                                                                       row.version))[:50]})
        if prev is None and row.version == 1 and (row.topic != OPENED_TOPIC
                                                  or row.prev_hash != GENESIS_HASH):
            self.report("stream_start", None, {"version": 1, "topic": OPENED_TOPIC,
                                               "prev_hash": GENESIS_HASH},
                        {"version": 1, "topic": row.topic, "prev_hash": row.prev_hash})
        elif prev is not None and not gap and row.data is not None \
                and row.prev_hash != prev.digest and row.version > self._skip_until:
            self._classify(prev, row, nxt)
        if row.prev_hash is not None:
            self.seen_links.setdefault(row.prev_hash, row.version)
        self._command_log(row)
        self.last_version = row.version
        self._done = [*self._done[-1:], row]

    def _classify(self, prev: Row, row: Row, nxt: Row | None) -> None:
        link = row.prev_hash
        before = self._done[-2] if len(self._done) > 1 else None
        if link in self.seen_links:
            self.report("event_inserted", row.hand,
                        {"version": row.version, "prev_hash": prev.digest},
                        {"version": row.version, "prev_hash": link,
                         "same_link_as_version": self.seen_links[link]})
        elif nxt is not None and link == chain_digest(self.table_id, row.version,
                                                      nxt.topic, nxt.state):
            self.report("events_reordered", row.hand, {"version": row.version},
                        {"version": row.version, "content_of": "version " + str(nxt.version)})
            self._skip_until = row.version + 2
        elif _out_of_order(before, prev, row, nxt):
            self.report("events_reordered", row.hand, {"version": row.version,
                                                       "prev_hash": prev.digest},
                        {"version": row.version, "prev_hash": link,
                         "timestamp": row.timestamp})
        else:
            self.report("event_edited", prev.hand,
                        {"version": prev.version, "hash": link},
                        {"version": prev.version, "hash": prev.digest})

    def _command_log(self, row: Row) -> None:
        if self.log is None or row.data is None:
            return
        copy = self.log.get(row.version)
        if copy is None:
            self.report("command_log_unknown", row.hand, {"version": row.version,
                                                          "in_command_log": True},
                        {"version": row.version, "in_command_log": False})
        elif copy != canonical(row.data):
            self.report("command_log_mismatch", row.hand,
                        {"version": row.version, "content_sha256": copy},
                        {"version": row.version, "content_sha256": canonical(row.data)})


def _out_of_order(*rows: Row | None) -> bool:
    stamps = [r.timestamp for r in rows if r is not None and r.timestamp]
    return any(a > b for a, b in itertools.pairwise(stamps))


def command_log(store: Store, table_id: UUID) -> dict[int, str]:
    """version -> canonical digest of every event the command log holds for a table."""
    copies: dict[int, str] = {}
    for result in _results(store, table_id):
        try:
            events = json.loads(result)["events"]
        except (ValueError, KeyError, TypeError):
            continue
        for event in events:
            version = event.pop("version", None)
            event.pop("type", None)
            if isinstance(version, int):
                copies[version] = canonical(event)
    return copies


def _results(store: Store, table_id: UUID) -> Iterator[str]:
    with store.transaction(commit=False) as tx:
        rows = tx.fetchall("SELECT result FROM {ledger_commands} WHERE table_id = ?",
                           (str(table_id),))
    for row in rows:
        yield row["result"]


def table_ids(store: Store) -> list[UUID]:
    """Every stream in the events table."""
    rows = store.fetchall(
        f"SELECT DISTINCT originator_id FROM {store.name(store.events_table)}"
    )
    return sorted(_uuid(row["originator_id"]) for row in rows)


def _uuid(value: Any) -> UUID:
    return value if isinstance(value, UUID) else UUID(str(value))


def stored_rows(app: Any, table_id: UUID, page: int = 1_000) -> Iterable[Any]:
    """The raw stored events of a table in version order, page by page."""
    after = 0
    while True:
        rows = app.recorder.select_events(table_id, gt=after, limit=page)
        yield from rows
        if len(rows) < page:
            return
        after = rows[-1].originator_version
