"""What every view needs to know about an event beyond its own fields: which table it belongs
to (code, game, currency, time zone) and which gaming day it falls in.

A table's identity is fixed when it opens, so it is read once from its ``TableOpened`` event
(the first of its stream) and kept in memory.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from functools import cache
from typing import Any
from uuid import UUID
from zoneinfo import ZoneInfo

from ledger.domain.errors import InvalidInput
from ledger.games.registry import find_game
from ledger.table.events import TableEvent, TableOpened

_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")


@dataclass(frozen=True)
class TableInfo:
    table_id: UUID
    code: str
    game: str
    currency: str
    timezone: str

    @property
    def banking(self) -> str:
        """``house``, ``player`` or ``pool`` (``unknown`` for a game this build lacks)."""
        game = find_game(self.game)
        return game.banking if game is not None else "unknown"

    @classmethod
    def of(cls, opened: TableOpened) -> TableInfo:
        return cls(opened.originator_id, opened.code, opened.game, opened.currency,
                   opened.timezone)


@cache
def _zone(name: str) -> ZoneInfo:
    return ZoneInfo(name)


def gaming_day(moment: datetime, timezone: str, start: time) -> str:
    """The gaming day (``YYYY-MM-DD``) of ``moment`` at a table in ``timezone``: the local date,
    less one day before the local ``start`` time (default 06:00)."""
    local = moment.astimezone(_zone(timezone))
    return (local.replace(tzinfo=None) - _shift(start)).date().isoformat()


@cache
def _shift(start: time) -> timedelta:
    return timedelta(hours=start.hour, minutes=start.minute, seconds=start.second)


def day_bounds(day: str, timezone: str, start: time) -> tuple[datetime, datetime]:
    """The instants at which gaming day ``day`` begins and ends at a table in ``timezone``."""
    first = date.fromisoformat(parse_day(day))
    zone = _zone(timezone)
    begin = datetime.combine(first, start, tzinfo=zone)
    end = datetime.combine(first + timedelta(days=1), start, tzinfo=zone)
    return begin, end


def parse_day(text: str) -> str:
    """A ``YYYY-MM-DD`` gaming day, checked; anything else is ``invalid_day``."""
    value = text.strip()
    try:
        if not _DAY.match(value):
            raise ValueError(value)
        date.fromisoformat(value)
    except ValueError:
        raise InvalidInput("invalid_day", f"{text!r} is not a day: write YYYY-MM-DD, e.g. "
                           "2026-03-14", day=text) from None
    return value


def current_gaming_day(timezone: str, start: time, now: datetime | None = None) -> str:
    from datetime import UTC

    return gaming_day(now or datetime.now(UTC), timezone, start)


class TableDirectory:
    """Table identities by stream id, learnt from TableOpened events or read from the store."""

    def __init__(self, app: Any) -> None:
        self._app = app
        self._tables: dict[UUID, TableInfo] = {}

    def learn(self, event: TableEvent) -> None:
        if isinstance(event, TableOpened):
            self._tables[event.originator_id] = TableInfo.of(event)

    def get(self, table_id: UUID) -> TableInfo | None:
        return self._tables.get(table_id)

    def load(self, table_ids: Iterable[UUID]) -> None:
        """Read the opening of each table not known yet (its version 1)."""
        for tid in table_ids:
            if tid in self._tables:
                continue
            stored = self._app.recorder.select_events(tid, lte=1)
            if stored:
                event = self._app.mapper.to_domain_event(stored[0])
                self.learn(event)
