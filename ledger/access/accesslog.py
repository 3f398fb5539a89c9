"""The access log: who saw what nobody else may see, kept tamper-evident.

Every read that shows face-down cards of a hand in progress (the table state read by an auditor,
a seat's own device or a recorded table's dealer terminal; a hand or its replay while it is
played) and every export of hole cards (hand histories) appends one row to ``ledger_access_log``
in the ledger's own database: a sequence number, when, who (``token:<id>`` or ``cli:<name>``),
what (``table_state``, ``hand``, ``hand_replay``, ``hands_export``, ...), the table and hand,
and details (never the cards themselves). Refusals worth an auditor's eye are recorded the same
way (a refused High Card Flush raise: probing for the raise cap, HCF-5).

Each row carries the SHA-256 of the row before it and its own (over its sequence number and
every field), so editing, deleting or inserting a row breaks the chain where it happened:
:func:`verify_access_log` names it and ``ledger audit verify`` reports it as a discrepancy
(``access_log_broken``). Rows are appended with the next sequence number; two writers that
meet retry (the number is the primary key).
"""

from __future__ import annotations

import hashlib
import json
import random
import sqlite3
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from eventsourcing.persistence import IntegrityError, OperationalError

from ledger.domain.errors import ConcurrencyError, InvalidInput
from ledger.logs import get_logger
from ledger.store.errors import loaded_classes
from ledger.store.sidetables import ACCESS_TABLE, SideTable

log = get_logger("ledger.access.accesslog")
GENESIS = "0" * 64
_COLUMNS = "seq, at, who, what, table_code, hand_no, detail, prev_hash, row_hash"
_ATTEMPTS = 20


@dataclass(frozen=True)
class Access:
    """One row of the access log."""

    seq: int
    at: str
    who: str
    what: str
    table: str | None
    hand: int | None
    detail: dict[str, Any]
    prev_hash: str
    row_hash: str

    def as_dict(self) -> dict[str, Any]:
        return {"seq": self.seq, "at": self.at, "who": self.who,
                "authenticated": not self.who.startswith("cli:"), "what": self.what,
                "table": self.table, "hand": self.hand, "detail": self.detail,
                "prev_hash": self.prev_hash, "row_hash": self.row_hash}


def row_hash(prev_hash: str, seq: int, at: str, who: str, what: str, table: str | None,
             hand: int | None, detail: str) -> str:
    """The digest a row carries: over the previous row's and every field of its own."""
    text = json.dumps([prev_hash, seq, at, who, what, table, hand, detail],
                      separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def _db(store_or_app: Any) -> SideTable:
    if isinstance(store_or_app, SideTable):
        return store_or_app
    from ledger.store.fleet import home_store_of

    # a fleet's: the home store
    return SideTable(home_store_of(store_or_app).recorder, ACCESS_TABLE)


def _clashes() -> tuple[type[BaseException], ...]:
    """What an append raises when another writer took its sequence number first."""
    return (IntegrityError, OperationalError, sqlite3.IntegrityError, sqlite3.OperationalError,
            *loaded_classes("psycopg.errors", "IntegrityError"))


def record_access(store_or_app: Any, *, who: str, what: str, table: str | None = None,
                  hand: int | None = None, detail: dict[str, Any] | None = None) -> Access:
    """Append one row (``store_or_app``: the application, a fleet (its home store keeps the
    log) or a :class:`SideTable`)."""
    db = _db(store_or_app)
    text = json.dumps(detail or {}, sort_keys=True, separators=(",", ":"), default=str)
    for attempt in range(_ATTEMPTS):
        at = datetime.now(UTC).isoformat(timespec="microseconds")
        try:
            with db.recorder.datastore.transaction(commit=True) as cursor:
                cursor.execute(f"SELECT seq, row_hash FROM {db.name} ORDER BY seq DESC LIMIT 1",
                               ())
                last = cursor.fetchone()
                if last is None:
                    seq, prev = 1, GENESIS
                else:
                    values = tuple(last.values()) if isinstance(last, dict) else tuple(last)
                    seq, prev = int(values[0]) + 1, str(values[1])
                digest = row_hash(prev, seq, at, who, what, table, hand, text)
                cursor.execute(f"INSERT INTO {db.name} ({_COLUMNS}) VALUES ({db.marks(9)})",
                               (seq, at, who, what, table, hand, text, prev, digest))
            return Access(seq, at, who, what, table, hand, detail or {}, prev, digest)
        except _clashes():
            time.sleep(random.uniform(0, min(0.05, 0.001 * 2**attempt)))
    raise ConcurrencyError("concurrent_updates", "the access log kept changing under the "
                           "append; try again")


def parse_since(text: str) -> str:
    """``since`` as the log writes ``at`` (UTC, microseconds), so that text order is time
    order: ``2026-03-14T06:00:00Z``, an offset, or a day alone (its midnight, UTC). Anything
    else is ``invalid_time``."""
    given = text.strip()
    try:
        moment = datetime.fromisoformat(given.replace("z", "Z").replace("Z", "+00:00"))
    except ValueError:
        raise InvalidInput("invalid_time", f"{text!r} is not a time: write ISO-8601, e.g. "
                           "2026-03-14T06:00:00Z", since=text) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).isoformat(timespec="microseconds")


def access_rows(store_or_app: Any, *, table: str | None = None, who: str | None = None,
                what: str | None = None, since: str | None = None, after: int = 0,
                limit: int | None = None, last: bool = False) -> list[Access]:
    """Rows in order, optionally only one table's, actor's or kind's, at or after ``since``
    (ISO-8601) and after sequence number ``after`` (``last``: only the last such row)."""
    db = _db(store_or_app)
    where: list[str] = [f"seq > {db.p}"]
    params: list[Any] = [after]
    for column, value in (("table_code", table and table.strip().upper()), ("who", who),
                          ("what", what)):
        if value is not None:
            where.append(f"{column} = {db.p}")
            params.append(value)
    if since is not None:
        where.append(f"at >= {db.p}")
        params.append(parse_since(since))
    sql = f"SELECT {_COLUMNS} FROM {db.name} WHERE {' AND '.join(where)} ORDER BY seq"
    if last:
        sql, limit = sql + " DESC", 1
    if limit is not None:
        sql += f" LIMIT {int(limit)}"
    return [_access(row) for row in db.query(sql, tuple(params))]


def _access(row: tuple[Any, ...]) -> Access:
    seq, at, who, what, table, hand, detail, prev, digest = row
    try:
        parsed = json.loads(detail)
    except ValueError:
        parsed = {"unreadable": str(detail)}
    return Access(int(seq), at, who, what, table, None if hand is None else int(hand),
                  parsed if isinstance(parsed, dict) else {"value": parsed}, prev, digest)


def verify_access_log(store_or_app: Any, page: int = 5_000, *,
                      checkpointed: bool = True) -> list[dict[str, Any]]:
    """Where the access log's chain breaks (empty when it holds): each problem names the
    sequence number, ``kind`` (``row_missing``, ``row_edited``, ``row_unlinked``) and what was
    expected and found. ``checkpointed``: the log is also held against the access-log head of
    the latest checkpoint stored (``projections.audit.checkpoint``), so that rows cut off its
    end, or the whole log wiped, show (``rows_cut``) where a shorter chain still holds; the
    audit checks the checkpoint's signature too."""
    db = _db(store_or_app)
    problems = _walk(db, page)
    if checkpointed:
        problems.extend(_against_checkpoint(db))
    return problems


def _against_checkpoint(db: SideTable) -> list[dict[str, Any]]:
    from ledger.store.sidetables import CHECKPOINTS_TABLE

    name = CHECKPOINTS_TABLE if db.sqlite else db.name.rsplit(".", 1)[0] + \
        f'."{CHECKPOINTS_TABLE}"'
    found = db.query(f"SELECT body FROM {name} ORDER BY seq DESC LIMIT 1")
    if not found:
        return []
    try:
        head = json.loads(found[0][0])["heads"]["access_log"]
        rows, digest = int(head["rows"]), str(head["head"])
    except (ValueError, KeyError, TypeError):
        return []
    if rows == 0:
        return []
    there = db.query(f"SELECT row_hash FROM {db.name} WHERE seq = {db.p}", (rows,))
    if there and there[0][0] == digest:
        return []
    return [{"seq": rows, "kind": "rows_cut" if not there else "row_edited",
             "expected": digest, "found": there[0][0] if there else "missing"}]


def _walk(db: SideTable, page: int) -> list[dict[str, Any]]:
    problems: list[dict[str, Any]] = []
    expected_seq, prev = 1, GENESIS
    after = 0
    while True:
        rows = db.query(f"SELECT {_COLUMNS} FROM {db.name} WHERE seq > {db.p} ORDER BY seq "
                        f"LIMIT {page}", (after,))
        for seq, at, who, what, table, hand, detail, link, digest in rows:
            seq = int(seq)
            if seq != expected_seq:
                problems.append({"seq": expected_seq, "kind": "row_missing",
                                 "expected": expected_seq, "found": seq})
            if link != prev:
                problems.append({"seq": seq, "kind": "row_unlinked", "expected": prev,
                                 "found": link})
            again = row_hash(link, seq, at, who, what, table,
                             None if hand is None else int(hand), detail)
            if again != digest:
                problems.append({"seq": seq, "kind": "row_edited", "expected": again,
                                 "found": digest})
            expected_seq, prev, after = seq + 1, digest, seq
        if len(rows) < page:
            return problems


def access_head(store_or_app: Any) -> dict[str, Any]:
    """The log's last row now: ``{"rows": seq, "head": row_hash}`` (``rows`` 0 and the genesis
    digest when it is empty). A daily seal records it, so that a cut tail (the last rows
    deleted, which leaves a shorter chain that holds) or a log rewritten whole is named
    (``seal_access_log``)."""
    last = access_rows(store_or_app, last=True)
    return {"rows": last[0].seq, "head": last[0].row_hash} if last else {"rows": 0,
                                                                        "head": GENESIS}
