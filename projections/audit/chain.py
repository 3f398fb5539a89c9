"""The hash chain of one table, checked over the raw stored rows.

Each stored event carries, in its JSON, the digest of the event before it (``prev_hash``; the
first carries the genesis hash), and an event's digest covers its table, version, topic and the
exact stored bytes (``ledger.table.events.chain_digest``). Walking the rows in version order:

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

import bisect
import hashlib
import itertools
import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import Any
from uuid import UUID, uuid4

from ledger.store.mapper import state_bytes
from ledger.table.events import TableOpened as TableOpenedEvent
from ledger.table.events import chain_digest, topic_of
from ledger.table.state import GENESIS_HASH
from projections.db import Store, Tx

try:  # a parser in C several times faster than json's; json where it is missing
    import orjson
except ImportError:  # pragma: no cover - orjson is a dependency
    orjson = None  # type: ignore[assignment]

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
    exact: bool = False
    """``data`` was read by orjson (:func:`loads`)."""

    @property
    def prev_hash(self) -> str | None:
        return None if self.data is None else self.data.get("prev_hash")

    @property
    def timestamp(self) -> str | None:
        return None if self.data is None else self.data.get("timestamp")

    @property
    def hand(self) -> int | None:
        return None if self.data is None else self.data.get("hand_no")


_DIGITS = bytes(ord("0") if chr(c).isdigit() and c < 128 else ord(" ") for c in range(256))
_LONG_RUN = b"0" * 19
"""Any 19 digits in a row (one ``bytes.translate`` and one search)."""


def loads(text: str | bytes) -> tuple[Any, bool]:
    """``json.loads(text)`` and whether orjson read it (then it holds no NaN, infinity, lone
    surrogate or integer past 64 bits: orjson refuses the first three, and reads such an
    integer as a float, so text with 19 digits in a row is left to json, which reads it as the
    integer it is and the audit reports it as a number no view can hold)."""
    if orjson is not None:
        raw = text if isinstance(text, bytes) else text.encode(errors="surrogatepass")
        if _LONG_RUN not in raw.translate(_DIGITS):
            try:
                return orjson.loads(text), True
            except orjson.JSONDecodeError:
                pass
    return json.loads(text), False


def _sorted_bytes(data: Any) -> bytes | None:
    """An exact serialisation of a value orjson read (keys sorted): two are equal exactly when
    the values are (with their types: ``1``, ``1.0`` and ``true`` differ), hence when their
    :func:`canonical` digests are. None when orjson cannot write it."""
    if orjson is None:  # pragma: no cover - orjson is a dependency
        return None
    try:
        return bytes(orjson.dumps(data, option=orjson.OPT_SORT_KEYS))
    except (orjson.JSONEncodeError, TypeError):
        return None


def _exact_bytes(data: Any) -> bytes | None:
    """orjson's serialisation of a value it read (keys in their order), or None."""
    try:
        return orjson.dumps(data)
    except (orjson.JSONEncodeError, TypeError):
        return None


def canonical(data: dict[str, Any]) -> str:
    """A digest of an event's JSON content that does not depend on key order or spacing."""
    text = json.dumps(data, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


class ChainCheck:
    """Feed the stored rows of one table in version order, then :meth:`finish`."""

    def __init__(self, table_id: UUID, report: Report,
                 command_log: dict[int, Copy] | dict[int, str] | LogCopies | None = None,
                 wanted: set[int] | None = None,
                 earlier_link: Callable[[str, int], int | None] | None = None) -> None:
        """``command_log``: the log's copies, as a map or streamed in order (:class:`LogCopies`);
        ``earlier_link(link, version)``: the first version before ``version`` carrying ``link``,
        looked up in the store when a link breaks (without it, every link is kept in memory)."""
        self.table_id = table_id
        self._id = str(table_id)
        self.report = report
        self.log = LogCopies.of(dict(command_log)) if isinstance(command_log, dict) \
            else command_log
        self.wanted = wanted or set()
        self.earlier_link = earlier_link
        self.seen_links: dict[str, int] = {}
        self.versions = Versions()
        self.digests: dict[int, str] = {}
        """Digests of the ``wanted`` versions (the sealed heads)."""
        self.last_version = 0
        self._done: list[Row] = []
        self._pending: Row | None = None
        self._skip_until = 0

    def feed(self, version: int, topic: str, state: bytes) -> Row:
        exact = False
        try:
            data, exact = loads(state)
            if not isinstance(data, dict):
                raise ValueError("not an object")
        except ValueError as exc:
            data = None
            self.report("undecodable_event", None, "an event in JSON",
                        {"version": version, "error": str(exc)})
        raw = state_bytes(state)
        row = Row(version, topic, raw, data, chain_digest(self._id, version, topic, raw), exact)
        self.versions.add(version)
        if version in self.wanted:
            self.digests[version] = row.digest
        if self._pending is not None:
            self._check(self._pending, row)
        self._pending = row
        return row

    def resume(self, version: int, digest: str) -> None:
        """Start after a known head (an incremental audit): the next row must link to
        ``digest``, the chain digest of ``version``."""
        self._done = [Row(version, "", b"", {}, digest)]
        self.versions.add(version)
        self.last_version = version

    @property
    def head(self) -> str:
        """The chain digest of the last row checked (after :meth:`finish`)."""
        return self._done[-1].digest if self._done else GENESIS_HASH

    def finish(self) -> None:
        if self._pending is not None:
            self._check(self._pending, None)
            self._pending = None
        if self.log is not None:
            missing = self.log.missing(self.versions)
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
        if row.prev_hash is not None and self.earlier_link is None:
            self.seen_links.setdefault(row.prev_hash, row.version)
        self._command_log(row)
        self.last_version = row.version
        self._done = [*self._done[-1:], row]

    def _classify(self, prev: Row, row: Row, nxt: Row | None) -> None:
        link = row.prev_hash
        before = self._done[-2] if len(self._done) > 1 else None
        earlier = self._earlier(link, row.version)
        if earlier is not None:
            self.report("event_inserted", row.hand,
                        {"version": row.version, "prev_hash": prev.digest},
                        {"version": row.version, "prev_hash": link,
                         "same_link_as_version": earlier})
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

    def _earlier(self, link: str | None, version: int) -> int | None:
        if link is None:
            return None
        if self.earlier_link is not None:
            return self.earlier_link(link, version)
        return self.seen_links.get(link)

    def _command_log(self, row: Row) -> None:
        if self.log is None:
            return
        copy = self.log.take(row.version)
        if row.data is None:
            return
        if copy is None:
            self.report("command_log_unknown", row.hand, {"version": row.version,
                                                          "in_command_log": True},
                        {"version": row.version, "in_command_log": False})
        elif not same_copy(copy, row):
            self.report("command_log_mismatch", row.hand,
                        {"version": row.version, "content_sha256": digest_of(copy)},
                        {"version": row.version, "content_sha256": canonical(row.data)})


def same_copy(copy: Copy | str, row: Row) -> bool:
    """Whether the command log's copy of an event has the content of the stored row: the same
    canonical digest (the copy's text being exactly what the writer makes of the row's bytes is
    the same content, without serialising either side again)."""
    if isinstance(copy, Copy):
        if copy.exact and row.exact:  # both read by orjson: their exact serialisations
            if _exact_bytes(copy.content) == row.state:
                return True  # the row is what orjson writes of the copy: read, it is the copy
            mine, theirs = _sorted_bytes(copy.content), _sorted_bytes(row.data)
            if mine is not None and theirs is not None:
                return mine == theirs
        return copy.written_from(row) or copy.digest == canonical(row.data or {})
    return copy == canonical(row.data or {})


def digest_of(copy: Copy | str) -> str:
    return copy.digest if isinstance(copy, Copy) else copy


class Copy:
    """The command log's copy of one event: its text as the log holds it and its content
    (the parsed object without ``type`` and ``version``), digested only when needed.

    The writer (``CommandResult.of``) makes a copy as ``{"type":"T","version":V,`` followed by
    the stored state's bytes after their opening brace. When the copy's text is exactly that
    for the row, and the row's object has no ``type`` or ``version`` of its own, parsing the
    copy gives the row's object plus those two keys, so the two canonical digests are equal:
    nothing needs serialising. Any other text is compared by the digests, as always."""

    __slots__ = ("_digest", "_split", "_text", "content", "exact", "kind", "version")

    def __init__(self, text: str | None, content: dict[str, Any], kind: Any,
                 version: int, exact: bool = False,
                 split: tuple[_Split, int] | None = None) -> None:
        self.exact = exact
        """The content was read by orjson (:func:`loads`)."""
        self._text = text
        self._split = split
        """The row and the copy's place in its events, when its text is found only if asked
        (a copy read by orjson is compared by its content, :func:`same_copy`)."""
        self.content = content
        self.kind = kind
        self.version = version
        self._digest: str | None = None

    @property
    def text(self) -> str | None:
        """The copy's text in its row when the row is laid out as the writer makes it."""
        if self._split is not None:
            row, at = self._split
            self._text, self._split = row.text(at), None
        return self._text

    @property
    def digest(self) -> str:
        if self._digest is None:
            self._digest = canonical(self.content)
        return self._digest

    def written_from(self, row: Row) -> bool:
        data = row.data
        if self.text is None or data is None or "type" in data or "version" in data \
                or type(self.kind) is not str or type(self.version) is not int \
                or self.version != row.version:
            return False
        try:
            state = row.state.decode()
        except UnicodeDecodeError:
            return False
        if not state.startswith("{"):
            return False
        head = f'{_kind_json(self.kind)}{self.version},'
        return len(self.text) == len(head) + len(state) - 1 and self.text.startswith(head) \
            and self.text.endswith(state[1:])


@lru_cache(maxsize=256)
def _kind_json(kind: str) -> str:
    """The start of a copy of an event of type ``kind`` as the writer makes it, up to its
    version."""
    return f'{{"type":{json.dumps(kind)},"version":'


def _out_of_order(*rows: Row | None) -> bool:
    stamps = [r.timestamp for r in rows if r is not None and r.timestamp]
    return any(a > b for a, b in itertools.pairwise(stamps))


class Versions:
    """The versions seen, fed in increasing order, kept as runs (a gap starts a new run)."""

    def __init__(self) -> None:
        self._starts: list[int] = []
        self._ends: list[int] = []

    def add(self, version: int) -> None:
        if self._ends and version == self._ends[-1] + 1:
            self._ends[-1] = version
        elif not self._ends or version > self._ends[-1]:
            self._starts.append(version)
            self._ends.append(version)
        elif version not in self:  # out of order: kept as a run of its own, in place
            at = bisect.bisect_left(self._starts, version)
            self._starts.insert(at, version)
            self._ends.insert(at, version)

    def __contains__(self, version: object) -> bool:
        if not isinstance(version, int):
            return False
        at = bisect.bisect_right(self._starts, version) - 1
        return at >= 0 and version <= self._ends[at]


class LogCopies:
    """The command log's copies of one table's events (version -> :class:`Copy`), taken as
    the stored rows are checked, in version order.

    The copies are read in the order the log was written (a table's commands are written one
    after another, so in version order) and only as far as the version asked for: memory holds
    the copies read ahead of the stored rows, which is nothing for a log in order. A copy the
    stored rows never asked for is one the store lacks (``command_log_missing``)."""

    def __init__(self, copies: Iterator[tuple[int, Any]]) -> None:
        self._copies = copies
        self._ahead: dict[int, Any] = {}
        self._passed: list[int] = []
        self._done = False

    @classmethod
    def of(cls, copies: dict[int, Any]) -> LogCopies:
        return cls(iter(sorted(copies.items())))

    def take(self, version: int) -> Any:
        """The copy of ``version`` (None when the log has none)."""
        while version not in self._ahead and not self._done:
            item = next(self._copies, None)
            if item is None:
                self._done = True
            else:
                self._ahead.setdefault(item[0], item[1])
        copy = self._ahead.pop(version, None)
        if len(self._ahead) > 64:  # copies of versions already passed: not in the store
            passed = [v for v in self._ahead if v < version]
            self._passed.extend(passed)
            for v in passed:
                del self._ahead[v]
        return copy

    def missing(self, stored: Versions) -> list[int]:
        """Every version the log holds and the store does not (reads the rest of the log)."""
        rest = [v for v, _ in self._copies]
        self._done = True
        return sorted({v for v in (*self._passed, *self._ahead, *rest) if v not in stored})


def log_copies(store: Store, table_id: UUID, page: int = 500, *, tx: Tx | None = None,
               since: str | None = None) -> Iterator[tuple[int, Copy]]:
    """(version, :class:`Copy`) of every event the command log holds for a table, streamed
    in the order the commands were written (rowid on SQLite; time then id on PostgreSQL).

    ``tx``: read in that transaction (the audit's snapshot) on a cursor of its own, so that
    other statements may run in it between pages; ``since``: only rows recorded at or after
    that ISO-8601 UTC instant."""
    order = "recorded_at, command_id" if store.postgres else "rowid"
    where = "table_id = ?"
    params: tuple[str, ...] = (str(table_id),)
    if since is not None:
        where += " AND recorded_at >= " + ("CAST(? AS timestamptz)" if store.postgres else "?")
        params += (since,)
    sql = store.sql(f"SELECT result FROM {{ledger_commands}} WHERE {where} ORDER BY {order}")
    if tx is not None:
        yield from _stream(store, tx, sql, params, page)
        return
    with store.transaction(commit=False) as own:
        yield from _stream(store, own, sql, params, page)


def _stream(store: Store, tx: Tx, sql: str, params: tuple[str, ...],
            page: int) -> Iterator[tuple[int, Copy]]:
    if store.postgres:  # a server-side cursor: the rows come a page at a time
        with tx.cursor.connection.cursor(name=f"audit_log_{uuid4().hex[:12]}") as named:
            named.itersize = page
            named.execute(sql, params)
            for row in named:
                yield from _copies(row["result"] if isinstance(row, dict) else row[0])
        return
    cursor = tx.cursor.sqlite_cursor.connection.cursor()
    try:
        cursor.execute(sql, params)
        while rows := cursor.fetchmany(page):
            for row in rows:
                yield from _copies(row[0])
    finally:
        cursor.close()


class _Split:
    """A command-log row's events with their texts (:func:`_events_of`), split when first
    asked."""

    __slots__ = ("_texts", "result")

    def __init__(self, result: str) -> None:
        self.result = result
        self._texts: list[str | None] | None = None

    def text(self, at: int) -> str | None:
        if self._texts is None:
            split = _events_of(self.result)
            self._texts = [t for t, _ in split] if split is not None else []
        return self._texts[at] if at < len(self._texts) else None


def _copies(result: str) -> Iterator[tuple[int, Copy]]:
    """The copies of one command-log row: read whole by orjson when it can (the same objects
    json reads, :func:`loads`; compared by exact serialisation), else as before."""
    try:
        parsed, exact = loads(result)
    except ValueError:
        exact = False
    if exact and isinstance(parsed, dict) and type(parsed.get("events")) is list \
            and all(type(e) is dict for e in parsed["events"]):
        row = _Split(result)
        for at, event in enumerate(parsed["events"]):
            version = event.pop("version", None)
            kind = event.pop("type", None)
            if isinstance(version, int):
                yield version, Copy(None, event, kind, version, exact=True, split=(row, at))
        return
    split = _events_of(result)
    if split is None:  # not as the writer makes it: parsed whole, digests compared
        try:
            events = json.loads(result)["events"]
        except (ValueError, KeyError, TypeError):
            return
        split = [(None, event) for event in events]
    for text, event in split:
        version = event.pop("version", None)
        kind = event.pop("type", None)
        if isinstance(version, int):
            yield version, Copy(text, event, kind, version)


_DECODER = json.JSONDecoder()
_SCAN: Callable[[str, int], tuple[Any, int]] = _DECODER.scan_once  # type: ignore[attr-defined]
_EVENTS = ',"events":['


def _events_of(result: str) -> list[tuple[str | None, dict[str, Any]]] | None:
    """The events of a command-log row with the text of each, when the row is laid out as the
    writer makes it (``CommandResult.to_json``: an object whose last member is ``"events"``, an
    array of objects without spaces between them); None otherwise.

    What is returned is then exactly ``json.loads(result)["events"]``: the text before
    ``,"events":[`` closed by a brace is an object (not empty, without its own ``events``), so
    the array is a member of the row's top-level object, and the array ends one character
    before the row does, at its closing brace."""
    at = result.find(_EVENTS)
    if at < 0 or not result.endswith("]}"):
        return None
    try:
        head = json.loads(result[:at] + "}")
    except ValueError:
        return None
    if not isinstance(head, dict) or not head or "events" in head:
        return None
    found: list[tuple[str | None, dict[str, Any]]] = []
    pos, last = at + len(_EVENTS), len(result) - 2
    if pos == last:
        return found
    while True:
        try:  # the decoder's scanner itself: an element begins right at pos (no spaces)
            event, end = _SCAN(result, pos)
        except (StopIteration, ValueError):
            return None
        if not isinstance(event, dict):
            return None
        found.append((result[pos:end], event))
        if end == last:
            return found
        if result[end] != ",":
            return None
        pos = end + 1


def earlier_links(app: Any, table_id: UUID) -> Callable[[str, int], int | None]:
    """``find(link, version)``: the first version before ``version`` whose stored event carries
    ``link`` as its previous hash (read again from the store; asked only when a link breaks)."""

    def find(link: str, version: int) -> int | None:
        needle = link.encode()
        for stored in stored_rows(app, table_id):
            if stored.originator_version >= version:
                return None
            raw = state_bytes(stored.state)
            if needle not in raw:
                continue
            try:
                data = json.loads(raw)
            except ValueError:
                continue
            if isinstance(data, dict) and data.get("prev_hash") == link:
                return int(stored.originator_version)
        return None

    return find


def command_log(store: Store, table_id: UUID) -> dict[int, Copy]:
    """version -> copy of every event the command log holds for a table (the whole
    log in memory: for small tables and tools; the audit streams it with :class:`LogCopies`)."""
    return dict(log_copies(store, table_id))


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


def stored_triples(store: Store, table_id: UUID, page: int = 2_000
                   ) -> Iterator[tuple[int, str, Any]]:
    """(version, topic, state) of a table's stored events in version order: one statement on a
    cursor of its own, fetched a page at a time (no event object is made; the state as the
    driver gives it: bytes, or text for a row rewritten by hand as text)."""
    events = "{" + store.events_table + "}"
    sql = store.sql(f"SELECT originator_version, topic, state FROM {events} "
                    "WHERE originator_id = ? ORDER BY originator_version")
    with store.transaction(commit=False) as tx:
        if store.postgres:  # a server-side cursor: the rows come a page at a time
            with tx.cursor.connection.cursor(name=f"chain_{uuid4().hex[:12]}") as named:
                named.itersize = page
                named.execute(sql, (table_id,))
                for row in named:
                    if isinstance(row, dict):
                        row = (row["originator_version"], row["topic"], row["state"])
                    state = row[2]
                    yield int(row[0]), row[1], \
                        state if isinstance(state, str | bytes) else bytes(state)
            return
        cursor = tx.cursor.sqlite_cursor.connection.cursor()
        try:
            cursor.execute(sql, (table_id.hex,))
            while rows := cursor.fetchmany(page):
                yield from rows
        finally:
            cursor.close()


CHAIN_KINDS = frozenset({"event_deleted", "event_edited", "event_inserted", "events_reordered",
                         "stream_start", "undecodable_event", "command_log_mismatch",
                         "command_log_missing", "command_log_unknown"})
"""What :class:`ChainCheck` reports: the stored record was altered."""


def chain_breaks(app: Any, table_id: UUID) -> list[dict[str, Any]]:
    """Every break in a table's stored chain and command log (empty when it holds):
    ``{"kind", "hand", "expected", "recorded"}``."""
    found: list[dict[str, Any]] = []

    def report(kind: str, hand: int | None, expected: Any, recorded: Any) -> None:
        found.append({"kind": kind, "hand": hand, "expected": expected, "recorded": recorded})

    store = Store(app.recorder)
    check = ChainCheck(table_id, report, command_log(store, table_id))
    for version, topic, state in stored_triples(store, table_id):
        check.feed(version, topic, state)
    check.finish()
    if not found and check.last_version:
        # The whole chain verified from the first event (what the table's load checks once
        # per process, ledger.store.trust.ChainGuard): the load that follows does not walk it again.
        guard = getattr(getattr(app, "repository", None), "guard", None)
        if guard is not None:
            guard.remember(table_id, check.last_version, check.head)
    return found


def breaks_text(code: str, breaks: list[dict[str, Any]]) -> str:
    """One prominent line naming where a table's record was altered."""
    where = ", ".join(f"{b['kind']} at v{_version(b)}" for b in breaks[:5])
    more = f" and {len(breaks) - 5} more" if len(breaks) > 5 else ""
    return (f"WARNING: THE HASH CHAIN OF TABLE {code} IS BROKEN ({where}{more}): its stored "
            "events were altered, and what follows cannot be trusted")


def _version(found: dict[str, Any]) -> Any:
    for side in ("expected", "recorded"):
        value = found.get(side)
        if isinstance(value, dict) and "version" in value:
            return value["version"]
    return "?"
