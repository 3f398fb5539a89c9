"""Replay one table's events through a fresh TableState, deciding every command again.

Events arrive in version order and are grouped by the command that appended them. Before a
group is applied, the command behind it is rebuilt (:mod:`projections.audit.commands`) and the
table's rules, in the state and configuration in force at that moment, decide it again; what
they produce is compared with what was recorded (:mod:`projections.audit.compare`). The
recorded events are then applied, so the replay follows the record and a discrepancy stays
local to where it happened. Conservation is checked on the way (:mod:`projections.audit.checks`).

A hand's events are held until the hand ends, so that its revealed deck can be handed to an
audit deck keeper before the hand is decided again: the shuffle is taken from the record, and
the commitment in HandStarted, every card dealt (the deck's next cards in the round-robin order
of ``deal_round_robin``) and the settlement are then recomputed from it (COM-8). A hand still
in progress at the end of the stream has no revealed deck: its rng deals are applied unchecked.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from pydantic import ValidationError

from ledger.domain import records as r
from ledger.domain.approval import APPROVED_EVENTS, approvers_of
from ledger.domain.cards import DECK_SIZE
from ledger.domain.commands import (
    CORRECTION_COMMANDS,
    Command,
    DealCards,
    OpenTable,
    StartHand,
    command_from,
)
from ledger.domain.errors import LedgerError
from ledger.table.corrections import Past
from ledger.table.corrections import decide as decide_correction
from ledger.table.events import TableEvent
from ledger.table.state import TableState
from projections.audit.approvers import ApprovalCheck
from projections.audit.checks import Conservation, rake_check
from projections.audit.commands import command_for
from projections.audit.compare import compare_records, record_type
from projections.audit.model import AuditReport, Discrepancy
from projections.views.base import ancestry, field_of

Scope = Callable[[TableState | None, TableEvent], bool]
PastAt = Callable[[int], Past]
CHECKPOINT_EVERY = 500
"""Events between two of the audit's own checkpoints of the table's state (what a correction
is decided from starts at the nearest one, instead of at the table's first event)."""
"""The table's stored past up to a version (what a correction is decided from, COR-1..5)."""


class AuditDeckKeeper:
    """Hands out the deck a hand revealed when it ended, whatever is asked (COM-8)."""

    def __init__(self, deck: Sequence[int] | None, salt: str | None) -> None:
        self.known = deck is not None and salt is not None
        self.deck = tuple(deck) if deck is not None else tuple(range(DECK_SIZE))
        self.salt = salt or ""

    def new_deck(self) -> tuple[tuple[int, ...], str]:
        return self.deck, self.salt

    def seal(self, deck: Sequence[int], salt: str) -> str:
        return "audit"

    def unseal(self, sealed: str) -> tuple[tuple[int, ...], str]:
        if not self.known:  # a hand that ended without its deck (voided: deck_unreadable)
            raise LedgerError("deck_unreadable", "the hand revealed no deck")
        return self.deck, self.salt


@dataclass
class GroupResult:
    """One recorded command and its recomputation."""

    events: list[TableEvent]
    command: Command | None
    expected: list[r.Record] | None = None
    refusal: LedgerError | None = None
    checked: bool = False
    discrepancies: list[Discrepancy] = field(default_factory=list)
    balances: dict[str, int] | None = None
    """Every account's balance once the group is applied (None when it could not be; given
    only to an observer)."""


Observer = Callable[[GroupResult], None]


class TableAudit:
    """Feed it a table's events in order, then call :meth:`finish`."""

    def __init__(self, label: str, report: AuditReport, *, scope: Scope | None = None,
                 observer: Observer | None = None, past: PastAt | None = None,
                 approvers: ApprovalCheck | None = None) -> None:
        self.label = label
        self.past = past
        self.approvers = approvers
        self.checkpoints: dict[int, dict[str, Any]] = {}
        """The audit's own state of the table every CHECKPOINT_EVERY events (version -> state
        as ``TableState.to_snapshot``), built while it replays: never read from the store."""
        self.report = report
        self.scope = scope or (lambda _state, _event: True)
        self.observer = observer
        self.state: TableState | None = None
        self.broken = False
        self._group: list[TableEvent] = []
        self._hand: list[list[TableEvent]] = []
        self._sink: list[Discrepancy] | None = None
        self.conservation = Conservation(self._report_conservation)

    # --- feeding ---------------------------------------------------------------------------

    def feed(self, event: TableEvent) -> None:
        if self._group and (event.command_id is None
                            or event.command_id != self._group[0].command_id):
            self._close_group()
        self._group.append(event)

    def finish(self) -> None:
        self._close_group()
        if self._hand:
            self._run_hand(self._hand, complete=False)
            self._hand = []
        if self.state is not None and not self.broken:
            self.conservation.finish(self.state.balances, None)

    def _close_group(self) -> None:
        group, self._group = self._group, []
        if not group:
            return
        if self._hand or any(r.HandStarted in ancestry(e.__class__) for e in group):
            self._hand.append(group)
            if any(_is_ending(e) for e in group):
                hand, self._hand = self._hand, []
                self._run_hand(hand, complete=True)
            return
        self._run_group(group, AuditDeckKeeper(None, None), self._in_scope(group[0]))

    # --- hands and groups ------------------------------------------------------------------

    def _in_scope(self, event: TableEvent) -> bool:
        return self.scope(self.state, event)

    def _run_hand(self, groups: list[list[TableEvent]], *, complete: bool) -> None:
        events = [e for g in groups for e in g]
        ending = next((e for e in events if _is_ending(e)), None)
        keeper = AuditDeckKeeper(getattr(ending, "deck", None), getattr(ending, "salt", None))
        started = next((e for e in events if r.HandStarted in ancestry(e.__class__)),
                       events[0])
        check = self._in_scope(started)
        for group in groups:
            self._run_group(group, keeper, check)
        if check and not self.broken:
            if isinstance(ending, r.HandVoided) and ending.deck_unreadable:
                self.report.decks_unchecked.append({"table": self.label,
                                                    "hand": ending.hand_no})
            if complete:
                self.report.hands_checked += 1
                rake_check(events, self._report_conservation)
            else:
                self.report.hands_open += 1

    def _run_group(self, group: list[TableEvent], keeper: AuditDeckKeeper, check: bool) -> None:
        if self.broken:
            return
        state = self.state
        recorded = state is not None and state.config.card_source == "recorded"
        try:
            command, unbounded = command_for(self.label, group, recorded_source=recorded), None
        except ValidationError as exc:  # written before the bounds of ledger.domain.bounds
            command, unbounded = None, "; ".join(
                f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        signed = getattr(group[0], "approval", None)
        if signed is not None and command is not None:  # decide exactly what was signed
            with contextlib.suppress(LedgerError):  # else reported by the approval check
                command = command_from(signed.kind, dict(signed.fields))
        result = GroupResult(events=group, command=command)
        self._sink = result.discrepancies
        if self.approvers is not None and check:
            self._approvals(group[0])
        if unbounded is not None:
            self._add(hand_of(group[0]), "out_of_bounds",
                      {"bounds": "those every command has now (ledger.domain.bounds)"},
                      {"version": group[0].originator_version, "why": unbounded}, None)
        elif check:
            self._redecide(result, keeper)
            self.report.events_checked += len(group)
        for event in group:
            if not self._apply(event):
                break
        else:
            if self.state is not None and self.observer is not None:  # only an observer reads it
                result.balances = dict(self.state.balances)
        self._sink = None
        self.report.discrepancies.extend(result.discrepancies)
        if self.observer is not None:
            self.observer(result)

    def _redecide(self, result: GroupResult, keeper: AuditDeckKeeper) -> None:
        first, command = result.events[0], result.command
        hand = hand_of(first)
        if command is None:
            self._add(hand, "records", "a command's first event",
                      [record_type(e).__name__ for e in result.events], None)
            return
        if isinstance(first, r.TableOpened) or self.state is None:
            if not isinstance(first, r.TableOpened):
                self._add(hand, "stream_start", "TableOpened", type(first).__name__, None)
                return
            opening = command
            assert isinstance(opening, OpenTable)
            expected = self._decide(result, lambda: [TableState.open(opening)])
        else:
            if not keeper.known and self._needs_deck(command):
                return
            state = self.state
            if isinstance(command, CORRECTION_COMMANDS):
                expected = self._correction(result, state, command)
            else:
                expected = self._decide(result, lambda: state.decide(command, keeper))
        if expected is None:
            return
        result.expected = expected
        result.checked = True

        def report(kind: str, want: Any, got: Any, rule: str | None) -> None:
            self._add(hand, kind, want, got, rule)

        compare_records(expected, result.events, report)

    def _correction(self, result: GroupResult, state: TableState,
                    command: Any) -> list[r.Record] | None:
        """A correction decided again from the stored past before it (COR-1..5)."""
        first = result.events[0]
        if self.past is None:
            return None
        past = self.past(first.originator_version - 1)
        return self._decide(result, lambda: decide_correction(state, command, past,
                                                              first.timestamp))

    def _approvals(self, first: TableEvent) -> None:
        """The signatures of an approved event (:mod:`projections.audit.approvers`)."""
        assert self.approvers is not None
        for kind, expected, recorded, rule in self.approvers.check(self.label, first):
            self._add(hand_of(first), kind, expected, recorded, rule)
        if getattr(first, "approval", 1) is None and self.approvers.unsigned_before(first) \
                and type(first).__name__ in APPROVED_EVENTS and approvers_of(first):
            self.report.unsigned_before.append({"table": self.label,
                                                "version": first.originator_version,
                                                "event": type(first).__name__})

    def _needs_deck(self, command: Command) -> bool:
        assert self.state is not None
        rng = self.state.config.card_source == "rng"
        return rng and isinstance(command, DealCards | StartHand)

    def _decide(self, result: GroupResult,
                decide: Callable[[], list[r.Record]]) -> list[r.Record] | None:
        try:
            return decide()
        except LedgerError as exc:
            result.refusal = exc
            refusal = {"code": exc.code, "message": exc.message}
            rule = exc.details.get("rule")
        except Exception as exc:  # the rules cannot even run on this state
            refusal = {"code": "rules_failed", "message": str(exc).splitlines()[0]}
            rule = None
        first = result.events[0]
        self._add(hand_of(first), "rejected", refusal,
                  [_summary(e) for e in result.events], rule)
        return None

    def _apply(self, event: TableEvent) -> bool:
        hand = field_of(event, "hand_no")
        self.conservation.event(event, event.originator_version)
        try:
            if r.TableOpened in ancestry(event.__class__):
                self.state = TableState(cast(r.TableOpened, event))
            elif self.state is None:
                raise LedgerError("corrupt_stream", "the stream does not begin with TableOpened")
            else:
                self.state.apply(cast(r.Record, event))
        except Exception as exc:  # the record cannot be folded: stop this table
            self._add(hand, "replay_failed", "an event the table's rules can apply",
                      {"version": event.originator_version, "type": type(event).__name__,
                       "error": str(exc)}, None)
            self.broken = True
            return False
        transfers: tuple[r.Transfer, ...] = field_of(event, "transfers", ())
        touched = {a for t in transfers for a in (t.src, t.dst)}
        self.conservation.balances(self.state.balances, event.originator_version, hand,
                                   self.state.hand is None, touched)
        if event.originator_version % CHECKPOINT_EVERY == 0:
            self.checkpoints[event.originator_version] = self.state.to_snapshot()
        return True

    # --- reporting -------------------------------------------------------------------------

    def _add(self, hand: int | None, kind: str, expected: Any, recorded: Any,
             rule: str | None) -> None:
        item = Discrepancy(self.label, hand, kind, expected, recorded, rule)
        if self._sink is not None:
            self._sink.append(item)
        else:
            self.report.discrepancies.append(item)

    def _report_conservation(self, kind: str, hand: int | None, expected: Any, recorded: Any,
                             rule: str | None) -> None:
        self._add(hand, kind, expected, recorded, rule)


_ENDINGS = frozenset(r.HAND_ENDINGS)


def _is_ending(event: TableEvent) -> bool:
    """``isinstance(event, r.HAND_ENDINGS)``, by a set lookup."""
    return not _ENDINGS.isdisjoint(ancestry(event.__class__))


def hand_of(event: TableEvent) -> int | None:
    """The hand an event belongs to, or corrects (COR-1)."""
    if r.HandCorrected in ancestry(event.__class__):
        return cast(r.HandCorrected, event).hand
    hand: int | None = field_of(event, "hand_no")
    return hand


def _summary(event: TableEvent) -> dict[str, Any]:
    data: dict[str, Any] = {"version": event.originator_version, "type": type(event).__name__}
    for key in ("seat", "kind", "action", "amount", "round"):
        value = getattr(event, key, None)
        if value is not None:
            data[key] = value
    return data

