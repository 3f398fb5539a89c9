"""Reading a table's past straight from its event stream (for replays and the audit)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, cast

from ledger.domain.errors import LedgerError, NotFound, UndecodableEvent
from ledger.domain.records import HAND_ENDINGS, HandStarted
from ledger.store.base import LedgerStore
from ledger.store.fleet import Stores, store_of
from ledger.table.events import (
    EVENT_FOR,
    ChainBroken,
    Table,
    TableEvent,
    TableOpened,
    table_id,
    topic_of,
)
from ledger.table.state import TableState

_PAGE = 256
_PROBE = 8
"""Rows read at a time by a probe of the binary search for a hand's start: a hand event is
mostly the first row a probe reads."""


def undecodable(table: str, version: int, exc: BaseException) -> UndecodableEvent:
    """The error naming a stored row that cannot be decoded: the table, the version and what
    is wrong (as the audit's ``undecodable_event`` names it)."""
    error = (str(exc).splitlines() or [""])[0] or type(exc).__name__
    return UndecodableEvent(
        "undecodable_event", f"table {table}: the stored event at v{version} cannot be decoded "
        f"({error}): its record was altered, and the table cannot be read through it",
        table=table, version=version, error=error)


def decoded(app: LedgerStore, stored: Any, table: str) -> TableEvent:
    """The event of a stored row of ``table``; :class:`UndecodableEvent` when it cannot be
    decoded (an unknown topic, not JSON, a field that fails validation, no such class
    version), never the decoder's own error."""
    try:
        return cast(TableEvent, app.mapper.to_domain_event(stored))
    except Exception as exc:
        raise undecodable(table, stored.originator_version, exc) from exc


def stream(app: Stores, code: str, *, after: int = 0) -> Iterator[TableEvent]:
    """Every event of the table after version ``after``, in order, page by page (``app``: an
    application, or a fleet: the store that holds the table); :class:`UndecodableEvent` at a
    row that cannot be decoded."""
    app = store_of(app, code)
    tid = table_id(code)
    while True:
        page = app.recorder.select_events(tid, gt=after, limit=_PAGE)
        for stored in page:
            yield decoded(app, stored, code)
        if len(page) < _PAGE:
            return
        after = page[-1].originator_version


def hand_events(app: Stores, code: str, hand_no: int) -> list[TableEvent]:
    """The events of hand ``hand_no`` (from HandStarted to its ending, or so far).

    Finds the hand by binary search over versions, so it costs the same on a long history;
    the stored head is read, the table is not loaded. When that does not find the hand
    starting with its HandStarted (an unknown hand, or a record whose hand numbers were
    altered), the table is loaded: an unknown hand is then told as such, and a table whose
    stored chain is broken, which cannot be loaded, is read through, as stored (the caller
    says that the chain is broken), as is one with a row that cannot be decoded. A row read
    that cannot be decoded (by the search's probes or in the hand) raises
    :class:`UndecodableEvent`, naming it.
    """
    app = store_of(app, code)
    tid = table_id(code)
    rows = app.recorder.select_events(tid, desc=True, limit=1) if hand_no >= 1 else []
    if rows:
        found = _hand_from(app, code, hand_no, _hand_start(
            app, tid, hand_no, rows[0].originator_version, code))
        if found and isinstance(found[0], HandStarted) and found[0].hand_no == hand_no:
            return found
    try:
        table = app.load(code)
    except ChainBroken:
        return _scanned(app, code, hand_no)
    except LedgerError:
        raise
    except Exception:  # a row that cannot be decoded: the read through names it
        return _scanned(app, code, hand_no)
    last_hand = table.state.hand_no
    if not 1 <= hand_no <= last_hand:
        raise NotFound(
            "unknown_hand",
            f"table {code} has hands 1 to {last_hand}"
            if last_hand
            else f"table {code} has no hands",
            table=code,
            hand=hand_no,
        )
    return _hand_from(app, code, hand_no, _hand_start(app, tid, hand_no, table.version, code))


def _hand_from(app: LedgerStore, code: str, hand_no: int, start: int) -> list[TableEvent]:
    """The events of hand ``hand_no`` read from version ``start`` on."""
    events: list[TableEvent] = []
    for event in stream(app, code, after=start - 1):
        number = getattr(event, "hand_no", None)
        if number is None:
            continue
        if number > hand_no:
            break
        if number == hand_no:
            events.append(event)
    return events


def _scanned(app: LedgerStore, code: str, hand_no: int) -> list[TableEvent]:
    events = [e for e in stream(app, code) if getattr(e, "hand_no", None) == hand_no]
    if not events:
        raise NotFound("unknown_hand", f"table {code} has no hand {hand_no}", table=code,
                       hand=hand_no)
    return events


def opening(app: Stores, code: str) -> TableOpened:
    """The table's opening event, as stored (its code, game, currency and time zone; ``app``:
    an application, or a fleet: the store that holds the table)."""
    first = next(stream(app, code), None)
    if not isinstance(first, TableOpened):
        raise NotFound("unknown_table", f"no table {code!r} in the store", table=code)
    return first


def _hand_start(app: LedgerStore, tid: Any, hand_no: int, upto: int, table: str) -> int:
    """The first version at or after which the first hand event belongs to hand ``hand_no``
    or a later one (binary search over versions 1 to ``upto``): where the hand's events begin
    (``table``: the table's name in an :class:`UndecodableEvent`)."""
    lo, hi = 1, upto
    while lo < hi:
        mid = (lo + hi) // 2
        seen = _first_hand_no(app, tid, mid, table)
        if seen is None or seen >= hand_no:
            hi = mid
        else:
            lo = mid + 1
    return lo


def _first_hand_no(app: LedgerStore, tid: Any, version: int, table: str) -> int | None:
    """The hand number of the first hand event at or after ``version``."""
    after = version - 1
    while True:
        page = app.recorder.select_events(tid, gt=after, limit=_PROBE)
        for stored in page:
            number = getattr(decoded(app, stored, table), "hand_no", None)
            if number is not None:
                return int(number)
        if len(page) < _PROBE:
            return None
        after = page[-1].originator_version


class StorePast:
    """A table's past as stored, up to version ``upto`` (what corrections are decided from,
    :class:`ledger.table.corrections.Past`).

    ``snapshots``: the state before a version may start from a stored snapshot (the
    application); the audit trusts no snapshot: it starts from the nearest of its own
    ``checkpoints`` (states it computed itself while replaying, version -> snapshot data), or
    from the first event.

    A row read that cannot be decoded raises :class:`UndecodableEvent` naming ``label`` (the
    table's code; its id when not given).
    """

    def __init__(self, app: LedgerStore, tid: Any, upto: int, *, snapshots: bool,
                 checkpoints: dict[int, dict[str, Any]] | None = None,
                 label: str | None = None) -> None:
        self.app = app
        self.tid = tid
        self.label = label or str(tid)
        self.upto = upto
        self.snapshots = snapshots
        self.checkpoints = checkpoints or {}

    def _decode(self, stored: Any) -> TableEvent:
        return decoded(self.app, stored, self.label)

    def event(self, version: int) -> TableEvent | None:
        if not 1 <= version <= self.upto:
            return None
        found = self.app.recorder.select_events(self.tid, gt=version - 1, lte=version)
        return self._decode(found[0]) if found else None

    def since(self, version: int, only: tuple[type, ...] = ()) -> Iterator[TableEvent]:
        topics = {topic_of(EVENT_FOR[cls]) for cls in only}
        after = version
        while after < self.upto:
            page = self.app.recorder.select_events(self.tid, gt=after, lte=self.upto,
                                                   limit=_PAGE)
            yield from (self._decode(s) for s in page if not topics or s.topic in topics)
            if len(page) < _PAGE:
                return
            after = page[-1].originator_version

    def hand_events(self, hand_no: int) -> list[TableEvent]:
        events: list[TableEvent] = []
        for event in self.since(_hand_start(self.app, self.tid, hand_no, self.upto,
                                            self.label) - 1):
            number = getattr(event, "hand_no", None)
            if number is None:
                continue
            if number > hand_no:
                break
            if number == hand_no:
                events.append(event)
                if isinstance(event, HAND_ENDINGS):
                    break
        return events

    def state_before(self, version: int) -> TableState:
        if self.snapshots and version > 1:
            table: Table = self.app.repository.get(self.tid, version=version - 1)
            return table.state
        start = max((v for v in self.checkpoints if v < version), default=0)
        if start:
            state = TableState.from_snapshot(self.checkpoints[start])
            for event in StorePast(self.app, self.tid, version - 1, snapshots=False,
                                   label=self.label).since(start):
                state.apply(event)  # type: ignore[arg-type]
            return state
        folded: Table | None = None
        for event in StorePast(self.app, self.tid, version - 1, snapshots=False,
                               label=self.label).since(0):
            folded = event.mutate(folded)
        if folded is None:
            raise NotFound("unknown_table", "the table has no events before its first")
        return folded.state
