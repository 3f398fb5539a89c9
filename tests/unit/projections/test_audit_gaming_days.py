"""The audit works out each event's gaming day once per minute of time where that is exact
(``projections.audit.reconcile.GamingDays``): it must give what ``gaming_day`` gives for every
moment, across daylight-saving changes, zones with offsets of 30 and 45 minutes, local mean
times with offsets in seconds, and day starts with seconds."""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta, timezone

import pytest
from pydantic import TypeAdapter

from projections.audit.reconcile import GamingDays
from projections.views.context import gaming_day

ZONES = ("Europe/Amsterdam", "America/Los_Angeles", "Asia/Kathmandu", "Australia/Lord_Howe",
         "Asia/Macau", "UTC", "America/St_Johns")
STARTS = (time(6), time(0), time(1, 30), time(2, 0, 30))


def _moments() -> list[datetime]:
    """Moments every 7 s 13 ms around each zone's changes of 2026, at day starts, and in the
    nineteenth century (local mean time: offsets with seconds)."""
    found: list[datetime] = []
    for first in (datetime(2026, 3, 8, 8, tzinfo=UTC), datetime(2026, 3, 29, 0, tzinfo=UTC),
                  datetime(2026, 10, 25, 0, tzinfo=UTC), datetime(2026, 11, 1, 8, tzinfo=UTC),
                  datetime(2026, 4, 4, 14, tzinfo=UTC), datetime(2026, 10, 3, 15, tzinfo=UTC),
                  datetime(1880, 1, 1, 0, tzinfo=UTC)):
        found.extend(first + timedelta(seconds=7.013 * i) for i in range(1500))
    return found


@pytest.mark.parametrize("start", STARTS)
def test_the_days_worked_out_per_minute_are_those_of_gaming_day(start: time) -> None:
    days = GamingDays(start)
    for zone in ZONES:
        for moment in _moments():
            assert days(moment, zone) == gaming_day(moment, zone, start), (moment, zone)


def test_stored_timestamps_and_other_offsets_give_the_same_days() -> None:
    """Timestamps as the events decode them (pydantic's UTC), with an offset of whole minutes,
    and with an offset in seconds (worked out one by one)."""
    days = GamingDays(time(6))
    parsed = TypeAdapter(datetime).validate_python("2026-03-29T00:59:59.5Z")
    odd = timezone(timedelta(hours=1, seconds=7))
    for moment in (parsed, parsed.astimezone(timezone(timedelta(hours=5, minutes=45))),
                   parsed.astimezone(odd), parsed + timedelta(seconds=1),
                   (parsed + timedelta(seconds=1)).astimezone(odd)):
        for zone in ZONES:
            assert days(moment, zone) == gaming_day(moment, zone, time(6)), (moment, zone)
