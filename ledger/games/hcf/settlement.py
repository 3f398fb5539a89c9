"""High Card Flush settlement (HCF-7..14, COM-7): a pure function of the configuration and the
revealed hand, so the audit can call it again on a replayed hand and compare.

Order of play, as recorded in the HandSettled:

1. Folded seats first, in the order they folded: their Ante and bonus wagers went into the bank
   at the fold (HCF-5, HCF-12); a coverage line shows each collection.
2. The standing seats in the HCF-7 order (the seat right of the button first, counter-clockwise).
   Each seat's wagers are decided ante, raise (HCF-8 / HCF-9), Straight Flush Bonus (HCF-10),
   Flush Bonus (HCF-11), the order in which they use the COM-7 cap (decision of 2026-12-01:
   main wagers first, then side wagers by rule id); winnings pass the COM-7 cap first, then
   the coverage test (HCF-12): the seat is covered when its net winnings after its own losing
   wagers do not exceed the funds left; otherwise it is dead and every wager, a losing one too,
   goes back. With the
   ``collect-first`` policy the seats that win nothing net go first (still in HCF-7 order).
3. The rake (HCF-13): each fee held in ``spot:<seat>:house_fee`` goes to ``rake``, or back to a
   dead seat; the DP's fee is taken from the funds left after settlement, so it never reduces
   the funds in action, and is limited to what is left (the rest is waived and noted).
4. The bank goes back to the DP; the DP's result is one outcome (HCF-14).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, TypeVar

from ledger.domain import accounts
from ledger.domain.cards import format_card, format_cards, make_card
from ledger.domain.money import format_amount, odds_win
from ledger.domain.records import Coverage, CoverageLine, HandSettled, Outcome, RakeLine, Transfer
from ledger.evaluation import hcf as ev
from ledger.games.hcf.model import (
    ANTE,
    BONUS_KINDS,
    FLUSH_BONUS,
    HOUSE_FEE,
    RAISE,
    STRAIGHT_FLUSH_BONUS,
    HcfConfig,
    HcfHand,
    HcfSeat,
    counter_clockwise_before,
)
from ledger.games.payout import PayoutCap

Result = Literal["win", "lose", "push"]


@dataclass(frozen=True)
class WagerResult:
    """How one wager of a standing seat ends against the DP, before caps and coverage."""

    kind: str
    stake: int
    result: Result
    odds: int
    rule: str
    note: str

    @property
    def winnings(self) -> int:
        return odds_win(self.stake, self.odds) if self.result == "win" else 0


@dataclass(frozen=True)
class DpHand:
    """The DP's hand as the rules read it (HCF-4, HCF-8, HCF-10)."""

    flush: ev.Flush
    run: ev.StraightFlush
    qualifies: bool

    @classmethod
    def of(cls, cards: tuple[int, ...]) -> DpHand:
        flush = ev.flush(cards)
        return cls(flush, ev.straight_flush(cards), ev.dp_qualifies(flush))


Comparable = TypeVar("Comparable", ev.Flush, ev.StraightFlush)


def _compare(mine: Comparable, theirs: Comparable) -> Result:
    """HCF-4 / HCF-10 order: the evaluator's values compare as the rules compare hands."""
    if mine > theirs:
        return "win"
    if mine < theirs:
        return "lose"
    return "push"


def flush_text(flush: ev.Flush) -> str:
    """``"4-card flush Ah Kh 9h 5h"``: the cards that decide HCF-4 and HCF-11."""
    cards = format_cards(make_card(rank, flush.suit) for rank in flush.ranks)
    return f"{flush.length}-card flush {cards}"


def run_text(run: ev.StraightFlush) -> str:
    """``"run of 3 to the Qs"``: what decides HCF-10."""
    return f"run of {run.length} to the {format_card(make_card(run.high, run.suit))}"


def wager_results(config: HcfConfig, seat: HcfSeat, dp: DpHand) -> list[WagerResult]:
    """Ante and Raise (HCF-8, HCF-9), then the bonus wagers placed (HCF-10, HCF-11).

    This order is also the order in which the seat's winnings use the COM-7 cap (decision of
    2026-12-01): the main wagers first, Ante then Raise, then the side wagers by rule id, the
    Straight Flush Bonus (HCF-10) before the Flush Bonus (HCF-11)."""
    mine = ev.flush(seat.cards)
    results: list[WagerResult] = []
    if not dp.qualifies:
        note = f"the DP does not qualify with a {flush_text(dp.flush)}"
        results.append(WagerResult(ANTE, seat.ante, "win", 1, "HCF-8", note + ": Ante 1-1"))
        results.append(WagerResult(RAISE, seat.raised, "push", 0, "HCF-8",
                                   note + ": Raise pushes"))
    else:
        outcome = _compare(mine, dp.flush)
        note = f"{flush_text(mine)} against the DP's {flush_text(dp.flush)}"
        odds = 1 if outcome == "win" else 0
        results.append(WagerResult(ANTE, seat.ante, outcome, odds, "HCF-9", note))
        results.append(WagerResult(RAISE, seat.raised, outcome, odds, "HCF-9", note))
    if seat.straight_flush_bonus:
        run = ev.straight_flush(seat.cards)
        sf_odds = ev.straight_flush_bonus_odds(run.length, config.straight_flush_bonus_paytable)
        note = f"{run_text(run)} against the DP's {run_text(dp.run)}"
        outcome = "lose" if sf_odds is None else _compare(run, dp.run)
        if sf_odds is None:
            note += ": no paying straight flush"
        results.append(WagerResult(
            STRAIGHT_FLUSH_BONUS, seat.straight_flush_bonus, outcome,
            sf_odds if outcome == "win" and sf_odds else 0, "HCF-10",
            f"{note}: {sf_odds}-1" if outcome == "win" else note,
        ))
    if seat.flush_bonus:
        fb_odds = ev.flush_bonus_odds(mine.length, config.flush_bonus_paytable)
        note = f"{flush_text(mine)} against the DP's {flush_text(dp.flush)}"
        outcome = "lose" if fb_odds is None else _compare(mine, dp.flush)
        if fb_odds is None:
            note += ": no paying flush"
        results.append(WagerResult(
            FLUSH_BONUS, seat.flush_bonus, outcome,
            fb_odds if outcome == "win" and fb_odds else 0, "HCF-11",
            f"{note}: {fb_odds}-1" if outcome == "win" else note,
        ))
    return results


def _capped(results: list[WagerResult], cap: PayoutCap) -> list[tuple[int, int]]:
    """(paid, withheld) of each wager under the COM-7 cap, wager by wager, without using it."""
    trial = PayoutCap(cap.limit)
    trial.paid = cap.paid
    return [trial.take(r.winnings) for r in results]


def net_winnings(results: list[WagerResult], paid: list[int] | None = None) -> int:
    """A seat's winnings less its own losing wagers (HCF-12); ``paid`` are capped winnings."""
    won = sum(paid) if paid is not None else sum(r.winnings for r in results)
    return won - sum(r.stake for r in results if r.result == "lose")


class _Ledger:
    """Collects a settlement's outcomes, transfers, coverage lines and rake as it runs."""

    def __init__(self, funds: int) -> None:
        self.funds = funds
        self.outcomes: list[Outcome] = []
        self.transfers: list[Transfer] = []
        self.lines: list[CoverageLine] = []
        self.rake: list[RakeLine] = []

    def move(self, src: str, dst: str, amount: int, rule: str, memo: str) -> None:
        if amount:
            self.transfers.append(accounts.transfer(src, dst, amount, rule, memo))


def settle(config: HcfConfig, hand: HcfHand) -> HandSettled:
    """Settle a revealed hand (or one where every Ante folded before the deal), HCF-7..14."""
    assert hand.dp is not None
    book = _Ledger(hand.funds)
    for number in hand.folds:
        _settle_fold(book, hand.seat(number))
    order = counter_clockwise_before(
        hand.dp, [s.seat for s in hand.live if s.decision == "raise"]
    )
    dead: set[int] = set()
    if order:
        dp = DpHand.of(hand.dp_cards)
        cap = PayoutCap(config.max_aggregate_payout)
        decided = {n: wager_results(config, hand.seat(n), dp) for n in order}
        if config.coverage_policy == "collect-first":
            order = tuple(sorted(order, key=lambda n: net_winnings(decided[n]) > 0))
        for number in order:
            if not _settle_seat(book, hand.seat(number), decided[number], cap):
                dead.add(number)
    funds_left = book.funds
    took_part = [n for n in (*hand.folds, *order) if n not in dead]
    for number in (*hand.folds, *order):
        _fee(book, config, hand.seat(number), number in dead)
    _dp_result(book, config, hand, bool(took_part))
    return HandSettled(
        hand_no=hand.hand_no,
        outcomes=tuple(book.outcomes),
        transfers=tuple(book.transfers),
        max_aggregate_payout=config.max_aggregate_payout,
        coverage=Coverage(
            dp_seat=hand.dp, funds_at_start=hand.funds, lines=tuple(book.lines),
            funds_left=funds_left,
        ),
        rake=tuple(book.rake),
    )


def _settle_fold(book: _Ledger, seat: HcfSeat) -> None:
    """HCF-5: a fold loses Ante and both bonus wagers; they entered the bank at the fold."""
    before = book.funds
    for kind in (ANTE, *BONUS_KINDS):
        stake = seat.wager(kind)
        if stake:
            book.outcomes.append(Outcome(seat=seat.seat, wager=kind, result="lose", stake=stake,
                                         amount=-stake, rule="HCF-5", note="folded"))
            book.funds += stake
    book.lines.append(CoverageLine(seat=seat.seat, liability=0, covered=True,
                                   funds_before=before, funds_after=book.funds))


def _settle_seat(
    book: _Ledger, seat: HcfSeat, results: list[WagerResult], cap: PayoutCap
) -> bool:
    """One standing seat: COM-7 first, then the HCF-12 coverage test; True when covered."""
    player = accounts.player(seat.player)
    capped = _capped(results, cap)
    net = net_winnings(results, [paid for paid, _ in capped])
    before = book.funds
    covered = net <= before
    book.lines.append(CoverageLine(
        seat=seat.seat, liability=max(net, 0), covered=covered, funds_before=before,
        funds_after=before - net if covered else before,
    ))
    if not covered:
        for r in results:
            spot = accounts.spot(seat.seat, r.kind)
            book.move(spot, player, r.stake, "HCF-12", "dead hand: wager returned")
            book.outcomes.append(Outcome(
                seat=seat.seat, wager=r.kind, result="dead", stake=r.stake, amount=0,
                withheld=r.winnings, rule="HCF-12",
                note=f"dead hand: {format_amount(net)} not covered by {format_amount(before)};"
                     f" would {r.result} ({r.rule}: {r.note})",
            ))
        return False
    book.funds = before - net
    for r in results:  # the seat's losing wagers are collected before anything is paid
        if r.result == "lose":
            book.move(accounts.spot(seat.seat, r.kind), accounts.BANK, r.stake, r.rule, "lost")
    for r, _ in zip(results, capped, strict=True):
        if r.result != "lose":
            book.move(accounts.spot(seat.seat, r.kind), player, r.stake, r.rule,
                      "stake returned")
    for r, (paid, withheld) in zip(results, capped, strict=True):
        if r.result == "win":
            cap.take(r.winnings)
            book.move(accounts.BANK, player, paid, r.rule, "winnings")
        note = f"{r.rule}: {r.note}; {withheld} withheld by the COM-7 cap" if withheld else r.note
        book.outcomes.append(Outcome(
            seat=seat.seat, wager=r.kind, result=r.result, stake=r.stake,
            amount=-r.stake if r.result == "lose" else paid, withheld=withheld,
            rule="COM-7" if withheld else r.rule, note=note,
        ))
    return True


def _fee(book: _Ledger, config: HcfConfig, seat: HcfSeat, dead: bool) -> None:
    """HCF-13: a player's fee, held since the Ante, is raked; a dead hand gets it back."""
    if not seat.house_fee:
        return
    spot = accounts.spot(seat.seat, HOUSE_FEE)
    if dead:
        book.move(spot, accounts.player(seat.player), seat.house_fee, "HCF-13",
                  "dead hand: fee returned")
        return
    book.move(spot, accounts.RAKE, seat.house_fee, "HCF-13", "house fee")
    book.rake.append(RakeLine(seat=seat.seat, amount=seat.house_fee, rule="HCF-13",
                              method=config.rake.method))


def _dp_result(book: _Ledger, config: HcfConfig, hand: HcfHand, any_taking_part: bool) -> None:
    """HCF-13 DP fee from the funds left, the bank back to the DP, the DP's result (HCF-14)."""
    assert hand.dp is not None
    dp = hand.dp_seat
    owed = config.rake.dp_pays if any_taking_part else 0
    fee = min(owed, book.funds)
    if fee:
        book.move(accounts.BANK, accounts.RAKE, fee, "HCF-13", "house fee of the DP")
        book.rake.append(RakeLine(seat=dp.seat, amount=fee, rule="HCF-13",
                                  method=config.rake.method))
    back = book.funds - fee
    book.move(accounts.BANK, accounts.player(dp.player), back, "HCF-12",
              "funds in action returned to the DP")
    result = back - hand.funds
    settled = book.funds - hand.funds
    note = f"settlements {'+' if settled > 0 else ''}{format_amount(settled)}, fee "
    note += format_amount(fee)
    if owed > fee:
        note += f" ({format_amount(owed - fee)} of the {format_amount(owed)} fee waived:"
        note += " no funds left)"
    elif not any_taking_part and config.rake.dp_pays:
        note += " (no fee: every player hand is dead)"
    book.outcomes.append(Outcome(
        seat=dp.seat, wager="designated_player",
        result="win" if result > 0 else "lose" if result < 0 else "push",
        stake=hand.funds, amount=result, rule="HCF-14", note=note,
    ))


def coverage_flows(settled: HandSettled) -> dict[int, tuple[int, int]]:
    """Per coverage line's seat: (what it paid into the DP's funds, what the funds paid it),
    HCF-12. A folded seat paid its wagers in at the fold; a covered seat paid its losing wagers
    and was paid its winnings; a dead seat neither. For every line ``funds_after -
    funds_before == paid_in - paid``."""
    if settled.coverage is None:
        return {}
    player_of: dict[int, str] = {}
    for t in settled.transfers:
        if accounts.is_spot(t.src) and accounts.is_player(t.dst):
            player_of.setdefault(int(t.src.split(":")[1]), t.dst)
    flows: dict[int, tuple[int, int]] = {}
    for line in settled.coverage.lines:
        paid = sum(t.amount for t in settled.transfers
                   if t.src == accounts.BANK and t.dst == player_of.get(line.seat))
        flows[line.seat] = (line.funds_after - line.funds_before + paid, paid)
    return flows
