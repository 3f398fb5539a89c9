"""Who may sign for the house's chips at a table (INV-1..3): two distinct actors, neither a
player seated at the table.

This is the one place that decides whether a signature is acceptable: :func:`check_signers`
decides from the table alone (two distinct people, neither playing), :func:`require_signers`
that both are principals registered with the ledger whose role may sign
(:func:`ledger.principals.require_approver`; the application asks it after the rules, see
:mod:`ledger.approvals`).
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from ledger.domain.actors import SIGNERS
from ledger.domain.errors import InvalidInput, RuleViolation
from ledger.principals import require_approver


def check_signers(signers: tuple[str, str], *, players: Collection[str],
                  rule: str) -> tuple[str, str]:
    first, second = signers
    if first == second:
        raise InvalidInput("signers_not_distinct", f"two different people sign ({rule}): "
                           f"{first!r} signed twice", signer=first, rule=rule)
    for signer in signers:
        if signer in players:
            raise RuleViolation("signer_is_player", f"{signer!r} plays at this table and cannot "
                                f"sign for the house's chips ({rule})", signer=signer,
                                rule=rule)
    return first, second


def require_signers(store: Any, signers: tuple[str, str], *, rule: str) -> None:
    """Both signers are active principals whose role may sign for the tray (``unknown_approver``,
    ``approver_revoked``, ``approver_not_allowed``)."""
    for signer in signers:
        require_approver(store, signer, rule=rule, roles=SIGNERS)
