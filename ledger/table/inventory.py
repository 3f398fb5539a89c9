"""The table's tray on house-banked tables: opening and closing counts, fills and credits
(INV-1..4), decided purely from the table's state and the command.

- INV-1: a count of the tray, by denomination, opening or closing, signed by two people. It
  moves no chips: it is what the people at the table saw.
- INV-2: a fill brings chips from the cage to the tray: a transfer ``cage -> house``.
- INV-3: a credit returns chips from the tray to the cage: a transfer ``house -> cage``.
- INV-4 (the report, :mod:`projections.reports.inventory`): per table and gaming day,
  ``win = drop + credits - fills + closing - opening``, reconciled with the house's result in
  the ledger for that day; a difference is a variance.

Only tables the house banks keep a tray (Caribbean Stud); counts, fills and credits happen
between hands (COM-3: no chips move during a hand). Each is signed by two distinct people
(:func:`ledger.table.signers.check_signers`).
"""

from __future__ import annotations

from ledger.domain import accounts
from ledger.domain.commands import CountInventory, Credit, Fill
from ledger.domain.errors import InvalidInput, RuleViolation, StateConflict
from ledger.domain.records import ChipCount, InventoryCounted, Record, TableCredited, TableFilled
from ledger.table.signers import check_signers

MAX_AMOUNT = 10**12
"""The most a count, fill or credit may total (10 billion in units of a two-decimal
currency)."""


def decide(command: CountInventory | Fill | Credit, *, banking: str, title: str,
           hand_in_progress: bool, players: set[str]) -> Record:
    rule = {CountInventory: "INV-1", Fill: "INV-2", Credit: "INV-3"}[type(command)]
    if banking != "house":
        raise RuleViolation("inventory_not_house_banked",
                            f"{title} is not banked by the house: its table has no tray "
                            f"({rule})", rule=rule)
    if hand_in_progress:
        raise StateConflict("hand_in_progress", f"the tray is counted, filled and credited "
                            f"between hands (COM-3, {rule})", rule=rule)
    signers = check_signers(command.signers, players=players, rule=rule)
    chips = tuple(ChipCount(denomination=d, count=c)
                  for d, c in sorted(command.chips.items(), reverse=True))
    amount = sum(c.denomination * c.count for c in chips)
    if amount > MAX_AMOUNT:
        raise InvalidInput("amount_too_large", f"{amount} is more than {MAX_AMOUNT} ({rule})",
                           amount=amount, rule=rule)
    if isinstance(command, CountInventory):
        return InventoryCounted(moment=command.moment, chips=chips, amount=amount,
                                signers=signers)
    if amount <= 0:
        raise InvalidInput("nothing_to_move", f"a {command.name} moves chips: no chip was "
                           f"given ({rule})", rule=rule)
    if isinstance(command, Fill):
        move = accounts.transfer(accounts.CAGE, accounts.HOUSE, amount, rule, "fill")
        return TableFilled(chips=chips, amount=amount, signers=signers, transfers=(move,))
    move = accounts.transfer(accounts.HOUSE, accounts.CAGE, amount, rule, "credit")
    return TableCredited(chips=chips, amount=amount, signers=signers, transfers=(move,))
