"""Fixed-limit betting rounds of Seven Card Stud Hi/Lo (STUD8-2..5).

The round is replayed from the street's actions (``StudHand.actions``) with the table's settings,
so the hand state holds facts only. Seats are numbered clockwise from the dealer's left: "closest
to the dealer's left" is the lowest seat number, and "clockwise from a seat" wraps from the
highest seat to the lowest.

Decisions where the rules are silent (documented in the package docstring too):

- STUD8-2: the bring-in is posted by the lowest up card; when that seat is all-in after the
  ante, by the next seat clockwise with chips. It may complete instead but may not fold or
  check. A completion goes to the small bet; a bet is the street's bet; a raise is the current
  bet plus the street's bet, also over a short all-in bet (it counts as the bet to raise).
- A seat without enough chips for a call or a raise goes all-in for less. A short all-in bet or
  raise does not reopen the betting: seats that acted since the last full bet or raise may only
  call or fold, unless consecutive short raises add up to a full increment.
- STUD8-3: with an open pair showing on fourth street, a bet or raise is either the small or the
  big bet; once the big bet is used in the round, every later raise is a big bet.
- STUD8-5: every completion, bet and raise counts toward the cap (a short all-in too); the cap
  is lifted when only two players are left in the hand (not folded).
- A seat may fold whenever it is its turn, even when it could check; the bring-in may not fold.
- A betting round happens only when two or more live seats have chips behind; otherwise the
  cards are dealt on without betting.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import cast

from ledger.domain.errors import RuleViolation
from ledger.domain.frozen import Kept
from ledger.evaluation import high
from ledger.games.stud8.model import StudConfig, StudHand, StudSeat

AGGRESSIVE = ("bet", "complete", "raise")


def clockwise(seats: Sequence[int], start: int, *, include_start: bool = True) -> list[int]:
    """``seats`` in clockwise order from ``start`` (which need not be among them)."""
    ordered = sorted(seats)
    at, past = bisect_left(ordered, start), bisect_right(ordered, start)
    head = [start] if include_start and past > at else []
    return head + ordered[past:] + ordered[:at]


def showing_strength(seat: StudSeat) -> int:
    """STUD8-3/4: the strength of the up cards (pairs, trips, quads, high cards)."""
    return high.evaluate_showing(seat.up) if seat.up else 0


def open_pair(hand: StudHand) -> bool:
    """STUD8-3: a seat dealt fourth street shows a pair (the option holds for the round)."""
    if hand.street != 4:
        return False
    for s in hand.seats:
        if s.folded_on is not None and s.folded_on < 4:
            continue
        up = s.up
        if len(up) > 1 and len({c >> 2 for c in up}) < len(up):
            return True
    return False


def bring_in_seat(hand: StudHand, config: StudConfig, behind: Mapping[int, int]) -> int:
    """STUD8-2: the lowest up card brings in.

    Ties (equal ranks) are broken by suit, clubs lowest, or by the seat closest to the dealer's
    left, as the table's ``bring_in_tiebreak`` says. When the lowest card is all-in (nothing
    behind after the ante), the bring-in falls to the next seat clockwise with chips.
    """

    def key(s: StudSeat) -> tuple[int, int]:
        card = s.up[0]
        tiebreak = card & 3 if config.bring_in_tiebreak == "suit" else s.seat
        return card >> 2, tiebreak

    low = min((s for s in hand.live if s.up), key=key).seat
    order = clockwise([s.seat for s in hand.live], low)
    return next(seat for seat in order if behind.get(seat, 0) > 0)


@dataclass
class RoundState:
    """The betting round as replayed from the street's actions."""

    size: int
    """The increment of a bet or raise now."""
    bring_in_due: bool = False
    opener: int | None = None
    pending: list[int] = field(default_factory=list)
    acted: set[int] = field(default_factory=set)
    short_sum: int = 0
    bet_to: int = 0
    third_street: bool = False
    raises: int = 0
    aggressor: int | None = None
    street_bets: dict[int, int] = field(default_factory=dict)

    def to_call(self, seat: int) -> int:
        return self.bet_to - self.street_bets.get(seat, 0)

    def copy(self) -> RoundState:
        return RoundState(self.size, self.bring_in_due, self.opener, list(self.pending),
                          set(self.acted), self.short_sum, self.bet_to, self.third_street,
                          self.raises, self.aggressor, dict(self.street_bets))

    def target(self, size: int) -> int:
        """The level a full completion, bet or raise of ``size`` goes to: the small bet for
        the completion of a bring-in (STUD8-2), else ``size`` over the current bet, even when
        that bet is a short all-in."""
        return size if self.completing else self.bet_to + size

    @property
    def completing(self) -> bool:
        """Third street before anybody completed: the next aggression is a completion."""
        return self.third_street and self.raises == 0

    def aggression_name(self) -> str:
        if self.completing:
            return "complete"
        return "raise" if self.bet_to else "bet"


def round_state(hand: StudHand, config: StudConfig) -> RoundState:
    """Replay the current street's actions (STUD8-2..5).

    The result is kept with the hand (a hand is a frozen value) and must not be changed; the
    hand after one more action of the street has its round from this one and that action
    (:func:`after_action`), the same as replaying the street again."""
    known = _known(hand, config)
    if known is not None:
        return known
    street = hand.street
    rs = RoundState(size=config.small_bet if street <= 4 else config.big_bet)
    live = [s.seat for s in hand.seats if s.folded_on is None]
    if street == 3:
        rs.bring_in_due = True
        rs.third_street = True
    elif street >= 4:
        rs.opener = best_showing_at_start(hand)
        rs.pending = clockwise(live_at_start(hand), rs.opener)
    for act in hand.actions:
        _step(rs, hand, config, live, act.seat, act.action, act.amount)
    _keep(hand, config, rs)
    return rs


def after_action(before: StudHand, after: StudHand, seat: int, action: str,
                 amount: int) -> None:
    """Give ``after`` (``before`` with one more action of the street) its round, when
    ``before`` has one kept: the round of ``before`` with that action, as :func:`round_state`
    would replay it.

    The replay reads the seats live at its end; a seat that folds later in the street is
    removed from the seats to act by its fold, so taking the seats live at each action leads
    to the same round."""
    kept = _ROUND.get(before)
    if kept is None:
        return
    config, rs = kept
    rs = rs.copy()
    live = [s.seat for s in after.seats if s.folded_on is None]
    _step(rs, after, config, live, seat, action, amount)
    _keep(after, config, rs)


def keep_round(before: StudHand, after: StudHand) -> None:
    """``after`` has the round of ``before`` (same street, same actions: a show or a muck)."""
    kept = _ROUND.get(before)
    if kept is not None:
        _ROUND.put(after, kept)


def _known(hand: StudHand, config: StudConfig) -> RoundState | None:
    kept = _ROUND.get(hand)
    if kept is not None and kept[0] is config:
        return cast(RoundState, kept[1])
    return None


def _keep(hand: StudHand, config: StudConfig, rs: RoundState) -> None:
    _ROUND.put(hand, (config, rs))


_ROUND = Kept(StudHand, "_round")
"""The round replayed for a hand, with the configuration it was replayed with."""


def _step(rs: RoundState, hand: StudHand, config: StudConfig, live: list[int], seat: int,
          action: str, amount: int) -> None:
    """One action of the street folded into the round (``live``: the seats not folded)."""
    street = hand.street
    street_bets = rs.street_bets
    level = street_bets.get(seat, 0) + amount
    street_bets[seat] = level
    if action == "fold":
        _remove(rs.pending, seat)
        return
    if action == "show" or action == "muck":
        return
    if rs.bring_in_due:
        rs.bring_in_due = False
        rs.opener = seat
        rs.pending = clockwise([s for s in live if s != seat], seat, include_start=False)
    else:
        _remove(rs.pending, seat)
    rs.acted.add(seat)
    if action == "check" or action == "call" or action == "bring_in":
        if level > rs.bet_to:
            rs.bet_to = level
        return
    # completion, bet or raise
    if (street == 4 and rs.size == config.small_bet and level >= rs.target(config.big_bet)
            and open_pair(hand)):
        rs.size = config.big_bet  # STUD8-3: the big bet was chosen with an open pair
    full_target = rs.target(rs.size)
    increment = level - rs.bet_to
    rs.raises += 1
    rs.aggressor = seat
    rs.pending = clockwise([s for s in live if s != seat], seat, include_start=False)
    if level >= full_target:
        rs.acted = {seat}
        rs.short_sum = 0
    else:
        rs.short_sum += increment
        if rs.short_sum >= rs.size:
            rs.acted = {seat}
            rs.short_sum = 0
    rs.bet_to = level


def live_at_start(hand: StudHand) -> list[int]:
    """Seats live now or folded during this street (they were dealt the street)."""
    street = hand.street
    return [s.seat for s in hand.seats if s.folded_on is None or s.folded_on >= street]


def best_showing_at_start(hand: StudHand) -> int:
    """STUD8-3/4: who acts first on this street: best showing among the seats dealt to."""
    street = hand.street
    strengths = [(showing_strength(s), s.seat) for s in hand.seats
                 if s.folded_on is None or s.folded_on >= street]
    best = max(strength for strength, _ in strengths)
    return min(seat for strength, seat in strengths if strength == best)


def _remove(items: list[int], value: int) -> None:
    if value in items:
        items.remove(value)


# --- whose turn, and what they may do --------------------------------------------------------


@dataclass(slots=True)
class Turn:
    """Who acts now in the betting, or None when the round is over (not changed once made)."""

    seat: int | None
    bring_in: bool = False


def current_turn(
    hand: StudHand, config: StudConfig, rs: RoundState, behind: Mapping[int, int]
) -> Turn:
    """The seat to act, skipping all-in seats; None when the round is over."""
    live = hand.live
    with_chips = [s.seat for s in live if behind.get(s.seat, 0) > 0]
    if len(live) < 2:
        return Turn(None)
    if rs.bring_in_due:
        if len(with_chips) < 2:
            return Turn(None)
        return Turn(bring_in_seat(hand, config, behind), bring_in=True)
    actors = [s for s in rs.pending if s in with_chips]
    if not actors:
        return Turn(None)
    if len(with_chips) == 1 and rs.to_call(actors[0]) <= 0:
        return Turn(None)
    return Turn(actors[0])


def raise_cap(hand: StudHand, config: StudConfig) -> int | None:
    """STUD8-5: how many completions, bets and raises a round allows (None: unlimited)."""
    if config.max_raises is None:
        return None
    if config.heads_up_unlimited and len(hand.live) == 2:
        return None
    return 1 + config.max_raises


@dataclass(slots=True)
class Choice:
    """A legal action and the chips it puts in (several amounts for the open-pair option; not
    changed once made)."""

    action: str
    amounts: tuple[int, ...] = (0,)


def choices(
    hand: StudHand, config: StudConfig, rs: RoundState, turn: Turn, behind: Mapping[int, int]
) -> list[Choice]:
    """Every legal action of the seat to act, with the chips each puts in."""
    seat = turn.seat
    assert seat is not None
    stack = behind.get(seat, 0)
    if turn.bring_in:
        out = [Choice("bring_in", (min(config.bring_in, stack),))]
        if stack > config.bring_in:
            out.append(Choice("complete", (min(config.small_bet, stack),)))
        return out
    to_call = rs.to_call(seat)
    out = [Choice("fold")]
    if to_call <= 0:
        out.append(Choice("check"))
    else:
        out.append(Choice("call", (min(to_call, stack),)))
    if can_raise(hand, config, rs, seat, behind) is None:
        bet = rs.street_bets.get(seat, 0)
        sizes = [rs.size]
        if rs.size == config.small_bet and open_pair(hand):
            sizes.append(config.big_bet)
        amounts = tuple(sorted({min(rs.target(size) - bet, stack) for size in sizes}))
        out.append(Choice(rs.aggression_name(), amounts))
    return out


def can_raise(
    hand: StudHand, config: StudConfig, rs: RoundState, seat: int, behind: Mapping[int, int]
) -> RuleViolation | None:
    """None when ``seat`` may complete, bet or raise now; else the reason it may not."""
    cap = raise_cap(hand, config)
    if cap is not None and rs.raises >= cap:
        return RuleViolation(
            "raise_cap_reached",
            f"this round allows one bet and {config.max_raises} raises, all made (STUD8-5)",
            cap=cap, rule="STUD8-5",
        )
    stack = behind.get(seat, 0)
    if stack <= rs.to_call(seat):
        return RuleViolation(
            "raise_not_allowed",
            f"seat {seat} has only enough chips to call ({stack})",
            seat=seat, stack=stack, rule="STUD8-9",
        )
    if rs.short_sum and seat in rs.acted:
        return RuleViolation(
            "raise_not_reopened",
            f"seat {seat} already acted and a short all-in does not reopen the betting",
            seat=seat, rule="STUD8-9",
        )
    bets, bet_to = rs.street_bets, rs.bet_to
    for s in hand.live:  # another seat with chips beyond the bet now
        other = s.seat
        if other != seat and behind.get(other, 0) + bets.get(other, 0) > bet_to:
            return None
    return RuleViolation(
        "raise_not_allowed",
        "every other player is all-in or has folded: there is nobody to raise",
        seat=seat, rule="STUD8-9",
    )
