"""Which names in a command approve or sign something, and the check that each is a principal
the ledger knows (:func:`ledger.access.principals.require_approver`).

- ``approver`` of a configuration change (COM-4): a supervisor or an admin;
- ``approved_by`` of a void (COM-5; CHP-10 when the game's rules would refuse it): a supervisor
  or an admin;
- the ``approvers`` of a correction (COR-4): supervisors or admins;
- the ``dealer`` who signs in at a table (DLR-1): a dealer, floor staff or a supervisor;
- the two ``signers`` of a count, fill or credit of the tray (INV-1..3): floor staff, a
  supervisor or an admin (:func:`ledger.table.signers.require_signers`).

The application runs this after the rules accepted the command and before anything is recorded:
the rules' own refusals (a configuration change mid-hand, the same signer twice, a player
signing) come first, then the register is asked.
"""

from __future__ import annotations

from typing import Any

from ledger.access.principals import PrincipalStore, require_approver
from ledger.domain.actors import APPROVERS, DEALERS, SIGNERS
from ledger.domain.commands import (
    CORRECTION_COMMANDS,
    ChangeConfig,
    Command,
    CountInventory,
    Credit,
    Fill,
    SignInDealer,
    VoidHand,
)

TRAY_RULES = {CountInventory: "INV-1", Fill: "INV-2", Credit: "INV-3"}


def check_approvals(store: PrincipalStore, command: Command) -> None:
    """Refuse ``command`` when a name that approves or signs in it is not an allowed, active
    principal (``unknown_approver``, ``approver_revoked``, ``approver_not_allowed``)."""
    if isinstance(command, ChangeConfig):
        require_approver(store, command.approver, rule="COM-4", roles=APPROVERS)
    elif isinstance(command, VoidHand) and command.approved_by is not None:
        require_approver(store, command.approved_by, rule="COM-5", roles=APPROVERS)
    elif isinstance(command, CountInventory | Fill | Credit):
        require_signers(store, command.signers, rule=TRAY_RULES[type(command)])
    elif isinstance(command, SignInDealer):
        require_approver(store, command.dealer, rule="DLR-1", roles=DEALERS)
    elif isinstance(command, CORRECTION_COMMANDS):
        for approver in command.approvers:
            require_approver(store, approver, rule="COR-4", roles=APPROVERS)


def require_signers(store: Any, signers: tuple[str, str], *, rule: str) -> None:
    """Both signers are active principals whose role may sign for the tray (``unknown_approver``,
    ``approver_revoked``, ``approver_not_allowed``)."""
    for signer in signers:
        require_approver(store, signer, rule=rule, roles=SIGNERS)
