"""The command behind recorded events: what a table device must have sent for the ledger to
record them, rebuilt so that the rules can decide it again.

Events are grouped by the command that appended them (consecutive events with one command id);
the group's first event names the command (a WagerPlaced is a PlaceWager, a PlayerActed an
Act, a HandSettled a Settle, ...), except that a group ending in PlayerUnseated is an
UnseatPlayer (it may begin with the fold of COM-6). A group's command is rebuilt with
the recorded inputs only (seat, kind, amount, action, cards reported by a device); everything
the rules decide is left to them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeVar, cast

from pydantic import BaseModel

from ledger.domain import records as r
from ledger.domain.commands import (
    Act,
    BuyIn,
    CashOut,
    ChangeConfig,
    Command,
    CorrectHand,
    CorrectMovement,
    CorrectSeat,
    CountInventory,
    Credit,
    DealCards,
    Fill,
    OpenTable,
    PlaceWager,
    Reveal,
    SeatPlayer,
    Settle,
    SettleOwed,
    SignInDealer,
    SignOutDealer,
    StartHand,
    UnseatPlayer,
    VoidHand,
)
from projections.views.base import ancestry

AUDIT_ID = "audit"
_MADE: dict[tuple[Any, ...], Command] = {}
_KEEP = 4096
C = TypeVar("C", bound=Command)


def command_for(
    code: str, group: Sequence[BaseModel], *, recorded_source: bool = False
) -> Command | None:
    """The command that produced ``group`` (None when no command produces such a group).

    ``recorded_source``: the table's cards come from a device (COM-8), so a deal carries them.
    """
    first: Any = group[0]  # its kind is found by a set lookup (projections.views.base.ancestry)
    last: Any = group[-1]
    base = {"command_id": AUDIT_ID, "table": code}
    if r.PlayerUnseated in ancestry(last.__class__):
        return _made(UnseatPlayer, base, seat=last.seat, reason=last.reason)
    isa = ancestry(first.__class__)
    if r.TableOpened in isa:
        return _made(OpenTable, base, game=first.game, currency=first.currency,
                     timezone=first.timezone, config=dict(first.config),
                     opened_by=first.opened_by)
    if r.ConfigChanged in isa:
        return _made(ChangeConfig, base, config=dict(first.config), approver=first.approver,
                     reason=first.reason)
    if r.PlayerSeated in isa:
        return _made(SeatPlayer, base, seat=first.seat, player=first.player)
    if r.DealerSignedIn in ancestry(last.__class__):
        return _made(SignInDealer, base, dealer=last.dealer)  # may begin with a relief (DLR-1)
    if r.DealerSignedOut in isa:
        return _made(SignOutDealer, base, dealer=first.dealer, reason=first.reason)
    if r.ChipsBoughtIn in isa:
        return _made(BuyIn, base, seat=first.seat, amount=first.amount, kind=first.kind)
    if r.ChipsCashedOut in isa:
        return _made(CashOut, base, seat=first.seat, amount=first.amount)
    if r.InventoryCounted in isa or r.TableFilled in isa or r.TableCredited in isa:
        chips = {c.denomination: c.count for c in first.chips}
        if r.InventoryCounted in isa:
            return _made(CountInventory, base, moment=first.moment, chips=chips,
                         signers=first.signers)
        kind = Fill if r.TableFilled in isa else Credit
        return _made(kind, base, chips=chips, signers=first.signers)
    if r.HandStarted in isa:
        return _made(StartHand, base)
    if r.WagerPlaced in isa:
        return _made(PlaceWager, base, seat=first.seat, kind=first.kind, amount=first.amount)
    if r.CardsDealt in isa:
        return _made(DealCards, base, cards=recorded_cards(first) if recorded_source else None)
    if r.PlayerActed in isa:
        return _act(base, first, group)
    if r.CardsRevealed in isa:
        return _made(Reveal, base)
    if r.HandSettled in isa or r.HandCancelled in isa:
        return _made(Settle, base)
    if r.HandCorrected in isa:
        return _made(CorrectHand, base, hand=first.hand, fixes=first.fixes,
                     approvers=first.approvers, reason=first.reason)
    if r.MovementCorrected in isa:
        return _made(CorrectMovement, base, version=first.original_version,
                     amount=first.amount, approvers=first.approvers, reason=first.reason)
    if r.SeatCorrected in isa:
        return _made(CorrectSeat, base, seat=first.seat, player=first.player,
                     from_hand=first.from_hand, to_hand=first.to_hand,
                     approvers=first.approvers, reason=first.reason)
    if r.OwedSettled in isa:
        return _made(SettleOwed, base, player=first.player, amount=first.amount,
                     approvers=first.approvers, reason=first.reason)
    if r.HandVoided in isa:
        return _made(VoidHand, base, reason=first.reason, approved_by=first.approved_by)
    return None


def _made(command: type[C], base: dict[str, str], /, **fields: Any) -> C:
    """``command(**base, **fields)``: validated once for each set of inputs (of their types too),
    as a command is an immutable value and the audit rebuilds the same few again and again (a
    call, a deal, a settlement). Inputs that cannot be a key (a configuration, a device's
    cards) are validated each time. A command that fails validation is not kept."""
    key = (command, *base.items(), *fields.items(), *map(type, fields.values()))
    try:
        kept = _MADE.get(key)
    except TypeError:  # unhashable inputs
        return command(**base, **fields)
    if kept is not None:
        return cast(C, kept)
    made = command(**base, **fields)
    if len(_MADE) >= _KEEP:
        _MADE.clear()
    _MADE[key] = made
    return made


def recorded_cards(dealt: r.CardsDealt) -> dict[str, tuple[int, ...]]:
    """The cards a device reported for a round, by target, face-down first."""
    return {str(d.target): d.down + d.up for d in dealt.dealt}


def _act(base: dict[str, str], acted: r.PlayerActed, group: Sequence[BaseModel]) -> Act:
    declaration = acted.declaration
    if acted.action == "set" and declaration is None:
        declaration = next((x.declaration for x in group[1:]
                            if isinstance(x, r.PlayerActed) and x.action == "declare"), None)
    front = middle = back = None
    if acted.segments is not None and len(acted.segments) == 3:
        front, middle, back = acted.segments
    return _made(Act, base, seat=acted.seat, action=acted.action,
                 amount=acted.amount if acted.amount else None, front=front, middle=middle,
                 back=back, declaration=declaration)
