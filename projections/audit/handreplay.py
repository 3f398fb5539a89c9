"""``ledger audit hand``: one hand replayed decision by decision, the record and what the rules
recompute side by side, with the rule behind every decision.

The table is replayed from its first event (the audit trusts no snapshot); only the groups of
the chosen hand are decided again. Each step is one recorded event: its plain-language lines
(``ledger.describe``), the lines of what the rules produce for the same command, and whether
they agree.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from ledger import records as r
from ledger.cards import verify_commitment
from ledger.describe import describe, transfer_line
from ledger.errors import NotFound
from projections.audit.compare import as_data
from projections.audit.model import AuditReport, Discrepancy
from projections.audit.replay import GroupResult
from projections.audit.verify import _existing, audit_table, hand_scope
from projections.db import Store


@dataclass
class Step:
    version: int
    at: str
    """When the event was recorded (ISO-8601 UTC)."""
    event: str
    command: str | None
    recorded: list[str]
    recomputed: list[str] | None
    """None when the rules were not asked (an rng deal of an unfinished hand)."""
    rules: list[str]
    agrees: bool | None
    data: dict[str, Any] = field(default_factory=dict)
    """The recorded event's own fields (no envelope, no sealed deck): what the console draws."""
    balances: dict[str, int] | None = None
    """Every non-zero account of the table just after the event (None if it cannot apply)."""


@dataclass
class HandReplay:
    table: str
    hand_no: int
    game: str | None = None
    currency: str | None = None
    timezone: str | None = None
    steps: list[Step] = field(default_factory=list)
    discrepancies: list[Discrepancy] = field(default_factory=list)
    commitment: str | None = None
    commitment_ok: bool | None = None

    @property
    def ok(self) -> bool:
        return not self.discrepancies and all(s.agrees is not False for s in self.steps)


def hand_replay(app: Any, table: str, hand_no: int) -> HandReplay:
    """Replay hand ``hand_no`` of ``table`` with every decision recomputed."""
    tid = _existing(app, table)
    replay = HandReplay(table=table, hand_no=hand_no)
    replay.game, replay.currency, replay.timezone = _table_info(app, tid)
    report = AuditReport()

    def observe(result: GroupResult) -> None:
        if not any(getattr(e, "hand_no", None) == hand_no for e in result.events):
            return
        steps = _steps(result, replay.currency, replay.game)
        _balances(result, steps)
        replay.steps.extend(steps)
        replay.discrepancies.extend(result.discrepancies)
        for event in result.events:
            if isinstance(event, r.HandStarted):
                replay.commitment = event.deck_commitment
            deck, salt = getattr(event, "deck", None), getattr(event, "salt", None)
            if replay.commitment and deck is not None and salt is not None:
                replay.commitment_ok = verify_commitment(deck, salt, replay.commitment)

    audit_table(app, Store(app.recorder), tid, report, scope=hand_scope(hand_no),
                observer=observe, chain=False)
    if not replay.steps:
        raise NotFound("unknown_hand", f"table {table} has no hand {hand_no}", table=table,
                       hand=hand_no)
    replay.table = report.tables[0] if report.tables else table
    replay.discrepancies.extend(d for d in report.discrepancies
                                if d.hand == hand_no and d not in replay.discrepancies)
    return replay


def _table_info(app: Any, tid: Any) -> tuple[str | None, str | None, str | None]:
    """(game, currency, time zone) of the table, from its opening (its first event)."""
    first = app.recorder.select_events(tid, lte=1)
    if not first:
        return None, None, None
    opened = json.loads(first[0].state)
    return opened.get("game"), opened.get("currency"), opened.get("timezone")


def _lines(record: Any, currency: str | None, game: str | None) -> list[str]:
    """A record's lines and its chip movements, as ``ledger replay`` prints them."""
    transfers = [f"  {transfer_line(t, currency)}" for t in getattr(record, "transfers", ())]
    return [*describe(record, currency, game), *transfers]


def _hand_group(result: GroupResult) -> bool:
    return any(isinstance(e, r.HandRecord) for e in result.events)


def _steps(result: GroupResult, currency: str | None = None, game: str | None = None
           ) -> list[Step]:
    steps = []
    expected = result.expected
    command = result.command.name if result.command is not None else None
    for i, event in enumerate(result.events):
        want = expected[i] if expected is not None and i < len(expected) else None
        recomputed: list[str] | None = None
        agrees: bool | None = None
        if result.refusal is not None:
            recomputed = [f"REFUSED [{result.refusal.code}] {result.refusal.message}"]
            agrees = False
        elif expected is not None:
            recomputed = _lines(want, currency, game) if want is not None else ["(nothing)"]
            agrees = want is not None and as_data(want) == as_data(event)
        steps.append(Step(version=event.originator_version,
                          at=event.timestamp.isoformat().replace("+00:00", "Z"),
                          event=type(event).__name__,
                          command=command if i == 0 else None,
                          recorded=_lines(event, currency, game),
                          recomputed=recomputed, rules=rules_of(event), agrees=agrees,
                          data=as_data(event)))
    return steps


def _balances(result: GroupResult, steps: list[Step]) -> None:
    """Each step's balances: the group's end state, rolled back over its transfers, then
    moved forward event by event."""
    if result.balances is None:
        return
    running = dict(result.balances)
    for event in reversed(result.events):
        for t in getattr(event, "transfers", ()):
            running[t.src] = running.get(t.src, 0) + t.amount
            running[t.dst] = running.get(t.dst, 0) - t.amount
    for event, step in zip(result.events, steps, strict=True):
        for t in getattr(event, "transfers", ()):
            running[t.src] = running.get(t.src, 0) - t.amount
            running[t.dst] = running.get(t.dst, 0) + t.amount
        step.balances = {k: v for k, v in sorted(running.items()) if v}


def rules_of(event: BaseModel) -> list[str]:
    """The rule ids an event cites (its own, its outcomes', jackpot, rake, transfers)."""
    found: list[str] = []
    rule = getattr(event, "rule", None)
    if rule:
        found.append(rule)
    if isinstance(event, r.CardsDealt) or (isinstance(event, r.HandStarted)
                                            and event.deck_commitment):
        found.append("COM-8")
    if isinstance(event, r.HandSettled):
        found.extend(o.rule for o in event.outcomes)
        found.extend(j.rule for j in event.jackpot)
        found.extend(k.rule for k in event.rake)
        if event.coverage is not None:
            found.append("HCF-12")
    for t in getattr(event, "transfers", ()):
        if t.rule:
            found.append(t.rule)
    return sorted(set(found))
