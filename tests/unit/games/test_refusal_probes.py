"""A device probing hidden cards through refusals learns nothing (issue: no side channels).

For each game a hand is dealt and brought to the point where a hidden hand decides something;
then copies of the table that differ only in one seat's face-down cards get the same battery of
probes (every action, amounts from nothing to ten times the Ante, sets of segments, every
declaration, every other command). A probe must meet the same public answer on every copy
(code, text and details as a reader without those cards gets them, from ``LedgerError.public``),
unless the refusal is marked private to that seat: those are the refusals the rules cannot
help making (HCF-5's cap, CHP-3/CHP-7 checked against the seat's cards), and the API records
each of them (``ledger.access.probes``; tested over HTTP in
tests/integration/api/test_api_probes.py).
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from ledger.domain.cards import FULL_DECK, format_card
from ledger.domain.commands import (
    Act,
    Command,
    DealCards,
    PlaceWager,
    Reveal,
    Settle,
    StartHand,
    UnseatPlayer,
    VoidHand,
)
from ledger.domain.errors import LedgerError
from ledger.evaluation.chinese import AutomaticWin
from ledger.table.state import TableState
from tests.support.pure import PureTable, cid

ACTIONS = ("fold", "play", "raise", "check", "bet", "call", "complete", "bring_in", "accept",
           "decline", "show", "muck", "set", "declare")


def caribbean() -> tuple[PureTable, int]:
    t = PureTable("caribbean-stud", {}, {1: 100_000, 2: 100_000})
    t.do(StartHand)
    for seat in (1, 2):
        t.do(PlaceWager, seat=seat, kind="ante", amount=1_000)
    t.do(DealCards)
    return t, 1


def hcf() -> tuple[PureTable, int]:
    t = PureTable("high-card-flush", {}, {1: 50_000, 2: 20_000, 3: 20_000})
    t.do(StartHand)
    t.do(Act, seat=1, action="accept")
    for seat in (2, 3):
        t.do(PlaceWager, seat=seat, kind="ante", amount=1_000)
    t.do(DealCards)
    return t, t.step().seats[0]


def chinese() -> tuple[PureTable, int]:
    t = PureTable("chinese-poker", {}, {s: 2_000 for s in (1, 2, 3)})
    t.do(StartHand)
    t.do(DealCards)
    return t, 2


def stud() -> tuple[PureTable, int]:
    t = PureTable("stud-hilo", {}, {s: 50_000 for s in (1, 2, 3)})
    t.do(StartHand)
    t.do(DealCards)
    return t, 2


GAMES: dict[str, Callable[[], tuple[PureTable, int]]] = {
    "caribbean-stud": caribbean, "high-card-flush": hcf, "chinese-poker": chinese,
    "stud-hilo": stud,
}


def hidden_field(game: str) -> str:
    return "down" if game == "stud-hilo" else "cards"


def variant(state: TableState, game: str, seat: int, cards: tuple[int, ...]) -> TableState:
    """``state`` with ``seat``'s face-down cards replaced by ``cards``."""
    copied = copy.deepcopy(state)
    field = hidden_field(game)
    seats = tuple(s.model_copy(update={field: cards}) if s.seat == seat else s
                  for s in copied.hand.seats)
    copied.hand = copied.hand.model_copy(update={"seats": seats})
    return copied


def variants(state: TableState, game: str, seat: int, rng: random.Random, count: int = 6
             ) -> list[TableState]:
    """Copies of ``state`` whose ``seat`` holds other face-down cards: cards not dealt in the
    hand, or (Chinese Poker deals the whole deck) another seat's, swapped."""
    field = hidden_field(game)
    held = tuple(getattr(state.hand.seat(seat), field))
    dealt = set(state.hand_cards)
    for s in state.hand.seats:
        dealt.update(getattr(s, field))
        dealt.update(getattr(s, "up", ()))
    pool = [c for c in FULL_DECK if c not in dealt]
    if len(pool) >= len(held):
        found = [variant(state, game, seat, tuple(rng.sample(pool, len(held))))
                 for _ in range(count)]
        if game == "high-card-flush":  # and hands of every HCF-5 class: 4-, 5- and 6-flushes
            suit = max("cdhs", key=lambda x: sum(format_card(c)[1] == x for c in pool))
            same = [c for c in pool if format_card(c)[1] == suit]
            rest = [c for c in pool if format_card(c)[1] != suit]
            for length in (4, 5, 6):
                cards = same[:length] + rest[:len(held) - length]
                found.append(variant(state, game, seat, tuple(cards)))
        return found
    found = []
    for other in state.hand.seats:
        if other.seat != seat:
            swapped = variant(state, game, seat, tuple(getattr(other, field)))
            found.append(variant(swapped, game, other.seat, held))
    return found


def probes(t: PureTable, seat: int, rng: random.Random) -> Iterator[Command]:
    code = t.code
    held = list(getattr(t.state.hand.seat(seat), "cards", ()))
    for target in sorted({seat, *t.state.hand.participants()}):
        for action in ACTIONS:
            for amount in (None, 0, 1, 500, 1_000, 2_000, 3_000, 4_000, 10_000):
                yield Act(command_id=cid(), table=code, seat=target, action=action,
                          amount=amount)
        for win in AutomaticWin:
            yield Act(command_id=cid(), table=code, seat=target, action="declare",
                      declaration=win.value)
    deck = list(FULL_DECK)
    for known in (0, 6, 12, 13):  # sets holding that many of the seat's own cards
        cards = held[:known] + [c for c in rng.sample(deck, 40) if c not in held][:13 - known]
        if len(cards) == 13:
            yield Act(command_id=cid(), table=code, seat=seat, action="set",
                      front=tuple(cards[:3]), middle=tuple(cards[3:8]), back=tuple(cards[8:]))
    yield Reveal(command_id=cid(), table=code)
    yield Settle(command_id=cid(), table=code)
    yield DealCards(command_id=cid(), table=code)
    yield VoidHand(command_id=cid(), table=code, reason="probe")
    yield UnseatPlayer(command_id=cid(), table=code, seat=seat)
    for kind in ("ante", "raise", "flush_bonus", "jackpot"):
        yield PlaceWager(command_id=cid(), table=code, seat=seat, kind=kind, amount=1_000)


def answer(state: TableState, t: PureTable, command: Command) -> tuple[Any, ...]:
    """What a reader who sees no face-down card learns from ``command``: accepted, or the
    refusal's public code, text and details, and whether it is marked private."""
    try:
        state.decide(command, t.keeper)
    except LedgerError as exc:
        public = exc.public(frozenset())
        return ("refused", public.code, public.message, repr(sorted(public.details.items())),
                exc.private is not None)
    return ("accepted",)


@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_device_probing_hidden_cards_through_refusals_learns_nothing(game: str) -> None:
    rng = random.Random(f"probe-{game}")
    t, seat = GAMES[game]()
    copies = [t.state, *variants(t.state, game, seat, rng)]
    assert len(copies) > 2
    battery = list(probes(t, seat, rng))
    told = private = 0
    for command in battery:
        answers = [answer(state, t, command) for state in copies]
        refused_public = {a for a in answers if a[0] == "refused" and not a[-1]}
        if len(set(answers)) == 1:
            told += 1
            continue
        # The answers differ with the hidden cards: only a refusal marked private may do so
        # (it is recorded when a device meets it), and none of the public refusals may.
        assert all(a[0] == "accepted" or a[-1] for a in answers), (command, answers)
        assert len({a for a in answers if a[0] == "refused"}) == 1, (command, answers)
        assert not refused_public
        private += 1
    assert told > 100
    if game == "high-card-flush":  # the cap of the seat's flush: refused, marked, recorded
        assert private > 0


def test_chinese_poker_a_refused_set_tells_no_count_of_wrong_cards() -> None:
    """A set with 12 of the seat's 13 cards and one with none of them meet one public answer,
    naming no card and no count (the issue's 52-probe recovery of a seat's hand)."""
    rng = random.Random(7)
    t, seat = chinese()
    held = list(t.state.hand.seat(seat).cards)
    others = [c for c in FULL_DECK if c not in held]
    answers = set()
    for known in (0, 1, 6, 12):
        cards = held[:known] + rng.sample(others, 13 - known)
        command = Act(command_id=cid(), table=t.code, seat=seat, action="set",
                      front=tuple(cards[:3]), middle=tuple(cards[3:8]), back=tuple(cards[8:]))
        answers.add(answer(t.state, t, command))
    (only,) = answers
    assert only[1] == "wrong_cards" and only[-1] is True
    assert "??" not in only[2] and "extra" not in only[3] and "missing" not in only[3]
