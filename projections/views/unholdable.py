"""Defence in depth: an event the read models cannot hold does not take the read side down.

The write side bounds every amount (``ledger.domain.bounds``), so no event it writes now holds a
number a view cannot store. A store written before those bounds (or by hand) may: an amount past a
signed 64-bit integer, which SQLite's ``INTEGER`` and PostgreSQL's ``BIGINT`` refuse. The
projection runner screens every event it decodes (:func:`too_large`, a few microseconds an
event): one holding such a number is left out of every view and reported (table, version, log
position, why) in the ``proj_rejects`` table, in the log (``event_left_out_of_views``) and by
``ledger projections update|rebuild|status``; every other event still reaches the views. When
the store refuses a batch all the same (a sum of many events grew past what a column holds, or
a number past a 32-bit column), the runner stops with the coded error ``view_overflow`` naming
the batch, and the views stay where they were. ``ledger audit verify`` leaves the same events
out of the totals it reconciles the views with (the rule is this module's, so the views and the
audit agree) and reports each one, and every balance past the range, as an ``unholdable_value``
discrepancy. How an operator recovers: docs/architecture/projections.md, "A row the views
cannot hold".
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel

from ledger.domain.errors import LedgerError
from ledger.store.errors import loaded_classes
from projections.db import Store, iso
from projections.views.base import Item

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
REJECTS = "proj_rejects"
REJECTS_DDL = (
    "CREATE TABLE IF NOT EXISTS {proj_rejects} (position BIGINT PRIMARY KEY, "
    "table_code TEXT NOT NULL, version BIGINT NOT NULL, why TEXT NOT NULL, "
    "recorded_at TEXT NOT NULL)"
)


class TotalsOverflow(Exception):
    """A worker of a rebuild in several processes met a total its views cannot hold (the
    rebuild starts again in one process, which finds the event and leaves it out)."""


@dataclass(frozen=True)
class Rejected:
    table_code: str
    version: int
    position: int
    why: str

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def unholdable_error(exc: BaseException) -> bool:
    """Whether ``exc`` is a store refusing a number too large for its integer columns."""
    if isinstance(exc, OverflowError):
        return True
    out_of_range = loaded_classes("psycopg.errors", "NumericValueOutOfRange")
    cause: BaseException | None = exc
    while cause is not None:
        if isinstance(cause, out_of_range):
            return True
        cause = cause.__cause__ or cause.__context__
    return False


def _number_map() -> bytes:
    table = bytearray(range(256))
    for c in b"0123456789.":
        table[c] = ord("0")
    for c in b",[":
        table[c] = ord(":")
    table[ord("E")] = ord("e")
    return bytes(table)


_NUMBERS = _number_map()
"""For :func:`holdable_as_stored`: every digit (and ``.``) becomes ``0``, what may come before a
JSON number (``,`` ``[``) becomes ``:``, ``E`` becomes ``e``; ``_``, ``-`` and white space are
dropped (``bytes.translate``)."""
_DROPPED = b"_- \t\r\n"
_LONG_RUN = b"0" * 19
"""Every integer within a signed 64-bit integer is written with at most 18 digits (unless with
leading zeros, which only costs a walk)."""
_EXPONENT = re.compile(rb":0+e")
"""A JSON number with an exponent, as it reads after the translation."""
_ESCAPE = b"\\u"
"""A JSON string escape: a backslash, ``u`` and four hex digits may spell a digit."""


def holdable_as_stored(event: Any) -> bool:
    """Whether ``event``, as read from the store, certainly holds no integer outside a signed
    64-bit integer, decided from the JSON it was read from (one translation of the text and
    two searches, a few times cheaper than a walk of the decoded values). False when it
    may hold one, or when it was not read from stored JSON: :func:`too_large` then looks at each
    value. Sound because an event's values are those pydantic reads from exactly that JSON
    (``ledger.store.mapper.PydanticMapper``: its envelope ids come from the row, and no upcast
    computes values while the event's class is at version 1); its integers are written in the
    JSON as digits, in a number or in a string (pydantic's lax mode reads ``" +1_000.0 "`` as
    1000), or as a number with an exponent, or spelt with escapes; the version is checked
    here. A table's ``config`` is looked at too: a match there only costs a walk. Each way of
    writing such a number is tested in ``tests/integration/projections/test_unholdable.py``."""
    stored = getattr(event, "_stored", None)
    if type(stored) is not bytes or getattr(type(event), "class_version", None) != 1:
        return False
    version = getattr(event, "originator_version", 0)
    if type(version) is not int or not INT64_MIN <= version <= INT64_MAX:
        return False
    if _ESCAPE in stored:
        return False
    text = stored.translate(_NUMBERS, _DROPPED)
    return _LONG_RUN not in text and _EXPONENT.search(text) is None


def too_large(value: Any, path: str = "") -> str | None:
    """Where in ``value`` (an event, or a part of one) an integer lies outside a signed 64-bit
    integer, or None. A table's ``config`` is left alone: the views hold it as JSON text, which
    holds any number (what the house pays from it moves in transfers, which are looked at).
    An event read from the store whose JSON holds nothing that may be such an integer is not
    walked (:func:`holdable_as_stored`)."""
    if not path and holdable_as_stored(value):
        return None
    if isinstance(value, BaseModel):
        value = {k: v for k, v in value.__dict__.items() if not (k == "config" and not path)}
    if not _any_too_large(value):
        return None
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{path or 'value'} = {value}"
    items = value.items() if isinstance(value, dict) else enumerate(value)
    for key, item in items:
        found = too_large(item, (f"{path}.{key}" if path else str(key))
                          if isinstance(value, dict) else f"{path}[{key}]")
        if found is not None:
            return found
    return None  # pragma: no cover - _any_too_large found one


def _any_too_large(value: Any) -> bool:
    stack = [value]
    while stack:
        value = stack.pop()
        kind = type(value)
        if kind is int:
            if not INT64_MIN <= value <= INT64_MAX:
                return True
        elif kind is str or kind is bool or value is None:
            continue
        elif kind is tuple or kind is list:
            stack.extend(value)
        elif kind is dict:
            stack.extend(value.values())
        elif isinstance(value, BaseModel):
            stack.extend(value.__dict__.values())
        elif isinstance(value, int) and not INT64_MIN <= value <= INT64_MAX:
            return True  # an int subclass (an IntEnum, say)
    return False


def screen(items: list[Item]) -> list[Rejected]:
    """The events of ``items`` that hold a number no view can store."""
    found = []
    for item in items:
        where = too_large(item.event)
        if where is not None:
            found.append(Rejected(item.code, item.version, item.position,
                                  f"{where} is outside a signed 64-bit integer"))
    return found


def record(store: Store, rejected: list[Rejected]) -> None:
    now = iso(datetime.now(UTC))
    with store.transaction() as tx:
        tx.execute(REJECTS_DDL)
        for r in rejected:
            tx.execute("INSERT INTO {proj_rejects} (position, table_code, version, why, "
                       "recorded_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (position) DO NOTHING",
                       (r.position, r.table_code, r.version, r.why, now))


def recorded(store: Store) -> list[Rejected]:
    """Every event the views left out, in log order (none when nothing was ever left out)."""
    with store.transaction(commit=False) as tx:
        if not store.exists(tx, REJECTS):
            return []
        rows = tx.fetchall("SELECT position, table_code, version, why FROM {proj_rejects} "
                           "ORDER BY position")
    return [Rejected(r["table_code"], int(r["version"]), int(r["position"]), r["why"])
            for r in rows]


def overflow(items: list[Item], last: int, exc: BaseException) -> LedgerError:
    tables = sorted({i.code for i in items})
    first = items[0].position if items else last
    return LedgerError(
        "view_overflow",
        f"the read models cannot hold the events up to log position {last} (from {first}; "
        f"tables {', '.join(tables) or '-'}): a number or a sum is outside what their columns "
        f"hold ({type(exc).__name__}); the views stay where they were; run `ledger audit "
        "verify` and see docs/architecture/projections.md, 'A row the views cannot hold'",
        first=first, last=last, tables=tables)
