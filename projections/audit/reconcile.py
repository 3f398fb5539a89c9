"""The read models reconciled with the events: every view's totals recomputed and compared.

While the audit reads each table's events, :class:`Totals` recomputes, per table and gaming
day, what the views must hold:

- ``accounting`` (``proj_accounting``): drop, cash-outs, house win, rake, jackpot
  contributions, awards and seeds, designated-player results, hands settled, voided and
  cancelled (the accounting view's own arithmetic applied to the audited events);
- ``hands`` (``proj_hands``): the number of hands started;
- ``bankrolls``: the number and the sum of the transfers (``proj_transfers``) and every
  account's balance at the head (``proj_balances``: the sum of every transfer, which is what the
  table's own state holds);
- ``jackpot`` (``proj_jackpot_meters``): each meter, which is the jackpot account's balance.

A view is compared at its own position in the notification log (its tracking row, read in the
audit's snapshot): only the events it has seen count, so a view that lags is not a mismatch.
An event holding a number no view can store is left out here as the views leave it out
(:mod:`projections.views.unholdable`), and so is an event the views record in ``proj_rejects`` (one
with which a total would leave the range); the audit reports each as ``unholdable_value``.
Each difference is a ``projection_mismatch`` (view, table, day, field, expected, found); the
views found so are marked outdated in ``proj_tracking`` (``projections status`` says so, and
they must be rebuilt before they are read again: ``ledger projections rebuild``).

The same totals, restricted to one gaming day, are what a seal holds a digest of.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, time, timedelta
from typing import Any

from ledger.domain import accounts
from ledger.domain import records as r
from ledger.domain.accounts import net_flows
from ledger.table.events import TableEvent
from projections.audit.model import Discrepancy
from projections.db import iso
from projections.views.accounting import SUMS, Accounting
from projections.views.base import Item, ancestry, field_of
from projections.views.context import TableInfo, _zone, gaming_day
from projections.views.unholdable import too_large

VIEWS = ("accounting", "hands", "bankrolls", "jackpot")
MISMATCH = "mismatch;"
"""Prefix the audit puts on a view's fingerprint when its rows do not match the events."""
UNSEEN = 1 << 62


@dataclass
class Totals:
    """Per table and gaming day, what the views must hold; feed events in each table's order."""

    day_start: time
    positions: dict[str, int] = field(default_factory=dict)
    """Each view's position: events after it are not counted for that view."""
    accounting: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)
    hands: dict[tuple[str, str], int] = field(default_factory=dict)
    transfers: dict[tuple[str, str], list[int]] = field(default_factory=dict)
    balances: dict[str, dict[str, int]] = field(default_factory=dict)
    meters: dict[str, int] = field(default_factory=dict)
    left_out: frozenset[int] = frozenset()
    """Log positions the views left out (``proj_rejects``: a total they could not hold)."""
    limits: dict[tuple[str, str], int] | None = None
    """``(table, day) -> version``: events of that day after that version are left out (the
    heads of a seal made while the day was in progress)."""

    def __post_init__(self) -> None:
        self._accounting = Accounting()
        self._accounting.reset()
        self.accounting = self._accounting._days

    def start(self, code: str, balances: dict[str, int]) -> None:
        """A table's balances before the first event fed (an incremental audit's start)."""
        self.balances[code] = dict(balances)
        if balances.get(accounts.JACKPOT):
            self.meters[code] = balances[accounts.JACKPOT]

    def feed(self, position: int, event: TableEvent, info: TableInfo, *,
             screened: bool = False, day: str | None = None,
             flows: dict[str, int] | None = None) -> None:
        """``screened``: the caller found already that the event holds no number the views
        cannot store (``too_large`` is None; an event that does is not fed); ``day``: its
        gaming day, when the caller worked it out; ``flows``: ``net_flows`` of its transfers,
        when the caller worked them out (not changed here)."""
        if position in self.left_out or (not screened and too_large(event) is not None):
            return  # left out of the views too (projections.views.unholdable)
        if day is None:
            day = gaming_day(event.timestamp, info.timezone, self.day_start)
        code = info.code
        if self.limits is not None and event.originator_version > self.limits.get(
                (code, day), UNSEEN):
            return
        positions = self.positions
        transfers: tuple[r.Transfer, ...] = field_of(event, "transfers", ())
        if transfers and flows is None:
            flows = net_flows(transfers)
        if position <= positions.get("accounting", UNSEEN):
            item = Item(position, event, info, day, "")
            if flows is not None:
                item._flows = flows  # what Item.flows works out of the same transfers
            self._accounting.handle(item)
        if position <= positions.get("hands", UNSEEN) \
                and r.HandStarted in ancestry(event.__class__):
            self.hands[(code, day)] = self.hands.get((code, day), 0) + 1
        if not transfers or flows is None:
            return
        if position <= positions.get("bankrolls", UNSEEN):
            entry = self.transfers.setdefault((code, day), [0, 0])
            entry[0] += len(transfers)
            entry[1] += sum(t.amount for t in transfers)
            balances = self.balances.setdefault(code, {})
            for account, change in flows.items():
                balances[account] = balances.get(account, 0) + change
        if position <= positions.get("jackpot", UNSEEN):
            change = flows.get(accounts.JACKPOT, 0)
            if change or any(accounts.JACKPOT in (t.src, t.dst) for t in transfers):
                self.meters[code] = self.meters.get(code, 0) + change

    def merge(self, part: Totals) -> None:
        """Add the totals of other tables (audited in another process)."""
        self.accounting.update(part.accounting)
        self.hands.update(part.hands)
        self.transfers.update(part.transfers)
        self.balances.update(part.balances)
        self.meters.update(part.meters)

    # --- the expected rows -----------------------------------------------------------------

    def rows(self, view: str) -> dict[tuple[str, str], dict[str, int]]:
        """``(table, day or account or "-") -> {field: value}`` as the view must hold them."""
        if view == "accounting":
            return {k: {f: int(v[f]) for f in SUMS} for k, v in self.accounting.items()}
        if view == "hands":
            return {k: {"hands": n} for k, n in self.hands.items()}
        if view == "bankrolls":
            found = {k: {"transfers": n, "amount_minor": a}
                     for k, (n, a) in self.transfers.items()}
            for code, balances in self.balances.items():
                for account, balance in balances.items():
                    found[(code, "balance:" + account)] = {"balance_minor": balance}
            return found
        return {(code, "-"): {"meter_minor": m} for code, m in self.meters.items()}

    def digest(self, view: str, day: str) -> str:
        """SHA-256 of the view's totals of one gaming day (balances are not by day: a seal
        holds them in its heads)."""
        rows = {f"{code}|{key}": values for (code, key), values in self.rows(view).items()
                if key == day}
        text = json.dumps(rows, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()


_MINUTE = timedelta(minutes=1)
_LAST = timedelta(seconds=59, microseconds=999_999)


class GamingDays:
    """:func:`projections.views.context.gaming_day` of event timestamps, worked out once per minute
    of time and table time zone, where that is exact.

    ``gaming_day`` shifts the local time back by the day's start (hours, minutes and seconds)
    and takes the date. A moment with a fixed whole-minute offset (the stored timestamps are
    UTC), in a minute throughout which the table's zone has one whole-minute offset, with a
    start of whole minutes: the shifted times of that minute lie within one minute that begins
    at a whole minute, so they share one date. Any other moment is worked out by itself."""

    def __init__(self, start: time) -> None:
        self.start = start
        self._whole = start.second == 0
        self._days: dict[tuple[Any, ...], str | None] = {}

    def __call__(self, moment: datetime, timezone: str) -> str:
        fixed = moment.tzinfo.utcoffset(None) if moment.tzinfo is not None else None
        if not self._whole or fixed is None or fixed % _MINUTE:
            return gaming_day(moment, timezone, self.start)
        key = (timezone, fixed, moment.minute, moment.hour, moment.day, moment.month,
               moment.year)
        try:
            day = self._days[key]
        except KeyError:
            if len(self._days) >= 4096:
                self._days.clear()
            day = self._days[key] = self._minute(moment.replace(second=0, microsecond=0),
                                                 timezone)
        return gaming_day(moment, timezone, self.start) if day is None else day

    def _minute(self, first: datetime, timezone: str) -> str | None:
        """The gaming day of every moment of the minute from ``first``, or None when the
        table's zone does not keep one whole-minute offset through it."""
        zone = _zone(timezone)
        offset = first.astimezone(zone).utcoffset()
        if offset is None or offset % _MINUTE \
                or (first + _LAST).astimezone(zone).utcoffset() != offset:
            return None
        return gaming_day(first, timezone, self.start)


def _is_day(key: str) -> bool:
    return len(key) == 10 and key[4] == "-" and key[7] == "-"


STORED = {
    "accounting": ("proj_accounting", "SELECT table_code, gaming_day AS k, "
                   + ", ".join(SUMS) + " FROM {proj_accounting}"),
    "hands": ("proj_hands", "SELECT table_code, gaming_day AS k, COUNT(*) AS hands "
              "FROM {proj_hands} GROUP BY table_code, gaming_day"),
    "transfers": ("proj_transfers", "SELECT table_code, gaming_day AS k, COUNT(*) AS transfers, "
                  "SUM(amount_minor) AS amount_minor FROM {proj_transfers} "
                  "GROUP BY table_code, gaming_day"),
    "balances": ("proj_balances", "SELECT table_code, 'balance:' || account AS k, "
                 "balance_minor FROM {proj_balances}"),
    "jackpot": ("proj_jackpot_meters", "SELECT table_code, '-' AS k, meter_minor "
                "FROM {proj_jackpot_meters}"),
}
PARTS = {"accounting": ("accounting",), "hands": ("hands",),
         "bankrolls": ("transfers", "balances"), "jackpot": ("jackpot",)}


def view_positions(reader: Any, fingerprints: dict[str, str]) -> dict[str, int]:
    """The position of each checked view that is set up and built by this version (one
    marked as not matching is checked again: it is reported until it is rebuilt)."""
    if not reader.exists("proj_tracking"):
        return {}
    rows = reader.fetchall("SELECT view, position, fingerprint FROM {proj_tracking}")
    return {row["view"]: int(row["position"]) for row in rows
            if row["view"] in VIEWS and str(row["fingerprint"]).removeprefix(MISMATCH)
            == fingerprints.get(row["view"])}


def left_out_by_views(reader: Any) -> dict[int, tuple[str, int, str]]:
    """The events the views left out: ``position -> (table, version, why)``."""
    if not reader.exists("proj_rejects"):
        return {}
    return {int(row["position"]): (row["table_code"], int(row["version"]), row["why"])
            for row in reader.fetchall("SELECT position, table_code, version, why "
                                       "FROM {proj_rejects}")}


def compare(reader: Any, totals: Totals, *, tables: set[str] | None = None,
            since: str | None = None) -> list[Discrepancy]:
    """Every difference between the stored views and the recomputed totals (only ``tables``
    when given; only days from ``since`` on when given)."""
    found: list[Discrepancy] = []
    for view in VIEWS:
        if view not in totals.positions:
            continue
        expected = totals.rows(view)
        stored: dict[tuple[str, str], dict[str, Any]] = {}
        for part in PARTS[view]:
            table, query = STORED[part]
            if not reader.exists(table):
                break
            for row in reader.fetchall(query):
                stored[(row.pop("table_code"), row.pop("k"))] = row
        else:
            found.extend(_differences(view, expected, stored, tables, since))
    return found


def _differences(view: str, expected: dict[tuple[str, str], dict[str, int]],
                 stored: dict[tuple[str, str], dict[str, Any]], tables: set[str] | None,
                 since: str | None) -> Iterable[Discrepancy]:
    for code, key in sorted(set(expected) | set(stored)):
        if tables is not None and code not in tables:
            continue
        if since is not None and _is_day(key) and key < since:
            continue
        want, got = expected.get((code, key), {}), stored.get((code, key), {})
        for name in sorted(set(want) | set(got)):
            a, b = int(want.get(name) or 0), int(got.get(name) or 0)
            if a != b:
                day = key if _is_day(key) else None
                what = key.removeprefix("balance:") if key.startswith("balance:") else None
                yield Discrepancy(code, None, "projection_mismatch",
                                  {"view": view, "table": code, "day": day,
                                   "field": f"{what}.{name}" if what else name, "value": a},
                                  {"view": view, "table": code, "day": day,
                                   "field": f"{what}.{name}" if what else name, "value": b})


def mark_outdated(app: Any, views: Iterable[str]) -> None:
    """Mark views whose rows differ from the events as outdated (``projections status``
    shows it; reading them asks for a rebuild). A user who may not write leaves them as they
    are: the audit's report says it all the same."""
    from projections.db import Store

    names = sorted(set(views))
    if not names:
        return
    store = Store(app.recorder)
    try:
        with store.transaction() as tx:
            for name in names:
                tx.execute("UPDATE {proj_tracking} SET fingerprint = ? || fingerprint, "
                           "updated_at = ? WHERE view = ? AND fingerprint NOT LIKE ?",
                           (MISMATCH, iso_now(), name, MISMATCH + "%"))
    except Exception as exc:
        from ledger.store.errors import permission_denied

        if not permission_denied(exc):
            raise


def iso_now() -> str:
    from datetime import UTC, datetime

    return iso(datetime.now(UTC))
