"""``ledger audit hand``: one hand replayed decision by decision, the record and what the rules
recompute side by side, with the rule behind every decision.

The table is replayed from its first event (the audit trusts no snapshot); only the groups of
the chosen hand are decided again. Each step is one recorded event: its plain-language lines
(``ledger.table.describe``), the lines of what the rules produce for the same command, and whether
they agree.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

from pydantic import BaseModel

from ledger.domain import records as r
from ledger.domain.actors import actor_text
from ledger.domain.cards import verify_commitment
from ledger.domain.errors import LedgerError, NotFound, UndecodableEvent
from ledger.store.fleet import store_of
from ledger.table.describe import describe, transfer_line
from projections.audit.chain import CHAIN_KINDS
from projections.audit.compare import as_data
from projections.audit.handchain import anchored, span_breaks
from projections.audit.model import AuditReport, Discrepancy
from projections.audit.reader import consistent_read
from projections.audit.replay import GroupResult
from projections.audit.tables import audit_table, existing_table, hand_scope
from projections.read.correction_queries import correction_events


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
    actor: str | None = None
    """Who sent the command behind the event (None for events recorded before actors)."""
    approval: str | None = None
    """The signatures of an approved event (``signed by sup-anna (key 3f2a...), ...``), or
    ``unsigned (before signatures)``; None for an event that needs no approval."""


ENDING_NAMES = frozenset(cls.__name__ for cls in r.HAND_ENDINGS)


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
    chain_breaks: list[dict[str, Any]] = field(default_factory=list)
    """Where the table's stored chain or command log does not verify (anywhere in the table:
    a hand of an altered record is not to be trusted; in a table with chain anchors, in the
    stretches between signed snapshots that hold the hand and its corrections)."""
    walked_whole: bool = True
    """Whether the whole chain was walked (a table without anchors), so that an intact one
    may be vouched for to the chain guard."""
    events: list[Any] = field(default_factory=list)
    """The hand's recorded events (those of its number, in order), as the replay read them:
    what its seats' results are drawn from."""

    @property
    def in_progress(self) -> bool:
        """Whether the hand has not ended (its face-down cards are still hidden at the table)."""
        return not any(s.event in ENDING_NAMES for s in self.steps)

    @property
    def ok(self) -> bool:
        return not self.discrepancies and not self.chain_breaks and all(
            s.agrees is not False for s in self.steps)


def hand_replay(app: Any, table: str, hand_no: int) -> HandReplay:
    """Replay hand ``hand_no`` of ``table`` with every decision recomputed (``app``: one
    ledger application, or a fleet: the store that holds the table).

    A table with chain anchors (``ledger.store.trust``) is not replayed from its first event: the
    replay starts from the latest signed snapshot before the hand whose chain digest the
    walk of its stretch verifies (:mod:`projections.audit.handchain`), see
    :func:`_anchored_replay`."""
    app = store_of(app, table)
    tid = existing_table(app, table)
    replay = HandReplay(table=table, hand_no=hand_no)
    replay.game, replay.currency, replay.timezone = _table_info(app, tid)
    report = AuditReport()
    observe = _observer(replay, hand_no)
    if anchored(app, tid):
        try:
            return _anchored_replay(app, tid, replay, report, observe)
        except LedgerError as exc:
            if not isinstance(exc, UndecodableEvent):  # the whole replay names that row
                raise
        except Exception:  # corrected, or a row that cannot even be read: the whole replay
            pass
        replay = HandReplay(table=table, hand_no=hand_no, game=replay.game,
                            currency=replay.currency, timezone=replay.timezone)
        report = AuditReport()
        observe = _observer(replay, hand_no)
    with consistent_read(app) as reader:
        # One walk of the table: the chain and command log are checked (what
        # projections.audit.chain.chain_breaks checks) as the rows are read for the replay.
        audit_table(app, reader, tid, report, scope=hand_scope(hand_no), observer=observe,
                    chain=True)
    unread = [d for d in report.discrepancies if d.kind == "undecodable_event"]
    if not replay.steps and not unread:
        raise NotFound("unknown_hand", f"table {table} has no hand {hand_no}", table=table,
                       hand=hand_no)
    replay.table = report.tables[0] if report.tables else table
    found = [d for d in report.discrepancies if _of_chain(d)]
    replay.chain_breaks = [{"kind": d.kind, "hand": d.hand, "expected": d.expected,
                            "recorded": d.recorded} for d in found]
    # A row that cannot be decoded stops the table's replay there (whatever hand it holds,
    # which cannot be told): it is the hand's discrepancy too, never an unknown hand.
    replay.discrepancies.extend(d for d in report.discrepancies
                                if (d.hand == hand_no or d in unread)
                                and d not in replay.discrepancies and not _of_chain(d))
    return replay


def _observer(replay: HandReplay, hand_no: int) -> Callable[[GroupResult], None]:
    """What the replay keeps of each group the audit decided: the hand's own and its
    corrections' (COR-1)."""

    def observe(result: GroupResult) -> None:
        if not any(getattr(e, "hand_no", None) == hand_no or (
                isinstance(e, r.HandCorrected) and e.hand == hand_no) for e in result.events):
            return
        steps = _steps(result, replay.currency, replay.game)
        _balances(result, steps)
        replay.steps.extend(steps)
        replay.events.extend(e for e in result.events if getattr(e, "hand_no", None) == hand_no)
        replay.discrepancies.extend(result.discrepancies)
        for event in result.events:
            if isinstance(event, r.HandStarted):
                replay.commitment = event.deck_commitment
            deck, salt = getattr(event, "deck", None), getattr(event, "salt", None)
            if replay.commitment and deck is not None and salt is not None:
                replay.commitment_ok = verify_commitment(deck, salt, replay.commitment)

    return observe


def _anchored_replay(app: Any, tid: UUID, replay: HandReplay, report: AuditReport,
                     observe: Callable[[GroupResult], None]) -> HandReplay:
    """The hand of a table with chain anchors replayed from the latest signed snapshot before
    it (or from the first event when there is none; a corrected hand, COR-1, is replayed
    with the whole table, as its corrections are decided from the table's past): the
    snapshot's HMAC is the ledger's (its key is not in the database) and the stretch walked
    from the snapshot before to the one after (``handchain.span_breaks``) proves its chain
    digest, so every byte the replay starts from and reads is what the
    ledger wrote; only the events from that snapshot on are decoded and folded, and only the
    hand's commands are decided again, as in the whole replay."""
    from ledger.store.history import StorePast

    hand_no = replay.hand_no
    head = _last_version(app, tid)
    events = StorePast(app, tid, head, snapshots=False).hand_events(hand_no) \
        if head else []
    if not events:
        raise NotFound("unknown_hand", f"table {replay.table} has no hand {hand_no}",
                       table=replay.table, hand=hand_no)
    first, last = events[0].originator_version, events[-1].originator_version
    fixes: list[Any] = [e for e in correction_events(app, replay.table, hand_no,
                                                     after=first - 1)
                        if isinstance(e, r.HandCorrected)]
    label = replay.table
    checkpoints: dict[int, dict[str, Any]] = {}
    if fixes:  # a corrected hand (COR-1, rare) is replayed whole, its corrections in order
        raise _ReplayWhole
    _replay_stretch(app, tid, label, report, observe, hand_scope(hand_no), first, last,
                    checkpoints)
    replay.walked_whole = False
    replay.chain_breaks = span_breaks(app, tid, [(first, last)])
    replay.discrepancies.extend(d for d in report.discrepancies
                                if d.hand == hand_no and d not in replay.discrepancies)
    return replay


class _ReplayWhole(Exception):
    """The hand is replayed with the whole table instead."""


def _replay_stretch(app: Any, tid: UUID, label: str, report: AuditReport,
                    observe: Callable[[GroupResult], None], scope: Callable[[Any, Any], bool],
                    first: int, upto: int, checkpoints: dict[int, dict[str, Any]]) -> None:
    """Fold the table from its latest signed snapshot before ``first`` (else its first event)
    to the end of the command that appended ``upto``, deciding the hand's groups again."""
    from ledger.domain import accounts
    from ledger.store.history import StorePast
    from ledger.table.state import TableState
    from projections.audit.approvers import ApprovalCheck, register_state
    from projections.audit.replay import TableAudit

    repository = app.repository
    begin = None
    if first > 1 and repository.anchor(tid, first - 1) is not None:
        near = repository.signed_snapshot(tid, lte=first - 1)
        if near is not None:
            begin = next(iter(repository.snapshot_store.get(
                originator_id=tid, gt=near[0] - 1, lte=near[0])), None)
    audit = TableAudit(label, report, scope=scope,
                       observer=observe,
                       past=lambda at: StorePast(app, tid, at, snapshots=False,
                                                 checkpoints=checkpoints),
                       approvers=ApprovalCheck(register_state(app)))
    audit.checkpoints = checkpoints
    after = 0
    if begin is not None:
        after = begin.originator_version
        state = TableState.from_snapshot(begin.state["table"])
        audit.state = state
        checkpoints[after] = begin.state["table"]
        audit.conservation.bought = sum(b for a, b in state.balances.items()
                                        if a != accounts.CAGE)
    command: Any = None
    for event in StorePast(app, tid, _last_version(app, tid), snapshots=False).since(after):
        if event.originator_version > upto and (command is None
                                                or event.command_id != command):
            break  # the command that appended ``upto`` is whole
        audit.feed(event)
        if event.originator_version == upto:
            command = event.command_id
    audit.finish()


def _last_version(app: Any, tid: UUID) -> int:
    rows = app.recorder.select_events(tid, desc=True, limit=1)
    return int(rows[0].originator_version) if rows else 0


def _of_chain(found: Discrepancy) -> bool:
    """Whether the audit's walk found it in the stored chain or command log (ChainCheck; an
    event that is JSON but not a valid event is the replay's finding, not the chain's)."""
    return found.kind in CHAIN_KINDS and not (
        found.kind == "undecodable_event" and found.expected != "an event in JSON")


def _table_info(app: Any, tid: Any) -> tuple[str | None, str | None, str | None]:
    """(game, currency, time zone) of the table, from its opening (its first event)."""
    first = app.recorder.select_events(tid, lte=1)
    try:
        opened = json.loads(first[0].state) if first else None
    except ValueError:  # not JSON: the audit's walk names it
        opened = None
    if not isinstance(opened, dict):
        return None, None, None
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
                          data=as_data(event), actor=_actor(event),
                          approval=approval_text(event, result.discrepancies)))
    return steps


def approval_text(event: Any, found: list[Discrepancy] | None = None) -> str | None:
    """How an approved event was approved, as the audit shows it (None: it needs none);
    ``found``: the discrepancies of its command (an unsigned one reported there is not from
    before signatures)."""
    from ledger.domain.approval import APPROVED_EVENTS, approvers_of

    if type(event).__name__ not in APPROVED_EVENTS or not approvers_of(event):
        return None
    approval = getattr(event, "approval", None)
    if approval is None:
        if any(d.kind == "approval_unsigned" for d in found or ()):
            return "UNSIGNED (recorded after signatures began)"
        return "unsigned (before signatures)"
    return "signed by " + ", ".join(f"{s.principal} (key {s.key_id}, {s.via})"
                                    for s in approval.signatures)


def _actor(event: Any) -> str | None:
    actor = getattr(event, "actor", None)
    return None if actor is None else actor_text(actor)


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
