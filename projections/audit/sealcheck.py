"""The store checked against signed seals (:mod:`projections.audit.seal`).

- signatures: a seal of the current format needs the public key only (``seal_signature`` when
  the key id or the signature does not match; nothing else follows from a wrong key: the
  chains are reported as they are); a seal of the first format needs ``LEDGER_SEAL_KEY``;
- the chain of seals: each seal records the day and the digest of the one before it; a link
  that does not match is ``seal_chain_broken``, a day that the chain skips or whose seal is not
  among those given is ``seal_day_missing`` (named);
- each table's sealed heads: ``seal_truncated`` (the stream ends before the head),
  ``seal_mismatch`` (another event at the head: the history was rewritten), ``seal_events``
  (another number of events up to it), ``seal_balances`` (other balances at the head: the
  accounts are named), ``seal_missing_table`` (a sealed table is gone), ``seal_unknown_table``
  (a table opened before a sealed day ended that the seal does not list);
- the day's totals: ``seal_projections`` (a view's totals of the sealed day, recomputed from
  the events, differ from the sealed digest);
- the access log (:mod:`ledger.access.accesslog`): ``seal_access_log`` when the row a seal names as
the
  log's head at sealing is gone or has another digest (the log's tail cut, or the log
  rewritten whole); edits inside the log are its own chain's ``access_log_broken``.
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from typing import Any
from uuid import UUID

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from ledger.domain.errors import InvalidInput
from projections.audit import keys
from projections.audit.model import Discrepancy
from projections.audit.reconcile import Totals
from projections.audit.seal import (
    FORMAT,
    FORMAT_V1,
    SEALED_VIEWS,
    body,
    hmac_signature,
    seal_digest,
)
from projections.views.context import day_bounds

STORE = "*"


@dataclass
class SealCheck:
    seals: list[dict[str, Any]]
    public_key: Ed25519PublicKey | None = None
    hmac_key: bytes | None = None
    valid: dict[str, bool] = field(default_factory=dict)
    """gaming day -> whether that seal's signature holds."""

    def __post_init__(self) -> None:
        if any(s.get("format") == FORMAT for s in self.seals) and self.public_key is None:
            raise InvalidInput("public_key_missing", "checking a seal needs the public key of "
                               "the key that signed it: --public-key ed25519:<hex> (or a file "
                               "holding it; `ledger keys create` printed it)")
        if any(s.get("format") == FORMAT_V1 for s in self.seals) and self.hmac_key is None:
            from ledger.domain.errors import LedgerError

            raise LedgerError("seal_key_missing", "a seal of the first format (HMAC) needs "
                              "LEDGER_SEAL_KEY to be checked")

    # --- the seals themselves --------------------------------------------------------------

    def signatures(self) -> list[Discrepancy]:
        found = []
        for seal in self.seals:
            day = str(seal.get("gaming_day"))
            bad = self._signature(seal)
            self.valid[day] = bad is None
            if bad is not None:
                found.append(Discrepancy(STORE, None, "seal_signature", bad[0],
                                         {**bad[1], "gaming_day": day}))
        return found

    def _signature(self, seal: dict[str, Any]) -> tuple[Any, Any] | None:
        signature = str(seal.get("signature", ""))
        if seal.get("format") == FORMAT_V1:
            assert self.hmac_key is not None
            if hmac.compare_digest(hmac_signature(seal, self.hmac_key), signature):
                return None
            return ({"signature": "HMAC-SHA256 of the seal under LEDGER_SEAL_KEY"},
                    {"signature": signature})
        assert self.public_key is not None
        given = keys.key_id(self.public_key)
        if seal.get("key_id") != given:
            return {"key_id": given}, {"key_id": seal.get("key_id")}
        if keys.valid(self.public_key, body(seal), signature):
            return None
        return {"signature": f"Ed25519 by key {given}"}, {"signature": signature}

    def chain(self) -> list[Discrepancy]:
        """Links between consecutive seals and the days missing from the chain."""
        found: list[Discrepancy] = []
        chained = [s for s in self.seals if s.get("format") == FORMAT]
        given = {str(s["gaming_day"]) for s in chained}
        missing: dict[str, str] = {}
        for i, seal in enumerate(chained):
            day = str(seal["gaming_day"])
            link = seal.get("previous") or None
            if link is not None:
                for gap in _between(str(link.get("gaming_day")), day):
                    missing.setdefault(gap, f"the seal of {day} follows {link['gaming_day']}")
            if i == 0:
                continue
            before = chained[i - 1]
            earlier = str(before["gaming_day"])
            for gap in _between(earlier, day):
                if gap not in given:
                    missing.setdefault(gap, "no seal of that day among those given")
            if link is not None and link.get("gaming_day") == earlier \
                    and link.get("digest") != seal_digest(before):
                found.append(Discrepancy(STORE, None, "seal_chain_broken",
                                         {"gaming_day": day, "previous": earlier,
                                          "digest": seal_digest(before)},
                                         {"gaming_day": day, "previous": earlier,
                                          "digest": link.get("digest")}))
            elif link is None:
                found.append(Discrepancy(STORE, None, "seal_chain_broken",
                                         {"gaming_day": day, "previous": earlier},
                                         {"gaming_day": day, "previous": None}))
        for gap, why in sorted(missing.items()):
            found.append(Discrepancy(STORE, None, "seal_day_missing",
                                     {"gaming_day": gap, "sealed": True},
                                     {"gaming_day": gap, "sealed": False, "why": why}))
        return found

    # --- the store against the seals -------------------------------------------------------

    def heads(self, table_id: UUID) -> list[dict[str, Any]]:
        return [{**h, "gaming_day": s["gaming_day"]} for s in self.seals
                for h in s.get("tables", []) if h.get("table_id") == str(table_id)]

    def wanted(self, table_id: UUID) -> set[int]:
        return {int(h["version"]) for h in self.heads(table_id)}

    def check_table(self, table_id: UUID, label: str, digests: dict[int, str],
                    last_version: int, counts: dict[int, int],
                    balances: dict[int, dict[str, int]]) -> list[Discrepancy]:
        """One table's stream against its sealed heads (``digests``, ``counts`` and
        ``balances`` at the sealed versions, as read from the store)."""
        found = []
        for head in self.heads(table_id):
            version, day = int(head["version"]), head["gaming_day"]
            if last_version < version:
                found.append(Discrepancy(label, None, "seal_truncated",
                                         {"version": version, "gaming_day": day},
                                         {"last_version": last_version}))
                continue
            if digests.get(version) != head["digest"]:
                found.append(Discrepancy(label, None, "seal_mismatch",
                                         {"version": version, "digest": head["digest"],
                                          "gaming_day": day},
                                         {"version": version, "digest": digests.get(version)}))
            if "events" in head and version in counts and counts[version] != head["events"]:
                found.append(Discrepancy(label, None, "seal_events",
                                         {"version": version, "events": head["events"]},
                                         {"version": version, "events": counts[version]}))
            if "balances" in head and version in balances:
                found.extend(_balances(label, version, day, head["balances"],
                                       balances[version]))
        return found

    def missing_tables(self, seen: set[str]) -> list[Discrepancy]:
        return [Discrepancy(h.get("table", "?"), None, "seal_missing_table",
                            {"table_id": h.get("table_id"), "version": h.get("version"),
                             "gaming_day": s.get("gaming_day")}, None)
                for s in self.seals for h in s.get("tables", [])
                if h.get("table_id") not in seen]

    def unknown_table(self, table_id: UUID, label: str, opened_at: datetime,
                      zone: str) -> list[Discrepancy]:
        """A table the store holds, opened before a sealed day ended, that the seal does not
        list: a table added to the sealed past (``seal_unknown_table``)."""
        found = []
        for seal in self.seals:
            if seal.get("format") != FORMAT or any(
                    h.get("table_id") == str(table_id) for h in seal.get("tables", [])):
                continue
            start = time.fromisoformat(str(seal.get("gaming_day_start", "06:00:00")))
            end = day_bounds(str(seal["gaming_day"]), zone, start)[1]
            if opened_at < end:
                found.append(Discrepancy(label, None, "seal_unknown_table",
                                         {"gaming_day": seal["gaming_day"], "sealed": False},
                                         {"table_id": str(table_id),
                                          "opened_at": opened_at.isoformat()}))
        return found

    def projections(self, totals: Totals, tables: set[str] | None) -> list[Discrepancy]:
        """Each sealed day's view totals, recomputed from the events (whole-store audits)."""
        if tables is not None:
            return []
        found = []
        for seal in self.seals:
            for view, digest in (seal.get("projections") or {}).items():
                if view in SEALED_VIEWS and totals.digest(view, seal["gaming_day"]) != digest:
                    found.append(Discrepancy(
                        STORE, None, "seal_projections",
                        {"view": view, "gaming_day": seal["gaming_day"], "digest": digest},
                        {"view": view, "gaming_day": seal["gaming_day"],
                         "digest": totals.digest(view, seal["gaming_day"])}))
        return found

    def access_log(self, app: Any) -> list[Discrepancy]:
        """Each seal's head of the access log still in the log, with the same digest."""
        from ledger.access.accesslog import access_rows

        found = []
        for seal in self.seals:
            sealed = seal.get("access_log")
            if not isinstance(sealed, dict) or not sealed.get("rows"):
                continue
            rows = int(sealed["rows"])
            now = next(iter(access_rows(app, after=rows - 1, limit=1)), None)
            if now is None or now.seq != rows or now.row_hash != sealed.get("head"):
                found.append(Discrepancy(
                    "access-log", None, "seal_access_log",
                    {"gaming_day": seal.get("gaming_day"), **sealed},
                    None if now is None else {"rows": now.seq, "head": now.row_hash}))
        return found

    def limits(self) -> dict[tuple[str, str], int]:
        """``(table, sealed day) -> head version``: what each seal's day totals cover."""
        return {(str(h.get("table")), str(s.get("gaming_day"))): int(h["version"])
                for s in self.seals for h in s.get("tables", [])}

    def start_for(self, day: str) -> dict[str, Any] | None:
        """The seal of the day before ``day`` when it is of the current format and its
        signature holds: an audit of ``day`` may start from its heads."""
        before = (date.fromisoformat(day) - timedelta(days=1)).isoformat()
        for seal in self.seals:
            if seal.get("gaming_day") == before and seal.get("format") == FORMAT \
                    and self.valid.get(before):
                return seal
        return None


def _balances(label: str, version: int, day: str, sealed: dict[str, int],
              found: dict[str, int]) -> list[Discrepancy]:
    accounts = sorted(a for a in set(sealed) | set(found)
                      if int(sealed.get(a, 0)) != int(found.get(a, 0)))
    if not accounts:
        return []
    return [Discrepancy(label, None, "seal_balances",
                        {"version": version, "gaming_day": day,
                         "balances": {a: sealed.get(a, 0) for a in accounts}},
                        {"version": version, "balances": {a: found.get(a, 0) for a in accounts}})]


def _between(first: str, last: str) -> list[str]:
    """The days strictly between two ``YYYY-MM-DD`` days."""
    try:
        a, b = date.fromisoformat(first), date.fromisoformat(last)
    except ValueError:
        return []
    return [(a + timedelta(days=n)).isoformat() for n in range(1, (b - a).days)]
