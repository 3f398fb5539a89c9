"""The principals whose signatures approve: who they are, and who may approve what.

The people whose signatures approve or sign something (a configuration change, COM-4; a void
the game's rules would otherwise refuse, COM-5/CHP-10; a correction, COR-4; a count, fill or
credit of the tray, INV-1..3) are the principals of the register (:mod:`ledger.access.register`,
a chained stream): an id, a name, a role (``floor``, ``supervisor``, ``admin``), their public
key, when and by whom each was added and revoked. :func:`require_approver` is the one place
that decides whether a principal may approve under a rule; :mod:`ledger.access.signatures`
checks their signature.
"""

from __future__ import annotations

import re
from typing import Any

from ledger.access.register import Entry, Register, State
from ledger.domain.actors import APPROVERS, PRINCIPAL_ROLES
from ledger.domain.commands import PLAYER_PATTERN
from ledger.domain.errors import InvalidInput, NotFound, RuleViolation

_ID = re.compile(PLAYER_PATTERN)
Principal = Entry
"""A principal as the register holds them now."""


class PrincipalStore:
    """The register of principals of a store, read (and verified) through its chain."""

    def __init__(self, recorder: Any, root_pin: str | None = None) -> None:
        self.register = Register(recorder, root_pin)

    def state(self) -> State:
        return self.register.verified()

    def find(self, principal_id: str) -> Principal | None:
        return self.state().find(principal_id)

    def get(self, principal_id: str) -> Principal:
        found = self.find(principal_id)
        if found is None:
            raise NotFound("unknown_principal", f"no principal {principal_id!r}",
                           principal_id=principal_id)
        return found

    def all(self, *, include_revoked: bool = True) -> list[Principal]:
        found = sorted(self.state().current.values(),
                       key=lambda p: (p.created_at, p.principal_id))
        return [p for p in found if include_revoked or p.active]


def check_new_principal(principal_id: str, name: str, role: str) -> tuple[str, str]:
    """A new principal's id and name, checked (``invalid_principal``,
    ``invalid_principal_role``)."""
    principal_id = principal_id.strip()
    if not _ID.match(principal_id):
        raise InvalidInput("invalid_principal", f"principal id {principal_id!r}: letters, "
                           "digits, _.@- (at most 64), starting with a letter or digit")
    check_role(role)
    name = name.strip()
    if not name or len(name) > 200 or "\x00" in name:
        raise InvalidInput("invalid_principal", "a principal's name is 1 to 200 "
                           "characters, without NUL")
    return principal_id, name


def check_role(role: str) -> None:
    if role not in PRINCIPAL_ROLES:
        raise InvalidInput("invalid_principal_role", f"unknown role {role!r}; roles: "
                           f"{', '.join(PRINCIPAL_ROLES)}")


def require_approver(state: State, principal_id: str, *, rule: str,
                     roles: tuple[str, ...] = APPROVERS) -> Principal:
    """The registered, active principal ``principal_id`` with a key, whose role is one of
    ``roles``; else a coded refusal naming ``rule``: ``unknown_approver``,
    ``approver_revoked``, ``approver_not_allowed`` or ``approver_without_key``."""
    found = state.find(principal_id)
    if found is None:
        raise RuleViolation("unknown_approver", f"{principal_id!r} is not a principal known to "
                            f"the ledger and cannot approve or sign ({rule}); an admin "
                            "principal registers them (`ledger principals add`)",
                            principal_id=principal_id, rule=rule)
    if not found.active:
        raise RuleViolation("approver_revoked", f"principal {principal_id!r} was revoked at "
                            f"{found.revoked_at} and approves nothing since ({rule})",
                            principal_id=principal_id, rule=rule)
    if found.role not in roles:
        raise RuleViolation("approver_not_allowed", f"principal {principal_id!r} is "
                            f"{found.role}; {rule} takes {' or '.join(roles)}",
                            principal_id=principal_id, role=found.role, rule=rule,
                            allowed=list(roles))
    if found.public_key is None:
        raise RuleViolation("approver_without_key", f"principal {principal_id!r} was "
                            "registered before signatures and holds no key yet: an admin "
                            f"gives them one (`ledger principals rotate`) ({rule})",
                            principal_id=principal_id, rule=rule)
    return found
