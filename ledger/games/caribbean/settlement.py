"""Settlement of a revealed CyberCaribbean Stud hand (pure, also used by the audit): CSP-3/4
against the dealer, the COM-7 cap, then the CSP-6/7 jackpot."""

from __future__ import annotations

from ledger.domain import accounts
from ledger.domain.money import bps, odds_win
from ledger.domain.records import (
    HandSettled,
    JackpotLine,
    Outcome,
    Transfer,
)
from ledger.evaluation import caribbean as csp
from ledger.evaluation import high
from ledger.games.caribbean.config import CaribbeanConfig
from ledger.games.caribbean.hand import CaribbeanHand
from ledger.games.payout import PayoutCap


def settle(config: CaribbeanConfig, hand: CaribbeanHand, meter: int) -> HandSettled:
    """Settle a revealed hand: CSP-3/4 against the dealer, COM-7 cap, then CSP-6/7 jackpot."""
    # Nobody standing (every Ante folded before the deal, COM-6): no dealer hand to read.
    dealer = high.evaluate(hand.dealer_cards) if hand.standing else 0
    qualifies = bool(hand.standing) and csp.dealer_qualifies(dealer)
    # COM-7 (decision of 2026-12-01): winnings use the cap in settlement order, seat by seat,
    # and within a seat in rule order: the Ante, then the Play wager (``results`` below).
    cap = PayoutCap(config.max_aggregate_payout)
    outcomes: list[Outcome] = []
    transfers: list[Transfer] = []

    for s in hand.playing:
        player = accounts.player(s.player)
        if s.decision == "fold":
            outcomes.append(
                Outcome(
                    seat=s.seat,
                    wager="ante",
                    result="lose",
                    stake=s.ante,
                    amount=-s.ante,
                    rule="CSP-2",
                    note="folded",
                )
            )
            continue
        strength = high.evaluate(s.cards)
        if not qualifies:
            results = [("ante", "win", 1, "CSP-3"), ("play", "push", 0, "CSP-3")]
        elif strength > dealer:
            odds = config.play_paytable[high.category(strength).label]
            results = [("ante", "win", 1, "CSP-4"), ("play", "win", odds, "CSP-4")]
        elif strength < dealer:
            results = [("ante", "lose", 0, "CSP-4"), ("play", "lose", 0, "CSP-4")]
        else:
            results = [("ante", "push", 0, "CSP-4"), ("play", "push", 0, "CSP-4")]
        for kind, result, odds, rule in results:
            stake = s.ante if kind == "ante" else s.play
            spot = accounts.spot(s.seat, kind)
            if result == "lose":
                transfers.append(accounts.transfer(spot, accounts.HOUSE, stake, rule))
                outcomes.append(
                    Outcome(
                        seat=s.seat,
                        wager=kind,
                        result="lose",
                        stake=stake,
                        amount=-stake,
                        rule=rule,
                    )
                )
                continue
            transfers.append(accounts.transfer(spot, player, stake, rule, "stake returned"))
            won, withheld = cap.take(odds_win(stake, odds)) if result == "win" else (0, 0)
            if won:
                transfers.append(accounts.transfer(accounts.HOUSE, player, won, rule, "winnings"))
            outcomes.append(
                Outcome(
                    seat=s.seat,
                    wager=kind,
                    result=result,
                    stake=stake,
                    amount=won,
                    withheld=withheld,
                    rule="COM-7" if withheld else rule,
                    note=f"{odds}-1" if result == "win" else None,
                )
            )

    lines = _jackpot(config, hand, meter, transfers, outcomes)
    return HandSettled(
        hand_no=hand.hand_no,
        outcomes=tuple(outcomes),
        transfers=tuple(transfers),
        max_aggregate_payout=config.max_aggregate_payout,
        jackpot=lines,
    )


def _jackpot(
    config: CaribbeanConfig,
    hand: CaribbeanHand,
    meter: int,
    transfers: list[Transfer],
    outcomes: list[Outcome],
) -> tuple[JackpotLine, ...]:
    """CSP-6/7: collect every side wager into the meter and the house, then pay the awards."""
    jp = config.jackpot
    entered = [s for s in hand.playing if s.jackpot]
    for s in entered:
        spot = accounts.spot(s.seat, "jackpot")
        to_meter = bps(s.jackpot, jp.contribution_bps)
        if to_meter:
            transfers.append(
                accounts.transfer(spot, accounts.JACKPOT, to_meter, "CSP-6", "meter contribution")
            )
        if s.jackpot - to_meter:
            transfers.append(
                accounts.transfer(
                    spot,
                    accounts.HOUSE,
                    s.jackpot - to_meter,
                    "CSP-6",
                    "house share of the jackpot wager",
                )
            )
        meter += to_meter
    lines: list[JackpotLine] = []
    for s in entered:
        if s.decision == "fold":
            outcomes.append(
                Outcome(
                    seat=s.seat,
                    wager="jackpot",
                    result="forfeit",
                    stake=s.jackpot,
                    amount=-s.jackpot,
                    rule="CSP-6",
                    note="folded: the side wager cannot win",
                )
            )
            continue
        line = csp.jackpot_line(high.evaluate(s.cards))
        award, source, reset = 0, "house", False
        if line in jp.fixed_awards:
            award = jp.fixed_awards[line]
        elif line in jp.percent_awards_bps:
            rate = jp.percent_awards_bps[line]
            award, source, reset = bps(meter, rate), "meter", rate >= 10_000
        if not award and not reset:
            outcomes.append(
                Outcome(
                    seat=s.seat,
                    wager="jackpot",
                    result="lose",
                    stake=s.jackpot,
                    amount=-s.jackpot,
                    rule="CSP-6",
                )
            )
            continue
        player = accounts.player(s.player)
        before = meter
        if award:
            src = accounts.JACKPOT if source == "meter" else accounts.HOUSE
            transfers.append(accounts.transfer(src, player, award, "CSP-6", f"jackpot {line}"))
            if source == "meter":
                meter -= award
        if reset and jp.seed:
            transfers.append(
                accounts.transfer(
                    accounts.HOUSE, accounts.JACKPOT, jp.seed, "CSP-6", "meter reset to seed"
                )
            )
            meter += jp.seed
        lines.append(
            JackpotLine(
                seat=s.seat,
                line=line or "",
                amount=award,
                source=source,
                meter_before=before,
                meter_after=meter,
                reset_to_seed=reset,
            )
        )
        outcomes.append(
            Outcome(
                seat=s.seat,
                wager="jackpot",
                result="win",
                stake=s.jackpot,
                amount=award,
                rule="CSP-7" if line else "CSP-6",
                note=f"{line}: {award}",
            )
        )
    return tuple(lines)
