"""Propose, then approve: changes that need approval, held until each approver has signed.

- :meth:`Approvals.propose` holds a command that needs approval (COM-4, COM-5, COR-4,
  INV-1..3) as a proposal, once the rules accept it as the table stands and every approver it
  names may approve; :meth:`Approvals.propose_register` holds a change of the register (add,
  role, revoke, key) for an admin principal's signature.
- :meth:`Approvals.approve` takes one approver's signature over the proposal's payload (from
  the command line with their key, over HTTP with a token bound to them, in the console signed
  in the browser); the proposer cannot approve their own proposal, an expired proposal is
  refused, and when the last signature arrives the change is carried out: the command through
  the application (which checks every signature again and refuses a table that has moved past
  the proposal), the register change appended to the register's chain.
- :meth:`Approvals.change_register` and :meth:`Approvals.bootstrap`: one-step register changes
  signed with an admin's key at the command line, and the root admin of a new register.
"""

from __future__ import annotations

import secrets
from datetime import timedelta
from typing import Any

from ledger.access.keys import PrincipalKey, parse_public, verify
from ledger.access.principals import check_new_principal, check_role, require_approver
from ledger.access.proposals import Proposal, ProposalStore
from ledger.access.register import Row, State
from ledger.access.signatures import parse_stamp, stamp, utc_now
from ledger.app.fleet import app_of, home_of
from ledger.domain.actors import Actor
from ledger.domain.approval import (
    REGISTER,
    Approval,
    Signature,
    command_fields,
    message,
    named_approvers,
    payload,
    payload_text,
)
from ledger.domain.commands import Command
from ledger.domain.errors import InvalidInput, LedgerError, RuleViolation, StateConflict
from ledger.logs import get_logger

log = get_logger("ledger.approvals")
REGISTER_KINDS = ("add", "role", "revoke", "key")


class Approvals:
    """Proposals and approvals of one ledger (a fleet's live in its home store)."""

    def __init__(self, ledger: Any) -> None:
        self.ledger = ledger
        self.home = home_of(ledger)
        self.proposals = ProposalStore(self.home.recorder)

    @property
    def register(self) -> Any:
        return self.home.principals.register

    def state(self) -> State:
        return self.home.principals.state()

    # --- proposing --------------------------------------------------------------------------

    def propose(self, command: Command, *, actor: Actor, proposer_principal: str | None = None,
                minutes: int | None = None) -> Proposal:
        """Hold ``command`` for its approvers' signatures."""
        named = named_approvers(command)
        if not named:
            raise InvalidInput("approval_not_needed", f"{command.name} needs no approval: send "
                               "it as a command")
        _not_own(proposer_principal, [p for p, _, _ in named])
        bound = app_of(self.ledger, command.table).check_proposal(command)
        return self._hold(command.name, command.table, command_fields(command), bound, actor,
                          proposer_principal, minutes)

    def propose_register(self, kind: str, change: dict[str, Any], *, actor: Actor,
                         proposer_principal: str | None = None,
                         minutes: int | None = None) -> Proposal:
        """Hold a change of the register for an admin principal's signature."""
        state = self.state()
        change = check_change(state, kind, change)
        return self._hold(f"register_{kind}", REGISTER, change,
                          {"register_version": state.version}, actor, proposer_principal,
                          minutes)

    def _hold(self, kind: str, table: str, fields: dict[str, Any], bound: dict[str, Any],
              actor: Actor, proposer_principal: str | None, minutes: int | None) -> Proposal:
        moment = utc_now()
        wait = minutes or self.home.settings.approval_minutes
        proposal_id = "p-" + secrets.token_hex(6)
        expires = stamp(moment + timedelta(minutes=wait))
        created = moment.isoformat(timespec="microseconds")
        proposal = Proposal(proposal_id, created, kind, table,
                            actor.model_dump(mode="json"), proposer_principal,
                            payload(kind, table, fields, bound, proposal_id, expires), expires,
                            "pending", [], None, created)
        self.proposals.add(proposal)
        log.info("proposed", proposal=proposal_id, kind=kind, table=table, actor=actor.id)
        return proposal

    # --- approving --------------------------------------------------------------------------

    def sign(self, proposal_id: str, key: PrincipalKey, *, via: str = "cli") -> Proposal:
        """Approve with a key held here (the command line's ``ledger approve``)."""
        proposal = self.proposals.get(proposal_id)
        return self.approve(proposal_id, principal_id=key.principal,
                            signature=key.sign(message(proposal.text)), via=via)

    def approve(self, proposal_id: str, *, principal_id: str, signature: str,
                via: str) -> Proposal:
        """One approver's signature over the proposal's payload; carries the change out when
        it was the last one needed. Refusals: ``proposal_closed``, ``approval_expired``,
        ``own_proposal``, ``not_an_approver``, ``already_approved``, ``signature_invalid``,
        and those of the change itself."""
        proposal = self.proposals.get(proposal_id)
        if proposal.status != "pending":
            raise StateConflict("proposal_closed", f"proposal {proposal_id} is "
                                f"{proposal.status}: nothing more to approve",
                                proposal_id=proposal_id, status=proposal.status)
        moment = utc_now()
        if parse_stamp(proposal.payload["expires"]) < moment:
            before = proposal.updated_at
            proposal.status = "expired"
            self.proposals.update(proposal, before=before, now=_now(moment))
            raise StateConflict("approval_expired", f"proposal {proposal_id} expired at "
                                f"{proposal.payload['expires']}: propose it again",
                                proposal_id=proposal_id)
        if proposal.needs():
            self._add_signature(proposal, principal_id, signature, via, moment)
        if not proposal.needs():
            self._carry_out(proposal)
        return proposal

    def _add_signature(self, proposal: Proposal, principal_id: str, signature: str, via: str,
                       moment: Any) -> None:
        if principal_id == proposal.proposer_principal:
            raise RuleViolation("own_proposal", f"{principal_id} proposed {proposal.proposal_id}"
                                " and cannot approve it: another principal must",
                                proposal_id=proposal.proposal_id, principal_id=principal_id)
        if any(a["principal"] == principal_id for a in proposal.approvals):
            raise StateConflict("already_approved", f"{principal_id} has approved "
                                f"{proposal.proposal_id} already", principal_id=principal_id)
        state = self.state()
        if proposal.register:
            entry = require_approver(state, principal_id, rule="the register",
                                     roles=("admin",))
        else:
            rules = {p: (roles, rule) for p, roles, rule in named_approvers(proposal.command())}
            if principal_id not in rules:
                raise RuleViolation("not_an_approver", f"{proposal.proposal_id} does not name "
                                    f"{principal_id} among its approvers (it needs: "
                                    f"{', '.join(proposal.needs())})", principal_id=principal_id)
            roles, rule = rules[principal_id]
            entry = require_approver(state, principal_id, rule=rule, roles=roles)
        assert entry.public_key is not None and entry.key_id is not None
        if not verify(entry.public_key, message(proposal.text), signature):
            raise RuleViolation("signature_invalid", f"the signature does not verify with "
                                f"{principal_id}'s registered key over proposal "
                                f"{proposal.proposal_id}", principal_id=principal_id,
                                proposal_id=proposal.proposal_id)
        before = proposal.updated_at
        proposal.approvals.append(Signature(
            principal=principal_id, key_id=entry.key_id, signature=signature,
            register_version=state.version, at=stamp(moment), via=via).model_dump())
        self.proposals.update(proposal, before=before, now=_now(moment))
        log.info("approved", proposal=proposal.proposal_id, principal=principal_id, via=via)

    def _carry_out(self, proposal: Proposal) -> None:
        before = proposal.updated_at
        try:
            if proposal.register:
                row = self._append(proposal.kind.removeprefix("register_"),
                                   dict(proposal.payload["fields"]), proposal.approval())
                proposal.result = {"register_version": row.seq, "row_hash": row.row_hash}
            else:
                result = self.ledger.execute(proposal.command(),
                                             actor=Actor.model_validate(proposal.proposer),
                                             approval=proposal.approval())
                proposal.result = {"command_id": result.command_id,
                                   "table_version": result.table_version,
                                   "events": result.count, "replayed": result.replayed}
            proposal.status = "done"
        except LedgerError as exc:
            if exc.code in ("concurrent_updates", "store_unavailable"):
                raise  # the approvals stay; approving again carries it out
            proposal.status = "failed"
            proposal.result = {"error": {"code": exc.code, "message": exc.message}}
            self.proposals.update(proposal, before=before, now=_now(utc_now()))
            raise
        self.proposals.update(proposal, before=before, now=_now(utc_now()))

    # --- the register in one step -------------------------------------------------------------

    def change_register(self, kind: str, change: dict[str, Any], key: PrincipalKey, *,
                        actor: Actor) -> Row:
        """A register change signed at once with an admin principal's key."""
        state = self.state()
        change = check_change(state, kind, change)
        admin = require_approver(state, key.principal, rule="the register", roles=("admin",))
        if admin.public_key != key.public:
            raise RuleViolation("signature_invalid", f"this key is not {key.principal}'s "
                                "registered key", principal_id=key.principal)
        approval = self._signed(f"register_{kind}", change, state.version, key, actor)
        return self._append(kind, change, approval)

    def bootstrap(self, principal_id: str, name: str, key: PrincipalKey, *,
                  actor: Actor) -> Row:
        """The register's root of trust: its first admin principal, signed with their own new
        key; refused once the register has one (``register_bootstrapped``)."""
        self.register.ensure_epoch()
        state = self.state()
        if state.root is not None:
            raise StateConflict("register_bootstrapped", "the register has its root admin "
                                "already; every later change is signed by an admin principal "
                                "(ledger principals add --admin-key)")
        principal_id, name = check_new_principal(principal_id, name, "admin")
        if state.find(principal_id) is not None:
            raise StateConflict("principal_exists", f"principal {principal_id!r} is already "
                                "registered", principal_id=principal_id)
        change = {"id": principal_id, "name": name, "role": "admin", "public_key": key.public}
        approval = self._signed("register_bootstrap", change, state.version, key, actor)
        return self.register.append("bootstrap", principal_id, change, approval)  # type: ignore[no-any-return]

    def _signed(self, kind: str, change: dict[str, Any], version: int, key: PrincipalKey,
                actor: Actor) -> Approval:
        moment = utc_now()
        proposal = "command:" + secrets.token_hex(6)
        expires = stamp(moment + timedelta(minutes=5))
        bound = {"register_version": version}
        text = payload_text(payload(kind, REGISTER, change, bound, proposal, expires))
        signature = Signature(principal=key.principal, key_id=key.key_id,
                              signature=key.sign(message(text)), register_version=version,
                              at=stamp(moment), via="cli")
        return Approval(kind=kind, table=REGISTER, fields=change, applies_to=bound,
                        proposal=proposal, expires=expires, proposer=actor.id,
                        signatures=(signature,))

    def _append(self, kind: str, change: dict[str, Any], approval: Approval) -> Row:
        if parse_stamp(approval.expires) < utc_now():
            raise StateConflict("approval_expired", f"the approval expired at "
                                f"{approval.expires}: propose it again")
        return self.register.append(kind, str(change["id"]), change, approval)  # type: ignore[no-any-return]


def check_change(state: State, kind: str, change: dict[str, Any]) -> dict[str, Any]:
    """A register change, checked against the register now; its canonical fields."""
    if kind not in REGISTER_KINDS:
        raise InvalidInput("invalid_register_change", f"unknown change {kind!r}; changes: "
                           f"{', '.join(REGISTER_KINDS)}")
    principal_id = str(change.get("id", "")).strip()
    found = state.find(principal_id)
    if kind == "add":
        principal_id, name = check_new_principal(principal_id, str(change.get("name", "")),
                                                 str(change.get("role", "")))
        if found is not None:
            raise StateConflict("principal_exists", f"principal {principal_id!r} is already "
                                "registered (revoked ids are not reused)",
                                principal_id=principal_id)
        parse_public(str(change.get("public_key", "")))
        return {"id": principal_id, "name": name, "role": str(change["role"]),
                "public_key": str(change["public_key"]).strip()}
    if found is None:
        raise RuleViolation("unknown_principal", f"no principal {principal_id!r}",
                            principal_id=principal_id)
    if not found.active:
        raise StateConflict("principal_revoked", f"principal {principal_id!r} was revoked at "
                            f"{found.revoked_at}", principal_id=principal_id)
    if kind == "role":
        role = str(change.get("role", ""))
        check_role(role)
        return {"id": principal_id, "role": role}
    if kind == "key":
        public = str(change.get("public_key", "")).strip()
        parse_public(public)
        if public == found.public_key:
            raise StateConflict("key_unchanged", "that key is the principal's key already")
        return {"id": principal_id, "public_key": public}
    return {"id": principal_id}


def _not_own(proposer: str | None, approvers: list[str]) -> None:
    if proposer is not None and proposer in approvers:
        raise RuleViolation("own_proposal", f"{proposer} cannot propose what they approve: "
                            "another principal proposes, or sign it yourself in one step "
                            "(--key) where one approval suffices", principal_id=proposer)


def _now(moment: Any) -> str:
    return str(moment.isoformat(timespec="microseconds"))
