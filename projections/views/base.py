"""What a view is: tables of its own, and a function from decoded events to rows.

The runner hands each view the events it has not seen, in notification order, inside one
transaction per batch; the view buffers what it writes and writes it in :meth:`View.flush`,
before the runner moves the view's tracking position in the same transaction. A view keeps no
memory between batches other than its own tables (rows it must update are read back on first
touch), so it can stop anywhere and resume.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any, ClassVar

from ledger.domain.accounts import net_flows
from ledger.domain.records import Transfer
from ledger.table.events import TableEvent
from projections.db import Tx
from projections.views.context import TableInfo


class Item:
    """One event as views receive it (what every view asks of it is worked out once)."""

    __slots__ = (
        "_flows",
        "at",
        "code",
        "day",
        "event",
        "hand_no",
        "isa",
        "kind",
        "position",
        "table",
        "transfers",
        "version",
    )

    position: int
    """Its notification id (the application's log position)."""
    event: TableEvent
    table: TableInfo
    day: str
    """The gaming day of the event's timestamp at its table."""
    at: str
    """The event's timestamp as ISO-8601 UTC text."""
    code: str
    """The table's code."""
    version: int
    """The event's version in its table's stream."""
    kind: str
    """The event's type name (``HandSettled``)."""
    hand_no: int | None
    """The hand of a hand event (None for the others)."""
    transfers: tuple[Transfer, ...]
    """The event's transfers (none for an event without)."""
    isa: frozenset[type]
    """The event's class and every class it derives from: ``HandSettled in item.isa`` is
    ``isinstance(item.event, HandSettled)`` (a set lookup; the models' ``isinstance`` goes
    through ``ABCMeta``)."""

    def __init__(self, position: int, event: TableEvent, table: TableInfo, day: str,
                 at: str) -> None:
        self.position = position
        self.event = event
        self.table = table
        self.day = day
        self.at = at
        self.code = table.code
        cls = event.__class__
        self.kind = cls.__name__
        self.isa = ancestry(cls)
        self.version = event.originator_version
        hand_no, transfers = _fields(cls)
        self.hand_no = event.__dict__["hand_no"] if hand_no == _FIELD \
            else field_of(event, "hand_no")
        self.transfers = event.__dict__["transfers"] if transfers == _FIELD \
            else field_of(event, "transfers", ())
        self._flows: dict[str, int] | None = None

    @property
    def flows(self) -> dict[str, int]:
        """``net_flows`` of the event's transfers (worked out once; do not change it)."""
        flows = self._flows
        if flows is None:
            flows = self._flows = net_flows(self.transfers)
        return flows

    def __repr__(self) -> str:
        return f"Item(position={self.position}, event={self.event!r})"


@cache
def ancestry(cls: type) -> frozenset[type]:
    """``cls`` and its bases (:attr:`Item.isa`)."""
    return frozenset(cls.__mro__)


def field_of(event: Any, name: str, default: Any = None) -> Any:
    """``getattr(event, name, default)``, without the exception a pydantic model raises inside
    for a name it lacks (views ask every event for fields few kinds have)."""
    where = _where(event.__class__, name)
    if where == _FIELD:
        return event.__dict__[name]
    return default if where == _ABSENT else getattr(event, name, default)


_FIELD, _ABSENT, _ASK = 0, 1, 2


@cache
def _fields(cls: type) -> tuple[int, int]:
    """Where an event of class ``cls`` holds its ``hand_no`` and its ``transfers``."""
    return _where(cls, "hand_no"), _where(cls, "transfers")


@cache
def _where(cls: type, name: str) -> int:
    fields = getattr(cls, "__pydantic_fields__", None)
    if not isinstance(fields, dict) or hasattr(cls, name):
        return _ASK
    return _FIELD if name in fields else _ABSENT


class View:
    """Base of every view. Subclasses set the class attributes and implement ``handle``."""

    name: ClassVar[str]
    description: ClassVar[str]
    version: ClassVar[int] = 1
    """Bump when the view's tables or rules change: stored rows then need a rebuild."""
    tables: ClassVar[tuple[str, ...]]
    ddl: ClassVar[tuple[str, ...]]
    added_columns: ClassVar[tuple[tuple[str, str, str], ...]] = ()
    """Columns added to the view's tables after they were first made, ``(table, column, SQL
    type)``: the runner's setup adds those a store made earlier lacks (the view's version is
    bumped too, so its rows are rebuilt)."""

    keeping = False
    """Set while a rebuild reads the log straight through (:meth:`projections.views.runner.Runner.
    replay_streams`, its tables marked as being built, so that nothing else reads them): from
    one batch to the next the view may keep in memory the rows that later events still change
    (a hand in progress, a running total) instead of writing them and reading them back;
    :meth:`flush` then writes only the others, and :meth:`kept` forgets what was written. The
    rebuild's last flush is made with ``keeping`` off and writes everything kept. What is kept
    stays bounded (:data:`KEEP_AT_MOST`); a view that keeps nothing writes everything as
    usual."""

    def __init__(self) -> None:
        self._tx: Tx | None = None

    @property
    def tx(self) -> Tx:
        assert self._tx is not None, "the view is used outside a batch"
        return self._tx

    def begin(self, tx: Tx) -> None:
        """A batch starts: forget buffered rows (a failed batch leaves nothing behind), but
        those kept from the batches before while :attr:`keeping`."""
        self._tx = tx
        if not self.keeping:
            self.reset()

    def reset(self) -> None:
        """Clear the batch buffers."""

    def handle(self, item: Item) -> None:
        raise NotImplementedError

    def flush(self) -> None:
        """Write the buffered rows."""

    def write_with(self, tx: Tx) -> None:
        """Flush into ``tx`` (a batch read in one transaction and written in another)."""
        self._tx = tx
        self.flush()

    def kept(self) -> None:
        """After a flush while :attr:`keeping`: forget the rows written, keep the others for
        the next batch (this default keeps nothing)."""
        self.reset()

    def end(self) -> None:
        self._tx = None
        if not self.keeping:
            self.reset()


KEEP_AT_MOST = 20_000
"""Rows (hands, totals) a view keeps in memory between the batches of a rebuild; past it, it
writes them all."""


def dumps(value: Any) -> str:
    """Compact JSON for the JSON columns (``json.dumps(value, separators=(",", ":"))``, with
    one encoder made once)."""
    return _encode(value)


_encode = json.JSONEncoder(separators=(",", ":"), sort_keys=False).encode


def dumps_ints(value: Any) -> str:
    """:func:`dumps` of a value made of dictionaries with text keys, lists, tuples, text,
    integers, booleans and None only (no float: orjson writes some differently), such as the
    hands' and the wagers' JSON columns. orjson writes it, a few times faster, and its text is
    taken when it is the same as json's: printable ASCII with nothing escaped (json escapes every
    other character, orjson only some); json writes the rest (and whatever orjson refuses, an
    integer past 64 bits, say)."""
    if _orjson is not None:
        try:
            text: bytes = _orjson.dumps(value)
        except TypeError:
            return _encode(value)
        if text.isascii() and b"\\" not in text and b"\x7f" not in text:
            return text.decode()
    return _encode(value)


try:
    import orjson as _orjson
except ImportError:  # pragma: no cover - orjson is a dependency
    _orjson = None  # type: ignore[assignment]
