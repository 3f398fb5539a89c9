"""Approvals in the audit: every approval an event records is its approvers' signatures, checked
against the register's key valid when it was made.

For each event that records an approved command (a configuration change, COM-4; a void with
an approver, COM-5; a tray count, fill or credit, INV-1..3; a correction, COR-4;
``ledger.domain.approval.APPROVED_EVENTS``):

- with an approval in its envelope: each approver the event names has exactly one signature,
  made with the key the register gave them at the register version the signature names (the
  principal active, with a role the rule admits, at that version), over the payload rebuilt
  from the stored approval, unexpired when the event was recorded; anything else is
  ``signature_invalid`` naming the event's version and the principal. The replay decides the
  signed command itself again (:mod:`projections.audit.replay`), so what was signed is what
  was recorded.
- without one: an event recorded before the register's epoch (its first row, written when the
  store first met a ledger with signatures) is "unsigned (before signatures)", listed in the
  report and never a discrepancy; one after the epoch, or after a signed approval of the same
  table, is ``approval_unsigned``.

The register itself is checked by :func:`register_breaks` (``register_broken``: a row edited,
deleted, inserted, or a change not signed by an admin principal).
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Iterator
from datetime import datetime
from typing import Any

from ledger.access.keys import verify
from ledger.access.register import Register, State, fold
from ledger.domain.approval import APPROVED_EVENTS, approvers_of, named_approvers
from ledger.domain.commands import command_from
from ledger.domain.errors import LedgerError

Finding = tuple[str, Any, Any, str | None]
"""(kind, expected, recorded, rule)."""
_RULES = {"ConfigChanged": "COM-4", "HandVoided": "COM-5", "InventoryCounted": "INV-1",
          "TableFilled": "INV-2", "TableCredited": "INV-3"}


def register_state(app: Any) -> State:
    """The register of ``app``'s store folded from its rows, problems kept (never raised);
    read once per head."""
    register = Register(app.recorder, getattr(app.settings, "register_root", None))
    rows = register.rows()
    # keyed by every row's content, not the head alone: a row edited before the head changes
    # no head, and must be folded (and named) again
    head = hashlib.sha256(repr([tuple(vars(r).values()) for r in rows]).encode()).hexdigest()
    cached = getattr(app, "_audit_register", None)
    if cached is not None and cached[0] == head:
        return cached[1]  # type: ignore[no-any-return]
    state = fold(rows, register.root_pin)
    with contextlib.suppress(AttributeError):
        app._audit_register = (head, state)
    return state


def register_breaks(app: Any) -> list[dict[str, Any]]:
    """Where the register does not hold: ``{"version", "kind", "expected", "found"}``."""
    return list(register_state(app).problems)


class ApprovalCheck:
    """The approvals of one table's events, in version order."""

    def __init__(self, state: State) -> None:
        self.state = state
        self.signed_seen = False

    def check(self, label: str, event: Any) -> Iterator[Finding]:
        """What is wrong with ``event``'s approval (nothing for an event that needs none, or
        one recorded before signatures: see :meth:`unsigned_before`)."""
        named = approvers_of(event) if type(event).__name__ in APPROVED_EVENTS else ()
        if not named:
            return
        rule = _RULES.get(type(event).__name__, "COR-4")
        approval = getattr(event, "approval", None)
        version = event.originator_version
        if approval is None:
            if not self.unsigned_before(event):
                yield ("approval_unsigned", f"the signatures of {', '.join(named)} ({rule})",
                       {"version": version, "event": type(event).__name__}, rule)
            return
        self.signed_seen = True
        yield from self._signatures(label, event, approval, named, rule)

    def unsigned_before(self, event: Any) -> bool:
        """Whether an unsigned approved event was recorded before signatures."""
        if self.signed_seen:
            return False
        epoch = self.state.epoch_at
        return epoch is None or bool(event.timestamp < datetime.fromisoformat(epoch))

    def _signatures(self, label: str, event: Any, approval: Any, named: tuple[str, ...],
                    rule: str) -> Iterator[Finding]:
        version = event.originator_version

        def bad(principal: str | None, problem: str) -> Finding:
            return ("signature_invalid", {"principal": principal, "signed": "with their key "
                                          "in the register, over exactly this approval"},
                    {"version": version, "problem": problem}, rule)

        if approval.table.upper() != label.upper():
            yield bad(None, f"the approval is for table {approval.table}")
        try:
            command = command_from(approval.kind, dict(approval.fields))
            roles = {p: r for p, r, _ in named_approvers(command)}
        except LedgerError as exc:
            yield bad(None, f"the approved command cannot be read: {exc.message}")
            return
        if approval.expires.replace("Z", "+00:00") < event.timestamp.isoformat():
            yield bad(None, f"it expired at {approval.expires}, before the event")
        signers = [s.principal for s in approval.signatures]
        if sorted(signers) != sorted(named) or set(roles) != set(named):
            yield bad(None, f"the event names {', '.join(named)}; signed by "
                      f"{', '.join(signers) or 'nobody'}")
        body = approval.message()
        for signature in approval.signatures:
            entry = self.state.at(signature.principal, signature.register_version)
            if signature.register_version > self.state.version or entry is None:
                yield bad(signature.principal, "no such principal at register version "
                          f"{signature.register_version}")
                continue
            if entry.public_key is None or entry.key_id != signature.key_id or not verify(
                    entry.public_key, body, signature.signature):
                yield bad(signature.principal, f"the signature does not verify with their "
                          f"key at register version {signature.register_version}")
            elif not entry.active or entry.role not in roles.get(signature.principal, ()):
                yield bad(signature.principal, f"a {entry.role}"
                          f"{'' if entry.active else ', revoked'} at register version "
                          f"{signature.register_version}, who may not approve this")
