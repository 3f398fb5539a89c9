"""Accounting periods: a day, a range of days or a month, and the COMAR 36.05.03.25 columns.

Every accounting report takes exactly one of ``--day D``, ``--from D1 --to D2`` or ``--month
YYYY-MM`` (the current month ends today: a period never runs past today) and reports three
columns: the period itself, the month to date and the year to date,
both ending on the period's last day (for a day, COMAR's day / MTD / YTD).
"""

from __future__ import annotations

import re
from calendar import monthrange
from dataclasses import dataclass
from datetime import date

from ledger.domain.errors import InvalidInput
from projections.views.context import parse_day

_MONTH = re.compile(r"^\d{4}-\d{2}$")
MAX_DAYS = 3_700
"""The longest period a report accepts (about ten years)."""


@dataclass(frozen=True)
class Period:
    first: str
    last: str
    label: str
    """``day``, ``range``, ``month``, ``month_to_date`` or ``year_to_date``."""

    @property
    def days(self) -> int:
        return (date.fromisoformat(self.last) - date.fromisoformat(self.first)).days + 1

    def as_dict(self) -> dict[str, str]:
        return {"label": self.label, "from": self.first, "to": self.last}


def parse_month(text: str) -> tuple[str, str]:
    value = text.strip()
    if _MONTH.match(value):
        year, month = int(value[:4]), int(value[5:])
        if 1 <= month <= 12 and year >= 1:
            last = monthrange(year, month)[1]
            return f"{value}-01", f"{value}-{last:02d}"
    raise InvalidInput("invalid_month", f"{text!r} is not a month: write YYYY-MM, e.g. 2026-03",
                       month=text)


def period(day: str | None = None, first: str | None = None, last: str | None = None,
           month: str | None = None) -> Period:
    """The period chosen by exactly one of ``day``, ``first``+``last`` or ``month``."""
    chosen = [day is not None, first is not None or last is not None, month is not None]
    if sum(chosen) != 1:
        raise InvalidInput("invalid_period", "give exactly one of --day D, --from D1 --to D2 or "
                           "--month YYYY-MM")
    if day is not None:
        d = parse_day(day)
        return Period(d, d, "day")
    if month is not None:
        start, end = parse_month(month)
        today = date.today().isoformat()
        if start > today:
            raise InvalidInput("invalid_period", f"the month {month} has not begun (today is "
                               f"{today})", month=month)
        return Period(start, min(end, today), "month")  # never a day still to come
    if first is None or last is None:
        raise InvalidInput("invalid_period", "--from and --to go together")
    start, end = parse_day(first), parse_day(last)
    if start > end:
        raise InvalidInput("invalid_period", f"--from {start} is after --to {end}",
                           first=start, last=end)
    result = Period(start, end, "range")
    if result.days > MAX_DAYS:
        raise InvalidInput("invalid_period", f"a period of {result.days} days is longer than "
                           f"{MAX_DAYS}", days=result.days)
    return result


def columns(chosen: Period) -> list[Period]:
    """The period, then the month and the year to date of its last day (COMAR)."""
    end = date.fromisoformat(chosen.last)
    return [chosen,
            Period(end.replace(day=1).isoformat(), chosen.last, "month_to_date"),
            Period(end.replace(month=1, day=1).isoformat(), chosen.last, "year_to_date")]
