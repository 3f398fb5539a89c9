"""Queries on the corrections view (COR-1..5), used by :class:`projections.read.queries.ReadModel`:
the corrections themselves, those of one hand, and the per-day correction line of the
accounting."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from projections.db import Row, Store

LINE = ("corrections", "corrections_house_minor", "corrections_rake_minor",
        "corrections_cage_minor", "corrections_owed_minor")
"""The accounting's correction line: how many, and the house's, the rake's, the cage's and
the owed accounts' change through them (so the day's win is explained)."""


def corrections(store: Store, where: str, params: tuple[Any, ...], page: str = "") -> list[Row]:
    rows = store.fetchall("SELECT * FROM {proj_corrections}" + where
                          + " ORDER BY table_code, version" + page, params)
    for row in rows:
        row["detail"] = json.loads(row.pop("detail_json"))
        row["approvers"] = [a for a in row["approvers"].split(", ") if a]
    return rows


def of_hand(store: Store, code: str, hand_no: int) -> list[Row]:
    """The corrections of one hand: its re-settlements, and the seat corrections whose period
    holds it."""
    rows = corrections(store, " WHERE table_code = ? AND (hand_no = ? OR kind = 'seat')",
                       (code, hand_no))
    return [r for r in rows if r["kind"] == "hand" or (
        r["detail"]["from_hand"] <= hand_no <= r["detail"]["to_hand"])]


def accounting_line(store: Store, rows: list[Row]) -> None:
    """Add the day's correction line to each accounting row (in place)."""
    sums = store.fetchall(
        "SELECT table_code, gaming_day, COUNT(*) AS corrections, SUM(house_minor) AS "
        "corrections_house_minor, SUM(rake_minor) AS corrections_rake_minor, SUM(cage_minor) "
        "AS corrections_cage_minor, SUM(owed_minor) AS corrections_owed_minor FROM "
        "{proj_corrections} GROUP BY table_code, gaming_day")
    found = {(s["table_code"], s["gaming_day"]): s for s in sums}
    for row in rows:
        line = found.get((row["table_code"], row["gaming_day"]), {})
        for key in LINE:
            row[key] = int(line.get(key) or 0)


_PAGE = 1_000


def correction_events(app: Any, code: str, hand_no: int, *, after: int = 0) -> list[Any]:
    """The stored correction events of one hand (COR-1, COR-3): its re-settlements and the seat
    corrections whose period holds it, in the order stored (in a fleet, the store that holds
    the table).

    Read from the table's own stream after version ``after`` (the caller may pass the version
    before the hand's first event: nothing corrects a hand before it started), decoding only
    the correction records; the views are neither read nor brought up to date, so a reading
    command costs the same whether or not the follower has run. A correction event that
    cannot be decoded raises :class:`ledger.domain.errors.UndecodableEvent`, naming it."""
    from ledger.domain.records import HandCorrected, SeatCorrected
    from ledger.store.fleet import store_of
    from ledger.store.history import decoded
    from ledger.table.events import table_id

    app = store_of(app, code)
    tid = table_id(code)
    found: list[Any] = []
    for stored in _stored_of(app, tid, after):
        event = decoded(app, stored, code)
        if (isinstance(event, HandCorrected) and event.hand == hand_no) or (
                isinstance(event, SeatCorrected)
                and event.from_hand <= hand_no <= event.to_hand):
            found.append(event)
    return found


def indexed_corrections(app: Any, tid: Any, after: int, upto: int) -> list[int] | None:
    """The versions after ``after`` up to ``upto`` of the table's correction events as the
    corrections index gives them (what a hand's replay reads of the table after the hand;
    :func:`correction_events`), or None for a recorder other than the library's SQLite or
    PostgreSQL one (no index)."""
    from eventsourcing.sqlite import SQLiteApplicationRecorder

    from ledger.store.errors import loaded_classes

    if not isinstance(app.recorder, (SQLiteApplicationRecorder, *loaded_classes(
            "eventsourcing.postgres", "PostgresApplicationRecorder"))):
        return None
    return [s.originator_version for s in _stored_of(app, tid, after)
            if s.originator_version <= upto]


def _stored_of(app: Any, tid: Any, after: int) -> Iterator[Any]:
    """The table's stored correction events after ``after``, in version order: found by the
    database through the corrections index (``ledger.store.schema.CORRECTIONS_WHERE``; without
    it, by comparing the topic of each of the table's rows after ``after``), then read;
    through the recorder's API page by page for a recorder other than the library's SQLite or
    PostgreSQL one."""
    from eventsourcing.persistence import StoredEvent
    from eventsourcing.sqlite import SQLiteApplicationRecorder

    from ledger.store.errors import loaded_classes
    from ledger.store.mapper import state_bytes
    from ledger.store.schema import CORRECTION_TOPICS, CORRECTIONS_WHERE

    if not isinstance(app.recorder, (SQLiteApplicationRecorder, *loaded_classes(
            "eventsourcing.postgres", "PostgresApplicationRecorder"))):
        while True:
            page = app.recorder.select_events(tid, gt=after, limit=_PAGE)
            yield from (s for s in page if s.topic in CORRECTION_TOPICS)
            if len(page) < _PAGE:
                return
            after = page[-1].originator_version
    store = Store(app.recorder)
    rows = store.fetchall(
        "SELECT originator_version AS v, topic, state FROM {" + store.events_table + "} "
        f"WHERE originator_id = ? AND originator_version > ? AND {CORRECTIONS_WHERE} "
        "ORDER BY originator_version", (tid if store.postgres else tid.hex, after))
    for row in rows:
        yield StoredEvent(originator_id=tid, originator_version=int(row["v"]),
                          topic=row["topic"], state=state_bytes(row["state"]))
