"""Seven Card Stud Hi/Lo: what each pair of players did to each other, hand by hand.

The ledger knows every card of every hand, face down ones too, so at every decision it can say
whether one player's cards were ahead of another's at that moment. *Ahead* means the cards so
far would win at least one half against the other's if the hand ended now (STUD8-7): a better
high (five or more cards by :func:`ledger.evaluation.high.evaluate`, fewer by the showing
strength: pairs, trips and high cards), or a qualifying low the other does not beat (five or
more cards). *Behind in both* is the opposite in both halves. The community card (STUD8-6)
counts in every hand.

Three kinds of occasion between an ordered pair (A, B), each collected over a period for every
pair that played together (:func:`occasions`), then tested against how A treats everyone else
and how everyone else treats B (:mod:`.stats`):

- ``soft_fold``: A acts facing a bet or raise that B made in the round, while A's cards are
  ahead of B's; the event is that A folds a hand that was winning against the bettor.
- ``bet_behind``: A bets, raises or completes while B is still in the hand; the event is that
  A's cards are behind B's in both halves: chips put in that can only go to B if the cards
  stay as they are.
- ``chips_passed``: at the end of a hand, chips A lost that B won (A's loss times B's share of
  the winnings); the amount counts as *unexplained* when A's cards were ahead of B's at A's
  last action: strength does not explain why A's chips went to B.

What this cannot see: collusion that needs no chips to move between the pair (signalling to
squeeze a third player), a pair who never meet in a hand, and a pair whose cheating is too
rare in the period to stand out; and it sees only what the cards say at each moment, not what
the players knew (honest players fold winning hands too: the tests compare rates, never a
single fold).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from ledger.evaluation import high, low
from projections.protection.pairs import Occasion

AGGRESSIVE = frozenset({"bet", "raise", "complete"})
KINDS = ("soft_fold", "bet_behind", "chips_passed")


@dataclass(frozen=True)
class Deal:
    """Cards dealt in one round: ``target`` a seat or ``"community"``."""

    version: int
    target: int | str
    cards: tuple[int, ...]


@dataclass(frozen=True)
class Action:
    version: int
    seat: int
    action: str


@dataclass(frozen=True)
class StudHandFacts:
    """One settled hand as the protection tests read it."""

    table: str
    hand_no: int
    players: Mapping[int, str]
    deals: Sequence[Deal]
    actions: Sequence[Action]
    net: Mapping[int, int]
    """Each seat's result over the hand (minor units)."""


@dataclass
class _State:
    cards: dict[int, list[int]] = field(default_factory=lambda: defaultdict(list))
    community: list[int] = field(default_factory=list)
    folded: set[int] = field(default_factory=set)
    aggressor: int | None = None
    last_ahead: dict[tuple[int, int], bool] = field(default_factory=dict)

    def hand_of(self, seat: int) -> list[int]:
        return self.cards[seat] + self.community


def _strengths(cards: Sequence[int]) -> tuple[int, int | None]:
    if len(cards) >= 5:
        return high.evaluate(cards), low.evaluate_low8(cards)
    return high.evaluate_showing(cards), None


def ahead(mine: Sequence[int], theirs: Sequence[int]) -> bool:
    """Whether ``mine`` would win at least one half against ``theirs`` now (STUD8-7)."""
    hi_a, lo_a = _strengths(mine)
    hi_b, lo_b = _strengths(theirs)
    return hi_a > hi_b or (lo_a is not None and (lo_b is None or lo_a > lo_b))


def behind_both(mine: Sequence[int], theirs: Sequence[int]) -> bool:
    """Whether ``mine`` loses both halves to ``theirs`` now (it could win no part of a pot)."""
    hi_a, lo_a = _strengths(mine)
    hi_b, lo_b = _strengths(theirs)
    return hi_a < hi_b and (lo_a is None or (lo_b is not None and lo_b > lo_a))


def occasions(hand: StudHandFacts) -> list[Occasion]:
    """Every occasion of the hand between ordered pairs of its players (see the module)."""
    out: list[Occasion] = []
    state = _State()
    events: list[tuple[int, int, Deal | Action]] = [(d.version, 0, d) for d in hand.deals]
    events += [(a.version, 1, a) for a in hand.actions]
    round_version = None
    name = hand.players.get
    for _, _, event in sorted(events, key=lambda e: (e[0], e[1])):
        if isinstance(event, Deal):
            if event.version != round_version:
                round_version, state.aggressor = event.version, None
            if event.target == "community":
                state.community.extend(event.cards)
            elif isinstance(event.target, int):
                state.cards[event.target].extend(event.cards)
            continue
        seat, action = event.seat, event.action
        if action in ("show", "muck") or seat not in hand.players:
            continue
        mine = state.hand_of(seat)
        others = [s for s in hand.players if s != seat and s not in state.folded
                  and state.cards.get(s)]
        for other in others:
            state.last_ahead[(seat, other)] = ahead(mine, state.hand_of(other))
        bettor = state.aggressor
        if bettor is not None and bettor != seat and bettor not in state.folded and \
                state.last_ahead.get((seat, bettor)):
            out.append(Occasion("soft_fold", str(name(seat)), str(name(bettor)), hand.table,
                                hand.hand_no, float(action == "fold"),
                                weight=1.0 if action == "fold" else 0.0))
        if action in AGGRESSIVE:
            state.aggressor = seat
            for other in others:
                behind = behind_both(mine, state.hand_of(other))
                out.append(Occasion("bet_behind", str(name(seat)), str(name(other)),
                                    hand.table, hand.hand_no, float(behind),
                                    weight=1.0 if behind else 0.0))
        if action == "fold":
            state.folded.add(seat)
    out.extend(_chips(hand, state))
    return out


def _chips(hand: StudHandFacts, state: _State) -> Iterable[Occasion]:
    """``chips_passed``: each loser's loss shared among the winners in proportion to their
    winnings; unexplained when the loser was ahead of the winner at its last action."""
    gains = {s: n for s, n in hand.net.items() if n > 0 and s in hand.players}
    won = sum(gains.values())
    if not won:
        return
    for giver, result in hand.net.items():
        if result >= 0 or giver not in hand.players:
            continue
        for taker, gain in gains.items():
            flow = -result * gain / won
            unexplained = flow if state.last_ahead.get((giver, taker)) else 0.0
            yield Occasion("chips_passed", hand.players[giver], hand.players[taker],
                           hand.table, hand.hand_no, unexplained, weight=unexplained)


def by_pair(items: Iterable[Occasion]) -> dict[str, dict[tuple[str, str], list[Occasion]]]:
    """Occasions grouped by kind, then by ordered pair."""
    grouped: dict[str, dict[tuple[str, str], list[Occasion]]] = {k: {} for k in KINDS}
    for item in items:
        grouped[item.kind].setdefault((item.actor, item.other), []).append(item)
    return grouped
