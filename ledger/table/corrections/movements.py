"""COR-2 and COR-3: a cash movement recorded with a wrong amount, and the wrong player on a
seat.

COR-2: the compensating movement is the difference between what really moved and what the
record says moved (the original amount, or the last correction's), in the original's direction
or against it, linked to the original by its version. A player's side is paid or taken as
COR-5 says (the stack while seated, else what the house owes or is owed).

COR-3: who really sat at a seat for a run of hands, for ratings and exports; the chips stay
where they are (they were played by the person at the seat, under the account they were
recorded to).
"""

from __future__ import annotations

from datetime import datetime

from ledger.domain import accounts
from ledger.domain.commands import CorrectMovement, CorrectSeat, SettleOwed
from ledger.domain.errors import NotFound, RuleViolation
from ledger.domain.records import (
    ChipsBoughtIn,
    ChipsCashedOut,
    Difference,
    HandStarted,
    MovementCorrected,
    OwedSettled,
    SeatCorrected,
    TableCredited,
    TableFilled,
)
from ledger.table.corrections.policy import Past, check_approvers, check_window
from ledger.table.corrections.routing import pair, route
from ledger.table.state import TableState

_KINDS = {ChipsBoughtIn: "buy_in", ChipsCashedOut: "cash_out", TableFilled: "fill",
          TableCredited: "credit"}


def correct_movement(state: TableState, cmd: CorrectMovement, past: Past,
                     now: datetime) -> MovementCorrected:
    original = past.event(cmd.version)
    kind = next((k for cls, k in _KINDS.items() if isinstance(original, cls)), None)
    if original is None or kind is None:
        raise NotFound(
            "not_a_movement",
            f"event {cmd.version} of table {state.code} is not a buy-in, cash-out, fill or "
            "credit (COR-2)", version=cmd.version, rule="COR-2")
    check_window(state, original.timestamp, now, f"the {kind.replace('_', '-')}")
    amount = getattr(original, "amount")  # noqa: B009 - every movement states its amount
    for e in past.since(cmd.version, (MovementCorrected,)):
        if isinstance(e, MovementCorrected) and e.original_version == cmd.version:
            amount = e.amount
    if cmd.amount == amount:
        raise RuleViolation(
            "correction_changes_nothing",
            f"the record already says {amount} moved: nothing to correct (COR-2)",
            amount=amount, rule="COR-2")
    player = getattr(original, "player", None)
    if player is not None:  # a player's buy-in or cash-out: chips the game can hold
        state.game.check_corrected_amount(state.view(), kind, cmd.amount)
    check_approvers(state, cmd.approvers, abs(cmd.amount - amount))
    memo = f"correction of event {cmd.version}"
    delta = cmd.amount - amount
    if player is None:  # a fill (cage -> house) or a credit (house -> cage)
        out = (delta > 0) == (kind == "fill")
        src, dst = (accounts.CAGE, accounts.HOUSE) if out else (accounts.HOUSE, accounts.CAGE)
        transfers = pair([(src, abs(delta))], [(dst, abs(delta))], "COR-2", memo)
    else:
        gains = delta if kind == "buy_in" else -delta
        diffs = (Difference(account=accounts.player(player), amount=gains),
                 Difference(account=accounts.CAGE, amount=-gains))
        transfers = route(diffs, state, "COR-2", memo)
    return MovementCorrected(original_version=cmd.version, movement=kind, player=player,
                             recorded_amount=amount, amount=cmd.amount, transfers=transfers,
                             approvers=cmd.approvers, reason=cmd.reason)


def correct_seat(state: TableState, cmd: CorrectSeat, past: Past,
                 now: datetime) -> SeatCorrected:
    if cmd.to_hand > state.hand_no:
        raise NotFound("unknown_hand", f"table {state.code} has no hand {cmd.to_hand}",
                       hand=cmd.to_hand)
    recorded = {_player_at(past, n, cmd.seat) for n in {cmd.from_hand, cmd.to_hand}}
    if len(recorded) != 1 or None in recorded:
        raise RuleViolation(
            "seat_player_changed",
            f"seat {cmd.seat} did not hold one recorded player in hands {cmd.from_hand} and "
            f"{cmd.to_hand}: correct each player's hands on their own (COR-3)",
            seat=cmd.seat, rule="COR-3")
    who = recorded.pop()
    assert who is not None
    if who == cmd.player:
        raise RuleViolation("correction_changes_nothing",
                            f"seat {cmd.seat} is recorded as {who} already (COR-3)",
                            rule="COR-3")
    started = past.hand_events(cmd.to_hand)[0]
    check_window(state, started.timestamp, now, f"hand {cmd.to_hand}")
    check_approvers(state, cmd.approvers, 0)
    return SeatCorrected(seat=cmd.seat, recorded_player=who, player=cmd.player,
                         from_hand=cmd.from_hand, to_hand=cmd.to_hand,
                         approvers=cmd.approvers, reason=cmd.reason)


def settle_owed(state: TableState, cmd: SettleOwed) -> OwedSettled:
    """COR-5: the cage pays what the house owes the player, or takes what the player owes."""
    account = accounts.owed(cmd.player)
    balance = state.balances.get(account, 0)
    if not balance:
        raise RuleViolation("nothing_owed", f"nothing is owed between the house and "
                            f"{cmd.player} at table {state.code} (COR-5)", rule="COR-5")
    amount = abs(balance) if cmd.amount is None else cmd.amount
    if amount > abs(balance):
        raise RuleViolation("more_than_owed", f"{abs(balance)} is owed, not {amount} (COR-5)",
                            owed=abs(balance), amount=amount, rule="COR-5")
    check_approvers(state, cmd.approvers, amount)
    memo = f"owed settled at the cage: {cmd.player}"
    if balance > 0:
        move = accounts.transfer(account, accounts.CAGE, amount, "COR-5", memo)
    else:
        move = accounts.transfer(accounts.CAGE, account, amount, "COR-5", memo)
    return OwedSettled(player=cmd.player, amount=amount,
                       direction="paid_to_player" if balance > 0 else "paid_by_player",
                       transfers=(move,), approvers=cmd.approvers, reason=cmd.reason)


def _player_at(past: Past, hand_no: int, seat: int) -> str | None:
    events = past.hand_events(hand_no)
    if not events or not isinstance(events[0], HandStarted):
        return None
    return next((e.player for e in events[0].seats if e.seat == seat), None)
