"""Showdown and settlement of Seven Card Stud Hi/Lo (STUD8-6..11).

STUD8-10: the last player to bet or raise on seventh street shows first; when nobody bet on
seventh street (or there was no betting left: everybody all-in), the seat that acted first on
seventh street (the best showing hand) shows first. The others follow clockwise and each shows
or mucks. **Decisions:** the first hand must be shown; a seat may not muck when no other hand
still in the showdown (not mucked) covers its contribution, because its side pot would otherwise
go to a player who could not cover it (STUD8-9), so the last hand contesting a pot is shown.

:func:`settle` is a pure function of the settings and the hand: the ledger appends what it
returns, and the audit calls it again on the replayed hand and compares.
"""

from __future__ import annotations

from ledger.domain import accounts
from ledger.domain.records import HandSettled, Outcome, PotLine, RakeLine, Transfer
from ledger.evaluation import high, low
from ledger.games.stud8 import pots as potmath
from ledger.games.stud8.betting import best_showing_at_start, clockwise, round_state
from ledger.games.stud8.model import STREET_RULES, StudConfig, StudHand, StudSeat


def showdown_order(hand: StudHand, config: StudConfig) -> list[int]:
    """STUD8-10: the live seats in the order they show or muck."""
    rs = round_state(hand, config)
    first = rs.aggressor if rs.aggressor is not None else best_showing_at_start(hand)
    return clockwise([s.seat for s in hand.live], first)


def next_to_show(hand: StudHand, config: StudConfig) -> int | None:
    for seat in showdown_order(hand, config):
        if hand.seat(seat).showdown is None:
            return seat
    return None


def must_show(hand: StudHand, seat: int) -> str | None:
    """Why ``seat`` may not muck (None when it may): the first hand is shown, and so is the
    last hand contesting a pot (STUD8-9, STUD8-10)."""
    live = hand.live
    if not any(s.showdown == "show" for s in live):
        return "the first hand at the showdown is shown (STUD8-10)"
    contributed = _contributions_after_refund(hand)
    mine = contributed.get(seat, 0)
    covered = any(
        s.seat != seat and s.showdown != "muck" and contributed.get(s.seat, 0) >= mine
        for s in live
    )
    if not covered:
        return (
            "no other hand left in the showdown covers this seat's chips: the last hand "
            "contesting a pot is shown (STUD8-9, STUD8-10)"
        )
    return None


def _contributions_after_refund(hand: StudHand) -> dict[int, int]:
    contributed = {s.seat: s.contributed for s in hand.seats if s.contributed}
    refund = potmath.uncalled(contributed)
    if refund is not None:
        contributed[refund[0]] -= refund[1]
    return contributed


# --- settlement ------------------------------------------------------------------------------


def settle(config: StudConfig, hand: StudHand) -> HandSettled:
    """STUD8-7..9, STUD8-11: return the uncalled bet, form the pots, rake, split each pot hi/lo."""
    transfers: list[Transfer] = []
    outcomes: list[Outcome] = []
    contributed = {s.seat: s.contributed for s in hand.seats if s.contributed}
    refund = potmath.uncalled(contributed)
    if refund is not None:
        seat, amount = refund
        contributed[seat] -= amount
        player = accounts.player(hand.seat(seat).player)
        transfers.append(accounts.transfer(
            accounts.spot(seat, "pot"), player, amount, "STUD8-11", "uncalled bet returned"))
        outcomes.append(Outcome(seat=seat, wager="uncalled", result="returned", stake=amount,
                                rule="STUD8-11", note="returned unraked"))
    live = hand.live
    by_fold = len(live) == 1
    contesting = [s.seat for s in live if by_fold or s.showdown != "muck"]
    pots = potmath.build_pots(contributed, contesting)
    rakes = potmath.rake_by_pot(pots, config.rake_bps, config.rake_cap, config.chip_unit,
                                exempt=hand.betting_street <= 3)
    lines: list[PotLine] = []
    for pot, rake in zip(pots, rakes, strict=True):
        line, pot_outcomes, sinks = _split(config, hand, pot, rake, by_fold)
        lines.append(line)
        outcomes.extend(pot_outcomes)
        sources = [(accounts.spot(seat, "pot"), amount) for seat, amount in pot.shares]
        transfers.extend(potmath.pour(sources, sinks))
    rake_total = sum(rakes)
    rake_lines = (
        (RakeLine(seat=None, amount=rake_total, rule="STUD8-11",
                  method=_rake_method(config)),) if rake_total else ()
    )
    return HandSettled(
        hand_no=hand.hand_no,
        outcomes=tuple(outcomes),
        transfers=tuple(potmath.merge(transfers)),
        pots=tuple(lines),
        rake=rake_lines,
    )


def _rake_method(config: StudConfig) -> str:
    cap = "no cap" if config.rake_cap is None else f"cap {config.rake_cap}"
    return f"{config.rake_bps} bps of the pot, {cap}, whole chips, main pot first"


Sink = tuple[str, int, str, str | None]


def _split(
    config: StudConfig, hand: StudHand, pot: potmath.Pot, rake: int, by_fold: bool
) -> tuple[PotLine, list[Outcome], list[Sink]]:
    """One pot: who wins which half, the outcomes of every seat in it, and where the chips go."""
    net = pot.amount - rake
    community = hand.community
    seats = {s.seat: s for s in hand.seats}
    contest = pot.contesting
    high_winners: tuple[int, ...]
    low_winners: tuple[int, ...]
    if len(contest) == 1:
        high_winners, low_winners = contest, ()
    else:
        highs = {s: high.evaluate(seats[s].cards + community) for s in contest}
        best = max(highs.values())
        high_winners = tuple(s for s in contest if highs[s] == best)
        lows = {s: low.evaluate_low8(seats[s].cards + community) for s in contest}
        qualified = [v for v in lows.values() if v is not None]
        best_low = max(qualified) if qualified else None
        low_winners = tuple(s for s in contest if best_low is not None and lows[s] == best_low)
    high_amount, low_amount = potmath.halves(net, bool(low_winners), config.chip_unit)
    paid_high = potmath.share_out(high_amount, high_winners, config.chip_unit)
    paid_low = potmath.share_out(low_amount, low_winners, config.chip_unit)
    tie = len(high_winners) > 1 or len(low_winners) > 1
    if by_fold:
        # Won uncontested on the street the others folded on; when they all left after the
        # antes, before the deal, that is third street (COM-6, STUD8-2, STUD8-11).
        rule = STREET_RULES[hand.betting_street]
    else:
        rule = "STUD8-8" if tie else ("STUD8-9" if pot.index else "STUD8-7")
    sinks: list[Sink] = []
    if rake:
        sinks.append((accounts.RAKE, rake, "STUD8-11", f"rake from pot {pot.index}"))
    for seat, amount in paid_high.items():
        if amount:
            memo = "pot won" if not low_winners else "high half"
            sinks.append((accounts.player(seats[seat].player), amount, rule, memo))
    for seat, amount in paid_low.items():
        if amount:
            sinks.append((accounts.player(seats[seat].player), amount, rule, "low half"))
    shares = dict(pot.shares)
    outcomes: list[Outcome] = []
    for seat in sorted(set(shares) | set(contest)):
        stake = shares.get(seat, 0)
        won = paid_high.get(seat, 0) + paid_low.get(seat, 0)
        note = "others folded" if by_fold else describe(seats[seat], community)
        outcomes.append(_outcome(seats[seat], pot, stake, won, net, rule, by_fold, note))
    line = PotLine(
        index=pot.index, amount=pot.amount, rake=rake, eligible=contest,
        high_winners=high_winners, low_winners=low_winners,
        high_amount=high_amount, low_amount=low_amount,
    )
    return line, outcomes, sinks


def _outcome(
    s: StudSeat, pot: potmath.Pot, stake: int, won: int, net: int, rule: str, by_fold: bool,
    note: str,
) -> Outcome:
    wager = f"pot{pot.index}"
    if s.folded_on is not None:
        return Outcome(seat=s.seat, wager=wager, result="lose", stake=stake, amount=-stake,
                       rule=STREET_RULES[s.folded_on], note="folded")
    if s.showdown == "muck" and not by_fold:
        return Outcome(seat=s.seat, wager=wager, result="forfeit", stake=stake, amount=-stake,
                       rule="STUD8-10", note="mucked")
    if by_fold:
        result = "win"
    elif won == net and won:
        result = "scoop"
    elif won:
        result = "split"
    else:
        result = "lose"
    return Outcome(seat=s.seat, wager=wager, result=result, stake=stake, amount=won - stake,
                   rule=rule, note=note)


def describe(s: StudSeat, community: tuple[int, ...]) -> str:
    """The hand as an auditor reads it: ``high full_house K K K 4 4; low 8 6 4 2 A``."""
    cards = s.cards + community
    strength = high.evaluate(cards)
    text = f"high {high.category(strength).label} {' '.join(high.rank_labels(strength))}"
    value = low.evaluate_low8(cards)
    return text + ("; no low" if value is None else f"; low {' '.join(low.low_labels(value))}")
