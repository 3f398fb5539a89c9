"""COR-1: a settled hand settled again with the cards it really held.

The hand is rebuilt from its recorded events on the table's state as it stood just before the
hand began (configuration, stacks, the designated player's funds, the jackpot meter), with
every corrected card put in place of the recorded one wherever the hand shows it (dealt,
revealed, set in a Chinese Poker hand). The players' decisions stay as recorded: they acted
on the cards in front of them. The game's own settlement then decides the hand again, and the
difference between that settlement and the one in force (the original, plus any earlier
correction of the hand) is what the correction moves (COR-5 routes it).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from ledger.domain.accounts import net_flows
from ledger.domain.cards import ensure_distinct, format_card
from ledger.domain.commands import CorrectHand, Settle
from ledger.domain.errors import InvalidInput, NotFound, RuleViolation
from ledger.domain.records import (
    CardFix,
    CardsDealt,
    CardsRevealed,
    Dealt,
    HandCorrected,
    HandSettled,
    HandStarted,
    PlayerActed,
    Record,
)
from ledger.table.corrections.policy import Past, check_approvers, check_window
from ledger.table.corrections.routing import differences, route
from ledger.table.events import ENVELOPE, TableEvent
from ledger.table.state import TableState

Fixes = dict[tuple[str, int], int]
"""(target as text, recorded card) -> actual card."""


def correct_hand(state: TableState, cmd: CorrectHand, past: Past,
                 now: datetime) -> HandCorrected:
    if not 1 <= cmd.hand <= state.hand_no:
        raise NotFound("unknown_hand", f"table {state.code} has no hand {cmd.hand}",
                       hand=cmd.hand)
    events = past.hand_events(cmd.hand)
    if not events or not isinstance(events[0], HandStarted):
        raise NotFound("unknown_hand", f"table {state.code} has no hand {cmd.hand}",
                       hand=cmd.hand)
    settled = events[-1]
    if not isinstance(settled, HandSettled):
        raise RuleViolation(
            "hand_not_settled",
            f"hand {cmd.hand} ended without a settlement ({type(settled).__name__}): there is "
            "nothing to settle again (COR-1)", hand=cmd.hand, rule="COR-1")
    if events[0].card_source != "recorded":
        raise RuleViolation(
            "cards_not_correctable",
            f"hand {cmd.hand} was dealt from the ledger's own committed deck "
            f"({events[0].card_source}): its cards are the deck's, not a reading (COM-8, "
            "COR-1)", hand=cmd.hand, rule="COR-1")
    check_window(state, settled.timestamp, now, f"hand {cmd.hand}")
    fixes = _fixes(cmd.fixes, events)
    earlier = [e for e in past.since(settled.originator_version, (HandCorrected,))
               if isinstance(e, HandCorrected) and e.hand == cmd.hand]
    corrected = resettle(past.state_before(events[0].originator_version),
                         _played(past, events[0], settled), fixes, state.code)
    in_force = earlier[-1].settlement if earlier else settled
    if _same(corrected, in_force):
        raise RuleViolation(
            "correction_changes_nothing",
            f"with these cards hand {cmd.hand} settles as it stands: nothing to correct",
            hand=cmd.hand, rule="COR-1")
    net = net_flows(corrected.transfers)
    for account, amount in net_flows(settled.transfers).items():
        net[account] = net.get(account, 0) - amount
    for e in earlier:
        for d in e.differences:
            net[d.account] = net.get(d.account, 0) - d.amount
    diffs = differences(net)
    check_approvers(state, cmd.approvers, sum(d.amount for d in diffs if d.amount > 0))
    transfers = route(diffs, state, "COR-1", f"correction of hand {cmd.hand}")
    return HandCorrected(hand=cmd.hand, settled_version=settled.originator_version,
                         fixes=cmd.fixes, settlement=corrected, differences=diffs,
                         transfers=transfers, approvers=cmd.approvers, reason=cmd.reason)


def resettle(before: TableState, events: list[TableEvent], fixes: Fixes,
             code: str) -> HandSettled:
    """The hand's settlement with ``fixes`` applied, decided by the game's own rules on the
    state before the hand (so under the configuration and balances of that moment)."""
    for event in events[:-1]:
        before.apply(_fixed(_record(event), fixes))
    decided = before.game.decide(before.view(), before.hand,
                                 Settle(command_id="correction", table=code))
    settlement = decided[-1]
    assert isinstance(settlement, HandSettled)  # the same hand settled the first time
    return settlement.model_copy(update={"deck": None, "salt": None})


def _played(past: Past, started: TableEvent, settled: TableEvent) -> list[TableEvent]:
    """Every event from the hand's start to its settlement: the hand's own, and what happened
    at the table meanwhile (a player who left, COM-6)."""
    played = []
    for event in past.since(started.originator_version - 1):
        played.append(event)
        if event.originator_version >= settled.originator_version:
            break
    return played


def _fixes(given: tuple[CardFix, ...], events: list[TableEvent]) -> Fixes:
    """Check every fix names a card the hand recorded for its target, and that the hand's
    cards, corrected, are still distinct (COM-1)."""
    dealt: dict[str, list[int]] = {}
    for e in events:
        if isinstance(e, CardsDealt):
            for d in e.dealt:
                dealt.setdefault(str(d.target), []).extend(d.cards)
    fixes: Fixes = {}
    for fix in given:
        key = (str(fix.target), fix.recorded)
        if fix.recorded not in dealt.get(key[0], ()):
            raise InvalidInput(
                "card_not_recorded",
                f"hand records no {format_card(fix.recorded)} for {fix.target} (COR-1)",
                target=str(fix.target), card=format_card(fix.recorded), rule="COR-1")
        if key in fixes or fix.recorded == fix.actual:
            raise InvalidInput(
                "invalid_fix", f"{format_card(fix.recorded)} of {fix.target} is corrected "
                "once, into another card (COR-1)", target=str(fix.target), rule="COR-1")
        fixes[key] = fix.actual
    every = [fixes.get((t, c), c) for t, cards in dealt.items() for c in cards]
    ensure_distinct(every)
    return fixes


def _record(event: TableEvent) -> Record:
    """The plain record of a stored event (no envelope)."""
    cls: type[Record] = type(event).__bases__[1]
    return cls.model_construct(**{k: getattr(event, k) for k in cls.model_fields})


def _fixed(record: Record, fixes: Fixes) -> Record:
    if isinstance(record, CardsDealt):
        dealt = tuple(Dealt(target=d.target, down=_swap(d.target, d.down, fixes),
                            up=_swap(d.target, d.up, fixes)) for d in record.dealt)
        return record.model_copy(update={"dealt": dealt})
    if isinstance(record, CardsRevealed):
        return record.model_copy(update={"cards": _swap(record.target, record.cards, fixes)})
    if isinstance(record, PlayerActed) and record.segments is not None:
        segments = tuple(_swap(record.seat, s, fixes) for s in record.segments)
        return record.model_copy(update={"segments": segments})
    return record


def _swap(target: Any, cards: tuple[int, ...], fixes: Fixes) -> tuple[int, ...]:
    return tuple(fixes.get((str(target), c), c) for c in cards)


def _same(a: HandSettled, b: HandSettled) -> bool:
    skip = {"deck", "salt", *ENVELOPE}
    return a.model_dump(mode="json", exclude=skip) == b.model_dump(mode="json", exclude=skip)
