"""Simulated cheats, for the demo and for the game-protection tests: each plays its own seats
(or deals, for a dealer) and leaves every other decision to the game's honest bot.

=========================  ======================================================================
kind                       what it does
=========================  ======================================================================
``csp-hole-carder``        Caribbean Stud: sees the dealer's hidden cards and plays exactly when
                           the Play does better than the fold with them (CSP-2..4)
``hcf-dp-reader``          High Card Flush: knows the DP's hand; folds, raises 1x Ante or the
                           most the flush allows, whichever the settlement pays best (HCF-5..11);
                           with a second player named, only when that player is the DP (a DP
                           showing a partner its hand)
``stud-chip-dumpers``      Stud Hi/Lo, two players: the first bets and raises into the second
                           with any cards and folds to the second's bets, passing chips to it
``stud-soft-players``      Stud Hi/Lo, two players: heads-up, neither bets or raises into the
                           other; each folds to the other's bets whatever its cards
``chinese-partners``       Chinese Poker, two players sharing hands: the second sets its best
                           quick arrangement, the first the arrangement, of a few hundred tried,
                           that scores least against the second's (points passed to it)
``overpaying-dealer``      a dealer on a table whose cards are recorded (COM-8) who, on its own
                           shifts, keys in a dealer's hand that does not qualify (CSP-3): the
                           house pays every Ante it should have won
=========================  ======================================================================

``rate`` is the share of the cheat's hands in which it cheats (it plays as the honest bot in the
others). Nothing here is used at a real table.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from ledger.domain.commands import Act, Command, UnseatPlayer
from ledger.evaluation import caribbean as csp
from ledger.evaluation import high
from ledger.games.base import Step, TableView
from ledger.games.chinese.hand import ChineseSeat
from ledger.games.chinese.scoring import judge, score_pair
from ledger.games.hcf.model import HcfConfig, HcfHand
from ledger.games.hcf.settlement import DpHand, wager_results
from ledger.games.registry import get_game
from ledger.sim import chinese_arrange as arrange
from ledger.sim.base import Bot, CommandIds

KINDS = ("csp-hole-carder", "hcf-dp-reader", "stud-chip-dumpers", "stud-soft-players",
         "chinese-partners", "overpaying-dealer")
GAMES = {"csp-hole-carder": "caribbean-stud", "hcf-dp-reader": "high-card-flush",
         "stud-chip-dumpers": "stud-hilo", "stud-soft-players": "stud-hilo",
         "chinese-partners": "chinese-poker", "overpaying-dealer": "caribbean-stud"}
PAIRS = frozenset({"stud-chip-dumpers", "stud-soft-players", "chinese-partners"})
ARRANGEMENTS_TRIED = 300


@dataclass(frozen=True)
class Cheat:
    kind: str
    who: tuple[str, ...]
    """The cheating players (two for a pair, the first the one who gives), or the dealer."""
    rate: float = 1.0


def check(cheat: Cheat, game: str) -> None:
    """A ``ValueError`` for a cheat that does not fit the game or names the wrong number of
    players."""
    if cheat.kind not in KINDS:
        raise ValueError(f"unknown cheat {cheat.kind!r}; cheats: {', '.join(KINDS)}")
    if GAMES[cheat.kind] != game:
        raise ValueError(f"the cheat {cheat.kind} plays {GAMES[cheat.kind]}, not {game}")
    wanted = 2 if cheat.kind in PAIRS else 1
    if cheat.kind == "hcf-dp-reader" and len(cheat.who) == 2:
        wanted = 2
    if len(cheat.who) != wanted or len(set(cheat.who)) != wanted:
        raise ValueError(f"the cheat {cheat.kind} names {wanted} distinct "
                         f"{'players' if wanted == 2 else 'player or dealer'}")
    if not 0 <= cheat.rate <= 1:
        raise ValueError(f"a cheat's rate lies between 0 and 1, not {cheat.rate}")


class CheatingBot:
    """The honest bot, except for the cheats' own decisions."""

    def __init__(self, honest: Bot, cheats: Sequence[Cheat]) -> None:
        self.honest = honest
        self.cheats = [c for c in cheats if c.kind != "overpaying-dealer"]
        self._cheating: dict[tuple[int, str], bool] = {}
        self.cheated: dict[Cheat, set[int]] = {c: set() for c in self.cheats}
        """The hands in which each cheat made a decision of its own."""

    def choose(self, table: TableView, hand: Any, step: Step, rng: random.Random,
               ids: CommandIds) -> Command | None:
        if step.kind == "act":
            for cheat in self.cheats:
                command = self._cheat(cheat, table, hand, step, rng, ids)
                if command is not None:
                    return command
        command = self.honest.choose(table, hand, step, rng, ids)
        if isinstance(command, Act | UnseatPlayer) and step.kind == "act":
            # The honest bot may pick a cheat's seat: the cheat decides there instead.
            for cheat in self.cheats:
                if table.seats.get(command.seat) in cheat.who:
                    mine = self._cheat(cheat, table, hand, step, rng, ids, seat=command.seat)
                    if mine is not None:
                        return mine
        return command

    def _on(self, cheat: Cheat, hand_no: int, rng: random.Random) -> bool:
        key = (hand_no, cheat.kind + ",".join(cheat.who))
        if key not in self._cheating:
            self._cheating = {k: v for k, v in self._cheating.items() if k[0] == hand_no}
            self._cheating[key] = rng.random() < cheat.rate
        return self._cheating[key]

    def _cheat(self, cheat: Cheat, table: TableView, hand: Any, step: Step,
               rng: random.Random, ids: CommandIds, seat: int | None = None) -> Command | None:
        seats = {s: table.seats.get(s) for s in step.seats}
        players = cheat.who[:1] if cheat.kind == "hcf-dp-reader" else cheat.who
        mine = [s for s, who in seats.items() if who in players and (seat in (None, s))]
        if cheat.kind == "hcf-dp-reader" and len(cheat.who) == 2 and \
                table.seats.get(hand.dp) != cheat.who[1]:
            return None
        if not mine or not self._on(cheat, hand.hand_no, rng):
            return None
        number = mine[0]
        action: tuple[str, int | None] | None
        if cheat.kind == "csp-hole-carder":
            action = _hole_carder(table, hand, number)
        elif cheat.kind == "hcf-dp-reader":
            action = _dp_reader(table, hand, step, number)
        elif cheat.kind == "chinese-partners":
            self.cheated[cheat].add(hand.hand_no)
            return _partners(cheat, table, hand, number, rng, ids)
        else:
            action = _stud_pair(cheat, table, hand, step, number)
        if action is None:
            return None
        self.cheated[cheat].add(hand.hand_no)
        return Act(command_id=ids.next(), table=ids.table, seat=number, action=action[0],
                   amount=action[1])


def _hole_carder(table: TableView, hand: Any, number: int) -> tuple[str, int | None]:
    """CSP-2..4 with the dealer's cards in view: play unless the dealer qualifies and wins."""
    seat = hand.seat(number)
    if table.seat_stack(number) < 2 * seat.ante:
        return "fold", None
    dealer = high.evaluate((*hand.dealer_down, *hand.dealer_up))
    loses = csp.dealer_qualifies(dealer) and dealer > high.evaluate(seat.cards)
    return ("fold", None) if loses else ("play", None)


def _dp_reader(table: TableView, hand: HcfHand, step: Step,
               number: int) -> tuple[str, int | None]:
    """HCF-5..11 with the DP's hand in view: the best of fold, the smallest and the largest
    raise allowed, by the settlement's own results."""
    config: HcfConfig = table.config
    seat = hand.seat(number)
    option = next((o for o in step.options if o.action == "raise"), None)
    if option is None or not hand.dp_cards:
        return "fold", None
    dp = DpHand.of(tuple(hand.dp_cards))
    best: tuple[int, str, int | None] = (
        -(seat.ante + seat.flush_bonus + seat.straight_flush_bonus), "fold", None)
    for amount in sorted({option.min_amount, option.max_amount}):
        placed = seat.model_copy(update={"raised": amount, "decision": "raise"})
        result = sum(r.winnings if r.result == "win" else -r.stake if r.result == "lose" else 0
                     for r in wager_results(config, placed, dp))
        if result > best[0]:
            best = (result, "raise", amount)
    return best[1], best[2]


def _stud_pair(cheat: Cheat, table: TableView, hand: Any, step: Step,
               number: int) -> tuple[str, int | None] | None:
    """The Stud Hi/Lo pairs: ``None`` leaves the decision to the honest bot."""
    me = table.seats.get(number)
    partner_name = cheat.who[1] if me == cheat.who[0] else cheat.who[0]
    live = {table.seats.get(s.seat): s.seat for s in hand.live}
    if partner_name not in live:
        return None
    options = {o.action: o for o in step.options}
    if "show" in options or "bring_in" in options:
        return None
    last = next((a for a in reversed(hand.actions) if a.action in ("bet", "raise",
                                                                   "complete")), None)
    partner_bet = last is not None and last.seat == live[partner_name]
    giver = me == cheat.who[0]
    if cheat.kind == "stud-chip-dumpers" and not giver:
        return None  # the receiver plays as everyone does
    if partner_bet and "fold" in options:
        return "fold", None
    aggressive = next((a for a in ("raise", "bet", "complete") if a in options), None)
    if cheat.kind == "stud-chip-dumpers" and aggressive is not None:
        return aggressive, options[aggressive].max_amount
    if cheat.kind == "stud-soft-players" and aggressive is not None and len(live) == 2:
        passive = next((a for a in ("check", "call") if a in options), None)
        if passive is not None:  # heads-up with the partner: no pressure on it
            return passive, None
    return None


def _partners(cheat: Cheat, table: TableView, hand: Any, number: int, rng: random.Random,
              ids: CommandIds) -> Command:
    """Chinese Poker partners sharing their hands (CHP-2..5)."""
    me = hand.seat(number)
    giver = me.player == cheat.who[0]
    receiver = next((s for s in hand.seats if s.player == cheat.who[1]), None)
    if not giver or receiver is None:
        segments = arrange.greedy(me.cards)
    else:
        theirs = receiver.segments or arrange.greedy(receiver.cards)
        judged = judge(ChineseSeat(seat=receiver.seat, player=receiver.player,
                                   cards=receiver.cards, segments=theirs), "mandarin")
        tried = [arrange.greedy(me.cards)] + [arrange.random_legal(me.cards, rng)
                                              for _ in range(ARRANGEMENTS_TRIED)]
        segments = min(tried, key=lambda s: score_pair(
            judge(me.model_copy(update={"segments": s}), "mandarin"), judged, "mandarin",
            frozenset()).points)
    front, middle, back = segments
    return Act(command_id=ids.next(), table=ids.table, seat=number, action="set",
               front=front, middle=middle, back=back)


class RecordedShoe:
    """The cards of a table whose source is ``recorded`` (COM-8), dealt from a seeded shuffle
    as a card reader would report them; with an ``overpaying-dealer`` on duty, in the share of
    its hands given by its rate, the dealer's Caribbean Stud hand keyed in is one that does not
    qualify (CSP-3), taken from the cards left."""

    def __init__(self, rng: random.Random, dealer_cheats: Sequence[Cheat] = ()) -> None:
        self.rng = rng
        self.crooked = {c.who[0]: c.rate for c in dealer_cheats}
        self.on_duty: str | None = None
        self.cheated: dict[str, set[int]] = {dealer: set() for dealer in self.crooked}
        """The hands in which each crooked dealer keyed in a hand that does not qualify."""
        self._hand = -1
        self._deck: list[int] = []

    def __call__(self, table: TableView, hand: Any) -> dict[str, tuple[int, ...]]:
        if hand.hand_no != self._hand:
            self._hand = hand.hand_no
            self._deck = list(range(52))
            self.rng.shuffle(self._deck)
        plan = get_game(table.game).deal_plan(table, hand)
        out: dict[str, tuple[int, ...]] = {}
        for slot in plan.slots:
            take = slot.down + slot.up
            out[str(slot.target)] = tuple(self._deck[:take])
            del self._deck[:take]
        rate = self.crooked.get(self.on_duty or "")
        if rate is not None and "dealer" in out and self.rng.random() < rate:
            out["dealer"] = self._no_qualifier(out["dealer"])
            self.cheated[self.on_duty or ""].add(hand.hand_no)
        return out

    def _no_qualifier(self, dealt: tuple[int, ...]) -> tuple[int, ...]:
        pool = list(dealt) + self._deck
        for chosen in combinations(pool, 5):
            if not csp.dealer_qualifies(high.evaluate(chosen)):
                self._deck = [c for c in pool if c not in chosen]
                return chosen
        return dealt  # pragma: no cover - 47 cards always hold a hand below A-K
