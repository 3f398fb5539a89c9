"""What a view is: tables of its own, and a function from decoded events to rows.

The runner hands each view the events it has not seen, in notification order, inside one
transaction per batch; the view buffers what it writes and writes it in :meth:`View.flush`,
before the runner moves the view's tracking position in the same transaction. A view keeps no
memory between batches other than its own tables (rows it must update are read back on first
touch), so it can stop anywhere and resume.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from ledger.table import TableEvent
from projections.context import TableInfo
from projections.db import Tx


@dataclass(frozen=True)
class Item:
    """One event as views receive it."""

    position: int
    """Its notification id (the application's log position)."""
    event: TableEvent
    table: TableInfo
    day: str
    """The gaming day of the event's timestamp at its table."""
    at: str
    """The event's timestamp as ISO-8601 UTC text."""

    @property
    def code(self) -> str:
        return self.table.code

    @property
    def version(self) -> int:
        return self.event.originator_version

    @property
    def kind(self) -> str:
        return type(self.event).__name__

    @property
    def hand_no(self) -> int | None:
        number: int | None = getattr(self.event, "hand_no", None)
        return number


class View:
    """Base of every view. Subclasses set the class attributes and implement ``handle``."""

    name: ClassVar[str]
    description: ClassVar[str]
    version: ClassVar[int] = 1
    """Bump when the view's tables or rules change: stored rows then need a rebuild."""
    tables: ClassVar[tuple[str, ...]]
    ddl: ClassVar[tuple[str, ...]]

    def __init__(self) -> None:
        self._tx: Tx | None = None

    @property
    def tx(self) -> Tx:
        assert self._tx is not None, "the view is used outside a batch"
        return self._tx

    def begin(self, tx: Tx) -> None:
        """A batch starts: forget buffered rows (a failed batch leaves nothing behind)."""
        self._tx = tx
        self.reset()

    def reset(self) -> None:
        """Clear the batch buffers."""

    def handle(self, item: Item) -> None:
        raise NotImplementedError

    def flush(self) -> None:
        """Write the buffered rows."""

    def end(self) -> None:
        self._tx = None
        self.reset()


def dumps(value: Any) -> str:
    """Compact JSON for the JSON columns."""
    import json

    return json.dumps(value, separators=(",", ":"), sort_keys=False)
