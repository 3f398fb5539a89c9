"""The whole-store checks of a day-limited audit, on the stored JSON where no hand is decided.

``ledger audit verify --day D`` decides again only the hands (and other commands) of day D, but
checks the whole store: the hash chain and the command-log copies (:mod:`.chain`, on every
row), conservation (:mod:`.checks`), the bounds of every recorded command (:mod:`.commands`)
and the totals the read models must hold (:mod:`.reconcile`). None of these needs the table's
state, so a table is walked here without it:

- each row's JSON object (parsed once, by the chain check) is checked as it is stored, for the
  plain events a table records most (:data:`RAW_KINDS`) whose every value those checks read
  has exactly the type the event's class holds (strict integers, text), whose transfers are
  well formed and whose JSON holds no number past a signed 64-bit integer: the same checks,
  on the same values, as on the decoded event;
- any other row (a table's opening, a buy-in, a settlement, a correction, an odd value, a
  transfer that breaks a rule) is decoded and checked exactly as before, so whatever it
  breaks is reported by the same code, in the same words;
- the table's state is built only when an event of day D is met (its own gaming day): the
  replay (:mod:`.replay`) is then given every event from the table's first (read again in
  the same snapshot), so each hand is decided from the state the record gives it, and every
  event after it, as in a full audit. A table with no event on day D is never replayed.

Conservation is checked here for every event of the table, the replayed ones included (the
replay then leaves it to this walk), on balances summed from the transfers (what the table's
state holds) and with the hand in progress followed from the hand's start and ending records.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime, time
from typing import Any

from eventsourcing.persistence import StoredEvent
from pydantic import ValidationError

from ledger import accounts
from ledger import records as r
from ledger import table as t
from ledger.table import TableEvent, topic_of
from projections.audit.checks import Conservation, well_formed
from projections.audit.commands import NOT_RAW, command_for, raw_command_for
from projections.audit.model import AuditReport, Discrepancy
from projections.audit.reconcile import GamingDays
from projections.unholdable import holdable_json

RAW_KINDS: dict[str, type[TableEvent]] = {topic_of(cls): cls for cls in (
    t.HandStarted, t.RoleOffered, t.WagerPlaced, t.CardsDealt, t.PlayerActed,
    t.CardsRevealed, t.PlayerSeated, t.PlayerUnseated)}
"""The events checked on their stored JSON: none states a cage movement, none is a hand's
ending or a correction (those are decoded)."""
_ENVELOPE = frozenset({"originator_id", "originator_version"})
"""Taken from the row, whatever the JSON says (``PydanticMapper.from_data``)."""
_FIELDS = {cls: frozenset(cls.model_fields) | _ENVELOPE for cls in RAW_KINDS.values()}
_REQUIRED = {cls: frozenset(n for n, f in cls.model_fields.items() if f.is_required())
             - _ENVELOPE for cls in RAW_KINDS.values()}
_TRANSFERS_REQUIRED = {cls: cls.model_fields["transfers"].is_required()
                       for cls in RAW_KINDS.values() if "transfers" in cls.model_fields}
_TRANSFER_KEYS = frozenset(r.Transfer.model_fields)
_MOMENT = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,6})?Z\Z")
"""A timestamp as the ledger writes it (UTC, ``Z``): read the same by ``fromisoformat`` as by
pydantic. Any other spelling is decoded."""
BOUNDS = {"bounds": "those every command has now (ledger.bounds)"}

Report = Callable[[str, int | None, Any, Any, str | None], None]


def moment_of(value: Any) -> datetime | None:
    """The timestamp of a stored event when written as the ledger writes it, else None."""
    if type(value) is not str or _MOMENT.match(value) is None:
        return None
    return datetime.fromisoformat(value)


def raw_transfers(cls: type, data: dict[str, Any]) -> list[tuple[str, str, int]] | None:
    """The transfers of a stored event as (src, dst, amount), when each is a valid movement
    (a positive strict integer between two different, well-formed accounts) written with
    exactly the types a :class:`~ledger.records.Transfer` holds; None otherwise."""
    required = _TRANSFERS_REQUIRED.get(cls)
    if required is None:
        return None if "transfers" in data else []
    items = data.get("transfers")
    if items is None:
        return None if required or "transfers" in data else []
    if type(items) is not list:
        return None
    found = []
    for item in items:
        if type(item) is not dict or not item.keys() <= _TRANSFER_KEYS:
            return None
        src, dst, amount = item.get("src"), item.get("dst"), item.get("amount")
        if type(src) is not str or type(dst) is not str or type(amount) is not int \
                or amount <= 0 or src == dst or not (well_formed(src) and well_formed(dst)):
            return None
        rule, memo = item.get("rule"), item.get("memo")
        if not (rule is None or type(rule) is str) or not (memo is None or type(memo) is str):
            return None
        found.append((src, dst, amount))
    return found


Decode = Callable[[StoredEvent, dict[str, Any] | None], TableEvent | None]
"""The decoded event of a stored row (its parsed JSON when at hand); None: undecodable."""


class FastTable:
    """One table's walk in a day-limited audit: conservation and the bounds of each command
    for every event, and when the replay must start (:meth:`triggers`)."""

    def __init__(self, label: str, report: AuditReport, day: str, start: time,
                 decode: Decode) -> None:
        self.label = label
        self.report = report
        self.day = day
        self.days = GamingDays(start)
        self.decode = decode
        self.conservation = Conservation(self._report)
        self.timezone: str | None = None
        self.opened = False
        self.in_hand = False
        self.broken = False
        """An event could not be decoded: its transfers are unknown, conservation stops."""
        self.recorded_source = False
        self._group: list[tuple[type, dict[str, Any] | None, TableEvent | None,
                                StoredEvent]] = []
        self._group_id: Any = None

    # --- the replay's start ------------------------------------------------------------

    def day_of(self, moment: datetime | None) -> str | None:
        """The gaming day of an event at ``moment`` (None before the table's opening)."""
        if moment is None or self.timezone is None:
            return None
        return self.days(moment, self.timezone)

    def triggers(self, moment: datetime | None) -> bool:
        """Whether an event at ``moment`` may be of the audited day (or begin a hand or a
        command of that day): then the table is replayed from its first event on."""
        day = self.day_of(moment)
        return day is None or day == self.day

    # --- one event -----------------------------------------------------------------------

    def plain(self, cls: type, data: dict[str, Any], stored: bytes,
              moved: list[tuple[str, str, int]]) -> bool:
        """Whether an event whose transfers are ``moved`` (:func:`raw_transfers`) is checked
        on its stored JSON: nothing in it that conservation or the read models read is other
        than the class holds, it holds no number past a signed 64-bit integer, and a wager
        moves what it states (otherwise it is decoded, and the same checks report it)."""
        hand = data.get("hand_no")
        if not (hand is None or type(hand) is int) or "class_version" in data \
                or not data.keys() <= _FIELDS[cls] or not _REQUIRED[cls] <= data.keys() \
                or not holdable_json(stored):
            return False  # decoded: a field missing or unknown is undecodable_event
        if cls is t.WagerPlaced:
            amount = data.get("amount")
            return type(amount) is int and amount == sum(
                a for _, dst, a in moved if accounts.is_spot(dst))
        return True

    def after_plain(self, version: int, cls: type, data: dict[str, Any],
                    moved: list[tuple[str, str, int]], balances: dict[str, int],
                    stored: StoredEvent) -> None:
        """The checks of a plain event once its transfers are in ``balances``."""
        self._group_item(cls, data, None, stored, data.get("command_id"))
        if self.broken:
            return
        if cls is t.HandStarted:
            self.in_hand = True
        elif self.in_hand and not self.conservation.open:
            for src, dst, _ in moved:  # nothing to report, nothing to remember (balances)
                if balances.get(src, 0) < 0 or balances.get(dst, 0) < 0:
                    break
            else:
                return
        touched = {a for src, dst, _ in moved for a in (src, dst)}
        self.conservation.balances(balances, version, data.get("hand_no"), not self.in_hand,
                                   touched)

    def before_event(self, event: TableEvent | None, stored: StoredEvent) -> None:
        """The checks of a decoded event by itself (None: it could not be decoded)."""
        if event is None:
            self._close_group()
            self.broken = True
            return
        self._group_item(type(event), None, event, stored, event.command_id)
        if isinstance(event, r.TableOpened):
            self.timezone, self.opened = event.timezone, True
            self.recorded_source = _recorded(event.config)
        elif isinstance(event, r.ConfigChanged):
            self.recorded_source = _recorded(event.config)
        if not self.broken:
            self.conservation.event(event, event.originator_version)

    def after_event(self, event: TableEvent, balances: dict[str, int]) -> None:
        """The balance checks once a decoded event's transfers are in ``balances``."""
        if self.broken:
            return
        if isinstance(event, r.HandStarted):
            self.in_hand = True
        elif isinstance(event, r.HAND_ENDINGS):
            self.in_hand = False
        transfers: tuple[r.Transfer, ...] = getattr(event, "transfers", ())
        touched = {a for x in transfers for a in (x.src, x.dst)}
        self.conservation.balances(balances, event.originator_version,
                                   getattr(event, "hand_no", None), not self.in_hand, touched)

    def finish(self, balances: dict[str, int]) -> None:
        self._close_group()
        if self.opened and not self.broken:
            self.conservation.finish(balances, None)

    # --- the bounds of each recorded command (ledger.bounds) -----------------------------

    def _group_item(self, cls: type, data: dict[str, Any] | None, event: TableEvent | None,
                    stored: StoredEvent, command_id: Any) -> None:
        if self._group and (command_id is None or command_id != self._group_id):
            self._close_group()
        if not self._group:
            self._group_id = command_id
        self._group.append((cls, data, event, stored))

    def _close_group(self) -> None:
        """The command behind a group is rebuilt as the replay rebuilds it: one out of the
        bounds every command has now is ``out_of_bounds`` (what the replay reports when it
        replays the table is left to this walk)."""
        group, self._group = self._group, []
        if not group or self.broken:
            return
        _, data, event, stored = group[0]
        try:
            made: Any = NOT_RAW
            if group[0][1] is not None and group[-1][1] is not None:
                made = raw_command_for(self.label, [(c, d or {}) for c, d, _, _ in group],
                                       recorded_source=self.recorded_source)
            if made is NOT_RAW:
                events = [e if e is not None else self.decode(s, dict(d or {}))
                          for _, d, e, s in group]
                if any(e is None for e in events):
                    return
                command_for(self.label, events,  # type: ignore[arg-type]
                            recorded_source=self.recorded_source)
        except ValidationError as exc:
            hand = data.get("hand_no") if data is not None else _hand_of(event)
            why = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}"
                            for e in exc.errors())
            self.report.discrepancies.append(Discrepancy(
                self.label, hand, "out_of_bounds", BOUNDS,
                {"version": int(stored.originator_version), "why": why}))

    def _report(self, kind: str, hand: int | None, expected: Any, recorded: Any,
                rule: str | None) -> None:
        self.report.discrepancies.append(Discrepancy(self.label, hand, kind, expected,
                                                     recorded, rule))


def _hand_of(event: TableEvent | None) -> int | None:
    if isinstance(event, r.HandCorrected):
        return event.hand
    return getattr(event, "hand_no", None)


def _recorded(config: Any) -> bool:
    if isinstance(config, dict):
        return config.get("card_source") == "recorded"
    return getattr(config, "card_source", None) == "recorded"
