"""Who may sign for the house's chips at a table (INV-1..3): two distinct actors, neither a
player seated at the table.

:func:`check_signers` decides from the table alone (two distinct people, neither playing);
that both are principals registered with the ledger whose role may sign is decided by
:func:`ledger.access.signatures.check_approval`, which the application asks after the rules.
"""

from __future__ import annotations

from collections.abc import Collection

from ledger.domain.errors import InvalidInput, RuleViolation


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
