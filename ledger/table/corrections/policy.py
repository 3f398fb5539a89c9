"""What every correction shares (COR-1..5): the table's past it is decided from, the window
within which a record may be corrected, and the approvers it needs (COR-4)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import datetime
from typing import Protocol

from ledger.domain.commands import CorrectHand, CorrectMovement, CorrectSeat, SettleOwed
from ledger.domain.errors import InvalidInput, RuleViolation
from ledger.table.events import TableEvent
from ledger.table.state import TableState

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


def check_distinct(approvers: Sequence[str]) -> None:
    if len(set(approvers)) != len(approvers):
        raise InvalidInput("approvers_not_distinct",
                           "the two approvers of a correction are two different people (COR-4)",
                           rule="COR-4")
