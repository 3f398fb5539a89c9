"""Plain-language lines for events, as an auditor reads a hand."""

from __future__ import annotations

import re
from collections.abc import Iterable

from ledger.domain import records as r
from ledger.domain.cards import format_cards
from ledger.domain.money import format_amount
from ledger.domain.results import HandResults

CARIBBEAN = "caribbean-stud"


def transfer_line(t: r.Transfer, currency: str | None = None) -> str:
    rule = f" ({t.rule})" if t.rule else ""
    memo = f" {t.memo}" if t.memo else ""
    return f"{t.src} -> {t.dst} {format_amount(t.amount, currency)}{memo}{rule}"


def _target(target: r.Target) -> str:
    return f"seat {target}" if isinstance(target, int) else str(target)


def hand_rank(cards: tuple[int, ...]) -> str:
    """A five-card poker hand by its rank (CSP-4, CSP-5): ``flush A K Q 9 4``."""
    from ledger.evaluation import high

    strength = high.evaluate(cards)
    label = high.category(strength).label.replace("_", " ")
    return f"{label} {' '.join(high.rank_labels(strength))}"


def describe(event: object, currency: str | None = None, game: str | None = None) -> list[str]:
    """One headline and detail lines for any record or event, amounts in ``currency``'s
    decimals (ISO 4217)."""

    def money(amount: int) -> str:
        return format_amount(amount, currency)

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
    if isinstance(event, r.DealerSignedIn):
        return [f"dealer {event.dealer} signs in (DLR-1)"]
    if isinstance(event, r.DealerSignedOut):
        return [f"dealer {event.dealer} signs out ({event.reason}, DLR-1)"]
    if isinstance(event, r.ChipsBoughtIn):
        return [
            f"seat {event.seat}: {event.player} buys {money(event.amount)} ({event.kind})"
        ]
    if isinstance(event, r.ChipsCashedOut):
        return [f"seat {event.seat}: {event.player} cashes out {money(event.amount)}"]
    if isinstance(event, r.InventoryCounted | r.TableFilled | r.TableCredited):
        what = (f"{event.moment} count" if isinstance(event, r.InventoryCounted)
                else "fill" if isinstance(event, r.TableFilled) else "credit")
        chips = ", ".join(f"{c.count} x {money(c.denomination)}" for c in event.chips)
        return [f"tray {what} {money(event.amount)} ({chips}) signed by "
                f"{' and '.join(event.signers)}" + _rule(event.rule)]
    if isinstance(event, r.HandStarted):
        seats = ", ".join(f"{e.seat} {e.player}" for e in event.seats)
        lines = [
            f"hand {event.hand_no} starts (config v{event.config_version}, "
            f"cards {event.card_source}); seats {seats}"
        ]
        if event.button is not None:
            lines[0] += f"; button at seat {event.button}"
        if event.dealer is not None:
            lines[0] += f"; dealer {event.dealer} (DLR-2)"
        if event.deck_commitment:
            lines.append(f"deck commitment sha256 {event.deck_commitment} (COM-8)")
        return lines
    if isinstance(event, r.RoleOffered):
        return [f"seat {event.seat} is offered the {event.role.replace('_', ' ')} role"]
    if isinstance(event, r.WagerPlaced):
        return [
            f"seat {event.seat} wagers {event.kind} {money(event.amount)}"
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
            rank = f" ({hand_rank(d.cards)})" if game == CARIBBEAN and len(d.cards) == 5 else ""
            parts.append(f"{_target(d.target)}: {' '.join(shown)}{rank}")
        return [f"deal {event.round.replace('_', ' ')}", *parts]
    if isinstance(event, r.PlayerActed):
        text = f"seat {event.seat} {event.action}"
        if event.amount:
            text += f" {money(event.amount)}"
        if event.segments:
            text += " " + " | ".join(format_cards(s) for s in event.segments)
        if event.declaration:
            text += f" ({event.declaration})"
        return [text + _rule(event.rule)]
    if isinstance(event, r.CardsRevealed):
        rank = ""
        if game == CARIBBEAN and len(event.cards) == 5:
            from ledger.evaluation import caribbean, high

            qualifies = caribbean.dealer_qualifies(high.evaluate(event.cards))
            rank = f" ({hand_rank(event.cards)}; {'qualifies' if qualifies else 'does not qualify'}"
            rank += ", CSP-3)"
        return [f"{_target(event.target)} shows {format_cards(event.cards)}{rank}"]
    if isinstance(event, r.HandSettled):
        return _settlement(event, currency)
    if isinstance(event, r.HandVoided):
        approved = f", approved by {event.approved_by}" if event.approved_by else ""
        return [f"hand {event.hand_no} VOID: {event.reason} ({event.rule}{approved}); "
                "every wager returned"]
    if isinstance(event, r.HandCancelled):
        return [f"hand {event.hand_no} cancelled: {event.reason}" + _rule(event.rule)]
    if isinstance(event, r.HandCorrected | r.MovementCorrected | r.SeatCorrected
                  | r.OwedSettled):
        return correction_lines(event, currency)
    return [type(event).__name__]


def correction_lines(event: r.HandCorrected | r.MovementCorrected | r.SeatCorrected
                     | r.OwedSettled, currency: str | None = None) -> list[str]:
    """A correction (COR-1..3): what it corrects, who approved it and why, the corrected
    facts, the corrected settlement and the difference each account takes."""
    approved = f"approved by {' and '.join(event.approvers)}: {event.reason} [{event.rule}]"
    if isinstance(event, r.OwedSettled):
        way = "the cage pays" if event.direction == "paid_to_player" else "the cage takes from"
        return [f"OWED SETTLED: {way} {event.player} {format_amount(event.amount, currency)}; "
                f"{approved}"]
    if isinstance(event, r.SeatCorrected):
        return [f"CORRECTION seat {event.seat}, hands {event.from_hand} to {event.to_hand}: "
                f"recorded as {event.recorded_player}, was {event.player}; no chip moves; "
                f"{approved}"]
    if isinstance(event, r.MovementCorrected):
        return [f"CORRECTION of event {event.original_version} ({event.movement.replace('_', '-')}"
                f"{' of ' + event.player if event.player else ''}): recorded "
                f"{format_amount(event.recorded_amount, currency)}, really "
                f"{format_amount(event.amount, currency)}; {approved}"]
    lines = [f"CORRECTION of hand {event.hand} (settled at event {event.settled_version}); "
             f"{approved}"]
    lines.extend(f"  card of {_target(f.target)}: recorded {format_cards((f.recorded,))}, was "
                 f"{format_cards((f.actual,))}" for f in event.fixes)
    lines.append("  settled again with the corrected cards:")
    lines.extend(f"    {line}" for line in _settlement(event.settlement, currency)[1:])
    diffs = ", ".join(f"{d.account} {'+' if d.amount > 0 else ''}"
                      f"{format_amount(d.amount, currency)}" for d in event.differences)
    lines.append(f"  difference: {diffs or 'none'} (COR-5 moves it as the transfers show)")
    return lines


def _rule(rule: str | None) -> str:
    return f" [{rule}]" if rule else ""


def _settlement(event: r.HandSettled, currency: str | None = None) -> list[str]:
    def money(amount: int) -> str:
        return format_amount(amount, currency)

    lines = [f"hand {event.hand_no} settled"]
    if event.max_aggregate_payout is not None:
        lines[0] += f" (max aggregate payout {money(event.max_aggregate_payout)}, COM-7)"
    for o in event.outcomes:
        who = f"seat {o.seat}" if o.seat is not None else "table"
        amount = f"{'+' if o.amount > 0 else ''}{money(o.amount)}"
        extra = f", withheld {money(o.withheld)}" if o.withheld else ""
        note = f" {note_in_currency(o.wager, o.note, currency)}" if o.note else ""
        lines.append(f"{who} {o.wager}: {o.result} {amount}{extra}{note} [{o.rule}]")
    lines.extend(_sections(event, currency))
    return lines


_JACKPOT_NOTE = re.compile(r"^(?P<line>[\w ]+): (?P<amount>\d+)$")
_POINTS_NOTE = re.compile(r"(?P<points>-?\d+ points?) = (?P<owed>\d+)")
_WITHHELD_NOTE = re.compile(r"; (?P<withheld>\d+) withheld:")


def note_in_currency(wager: str, note: str, currency: str | None) -> str:
    """An outcome's recorded note with its amounts in the table's currency: the rules record
    a Caribbean Stud jackpot line as ``flush: 5000`` and Chinese Poker points as ``4 points =
    400`` (minor units, part of the recorded event); shown as ``flush: 50.00`` and ``4 points
    = 4.00``."""
    if wager == "jackpot":
        found = _JACKPOT_NOTE.match(note)
        if found:
            return f"{found['line']}: {format_amount(int(found['amount']), currency)}"
        return note
    if wager.startswith("points_vs_"):
        note = _POINTS_NOTE.sub(lambda m: f"{m['points']} = "
                                f"{format_amount(int(m['owed']), currency)}", note)
        note = _WITHHELD_NOTE.sub(lambda m: f"; {format_amount(int(m['withheld']), currency)}"
                                  " withheld:", note)
    return note


def _sections(event: r.HandSettled, currency: str | None = None) -> Iterable[str]:
    def money(amount: int) -> str:
        return format_amount(amount, currency)

    for j in event.jackpot:
        reset = ", meter reset to seed" if j.reset_to_seed else ""
        yield (
            f"jackpot: seat {j.seat} {j.line} {money(j.amount)} from the {j.source}, "
            f"meter {money(j.meter_before)} -> {money(j.meter_after)}{reset} "
            f"[{j.rule}]"
        )
    if event.coverage is not None:
        c = event.coverage
        start = money(c.funds_at_start)
        yield f"coverage: DP seat {c.dp_seat}, funds at start {start} [HCF-12]"
        from ledger.games.hcf.settlement import coverage_flows

        flows = coverage_flows(event)
        for line in c.lines:
            state = "covered" if line.covered else "DEAD"
            paid_in, paid = flows[line.seat]
            yield (
                f"  seat {line.seat}: liability {money(line.liability)} {state}, paid in "
                f"{money(paid_in)}, paid {money(paid)}, funds "
                f"{money(line.funds_before)} -> {money(line.funds_after)}"
            )
        yield f"  funds left {money(c.funds_left)}"
    for o in event.outcomes:
        if o.wager == "uncalled":
            yield (f"uncalled bet: seat {o.seat} {money(o.stake)} returned, unraked and "
                   f"in no pot [{o.rule}]")
    for p in event.pots:
        low = (
            f", low {p.low_winners} {money(p.low_amount)}" if p.low_winners else ", no low"
        )
        yield (
            f"pot {p.index}: {money(p.amount)} (rake {money(p.rake)}) eligible "
            f"{p.eligible}; high {p.high_winners} {money(p.high_amount)}{low}"
        )
    for pl in event.points:
        yield f"points: seat {pl.seat} vs {pl.opponent}: {pl.points:+d} {' '.join(pl.detail)}"
    for rk in event.rake:
        who = f"seat {rk.seat}" if rk.seat is not None else "table"
        yield f"rake: {who} {money(rk.amount)} [{rk.rule}]"
    if event.deck is not None:
        yield f"deck revealed (salt {event.salt}): {format_cards(event.deck)}"


def results_lines(results: HandResults, currency: str | None = None) -> list[str]:
    """Each seat's result of a hand and the table's lines (``ledger.domain.results``)."""

    def money(amount: int) -> str:
        return format_amount(amount, currency)

    lines = ["results per seat (net = won + returned - wagered - fee):"]
    for s in results.seats:
        withheld = f", withheld {money(s.withheld)}" if s.withheld else ""
        lines.append(f"  seat {s.seat} {s.player}: wagered {money(s.wagered)}, fee {money(s.fee)}"
                     f", returned {money(s.returned)}, won {money(s.won)}{withheld}, net "
                     f"{'+' if s.net > 0 else ''}{money(s.net)}")
    dp = results.designated_player
    table = [f"house {money(results.house)}", f"rake {money(results.rake)}",
             f"jackpot {money(results.jackpot)}"]
    if dp is not None:
        table.insert(1, f"designated player seat {dp.seat} {dp.player} {money(dp.net)}")
    lines.append("  table: " + ", ".join(table) + " (with the seats' nets: 0)")
    return lines
