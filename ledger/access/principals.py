"""The register of principals whose approvals the ledger accepts.

The people whose names approve or sign something (a configuration change,
COM-4; a void the game's rules would otherwise refuse, COM-5/CHP-10; a count, fill or credit of
the tray, INV-1..3) are registered in the ``ledger_principals`` table of the ledger's own
database: an id, a name, a role (``floor``, ``supervisor``, ``admin``), when and by whom each was
added and revoked. :func:`require_approver` is the one place that decides whether a principal id
may approve under a rule.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from ledger.domain.actors import APPROVERS, PRINCIPAL_ROLES
from ledger.domain.commands import PLAYER_PATTERN
from ledger.domain.errors import InvalidInput, NotFound, RuleViolation, StateConflict
from ledger.store.sidetables import PRINCIPALS_TABLE, SideTable

_ID = re.compile(PLAYER_PATTERN)
_COLUMNS = "principal_id, name, role, created_at, created_by, revoked_at, revoked_by"


@dataclass(frozen=True)
class Principal:
    """A person the ledger knows, who may approve or sign according to their role."""

    principal_id: str
    name: str
    role: str
    created_at: str
    created_by: str
    revoked_at: str | None = None
    revoked_by: str | None = None

    @property
    def active(self) -> bool:
        return self.revoked_at is None

    def as_dict(self) -> dict[str, Any]:
        return {"principal_id": self.principal_id, "name": self.name, "role": self.role,
                "created_at": self.created_at, "created_by": self.created_by,
                "revoked_at": self.revoked_at, "revoked_by": self.revoked_by}


class PrincipalStore:
    """The register of principals in the ledger's database."""

    def __init__(self, recorder: Any) -> None:
        self.db = SideTable(recorder, PRINCIPALS_TABLE)

    def add(self, principal_id: str, name: str, role: str, *, by: str) -> Principal:
        principal_id = principal_id.strip()
        if not _ID.match(principal_id):
            raise InvalidInput("invalid_principal", f"principal id {principal_id!r}: letters, "
                               "digits, _.@- (at most 64), starting with a letter or digit")
        if role not in PRINCIPAL_ROLES:
            raise InvalidInput("invalid_principal_role", f"unknown role {role!r}; roles: "
                               f"{', '.join(PRINCIPAL_ROLES)}")
        name = name.strip()
        if not name or len(name) > 200 or "\x00" in name:
            raise InvalidInput("invalid_principal", "a principal's name is 1 to 200 "
                               "characters, without NUL")
        if self.find(principal_id) is not None:
            raise StateConflict("principal_exists", f"principal {principal_id!r} is already "
                                "registered (revoked ids are not reused)",
                                principal_id=principal_id)
        found = Principal(principal_id, name, role, _now(), by)
        self.db.execute(f"INSERT INTO {self.db.name} ({_COLUMNS}) VALUES ({self.db.marks(7)})",
                        (principal_id, name, role, found.created_at, by, None, None))
        return found

    def find(self, principal_id: str) -> Principal | None:
        rows = self.db.query(f"SELECT {_COLUMNS} FROM {self.db.name} "
                             f"WHERE principal_id = {self.db.p}", (principal_id,))
        return Principal(*rows[0]) if rows else None

    def get(self, principal_id: str) -> Principal:
        found = self.find(principal_id)
        if found is None:
            raise NotFound("unknown_principal", f"no principal {principal_id!r}",
                           principal_id=principal_id)
        return found

    def all(self, *, include_revoked: bool = True) -> list[Principal]:
        where = "" if include_revoked else " WHERE revoked_at IS NULL"
        rows = self.db.query(f"SELECT {_COLUMNS} FROM {self.db.name}{where} "
                             "ORDER BY created_at, principal_id")
        return [Principal(*row) for row in rows]

    def revoke(self, principal_id: str, *, by: str) -> Principal:
        """Revoke a principal: their name approves nothing from now on (events already
        recorded keep it). Revoking twice changes nothing."""
        if self.get(principal_id).active:
            self.db.execute(f"UPDATE {self.db.name} SET revoked_at = {self.db.p}, revoked_by = "
                            f"{self.db.p} WHERE principal_id = {self.db.p} AND revoked_at IS NULL",
                            (_now(), by, principal_id))
        return self.get(principal_id)


def require_approver(store_or_app: Any, principal_id: str, *, rule: str,
                     roles: tuple[str, ...] = APPROVERS) -> Principal:
    """The registered, active principal ``principal_id`` whose role is one of ``roles``; else a
    coded refusal naming ``rule``: ``unknown_approver``, ``approver_revoked`` or
    ``approver_not_allowed``. ``store_or_app``: a :class:`PrincipalStore` or the application
    (anything with a ``principals`` store or a ``recorder``)."""
    store = _store(store_or_app)
    found = store.find(principal_id)
    if found is None:
        raise RuleViolation("unknown_approver", f"{principal_id!r} is not a principal known to "
                            f"the ledger and cannot approve or sign ({rule}); register them "
                            "with `ledger principals add`", principal_id=principal_id, rule=rule)
    if not found.active:
        raise RuleViolation("approver_revoked", f"principal {principal_id!r} was revoked at "
                            f"{found.revoked_at} and approves nothing since ({rule})",
                            principal_id=principal_id, rule=rule)
    if found.role not in roles:
        raise RuleViolation("approver_not_allowed", f"principal {principal_id!r} is "
                            f"{found.role}; {rule} takes {' or '.join(roles)}",
                            principal_id=principal_id, role=found.role, rule=rule,
                            allowed=list(roles))
    return found


def _store(store_or_app: Any) -> PrincipalStore:
    if isinstance(store_or_app, PrincipalStore):
        return store_or_app
    store = getattr(store_or_app, "principals", None)
    if isinstance(store, PrincipalStore):
        return store
    return PrincipalStore(store_or_app.recorder)


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")
