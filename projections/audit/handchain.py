"""The stretches of a table's hash chain that one hand's replay shows, checked between signed
snapshots instead of from the table's first event.

A table that has a chain anchor (``ledger.store.trust``: a signed snapshot at or after a multiple of
``LEDGER_CHAIN_ANCHOR_INTERVAL``) is not walked whole for one hand. Each span of versions that
``ledger replay`` or ``ledger audit hand`` shows (the hand, each correction of it) is checked
from the latest signed snapshot before the span (when the table has an anchor before it; else
from the first event) to the first signed snapshot after it (else to the table's last event):

- the first row after the start must carry the start's signed digest, and every row the
  digest of the row before it (``projections.audit.chain.ChainCheck``: edits, deletions,
  insertions and reorderings are named as the whole-table walk names them);
- the digest of the row at the end must be the end's signed digest (``chain_anchor_mismatch``
  otherwise): a rewrite that recomputed every digest after an edit, which needs no key, does
  not pass; with an HMAC made with the service's key (not in the database) at both ends, every
  byte of every row in between is what the ledger wrote;
- every row is compared with its command-log copy, and the log's copies of the commands those
  rows name (and, at the table's end, of the commands written after them) must all be stored.

A table without an anchor (shorter than the interval, or anchors off) is walked whole
(:func:`projections.audit.chain.chain_breaks`), as before. Anything altered outside the spans
shown is not read here: ``ledger audit verify`` walks every event of every table.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any
from uuid import UUID

from ledger.store.schema import COMMANDS_TABLE
from ledger.table.state import GENESIS_HASH
from projections.audit.chain import ChainCheck, Copy, LogCopies, _copies, chain_breaks
from projections.db import Store

Span = tuple[int, int]
Point = tuple[int, str | None]
"""A version and its signed chain digest (None: the table's last event, not signed)."""


def anchored(app: Any, tid: UUID) -> bool:
    """Whether the table has a chain anchor (then spans are checked, not the whole table)."""
    anchor = getattr(getattr(app, "repository", None), "anchor", None)
    return anchor is not None and anchor(tid) is not None


def span_breaks(app: Any, tid: UUID, spans: Iterable[Span]) -> list[dict[str, Any]]:
    """Every break in the stretches of the table's chain and command log that hold ``spans``
    (``(first, last)`` versions), as :func:`chain_breaks` reports them; the whole table when
    it has no anchor."""
    wanted = sorted(spans)
    if not wanted or not anchored(app, tid):
        return chain_breaks(app, tid)
    store = Store(app.recorder)
    head = _head(store, tid)
    found: list[dict[str, Any]] = []

    def report(kind: str, hand: int | None, expected: Any, recorded: Any) -> None:
        found.append({"kind": kind, "hand": hand, "expected": expected, "recorded": recorded})

    for start, end in stretches(app.repository, tid, wanted, head):
        check_stretch(store, tid, start, end, head, report)
    return found


def stretches(repository: Any, tid: UUID, spans: list[Span], head: int
              ) -> list[tuple[Point, Point]]:
    """The signed points around each span, merged where they overlap."""
    out: list[tuple[Point, Point]] = []
    for first, last in spans:
        start, end = bounds(repository, tid, first, last, head)
        if out and start[0] <= out[-1][1][0]:
            if end[0] > out[-1][1][0]:
                out[-1] = (out[-1][0], end)
            continue
        out.append((start, end))
    return out


def bounds(repository: Any, tid: UUID, first: int, last: int, head: int) -> tuple[Point, Point]:
    """(start, end) of the stretch that holds versions ``first`` to ``last``: the latest signed
    snapshot before ``first`` when the table has an anchor before it (else the first event's
    genesis link, version 0), and the first signed snapshot at or after ``last`` (else the
    table's last event)."""
    start: Point = (0, GENESIS_HASH)
    if first > 1 and repository.anchor(tid, first - 1) is not None:
        near = repository.signed_snapshot(tid, lte=first - 1)
        if near is not None:
            start = (near[0], near[1])
    after = repository.signed_snapshot(tid, gte=max(last, 1))
    end: Point = (after[0], after[1]) if after is not None else (head, None)
    return start, end


def check_stretch(store: Store, tid: UUID, start: Point, end: Point, head: int,
                  report: Any) -> ChainCheck:
    """Walk rows ``start`` + 1 to ``end`` (their chain and command-log copies)."""
    rows = list(_rows(store, tid, start[0], end[0]))
    upto = end[0]
    copies = _log_copies(store, tid, rows, after=start[0], upto=upto, tail=end[1] is None)
    check = ChainCheck(tid, report, LogCopies(iter(copies)),
                       wanted={upto} if end[1] is not None else set())
    if start[0] > 0:
        check.resume(start[0], str(start[1]))
    for version, topic, state in rows:
        check.feed(version, topic, state)
    check.finish()
    if end[1] is not None and check.digests.get(upto) != end[1]:
        report("chain_anchor_mismatch", None, {"version": upto, "hash": end[1]},
               {"version": upto, "hash": check.digests.get(upto)})
    return check


def _head(store: Store, tid: UUID) -> int:
    row = store.fetchone("SELECT MAX(originator_version) AS v FROM {" + store.events_table
                         + "} WHERE originator_id = ?", (_key(store, tid),))
    return int(row["v"] or 0) if row else 0


def _key(store: Store, tid: UUID) -> Any:
    return tid if store.postgres else tid.hex


def _rows(store: Store, tid: UUID, after: int, upto: int) -> Iterator[tuple[int, str, Any]]:
    sql = store.sql("SELECT originator_version, topic, state FROM {" + store.events_table
                    + "} WHERE originator_id = ? AND originator_version > ? AND "
                    "originator_version <= ? ORDER BY originator_version")
    with store.transaction(commit=False) as tx:
        tx.cursor.execute(sql, (_key(store, tid), after, upto))
        for row in tx.cursor.fetchall():
            if isinstance(row, dict):
                row = (row["originator_version"], row["topic"], row["state"])
            state = row[2]
            yield int(row[0]), row[1], state if isinstance(state, str | bytes) else bytes(state)


_COMMAND = b'"command_id":"'


def command_of(raw: bytes | str) -> str | None:
    """The command id a stored event names (its only ``"command_id":"``, as
    :func:`ledger.store.trust.link_of` reads a link; parsed when not laid out so)."""
    data = raw.encode() if isinstance(raw, str) else raw
    at = data.find(_COMMAND)
    if at >= 0 and data.find(_COMMAND, at + 1) < 0:
        start = at + len(_COMMAND)
        stop = data.find(b'"', start)
        if stop > start and b"\\" not in data[start:stop]:
            return data[start:stop].decode(errors="replace")
    try:
        found = json.loads(data).get("command_id")
    except (ValueError, AttributeError):
        return None
    return found if isinstance(found, str) else None


def _log_copies(store: Store, tid: UUID, rows: list[tuple[int, str, Any]], *, after: int,
                upto: int, tail: bool) -> list[tuple[int, Copy]]:
    """The command log's copies of versions ``after`` + 1 to ``upto``: from the log rows of the
    commands the stored rows name, in the log's order; ``tail`` (the stretch ends at the
    table's last event): with every log row written after the last of them too, so that a cut
    tail whose log rows were kept shows (``command_log_missing``)."""
    ids = list(dict.fromkeys(c for c in (command_of(r[2]) for r in rows) if c is not None))
    results: list[tuple[Any, str]] = []
    for at in range(0, len(ids), 500):
        part = ids[at:at + 500]
        marks = ", ".join("?" for _ in part)
        order = "recorded_at" if store.postgres else "rowid"
        results.extend((r["o"], r["result"]) for r in store.fetchall(
            f"SELECT {order} AS o, result FROM {{{COMMANDS_TABLE}}} WHERE table_id = ? "
            f"AND command_id IN ({marks})", (str(tid), *part)))
    results.sort(key=lambda r: r[0])
    if tail:
        results.extend(_written_after(store, tid, results[-1][0] if results else None,
                                      {r[1] for r in results}))
    copies: list[tuple[int, Copy]] = []
    for _, result in results:
        copies.extend((v, c) for v, c in _copies(result) if after < v and (tail or v <= upto))
    return copies


def _written_after(store: Store, tid: UUID, last: Any, seen: set[str]) -> list[tuple[Any, str]]:
    """The table's log rows written after ``last`` (the order key of the last row read; None:
    all), not already read."""
    if store.postgres:
        where, params = ("" if last is None else " AND recorded_at >= ?"), (
            (str(tid),) if last is None else (str(tid), last))
        rows = store.fetchall("SELECT recorded_at AS o, result FROM {" + COMMANDS_TABLE
                              + "} WHERE table_id = ?" + where + " ORDER BY recorded_at, "
                              "command_id", params)
    else:  # by rowid from the last row read: the rows of other tables after it are skipped
        rows = store.fetchall("SELECT rowid AS o, result FROM {" + COMMANDS_TABLE
                              + "} NOT INDEXED WHERE rowid > ? AND table_id = ? ORDER BY rowid",
                              (last or 0, str(tid)))
    return [(r["o"], r["result"]) for r in rows if r["result"] not in seen]
