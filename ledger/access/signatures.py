"""The check of every approval a command carries: each named approver's own signature over
exactly this command, for this table as it stands, before its expiry.

:func:`applies_to` says what state of the table a command's approval is bound to (the version;
a configuration change also its configuration version, a void its hand);
:func:`moved_past` refuses an approval the table has moved past; :func:`check_approval`
verifies the signatures against the register (:mod:`ledger.access.register`) and returns them
as the event keeps them; :func:`signed` makes the one-step approval of a command whose
approvers' keys the process holds (a supervisor at the command line with ``--key``, a
simulation's own principals).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from ledger.access.keys import Keyring, verify
from ledger.access.principals import require_approver
from ledger.access.register import State
from ledger.domain.approval import (
    Approval,
    Signature,
    command_fields,
    message,
    named_approvers,
    payload,
    payload_text,
)
from ledger.domain.commands import CORRECTION_COMMANDS, ChangeConfig, Command, VoidHand
from ledger.domain.errors import InvalidInput, RuleViolation, StateConflict
from ledger.table.state import TableState

ONE_STEP_MINUTES = 5
"""How long a one-step signature made by the process itself is valid."""


def utc_now() -> datetime:
    return datetime.now(UTC)


def stamp(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def parse_stamp(text: str) -> datetime:
    try:
        found = datetime.fromisoformat(str(text).replace("Z", "+00:00"))
    except ValueError:
        raise InvalidInput("invalid_approval", f"expiry {text!r} is not a time") from None
    return found if found.tzinfo else found.replace(tzinfo=UTC)


def applies_to(command: Command, version: int, state: TableState | None) -> dict[str, Any]:
    """The table state a command's approval is bound to."""
    found: dict[str, Any] = {"version": version}
    if isinstance(command, ChangeConfig) and state is not None:
        found["config_version"] = state.config_version
    if isinstance(command, VoidHand) and state is not None:
        found["hand"] = state.hand_no if state.hand is not None else None
    return found


def moved_past(command: Command, bound: dict[str, Any], version: int, state: TableState,
               corrections_since: Any) -> None:
    """Refuse (``proposal_outdated``) an approval bound to a table state that is gone: a
    configuration version since changed, a hand no longer the one in progress, a correction
    recorded since (for a correction), any event since (for the tray's counts and fills)."""
    why = None
    if isinstance(command, ChangeConfig):
        if bound.get("config_version") != state.config_version:
            why = f"configuration v{bound.get('config_version')} is now v{state.config_version}"
    elif isinstance(command, VoidHand):
        now = state.hand_no if state.hand is not None else None
        if bound.get("hand") != now:
            why = f"hand {bound.get('hand')} is not the hand in progress now ({now})"
    elif isinstance(command, CORRECTION_COMMANDS):
        since = corrections_since(int(bound.get("version", 0)))
        if since is not None:
            why = f"a correction was recorded since (version {since})"
    elif bound.get("version") != version:
        why = f"the table was at version {bound.get('version')} and is at {version} now"
    if bound.get("version", 0) > version:
        why = f"version {bound.get('version')} is ahead of the table ({version})"
    if why is not None:
        raise StateConflict("proposal_outdated", f"the approval of {command.name} at "
                            f"{command.table} is for a table that has moved on: {why}; "
                            "propose it again", applies_to=bound, table_version=version)


def check_approval(register: State, command: Command, approval: Approval | None, *,
                   now: datetime | None = None) -> Approval:
    """``approval`` checked against ``command`` and the register now: every named approver is
    an active principal allowed under the rule, with a key, and has signed exactly this
    approval's payload, unexpired; returns it with each signature's register version set.
    Refusals: ``approval_required``, ``approval_mismatch``, ``approval_expired``,
    ``signature_missing``, ``signature_invalid``, ``unexpected_signature`` and those of
    :func:`ledger.access.principals.require_approver`."""
    named = named_approvers(command)
    entries = {p: require_approver(register, p, rule=rule, roles=roles)
               for p, roles, rule in named}
    if approval is None:
        names = ", ".join(p for p, _, _ in named)
        raise RuleViolation("approval_required", f"{command.name} needs the signature of "
                            f"{names} ({named[0][2]}): propose it and have each approve it "
                            "with their own key (ledger approve, POST /proposals/{id}/"
                            "approvals, or the console's approvals page)",
                            rule=named[0][2], approvers=[p for p, _, _ in named])
    if approval.kind != command.name or approval.fields != command_fields(command) or \
            approval.table != command.table:
        raise RuleViolation("approval_mismatch", "the approval is for another command than "
                            "the one given", proposal=approval.proposal)
    moment = now or utc_now()
    if parse_stamp(approval.expires) < moment:
        raise StateConflict("approval_expired", f"the approval expired at {approval.expires}: "
                            "propose it again", proposal=approval.proposal,
                            expires=approval.expires)
    body = message(payload_text(approval.payload()))
    by_principal: dict[str, Signature] = {}
    for signature in approval.signatures:
        if signature.principal in by_principal:
            raise RuleViolation("unexpected_signature", f"{signature.principal} signed twice",
                                principal_id=signature.principal)
        by_principal[signature.principal] = signature
    wanted = {p for p, _, _ in named}
    extra = sorted(set(by_principal) - wanted)
    if extra:
        raise RuleViolation("unexpected_signature", f"{', '.join(extra)} signed, but the "
                            "command does not name them", principals=extra)
    kept = []
    for principal_id, _, rule in named:
        entry = entries[principal_id]
        given = by_principal.get(principal_id)
        if given is None:
            raise RuleViolation("signature_missing", f"{principal_id} has not signed yet "
                                f"({rule})", principal_id=principal_id, rule=rule)
        assert entry.public_key is not None
        if given.key_id != entry.key_id or not verify(entry.public_key, body, given.signature):
            raise RuleViolation("signature_invalid", f"the signature of {principal_id} does "
                                "not verify with their registered key over this approval "
                                f"({rule})", principal_id=principal_id, rule=rule,
                                proposal=approval.proposal)
        kept.append(given.model_copy(update={"register_version": register.version}))
    return approval.model_copy(update={"signatures": tuple(kept)})


def one_step_approval(keyring: Keyring, command: Command, bound: dict[str, Any], *,
                      proposer: str, register_version: int, via: str = "cli",
                      minutes: int = ONE_STEP_MINUTES) -> Approval | None:
    """The approval of ``command`` signed at once with the keys of ``keyring``, when it holds
    the key of every approver the command names (None otherwise)."""
    named = named_approvers(command)
    if not named or any(keyring.get(p) is None for p, _, _ in named):
        return None
    moment = utc_now()
    fields = command_fields(command)
    proposal = f"command:{command.command_id}"
    expires = stamp(moment + timedelta(minutes=minutes))
    text = payload_text(payload(command.name, command.table, fields, bound, proposal, expires))
    signatures = []
    for principal_id in dict.fromkeys(p for p, _, _ in named):
        key = keyring.get(principal_id)
        assert key is not None
        signatures.append(Signature(principal=principal_id, key_id=key.key_id,
                                    signature=key.sign(message(text)),
                                    register_version=register_version, at=stamp(moment),
                                    via=via))
    return Approval(kind=command.name, table=command.table, fields=fields, applies_to=bound,
                    proposal=proposal, expires=expires, proposer=proposer,
                    signatures=tuple(signatures))
