"""Compare what the rules decide with what was recorded, item by item, with the rule behind it.

Records are compared as their JSON form without the envelope (table, version, time, previous
hash, command id, actor) and without what cannot be recomputed: the sealed deck of HandStarted
(it is encrypted with a fresh nonce) and the deck and salt revealed at the end of a hand (checked
against the commitment separately). A settlement is compared outcome by outcome (keyed by seat
and wager), transfer by transfer (as a multiset), and section by section (jackpot lines,
coverage, pots, points, rake lines); any other record field by field.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from pydantic import BaseModel

from ledger.domain import records as r
from ledger.table.events import ENVELOPE as EVENT_ENVELOPE

ENVELOPE = set(EVENT_ENVELOPE)
NOT_RECOMPUTED = {"sealed_deck", "deck", "salt"}
KINDS: dict[type[BaseModel], str] = {
    r.TableOpened: "table_open", r.ConfigChanged: "config", r.PlayerSeated: "seat",
    r.PlayerUnseated: "unseat", r.DealerSignedIn: "dealer_sign_in",
    r.DealerSignedOut: "dealer_sign_out", r.ChipsBoughtIn: "buy_in", r.ChipsCashedOut: "cash_out",
    r.HandStarted: "hand_start", r.RoleOffered: "offer", r.WagerPlaced: "wager",
    r.CardsDealt: "deal", r.PlayerActed: "action", r.CardsRevealed: "reveal",
    r.HandSettled: "settlement", r.HandVoided: "void", r.HandCancelled: "cancel",
    r.InventoryCounted: "inventory_count", r.TableFilled: "fill", r.TableCredited: "credit",
    r.HandCorrected: "hand_correction", r.MovementCorrected: "movement_correction",
    r.SeatCorrected: "seat_correction", r.OwedSettled: "owed_settlement",
}
SECTION_RULES = {"jackpot": "CSP-6", "pots": "STUD8-9", "points": "CHP-4", "rake": None}
SECTION_KINDS = {"jackpot": "jackpot", "pots": "pot", "points": "points", "rake": "rake"}

Report = Callable[[str, Any, Any, str | None], None]
"""``report(kind, expected, recorded, rule)``."""


def record_type(record: BaseModel) -> type[BaseModel]:
    """The record class of a record or of an event (events subclass their record)."""
    for cls in type(record).__mro__:
        if cls in KINDS:
            return cls
    return type(record)


def as_data(record: BaseModel) -> dict[str, Any]:
    data = record.model_dump(mode="json", exclude=ENVELOPE | NOT_RECOMPUTED)
    data.pop("class_version", None)
    return data


def compare_records(
    expected: Sequence[BaseModel], recorded: Sequence[BaseModel], report: Report
) -> None:
    """Report every difference between the records the rules produce and those recorded."""
    kinds_expected = [record_type(x).__name__ for x in expected]
    kinds_recorded = [record_type(x).__name__ for x in recorded]
    if kinds_expected != kinds_recorded:
        report("records", kinds_expected, kinds_recorded, _rule_of(expected) or
               _rule_of(recorded))
    for want, got in zip(expected, recorded, strict=False):
        if record_type(want) is not record_type(got):
            break
        compare_one(want, got, report)


SKIPPED = frozenset(ENVELOPE | NOT_RECOMPUTED)


def same_values(want: BaseModel, got: BaseModel) -> bool:
    """Whether every compared field holds an equal value (the common case, checked without
    serialising). Equal values serialise alike, so this never hides a difference that
    :func:`as_data` would show; anything else is compared as data."""
    mine, theirs = want.__dict__, got.__dict__
    keys = mine.keys() - SKIPPED
    if keys != theirs.keys() - SKIPPED:
        return False
    for key in keys:
        value, other = mine[key], theirs[key]
        if value is other:
            continue
        if type(value) is tuple:
            if not _same_items(value, other):
                return False
        elif value != other:
            return False
    return True


def _same_items(mine: tuple[Any, ...], theirs: Any) -> bool:
    """Two tuples of equal items; records in them are equal when of one class with equal
    fields (what their ``==`` finds, without its checks of what records never hold)."""
    if type(theirs) is not tuple or len(mine) != len(theirs):
        return False
    for a, b in zip(mine, theirs, strict=True):
        if isinstance(a, BaseModel):
            if type(a) is not type(b) or a.__dict__ != b.__dict__:
                return False
        elif a != b:
            return False
    return True


def compare_one(want: BaseModel, got: BaseModel, report: Report) -> None:
    if same_values(want, got):
        return
    a, b = as_data(want), as_data(got)
    if a == b:
        return
    if isinstance(want, r.HandSettled):
        _settlement(a, b, report)
        return
    kind = KINDS.get(record_type(want), "record")
    rule = getattr(want, "rule", None) or getattr(got, "rule", None)
    if isinstance(want, r.HandStarted) and a.get("deck_commitment") != b.get("deck_commitment"):
        report("deck_commitment", a.get("deck_commitment"), b.get("deck_commitment"), "COM-8")
        a.pop("deck_commitment", None)
        b.pop("deck_commitment", None)
    if isinstance(want, r.CardsDealt):
        rule = "COM-8"
    if isinstance(want, r.WagerPlaced | r.PlayerActed | r.HandVoided | r.HandCancelled):
        _transfers(a.pop("transfers", []), b.pop("transfers", []), report)
    fields = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
    if fields:
        report(kind, {k: a.get(k) for k in fields}, {k: b.get(k) for k in fields}, rule)


def _settlement(a: dict[str, Any], b: dict[str, Any], report: Report) -> None:
    _outcomes(a.pop("outcomes"), b.pop("outcomes"), report)
    _transfers(a.pop("transfers"), b.pop("transfers"), report)
    for section, rule in SECTION_RULES.items():
        _lines(SECTION_KINDS[section], a.pop(section), b.pop(section), rule, report)
    want_cov, got_cov = a.pop("coverage"), b.pop("coverage")
    if want_cov != got_cov:
        _coverage(want_cov, got_cov, report)
    fields = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
    if fields:
        rule = "COM-7" if "max_aggregate_payout" in fields else None
        report("settlement", {k: a.get(k) for k in fields}, {k: b.get(k) for k in fields}, rule)


def _keyed(items: list[dict[str, Any]]) -> dict[tuple[Any, ...], dict[str, Any]]:
    seen: Counter[tuple[Any, ...]] = Counter()
    keyed = {}
    for item in items:
        key = (item.get("seat"), item.get("wager"))
        keyed[(*key, seen[key])] = item
        seen[key] += 1
    return keyed


def _outcomes(want: list[dict[str, Any]], got: list[dict[str, Any]], report: Report) -> None:
    a, b = _keyed(want), _keyed(got)
    for key in list(a) + [k for k in b if k not in a]:
        x, y = a.get(key), b.get(key)
        if x != y:
            report("outcome", x, y, (x or y or {}).get("rule"))


def _transfers(want: list[dict[str, Any]], got: list[dict[str, Any]], report: Report) -> None:
    surplus = list(got)
    lacking = []
    for t in want:
        if t in surplus:
            surplus.remove(t)
        else:
            lacking.append(t)
    for t in lacking:
        match = next((u for u in surplus if (u["src"], u["dst"]) == (t["src"], t["dst"])), None)
        if match is not None:
            surplus.remove(match)
        report("transfer", t, match, t.get("rule") or (match or {}).get("rule"))
    for u in surplus:
        report("transfer", None, u, u.get("rule"))


def _lines(kind: str, want: list[Any], got: list[Any], rule: str | None,
           report: Report) -> None:
    for i in range(max(len(want), len(got))):
        x = want[i] if i < len(want) else None
        y = got[i] if i < len(got) else None
        if x != y:
            line_rule = (x or y or {}).get("rule") if isinstance(x or y, dict) else None
            report(kind, x, y, line_rule or rule)


def _coverage(want: dict[str, Any] | None, got: dict[str, Any] | None, report: Report) -> None:
    if want is None or got is None:
        report("coverage", want, got, "HCF-12")
        return
    head = {k: v for k, v in want.items() if k != "lines"}
    got_head = {k: v for k, v in got.items() if k != "lines"}
    if head != got_head:
        report("coverage", head, got_head, "HCF-12")
    _lines("coverage", want["lines"], got["lines"], "HCF-12", report)


def _rule_of(records: Sequence[BaseModel]) -> str | None:
    for record in records:
        rule = getattr(record, "rule", None)
        if rule:
            return str(rule)
    return None
