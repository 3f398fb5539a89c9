"""Gaming days: the local date of the table's time zone, shifted by the day's start."""

from __future__ import annotations

from datetime import UTC, datetime, time

import pytest

from ledger.domain.errors import InvalidInput
from projections.read.queries import hold_pct
from projections.views.context import day_bounds, gaming_day, parse_day

SIX = time(6, 0)


@pytest.mark.parametrize(
    ("utc", "zone", "day"),
    [
        ("2026-03-14T04:59:59", "Europe/Amsterdam", "2026-03-13"),  # 05:59:59 local
        ("2026-03-14T05:00:00", "Europe/Amsterdam", "2026-03-14"),  # 06:00 local
        ("2026-07-14T03:59:59", "Europe/Amsterdam", "2026-07-13"),  # summer time, 05:59:59
        ("2026-07-14T04:00:00", "Europe/Amsterdam", "2026-07-14"),
        ("2026-03-14T10:59:00", "America/Los_Angeles", "2026-03-13"),  # 03:59 local
        ("2026-03-14T23:30:00", "Asia/Macau", "2026-03-15"),  # 07:30 local next day
        ("2026-03-29T01:30:00", "Europe/Amsterdam", "2026-03-28"),  # DST night, 03:30 local
    ],
)
def test_gaming_day_in_the_tables_time_zone(utc: str, zone: str, day: str) -> None:
    moment = datetime.fromisoformat(utc).replace(tzinfo=UTC)
    assert gaming_day(moment, zone, SIX) == day


def test_the_day_start_is_a_setting() -> None:
    moment = datetime(2026, 3, 14, 3, 30, tzinfo=UTC)  # 04:30 in Amsterdam
    assert gaming_day(moment, "Europe/Amsterdam", time(4, 0)) == "2026-03-14"
    assert gaming_day(moment, "Europe/Amsterdam", time(5, 0)) == "2026-03-13"


def test_day_bounds_are_the_day_start_in_local_time() -> None:
    begin, end = day_bounds("2026-03-14", "Europe/Amsterdam", SIX)
    assert begin.astimezone(UTC) == datetime(2026, 3, 14, 5, 0, tzinfo=UTC)
    assert end.astimezone(UTC) == datetime(2026, 3, 15, 5, 0, tzinfo=UTC)
    begin, end = day_bounds("2026-03-28", "Europe/Amsterdam", SIX)  # a 23-hour gaming day
    assert (end.astimezone(UTC) - begin.astimezone(UTC)).total_seconds() == 23 * 3600


@pytest.mark.parametrize("text", ["14-03-2026", "2026-3-14", "2026-02-30", "today", ""])
def test_a_day_that_is_not_yyyy_mm_dd_is_refused(text: str) -> None:
    with pytest.raises(InvalidInput) as err:
        parse_day(text)
    assert err.value.code == "invalid_day"


def test_hold_percentage_is_exact() -> None:
    assert hold_pct(12_345, 100_000) == "12.35"
    assert hold_pct(-1, 3) == "-33.33"
    assert hold_pct(5, 0) is None and hold_pct(None, 100) is None
