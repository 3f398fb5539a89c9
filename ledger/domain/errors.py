"""Errors with stable codes.

Every rejected command raises a :class:`LedgerError` (or a subclass) and appends nothing.
The ``code`` is a stable snake_case identifier that clients, the CLI and the HTTP API rely on;
the ``message`` is for people; ``details`` carries structured context (seat, amount, rule id).
The subclasses only group codes by what went wrong; the HTTP status of each code is decided in
one table by the API layer.
"""

from __future__ import annotations

from typing import Any, NamedTuple


class Private(NamedTuple):
    """What part of a refusal only readers of ``seat``'s face-down cards may see."""

    seat: int
    message: str
    keys: frozenset[str]


class LedgerError(Exception):
    """Root of every domain error: a stable ``code``, a human ``message`` and ``details``."""

    default_code = "ledger_error"

    def __init__(self, code: str, message: str, **details: Any) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.details: dict[str, Any] = details
        self.private: Private | None = None

    def private_to(self, seat: int, message: str, *keys: str) -> LedgerError:
        """Mark this refusal as telling what the rules derive from ``seat``'s face-down cards.

        A reader who cannot see those cards gets :meth:`public`: ``message`` instead of the
        message, and the details without ``keys``. Returns ``self`` so it can be raised inline.
        """
        self.private = Private(seat, message, frozenset(keys))
        return self

    def public(self, seats: frozenset[int]) -> LedgerError:
        """The refusal as a reader who sees the face-down cards of ``seats`` may read it."""
        if self.private is None or self.private.seat in seats:
            return self
        details = {k: v for k, v in self.details.items() if k not in self.private.keys}
        return type(self)(self.code, self.private.message, **details)

    def as_dict(self) -> dict[str, Any]:
        """The error as the API and the CLI print it."""
        return {"code": self.code, "message": self.message, "details": self.details}

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.code!r}, {self.message!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as it is (a worker process's refusal reaches its parent whole; the default
        would call ``__init__`` with the message alone and fail there)."""
        return _restored, (type(self), self.args, dict(self.__dict__))


def _restored(cls: type[LedgerError], args: tuple[Any, ...], state: dict[str, Any]
              ) -> LedgerError:
    error = cls.__new__(cls)
    Exception.__init__(error, *args)
    error.__dict__.update(state)
    return error


class InvalidInput(LedgerError):
    """The request itself is malformed: unknown card, repeated card, bad amount, bad count."""


class RuleViolation(LedgerError):
    """The request is well formed but the rules forbid it now (out of turn, above limit, ...)."""


class NotFound(LedgerError):
    """The table, hand or seat named does not exist."""


class StateConflict(LedgerError):
    """The table is not in a state where this can happen (hand in progress, already open, ...)."""


class UndecodableEvent(LedgerError):
    """A stored event cannot be decoded (an unknown topic, not JSON, a field that fails
    validation, a class version there is none of): the table's record was altered. Code
    ``undecodable_event``; details: the table, the version and what is wrong."""


class ConcurrencyError(LedgerError):
    """The table kept changing under the command; retries were exhausted."""


def validation_problems(exc: Any) -> list[dict[str, str]]:
    """A pydantic ``ValidationError`` as ``[{"field": "a.b", "problem": "..."}]``."""
    return [
        {"field": ".".join(str(p) for p in e["loc"]), "problem": e["msg"]}
        for e in exc.errors(include_url=False)
    ]
