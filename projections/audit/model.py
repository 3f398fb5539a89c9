"""What the audit reports: discrepancies and the summary ``ledger audit verify --json`` prints.

A discrepancy is ``{table, hand, kind, expected, recorded, rule}``: the table code (or the
stream id when the table's opening is gone), the hand number when the event belongs to a hand,
what kind of problem it is, what the rules (or the chain) expect, what the store holds, and the
rule id behind the expectation when there is one. Versions are given inside ``expected`` and
``recorded``.

Kinds, by the check that reports them (``CHAIN_KINDS`` make ``chain_ok`` false,
``CONSERVATION_KINDS`` make ``conservation_ok`` false; every kind makes the exit status 1):

chain (stored rows): ``event_edited`` (an event no longer hashes to what the next one carries),
``event_deleted`` (a version is missing), ``event_inserted`` (a row repeats the chain link of an
earlier one), ``events_reordered`` (rows out of their chain order), ``stream_start`` (the stream
does not begin with a TableOpened on the genesis hash), ``undecodable_event``;
corrections index (what a hand's replay reads of its table after the hand,
:mod:`projections.read.correction_queries`): ``corrections_index`` (the index does not give exactly
the correction events the audit read: made stale by hand, it would hide a hand's corrections
from its replay);
command log (the copy of every event kept with its command): ``command_log_mismatch``,
``command_log_missing`` (the log lists an event the store lacks: deleted or truncated),
``command_log_unknown`` (an event no command appended);
seal (:mod:`projections.audit.sealcheck`): ``seal_truncated``, ``seal_mismatch``,
``seal_events``, ``seal_balances``, ``seal_missing_table``, ``seal_unknown_table``,
``seal_chain_broken``,
``seal_day_missing``, ``seal_projections``, and ``seal_signature`` (a seal not signed by the
key given; it says nothing about the chains, so it leaves ``chain_ok`` alone: ``seal_ok``);
read models (:mod:`projections.audit.reconcile`): ``projection_mismatch``; every stored row
and column of every view (:mod:`projections.audit.viewrows`): ``view_row_mismatch``; and
``unholdable_value`` (an event holding a number no view can store, left out of the views, or a
balance past that range: :mod:`projections.views.unholdable`);
bounds: ``out_of_bounds`` (a recorded command outside the bounds every command has now,
:mod:`ledger.domain.bounds`: written before them, or by hand);
access log (:mod:`ledger.access.accesslog`, a full audit only): ``access_log_broken``;
signs of a writer (:mod:`projections.audit.writers`): ``command_log_without_events`` (a full
audit only), ``projection_outdated`` (a view of
another layout, not compared) and, over shards, ``table_moved``;
approvals (:mod:`projections.audit.approvers`; ``SIGNATURE_KINDS`` make ``signatures_ok``
false): ``signature_invalid`` (a signature that does not verify with the approver's key in the
register at the version it names, or an approval that is not of this event),
``approval_unsigned`` (an approved event without signatures after the register's epoch), and,
a full audit only, ``register_broken`` (a row of the register edited, deleted or inserted, or a
change of it not signed by an admin principal);
tokens (a full audit only, :mod:`ledger.access.tokenchain`): ``tokens_broken`` (a row of the
tokens' chain edited, deleted, inserted or forged, or a token whose stored role, tables, seat,
principal or revocation is not what its chain says);
checkpoints (a full audit only, :mod:`projections.audit.checkpoint`): ``checkpoint_mismatch``
(the store no longer holds a chain head the latest checkpoint recorded: a table rewritten, even
consistently, or cut; the register, the tokens' chain or the access log rewritten or cut),
``checkpoint_signature``, ``checkpoint_chain_broken``, ``checkpoint_missing`` (a checkpoint of
the sink the store lost); snapshots: ``snapshot_mismatch`` (a signed snapshot whose keyed
signature or chain digest does not hold);
re-decision (rules vs record): ``rejected`` (the rules refuse the recorded command), ``records``
(other records than the rules produce), ``outcome``, ``transfer``, ``jackpot``, ``coverage``,
``pot``, ``points``, ``rake``, ``deal``, ``deck_commitment`` and, for any other field of an
event, the event's kind (``wager``, ``action``, ``reveal``, ``hand_start``, ...);
``replay_failed`` (the recorded events cannot be applied);
conservation: ``transfer_invalid``, ``transfers_unbalanced``, ``amount_mismatch``,
``negative_balance``, ``hand_accounts_not_empty``, ``cage_mismatch``, ``rake_mismatch``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

CHAIN_KINDS = frozenset({
    "event_edited", "event_deleted", "event_inserted", "events_reordered", "stream_start",
    "undecodable_event", "command_log_mismatch", "command_log_missing", "command_log_unknown",
    "seal_truncated", "seal_mismatch", "seal_missing_table", "seal_events", "seal_balances",
    "seal_unknown_table", "checkpoint_mismatch", "snapshot_mismatch",
})
SIGNATURE_KINDS = frozenset({"signature_invalid", "approval_unsigned", "register_broken"})
SEAL_KINDS = frozenset({"seal_signature", "seal_chain_broken", "seal_day_missing"})
CONSERVATION_KINDS = frozenset({
    "transfer_invalid", "transfers_unbalanced", "amount_mismatch", "negative_balance",
    "hand_accounts_not_empty", "cage_mismatch", "rake_mismatch",
})


@dataclass(frozen=True)
class Discrepancy:
    table: str
    hand: int | None
    kind: str
    expected: Any
    recorded: Any
    rule: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"table": self.table, "hand": self.hand, "kind": self.kind,
                "expected": self.expected, "recorded": self.recorded, "rule": self.rule}


@dataclass
class AuditReport:
    tables: list[str] = field(default_factory=list)
    hands_checked: int = 0
    events_checked: int = 0
    discrepancies: list[Discrepancy] = field(default_factory=list)
    hands_open: int = 0
    """Hands still in progress at the end of a stream (their rng deals cannot be checked yet)."""
    events_read: int = 0
    """Stored event rows read (an incremental audit reads only those after the sealed heads)."""
    incremental_from: str | None = None
    """The gaming day of the seal an incremental audit started from."""
    unsigned_before: list[dict[str, Any]] = field(default_factory=list)
    """Approved events recorded before signatures (``{table, version, event}``): valid, shown
    as "unsigned (before signatures)", never a discrepancy."""
    decks_unchecked: list[dict[str, Any]] = field(default_factory=list)
    """Hands voided with approval because their sealed deck could not be opened (the deck key
    was lost or replaced): they revealed no deck, so their rng deals and deck commitment
    (COM-8) cannot be checked; everything else of them (the wagers returned, COM-5) is."""

    def merge(self, part: AuditReport) -> None:
        """Add the report of another part of the store (a table audited elsewhere)."""
        self.tables.extend(part.tables)
        self.hands_checked += part.hands_checked
        self.events_checked += part.events_checked
        self.hands_open += part.hands_open
        self.events_read += part.events_read
        self.discrepancies.extend(part.discrepancies)
        self.decks_unchecked.extend(part.decks_unchecked)
        self.unsigned_before.extend(part.unsigned_before)

    @property
    def chain_ok(self) -> bool:
        return not any(d.kind in CHAIN_KINDS for d in self.discrepancies)

    @property
    def conservation_ok(self) -> bool:
        return not any(d.kind in CONSERVATION_KINDS for d in self.discrepancies)

    @property
    def signatures_ok(self) -> bool:
        return not any(d.kind in SIGNATURE_KINDS for d in self.discrepancies)

    @property
    def seal_ok(self) -> bool:
        return not any(d.kind in SEAL_KINDS for d in self.discrepancies)

    @property
    def ok(self) -> bool:
        return not self.discrepancies

    def as_dict(self) -> dict[str, Any]:
        """Exactly the object ``ledger audit verify --json`` prints."""
        return {
            "tables": self.tables,
            "hands_checked": self.hands_checked,
            "events_checked": self.events_checked,
            "discrepancies": [d.as_dict() for d in self.discrepancies],
            "chain_ok": self.chain_ok,
            "conservation_ok": self.conservation_ok,
            "seal_ok": self.seal_ok,
            "events_read": self.events_read,
            "incremental_from": self.incremental_from,
            "decks_unchecked": self.decks_unchecked,
            "signatures_ok": self.signatures_ok,
            "unsigned_before_signatures": self.unsigned_before,
        }
