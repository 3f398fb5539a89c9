"""Reading a table's past straight from its event stream (for replays and the audit)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, cast

from ledger.application import LedgerApp
from ledger.errors import NotFound
from ledger.table import TableEvent, table_id

_PAGE = 256


def stream(app: LedgerApp, code: str, *, after: int = 0) -> Iterator[TableEvent]:
    """Every event of the table after version ``after``, in order, page by page."""
    tid = table_id(code)
    while True:
        page = app.recorder.select_events(tid, gt=after, limit=_PAGE)
        for stored in page:
            yield cast(TableEvent, app.mapper.to_domain_event(stored))
        if len(page) < _PAGE:
            return
        after = page[-1].originator_version


def hand_events(app: LedgerApp, code: str, hand_no: int) -> list[TableEvent]:
    """The events of hand ``hand_no`` (from HandStarted to its ending, or so far).

    Finds the hand by binary search over versions, so it costs the same on a long history.
    """
    table = app.load(code)
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
    tid = table_id(code)
    lo, hi = 1, table.version
    while lo < hi:
        mid = (lo + hi) // 2
        seen = _first_hand_no(app, tid, mid)
        if seen is None or seen >= hand_no:
            hi = mid
        else:
            lo = mid + 1
    events: list[TableEvent] = []
    for event in stream(app, code, after=lo - 1):
        number = getattr(event, "hand_no", None)
        if number is None:
            continue
        if number > hand_no:
            break
        if number == hand_no:
            events.append(event)
    return events


def _first_hand_no(app: LedgerApp, tid: Any, version: int) -> int | None:
    """The hand number of the first hand event at or after ``version``."""
    after = version - 1
    while True:
        page = app.recorder.select_events(tid, gt=after, limit=32)
        for stored in page:
            event = app.mapper.to_domain_event(stored)
            number = getattr(event, "hand_no", None)
            if number is not None:
                return int(number)
        if len(page) < 32:
            return None
        after = page[-1].originator_version
