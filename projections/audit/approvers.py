"""COR-4 in the audit: every approver a correction names was, when the correction was recorded,
an active principal of the ledger with a role that approves (supervisor or admin).

The register (``ledger_principals``) is outside the tables' hash chains, so this check reads it
as it stands: a correction naming someone the register never held, held only later, held as
floor staff, or had revoked by then, is reported as a discrepancy (``approver``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

from ledger.access.principals import Principal
from ledger.domain.actors import APPROVERS

Lookup = Callable[[str], Principal | None]


class ApproverCheck:
    def __init__(self, lookup: Lookup) -> None:
        self.lookup = lookup
        self._seen: dict[str, Principal | None] = {}

    def problems(self, approvers: Sequence[str], at: datetime) -> list[dict[str, Any]]:
        """One item per approver who could not approve at ``at``."""
        found = []
        for name in approvers:
            if name not in self._seen:
                self._seen[name] = self.lookup(name)
            who = self._seen[name]
            why = _why_not(who, at)
            if why is not None:
                found.append({"approver": name, "problem": why})
        return found


def _why_not(who: Principal | None, at: datetime) -> str | None:
    if who is None:
        return "not a principal of the ledger"
    if who.role not in APPROVERS:
        return f"a {who.role}, who does not approve corrections"
    if datetime.fromisoformat(who.created_at) > at:
        return f"registered only at {who.created_at}"
    if who.revoked_at is not None and datetime.fromisoformat(who.revoked_at) <= at:
        return f"revoked at {who.revoked_at}"
    return None
