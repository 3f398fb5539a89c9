"""The audit: verify, from the stored events alone, that the record is whole and right.

- :func:`~projections.audit.verify.verify`: the hash chain and the command-log copies of every
  table, every command decided again by the rules in force and compared with what was
  recorded, chip conservation, and optionally a signed daily seal;
- :func:`~projections.audit.handreplay.hand_replay`: one hand, decision by decision, the record
  and the recomputation side by side (``ledger audit hand``);
- :mod:`~projections.audit.seal`: the signed daily heads (``ledger audit seal``).

It may use the store, the table's state machine and the rules (to decide every command
again), the views (to reconcile them) and ``ledger.access`` (the register and the access log);
never the application or a face.
"""

from projections.audit.model import AuditReport, Discrepancy
from projections.audit.verify import verify

__all__ = ["AuditReport", "Discrepancy", "verify"]
