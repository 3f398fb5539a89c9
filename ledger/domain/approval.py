"""Approvals as signatures: what an approver signs, and what an event keeps of it.

An approval (COM-4's configuration approver, COM-5's void approver, COR-4's correction
approvers, INV-1..3's two tray signers, and every change of the register of principals) is the
approver's Ed25519 signature over the canonical digest of exactly what is approved
(:func:`payload_text`): the kind of change, the table (``register`` for the register), every
field of the command, the table version, hand or register version it applies to, the proposal
it belongs to and an expiry. The text is JSON with sorted keys and no spaces (UTF-8), so
anyone can rebuild it from the stored approval; the signed message is
``table-ledger/approval/1 <sha256 of the text, hex>`` (:func:`message`), so a signature made for
one proposal is worthless for any other.

The event that carries out an approved command keeps an :class:`Approval` in its envelope
(``approval``, covered by the table's hash chain): the fields, the applies-to, the expiry, the
proposal, who proposed it and every signature with the register version whose key it was
checked against. :func:`named_approvers` says, for a command, who must sign and under which
rule; the application refuses the command unless each of them has.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ledger.domain.actors import APPROVERS, SIGNERS
from ledger.domain.commands import (
    CORRECTION_COMMANDS,
    ChangeConfig,
    Command,
    CountInventory,
    Credit,
    Fill,
    VoidHand,
)

FORMAT = "table-ledger/approval/1"
"""The version of the signed text and message."""
REGISTER = "register"
"""The ``table`` of a change of the register of principals."""
TRAY_RULES: dict[type[Command], str] = {CountInventory: "INV-1", Fill: "INV-2", Credit: "INV-3"}


class Signature(BaseModel):
    """One approver's signature."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    principal: str
    key_id: str
    """The first 16 hex digits of the SHA-256 of the public key that verifies it."""
    signature: str = Field(pattern=r"^[0-9a-f]{128}$")
    register_version: int
    """The version of the register whose key for ``principal`` the ledger checked it with."""
    at: str
    """When the ledger received it (UTC, ISO 8601)."""
    via: str = "cli"
    """How it reached the ledger: ``cli``, ``http`` or ``console``."""


class Approval(BaseModel):
    """What an event keeps of the approval behind it (in its envelope, under the chain)."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    kind: str
    table: str
    fields: dict[str, Any]
    applies_to: dict[str, Any]
    proposal: str
    expires: str
    proposer: str
    """Who proposed it: the actor id (``token:<id>``, ``cli:<name>``)."""
    signatures: tuple[Signature, ...]

    def payload(self) -> dict[str, Any]:
        return payload(self.kind, self.table, self.fields, self.applies_to, self.proposal,
                       self.expires)

    def message(self) -> bytes:
        return message(payload_text(self.payload()))


def payload(kind: str, table: str, fields: dict[str, Any], applies_to: dict[str, Any],
            proposal: str, expires: str) -> dict[str, Any]:
    """Exactly what an approver signs."""
    return {"format": FORMAT, "kind": kind, "table": table, "fields": fields,
            "applies_to": applies_to, "proposal": proposal, "expires": expires}


def payload_text(value: dict[str, Any]) -> str:
    """The canonical text of a payload: JSON, keys sorted, no spaces, not ASCII-escaped."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def message(text: str) -> bytes:
    """The bytes an approver's key signs for the payload ``text``."""
    return f"{FORMAT} {digest(text)}".encode("ascii")


def command_fields(command: Command) -> dict[str, Any]:
    """Every field of ``command`` as JSON values (what an approval covers)."""
    fields: dict[str, Any] = json.loads(command.model_dump_json())
    return fields


def named_approvers(command: Command) -> list[tuple[str, tuple[str, ...], str]]:
    """Who must sign ``command``: (principal id, roles that may, rule) for each, in order; an
    empty list for a command that needs no approval."""
    if isinstance(command, ChangeConfig):
        return [(command.approver, APPROVERS, "COM-4")]
    if isinstance(command, VoidHand):
        return [] if command.approved_by is None else [(command.approved_by, APPROVERS, "COM-5")]
    if isinstance(command, CountInventory | Fill | Credit):
        rule = TRAY_RULES[type(command)]
        return [(signer, SIGNERS, rule) for signer in command.signers]
    if isinstance(command, CORRECTION_COMMANDS):
        return [(name, APPROVERS, "COR-4") for name in command.approvers]
    return []


APPROVED_EVENTS = frozenset({
    "ConfigChanged", "HandVoided", "InventoryCounted", "TableFilled", "TableCredited",
    "HandCorrected", "MovementCorrected", "SeatCorrected", "OwedSettled",
})
"""The events that record an approved command (a HandVoided only when it names an approver)."""


def approvers_of(event: Any) -> tuple[str, ...]:
    """The principals an approved event names (empty for any other event)."""
    name = type(event).__name__
    if name == "ConfigChanged":
        return (event.approver,)
    if name == "HandVoided":
        return () if event.approved_by is None else (event.approved_by,)
    if name in ("InventoryCounted", "TableFilled", "TableCredited"):
        return tuple(event.signers)
    if name in APPROVED_EVENTS:
        return tuple(event.approvers)
    return ()
