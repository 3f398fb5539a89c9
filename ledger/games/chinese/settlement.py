"""Settlement of an opened Chinese Poker hand: points into chips under table stakes (CHP-8, CHP-9).

A pure function of the configuration and the hand state, so the audit can call it again on a
replayed hand and compare. The steps:

1. Points between every pair of players (:mod:`ledger.games.chinese.scoring`, CHP-3..7).
2. Payments (CHP-9): the seat left of the button pays first and the button last; each payer
   settles its debts pair by pair, creditors taken in the same clockwise order. A debt is the
   points owed times the point value (CHP-8).
3. Table stakes (CHP-8): each player's chips in play are its stack at the start of the hand
   after the fee (CHP-11), moved to ``spot:<seat>:stake`` when the hand started. Over the whole
   settlement a player pays at most that stake and receives at most that stake; a payment is
   the debt reduced by whichever cap binds first, and the rest is withheld and recorded on both
   outcomes of the pair (``Outcome.withheld``). What a player receives is never used to pay:
   the cap on paying is the stake, not the stack grown during the settlement.
4. Every stake, less what it paid, goes back to its player's stack.

The fee was taken when the hand started (CHP-11: before scoring; it reduces the stack that
plays); the settlement shows it as rake lines.
"""

from __future__ import annotations

from ledger.domain import accounts
from ledger.domain.records import HandSettled, Outcome, PointsLine, RakeLine, Transfer
from ledger.games.chinese.config import ChineseConfig
from ledger.games.chinese.hand import STAKE, ChineseHand
from ledger.games.chinese.scoring import PairScore, score_table


def settle(config: ChineseConfig, hand: ChineseHand) -> HandSettled:
    """Settle an opened hand (CHP-3..9, CHP-11)."""
    scores = score_table(hand.seats, config.scoring)
    order = [s.seat for s in hand.seats]
    players = {s.seat: s.player for s in hand.seats}
    can_pay = {s.seat: s.stake for s in hand.seats}
    can_receive = {s.seat: s.stake for s in hand.seats}
    stake_of = {s.seat: s.stake for s in hand.seats}
    transfers: list[Transfer] = []
    outcomes: list[Outcome] = []

    for payer in order:
        for creditor in order:
            if creditor == payer:
                continue
            score = scores[(creditor, payer)]
            if score.points <= 0:
                continue
            owed = score.points * config.point_value
            paid = min(owed, can_pay[payer], can_receive[creditor])
            withheld = owed - paid
            can_pay[payer] -= paid
            can_receive[creditor] -= paid
            note = _note(score, owed, withheld, paid < owed and can_pay[payer] == 0,
                         payer, creditor)
            if paid:
                transfers.append(accounts.transfer(
                    accounts.spot(payer, STAKE), accounts.player(players[creditor]), paid,
                    score.rule, f"{_points(score.points)}, seat {payer} to seat {creditor}"
                    + ("; capped by table stakes (CHP-8)" if withheld else ""),
                ))
            rule = "CHP-8" if withheld else score.rule
            outcomes.append(Outcome(
                seat=creditor, wager=_pairing(payer), result=score.result,
                stake=stake_of[creditor], amount=paid, withheld=withheld, rule=rule, note=note,
            ))
            outcomes.append(Outcome(
                seat=payer, wager=_pairing(creditor), result="lose", stake=stake_of[payer],
                amount=-paid, withheld=withheld, rule=rule, note=note,
            ))

    for i, a in enumerate(order):
        for b in order[i + 1:]:
            score = scores[(a, b)]
            if score.points == 0:
                for mine, theirs in ((a, b), (b, a)):
                    outcomes.append(Outcome(
                        seat=mine, wager=_pairing(theirs), result="push",
                        stake=stake_of[mine], rule=score.rule, note=f"{_points(0)} ({score.rule})",
                    ))

    for s in hand.seats:
        left = can_pay[s.seat]
        if left:
            transfers.append(accounts.transfer(
                accounts.spot(s.seat, STAKE), accounts.player(s.player), left, "CHP-8",
                "stake returned",
            ))

    return HandSettled(
        hand_no=hand.hand_no,
        outcomes=tuple(outcomes),
        transfers=tuple(transfers),
        points=tuple(_points_line(scores[(a, b)]) for a in order for b in order if a != b),
        rake=tuple(
            RakeLine(seat=s.seat, amount=s.fee, rule="CHP-11", method="fixed fee per player")
            for s in hand.seats if s.fee
        ),
    )


def _pairing(opponent: int) -> str:
    """The ``wager`` name of a pairing: the points against one opponent."""
    return f"points_vs_{opponent}"


def _points_line(score: PairScore) -> PointsLine:
    return PointsLine(seat=score.seat, opponent=score.opponent, points=score.points,
                      detail=score.detail)


def _note(score: PairScore, owed: int, withheld: int, payer_ran_out: bool, payer: int,
          creditor: int) -> str:
    text = f"{_points(score.points)} = {owed} ({score.rule})"
    if not withheld:
        return text
    why = (f"seat {payer}'s stake ran out" if payer_ran_out
           else f"seat {creditor} has received its whole stake")
    return f"{text}; {withheld} withheld: {why} (CHP-8, paid in CHP-9 order)"


def _points(n: int) -> str:
    return f"{n} point" if abs(n) == 1 else f"{n} points"
