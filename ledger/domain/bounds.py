"""The bounds of everything a client may send, declared once as pydantic types.

**Amounts** are strict integers of minor units: JSON ``"500"``, ``true`` or ``1e3`` are not
amounts, and neither is anything above :data:`MAX_AMOUNT`.

``MAX_AMOUNT`` = 10^12 minor units (10,000,000,000.00 in a two-decimal currency; 10^12 yen in
one without decimals) bounds every single amount a client names: a buy-in, a cash-out, a wager,
a table limit, a jackpot seed or award, a payout cap, a fee. No casino moves that much on one
table in one go, and the bound keeps every sum the views make far inside a signed 64-bit integer
(what PostgreSQL's ``BIGINT`` and SQLite's ``INTEGER`` hold, 9.2 x 10^18): a stack, a meter or a
day's drop would need more than nine million maximal movements, and a paytable's highest odds
(:data:`MAX_ODDS`) times the largest wager stays below 10^18.

**Text** a client names (reasons, names, kinds, ids) has a maximum length and a character set:
no lone surrogates (they cannot be stored as UTF-8), no control characters (newlines, escapes,
NUL: they forge log lines and terminal output) and no bidirectional overrides (they make a
reason read differently from what it holds). :func:`check_text` is the one check, used by the
types below and by the commands for text nested in free-form values (configurations, cards).
"""

from __future__ import annotations

import unicodedata
from typing import Annotated, Any

from pydantic import AfterValidator, Field, Strict

MAX_AMOUNT = 10**12
"""The largest amount (minor units) any command or setting may name."""
MAX_ODDS = 100_000
"""The largest paytable odds N (of N-1)."""
MAX_COUNT = 1_000_000
"""The largest count a client may name that is not money (chips of a denomination, raises)."""
MAX_NAME = 128
"""Ids, names, kinds and codes."""
MAX_REASON = 500
"""Free text: a reason, a label."""
MAX_BODY_BYTES = 64 * 1024
"""The largest request body the HTTP API reads (the largest command, a table with every
setting, is a few kilobytes)."""

_BIDI = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def text_problem(text: str) -> str | None:
    """What is wrong with ``text``'s characters, or None."""
    if text.isprintable():  # the common case, in C: no control, surrogate or format char
        return None
    for index, char in enumerate(text):
        category = unicodedata.category(char)
        if category == "Cs":
            return f"character {index + 1} is a lone surrogate (not Unicode text)"
        if category == "Cc":
            return f"character {index + 1} is a control character (U+{ord(char):04X})"
        if char in _BIDI:
            return f"character {index + 1} is a bidirectional control (U+{ord(char):04X})"
    return None


def check_text(text: str) -> str:
    problem = text_problem(text)
    if problem is not None:
        raise ValueError(f"text must be printable: {problem}")
    return text


def nested_text_problem(value: Any, path: str = "") -> str | None:
    """The first text (key or value) anywhere in ``value`` with bad characters, with where."""
    kind = type(value)
    if kind is int or kind is bool or value is None:
        return None
    if isinstance(value, str):
        problem = text_problem(value)
        return None if problem is None else (f"{path}: {problem}" if path else problem)
    if isinstance(value, dict):
        for key, item in value.items():
            where = f"{path}.{key}" if path else str(key)
            if isinstance(key, str) and text_problem(key) is not None:
                return f"{path or 'key'}: a key's {text_problem(key)}"
            found = nested_text_problem(item, where)
            if found is not None:
                return found
    if isinstance(value, list | tuple):
        for index, item in enumerate(value):
            found = nested_text_problem(item, f"{path}[{index}]")
            if found is not None:
                return found
    return None


def safe_text(text: str) -> str:
    """``text`` with lone surrogates replaced (U+FFFD), for echoing input in an error or a
    log line without failing to encode it."""
    return text.encode("utf-8", "replace").decode("utf-8") if any(
        "\ud800" <= c <= "\udfff" for c in text) else text


Amount = Annotated[int, Strict(), Field(gt=0, le=MAX_AMOUNT)]
"""A positive amount of minor units, at most MAX_AMOUNT."""
AmountOrZero = Annotated[int, Strict(), Field(ge=0, le=MAX_AMOUNT)]
Odds = Annotated[int, Strict(), Field(ge=0, le=MAX_ODDS)]
BasisPoints = Annotated[int, Strict(), Field(ge=0, le=10_000)]
Count = Annotated[int, Strict(), Field(ge=0, le=MAX_COUNT)]
Seat = Annotated[int, Strict(), Field(ge=1, le=10)]
Ordinal = Annotated[int, Strict(), Field(ge=1, le=MAX_AMOUNT)]
"""A hand number or a table version a client names."""
Name = Annotated[str, Field(min_length=1, max_length=MAX_NAME), AfterValidator(check_text)]
"""An id, a name, a kind: 1..MAX_NAME printable characters."""
Reason = Annotated[str, Field(max_length=MAX_REASON), AfterValidator(check_text)]
"""Free text: at most MAX_REASON printable characters."""
