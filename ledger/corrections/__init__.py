"""Corrections (COR-1..5): putting a dealer's error right without ever editing the record.

A correction is a new event in the table's stream that names what it corrects (a hand, a cash
movement by its version, a seat for a period), the corrected facts, the approvers and the
reason; its transfers compensate the difference, and nothing recorded before it changes.

The decision needs the table's past (the hand as it was played, the state before it), which
the table's state does not keep (history lives outside the aggregate): the caller hands a
:class:`Past` read from the store. The application and the audit decide with the same code,
so the audit recomputes every correction and reports one that does not match the rules.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import datetime
from typing import Protocol

from ledger.domain.commands import CorrectHand, CorrectMovement, CorrectSeat, SettleOwed
from ledger.domain.errors import InvalidInput, RuleViolation, StateConflict
from ledger.domain.records import Record
from ledger.table import TableEvent
from ledger.tablestate import TableState

CorrectionCommand = CorrectHand | CorrectMovement | CorrectSeat | SettleOwed


class Past(Protocol):
    """A table's stored events up to (not including) the correction being decided."""

    def event(self, version: int) -> TableEvent | None:
        """The event at ``version`` (None past the end)."""

    def since(self, version: int, only: tuple[type, ...] = ()) -> Iterator[TableEvent]:
        """Every event after ``version``, in order (``only``: just those of these record
        types, the others not even decoded)."""

    def hand_events(self, hand_no: int) -> list[TableEvent]:
        """The events of hand ``hand_no``, from its HandStarted to its ending."""

    def state_before(self, version: int) -> TableState:
        """A fresh state of the table just before ``version`` (the caller may change it)."""


def decide(state: TableState, command: CorrectionCommand, past: Past,
           now: datetime) -> list[Record]:
    """The records of one correction, or a coded refusal (nothing is appended)."""
    from ledger.corrections.hands import correct_hand
    from ledger.corrections.movements import correct_movement, correct_seat, settle_owed

    if state.hand is not None:
        raise StateConflict(
            "hand_in_progress",
            f"hand {state.hand_no} is in progress: corrections are made between hands, when "
            "no chip is in play (COM-3, COR-1)", hand=state.hand_no, rule="COR-1")
    _distinct(command.approvers)
    if isinstance(command, CorrectHand):
        return [correct_hand(state, command, past, now)]
    if isinstance(command, CorrectMovement):
        return [correct_movement(state, command, past, now)]
    if isinstance(command, SettleOwed):
        return [settle_owed(state, command)]
    return [correct_seat(state, command, past, now)]


def check_window(state: TableState, when: datetime, now: datetime, what: str) -> None:
    """COR-4: a record older than the table's window cannot be corrected."""
    hours = state.config.correction_policy.window_hours
    age = (now - when).total_seconds() / 3600
    if age > hours:
        raise RuleViolation(
            "correction_window_passed",
            f"{what} was recorded {age:.1f} hours ago; this table's records are corrected "
            f"within {hours} hours (COR-4)", window_hours=hours, rule="COR-4")


def check_approvers(state: TableState, approvers: Sequence[str], moved: int) -> None:
    """COR-4: above the table's amount a second, distinct approver is needed."""
    above = state.config.correction_policy.second_approver_above
    if above is not None and moved > above and len(approvers) < 2:
        raise RuleViolation(
            "second_approver_required",
            f"the correction moves {moved}, above {above}: it needs a second approver (COR-4)",
            moved=moved, limit=above, rule="COR-4")


def _distinct(approvers: Sequence[str]) -> None:
    if len(set(approvers)) != len(approvers):
        raise InvalidInput("approvers_not_distinct",
                           "the two approvers of a correction are two different people (COR-4)",
                           rule="COR-4")
