"""Plain-language lines for events, as an auditor reads a hand."""

from __future__ import annotations

from collections.abc import Iterable

from ledger import records as r
from ledger.cards import format_cards
from ledger.games.hcf.settlement import coverage_flows
from ledger.money import format_amount


def transfer_line(t: r.Transfer) -> str:
    rule = f" ({t.rule})" if t.rule else ""
    memo = f" {t.memo}" if t.memo else ""
    return f"{t.src} -> {t.dst} {format_amount(t.amount)}{memo}{rule}"


def _target(target: r.Target) -> str:
    return f"seat {target}" if isinstance(target, int) else str(target)


def describe(event: object) -> list[str]:
    """One headline and detail lines for any record or event."""
    if isinstance(event, r.TableOpened):
        return [f"table {event.code} opened: {event.game}, {event.currency}, {event.timezone}"]
    if isinstance(event, r.ConfigChanged):
        return [
            f"configuration v{event.config_version} approved by {event.approver}: {event.reason}"
        ]
    if isinstance(event, r.PlayerSeated):
        return [f"seat {event.seat}: {event.player} sits down"]
    if isinstance(event, r.PlayerUnseated):
        return [f"seat {event.seat}: {event.player} leaves ({event.reason})"]
    if isinstance(event, r.ChipsBoughtIn):
        return [
            f"seat {event.seat}: {event.player} buys {format_amount(event.amount)} ({event.kind})"
        ]
    if isinstance(event, r.ChipsCashedOut):
        return [f"seat {event.seat}: {event.player} cashes out {format_amount(event.amount)}"]
    if isinstance(event, r.InventoryCounted | r.TableFilled | r.TableCredited):
        what = (f"{event.moment} count" if isinstance(event, r.InventoryCounted)
                else "fill" if isinstance(event, r.TableFilled) else "credit")
        chips = ", ".join(f"{c.count} x {format_amount(c.denomination)}" for c in event.chips)
        return [f"tray {what} {format_amount(event.amount)} ({chips}) signed by "
                f"{' and '.join(event.signers)}" + _rule(event.rule)]
    if isinstance(event, r.HandStarted):
        seats = ", ".join(f"{e.seat} {e.player}" for e in event.seats)
        lines = [
            f"hand {event.hand_no} starts (config v{event.config_version}, "
            f"cards {event.card_source}); seats {seats}"
        ]
        if event.button is not None:
            lines[0] += f"; button at seat {event.button}"
        if event.deck_commitment:
            lines.append(f"deck commitment sha256 {event.deck_commitment} (COM-8)")
        return lines
    if isinstance(event, r.RoleOffered):
        return [f"seat {event.seat} is offered the {event.role.replace('_', ' ')} role"]
    if isinstance(event, r.WagerPlaced):
        return [
            f"seat {event.seat} wagers {event.kind} {format_amount(event.amount)}"
            + _rule(event.rule)
        ]
    if isinstance(event, r.CardsDealt):
        parts = []
        for d in event.dealt:
            shown = []
            if d.down:
                shown.append(f"down {format_cards(d.down)}")
            if d.up:
                shown.append(f"up {format_cards(d.up)}")
            parts.append(f"{_target(d.target)}: {' '.join(shown)}")
        return [f"deal {event.round.replace('_', ' ')}", *parts]
    if isinstance(event, r.PlayerActed):
        text = f"seat {event.seat} {event.action}"
        if event.amount:
            text += f" {format_amount(event.amount)}"
        if event.segments:
            text += " " + " | ".join(format_cards(s) for s in event.segments)
        if event.declaration:
            text += f" ({event.declaration})"
        return [text + _rule(event.rule)]
    if isinstance(event, r.CardsRevealed):
        return [f"{_target(event.target)} shows {format_cards(event.cards)}"]
    if isinstance(event, r.HandSettled):
        return _settlement(event)
    if isinstance(event, r.HandVoided):
        approved = f", approved by {event.approved_by}" if event.approved_by else ""
        return [f"hand {event.hand_no} VOID: {event.reason} ({event.rule}{approved}); "
                "every wager returned"]
    if isinstance(event, r.HandCancelled):
        return [f"hand {event.hand_no} cancelled: {event.reason}" + _rule(event.rule)]
    return [type(event).__name__]


def _rule(rule: str | None) -> str:
    return f" [{rule}]" if rule else ""


def _settlement(event: r.HandSettled) -> list[str]:
    lines = [f"hand {event.hand_no} settled"]
    if event.max_aggregate_payout is not None:
        lines[0] += f" (max aggregate payout {format_amount(event.max_aggregate_payout)}, COM-7)"
    for o in event.outcomes:
        who = f"seat {o.seat}" if o.seat is not None else "table"
        amount = f"{'+' if o.amount > 0 else ''}{format_amount(o.amount)}"
        extra = f", withheld {format_amount(o.withheld)}" if o.withheld else ""
        note = f" {o.note}" if o.note else ""
        lines.append(f"{who} {o.wager}: {o.result} {amount}{extra}{note} [{o.rule}]")
    lines.extend(_sections(event))
    return lines


def _sections(event: r.HandSettled) -> Iterable[str]:
    for j in event.jackpot:
        reset = ", meter reset to seed" if j.reset_to_seed else ""
        yield (
            f"jackpot: seat {j.seat} {j.line} {format_amount(j.amount)} from the {j.source}, "
            f"meter {format_amount(j.meter_before)} -> {format_amount(j.meter_after)}{reset} "
            f"[{j.rule}]"
        )
    if event.coverage is not None:
        c = event.coverage
        start = format_amount(c.funds_at_start)
        yield f"coverage: DP seat {c.dp_seat}, funds at start {start} [HCF-12]"
        flows = coverage_flows(event)
        for line in c.lines:
            state = "covered" if line.covered else "DEAD"
            paid_in, paid = flows[line.seat]
            yield (
                f"  seat {line.seat}: liability {format_amount(line.liability)} {state}, paid in "
                f"{format_amount(paid_in)}, paid {format_amount(paid)}, funds "
                f"{format_amount(line.funds_before)} -> {format_amount(line.funds_after)}"
            )
        yield f"  funds left {format_amount(c.funds_left)}"
    for o in event.outcomes:
        if o.wager == "uncalled":
            yield (f"uncalled bet: seat {o.seat} {format_amount(o.stake)} returned, unraked and "
                   f"in no pot [{o.rule}]")
    for p in event.pots:
        low = (
            f", low {p.low_winners} {format_amount(p.low_amount)}" if p.low_winners else ", no low"
        )
        yield (
            f"pot {p.index}: {format_amount(p.amount)} (rake {format_amount(p.rake)}) eligible "
            f"{p.eligible}; high {p.high_winners} {format_amount(p.high_amount)}{low}"
        )
    for pl in event.points:
        yield f"points: seat {pl.seat} vs {pl.opponent}: {pl.points:+d} {' '.join(pl.detail)}"
    for rk in event.rake:
        who = f"seat {rk.seat}" if rk.seat is not None else "table"
        yield f"rake: {who} {format_amount(rk.amount)} [{rk.rule}]"
    if event.deck is not None:
        yield f"deck revealed (salt {event.salt}): {format_cards(event.deck)}"
