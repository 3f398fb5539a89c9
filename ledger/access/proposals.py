"""Proposals: a change that needs approval, held until each approver has signed it.

A proposal (``ledger_proposals``, in the home store) keeps the payload its approvers sign
(:func:`ledger.domain.approval.payload`: the kind, the table or ``register``, every field, what
it applies to, its id and its expiry), who proposed it, its status (``pending``, ``done``,
``failed``, ``expired``) and the signatures given so far. Nothing here is trusted: the
application checks every signature against the register again when it carries the change out,
and the event (or the register's row) keeps them under its chain; editing a proposal's payload
only makes the signatures already given worthless.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from ledger.domain.approval import (
    REGISTER,
    Approval,
    Signature,
    message,
    named_approvers,
    payload_text,
)
from ledger.domain.commands import COMMANDS_BY_NAME, Command, command_from
from ledger.domain.errors import ConcurrencyError, NotFound
from ledger.store.sidetables import PROPOSALS_TABLE, SideTable

COLUMNS = ("proposal_id, created_at, kind, table_code, proposer, proposer_principal, payload, "
           "expires_at, status, approvals, result, updated_at")
STATUSES = ("pending", "done", "failed", "expired")


@dataclass
class Proposal:
    proposal_id: str
    created_at: str
    kind: str
    table: str
    proposer: dict[str, Any]
    """The proposing actor (``ledger.domain.actors.Actor`` as JSON)."""
    proposer_principal: str | None
    """The principal behind the proposing credential, who may not approve it."""
    payload: dict[str, Any]
    expires_at: str
    status: str
    approvals: list[dict[str, Any]] = field(default_factory=list)
    result: dict[str, Any] | None = None
    updated_at: str = ""

    @property
    def text(self) -> str:
        """Exactly the text an approver signs (canonical JSON)."""
        return payload_text(self.payload)

    @property
    def message(self) -> str:
        """The message an approver's key signs: ``table-ledger/approval/1 <sha256>``."""
        return message(self.text).decode("ascii")

    @property
    def register(self) -> bool:
        return self.table == REGISTER

    def command(self) -> Command:
        return command_from(self.kind, dict(self.payload["fields"]))

    def needs(self) -> list[str]:
        """Who must still sign: principal ids, or ``an admin principal`` for the register."""
        signed = {a["principal"] for a in self.approvals}
        if self.register:
            return [] if signed else ["an admin principal"]
        wanted = [p for p, _, _ in named_approvers(self.command())]
        return [p for p in dict.fromkeys(wanted) if p not in signed]

    def approval(self) -> Approval:
        payload = self.payload
        return Approval(kind=self.kind, table=self.table, fields=payload["fields"],
                        applies_to=payload["applies_to"], proposal=self.proposal_id,
                        expires=payload["expires"], proposer=str(self.proposer.get("id")),
                        signatures=tuple(Signature.model_validate(a) for a in self.approvals))

    def as_dict(self) -> dict[str, Any]:
        return {"proposal_id": self.proposal_id, "created_at": self.created_at,
                "kind": self.kind, "table": self.table, "proposer": self.proposer,
                "proposer_principal": self.proposer_principal, "status": self.status,
                "expires_at": self.expires_at, "needs": self.needs() if self.status == "pending"
                else [], "approvals": self.approvals, "result": self.result,
                "payload": self.text, "message": self.message,
                "updated_at": self.updated_at}


def is_command_kind(kind: str) -> bool:
    return kind in COMMANDS_BY_NAME


class ProposalStore:
    """The proposals of a store (a fleet's: its home store's)."""

    def __init__(self, recorder: Any) -> None:
        self.db = SideTable(recorder, PROPOSALS_TABLE)

    def add(self, proposal: Proposal) -> Proposal:
        self.db.execute(f"INSERT INTO {self.db.name} ({COLUMNS}) VALUES ({self.db.marks(12)})",
                        _row(proposal))
        return proposal

    def find(self, proposal_id: str) -> Proposal | None:
        rows = self.db.query(f"SELECT {COLUMNS} FROM {self.db.name} WHERE proposal_id = "
                             f"{self.db.p}", (proposal_id,))
        return _proposal(rows[0]) if rows else None

    def get(self, proposal_id: str) -> Proposal:
        found = self.find(proposal_id)
        if found is None:
            raise NotFound("unknown_proposal", f"no proposal {proposal_id!r}",
                           proposal_id=proposal_id)
        return found

    def all(self, *, status: str | None = None, table: str | None = None,
            limit: int = 200) -> list[Proposal]:
        where, params = [], []
        if status is not None:
            where.append(f"status = {self.db.p}")
            params.append(status)
        if table is not None:
            where.append(f"upper(table_code) = {self.db.p}")
            params.append(table.strip().upper())
        clause = f" WHERE {' AND '.join(where)}" if where else ""
        rows = self.db.query(f"SELECT {COLUMNS} FROM {self.db.name}{clause} ORDER BY "
                             f"created_at DESC, proposal_id LIMIT {int(limit)}", tuple(params))
        return [_proposal(row) for row in rows]

    def update(self, proposal: Proposal, *, before: str, now: str) -> Proposal:
        """Write ``proposal``'s status, approvals and result, if nobody changed it since
        ``before`` (its ``updated_at`` when read); else ``concurrent_updates``."""
        with self.db.recorder.datastore.transaction(commit=True) as cursor:
            cursor.execute(
                f"UPDATE {self.db.name} SET status = {self.db.p}, approvals = {self.db.p}, "
                f"result = {self.db.p}, updated_at = {self.db.p} WHERE proposal_id = "
                f"{self.db.p} AND updated_at = {self.db.p}",
                (proposal.status, json.dumps(proposal.approvals),
                 None if proposal.result is None else json.dumps(proposal.result), now,
                 proposal.proposal_id, before))
            inner = getattr(cursor, "sqlite_cursor", cursor)
            changed = inner.rowcount
        if changed != 1:
            raise ConcurrencyError("concurrent_updates", f"proposal {proposal.proposal_id} "
                                   "changed meanwhile: try again",
                                   proposal_id=proposal.proposal_id)
        proposal.updated_at = now
        return proposal


def _row(p: Proposal) -> tuple[Any, ...]:
    return (p.proposal_id, p.created_at, p.kind, p.table, json.dumps(p.proposer),
            p.proposer_principal, p.text, p.expires_at, p.status, json.dumps(p.approvals),
            None if p.result is None else json.dumps(p.result), p.updated_at)


def _proposal(row: tuple[Any, ...]) -> Proposal:
    (pid, created, kind, table, proposer, principal, payload, expires, status, approvals,
     result, updated) = row
    return Proposal(str(pid), str(created), str(kind), str(table), json.loads(proposer),
                    principal, json.loads(payload), str(expires), str(status),
                    json.loads(approvals), None if result is None else json.loads(result),
                    str(updated))
