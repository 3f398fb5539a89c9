"""Corrections (COR-1..5): putting a dealer's error right without ever editing the record.

A correction is a new event in the table's stream that names what it corrects (a hand, a cash
movement by its version, a seat for a period), the corrected facts, the approvers and the
reason; its transfers compensate the difference, and nothing recorded before it changes.

The decision needs the table's past (the hand as it was played, the state before it), which
the table's state does not keep (history lives outside the aggregate): the caller hands a
:class:`Past` read from the store. The application and the audit decide with the same code,
so the audit recomputes every correction and reports one that does not match the rules.

Part of the table aggregate: it may use ``ledger.domain`` and ``ledger.table`` only.
"""

from __future__ import annotations

from datetime import datetime

from ledger.domain.commands import CorrectHand, CorrectMovement, SettleOwed
from ledger.domain.errors import StateConflict
from ledger.domain.records import Record
from ledger.table.corrections.hands import correct_hand
from ledger.table.corrections.movements import correct_movement, correct_seat, settle_owed
from ledger.table.corrections.policy import CorrectionCommand, Past, check_distinct
from ledger.table.state import TableState

__all__ = ["CorrectionCommand", "Past", "decide"]


def decide(state: TableState, command: CorrectionCommand, past: Past,
           now: datetime) -> list[Record]:
    """The records of one correction, or a coded refusal (nothing is appended)."""
    if state.hand is not None:
        raise StateConflict(
            "hand_in_progress",
            f"hand {state.hand_no} is in progress: corrections are made between hands, when "
            "no chip is in play (COM-3, COR-1)", hand=state.hand_no, rule="COR-1")
    check_distinct(command.approvers)
    if isinstance(command, CorrectHand):
        return [correct_hand(state, command, past, now)]
    if isinstance(command, CorrectMovement):
        return [correct_movement(state, command, past, now)]
    if isinstance(command, SettleOwed):
        return [settle_owed(state, command)]
    return [correct_seat(state, command, past, now)]
