"""Points between every pair of players (CHP-2..7), before any money moves.

Each player's hand is first classified: *automatic* (a declared automatic win, CHP-7), *fouled*
(wrong segment sizes, segments out of order, CHP-3, or left before setting, COM-6) or *played*.
Then every pair of players is scored from the first seat's point of view; the second seat scores
the opposite, so the points of the table net to zero before table stakes apply.

- Automatic wins (CHP-7) settle every pair they are in: a Dragon collects 13 and beats every
  other automatic win; six pairs, three flushes and three straights collect 4; two automatic
  wins other than the Dragon push, and two Dragons push. An automatic win collects its points
  from a fouled hand too, instead of the foul penalty, whatever the order of its segments.
- Two fouled hands score 0 against each other; a fouled hand pays 6 to every played hand, plus
  every bonus that hand holds and the super bonus (CHP-3, CHP-5, CHP-6).
- Two played hands compare segment by segment (CHP-2, CHP-4): 1 point per segment won, net of
  segments lost, a tie scores nothing. ``mandarin``: a scoop is worth 6, and each segment that
  wins brings its bonus (CHP-5), paid only by the opponent whose same segment it beats
  (**decision**); ``basic``: no scoop value, no bonuses, no super bonus.
- Super bonus (CHP-6, ``mandarin``): with all four seats played, a played hand that scoops all
  three opponents collects 9 from each instead of 6, plus its bonuses. **Decisions:** "all four
  seats played" means four players dealt in (a player who left before setting counts, fouled);
  a fouled opponent counts as scooped, an opponent with an automatic win does not; a hand
  settled as an automatic win is not "scooping" (CHP-7 settles its pairs).

Every comparison is made by :mod:`ledger.evaluation.chinese` and :mod:`ledger.evaluation.high`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from ledger.domain.errors import RuleViolation
from ledger.domain.records import PointsLine
from ledger.evaluation import high
from ledger.evaluation.chinese import (
    AutomaticWin,
    automatic_wins,
    evaluate_front,
    evaluate_segment,
    is_fouled,
)
from ledger.games.chinese.config import Scoring
from ledger.games.chinese.hand import ChineseSeat

SEGMENT_NAMES = ("front", "middle", "back")
SEGMENT_SIZES = (3, 5, 5)
FOUL_POINTS = 6
"""CHP-3: a fouled hand pays 6 to every other player."""
SCOOP_POINTS = 6
"""CHP-4 ``mandarin``: winning all three segments against one opponent."""
SUPER_POINTS = 9
"""CHP-6: a scoop of all three opponents, with all four seats played."""
FULL_TABLE = 4
"""CHP-6: the super bonus needs all four seats played."""
AUTOMATIC_POINTS = {
    AutomaticWin.DRAGON: 13,
    AutomaticWin.SIX_PAIRS: 4,
    AutomaticWin.THREE_FLUSHES: 4,
    AutomaticWin.THREE_STRAIGHTS: 4,
}
"""CHP-7: what an automatic win collects from every other player."""

_STRAIGHT_FLUSHES = (high.Category.STRAIGHT_FLUSH, high.Category.ROYAL_FLUSH)
_BONUSES: tuple[dict[high.Category, int], ...] = (
    {high.Category.THREE_OF_A_KIND: 3},
    {**dict.fromkeys(_STRAIGHT_FLUSHES, 10), high.Category.FOUR_OF_A_KIND: 8,
     high.Category.FULL_HOUSE: 2},
    {**dict.fromkeys(_STRAIGHT_FLUSHES, 5), high.Category.FOUR_OF_A_KIND: 4},
)
"""CHP-5 by segment (front, middle, back); a royal flush is a straight flush."""

Status = Literal["played", "fouled", "automatic"]
Result = Literal["win", "lose", "push", "scoop"]


@dataclass(frozen=True)
class Bonus:
    """A CHP-5 bonus one segment holds."""

    segment: int
    label: str
    points: int


@dataclass(frozen=True)
class Judged:
    """One player's hand as the dealer reads it at the opening."""

    seat: int
    status: Status
    reason: str = ""
    automatic: AutomaticWin | None = None
    strengths: tuple[int, int, int] = (0, 0, 0)
    bonuses: tuple[Bonus, ...] = ()


@dataclass(frozen=True)
class PairScore:
    """The points between ``seat`` and ``opponent``, from ``seat``'s point of view."""

    seat: int
    opponent: int
    points: int
    result: Result
    rule: str
    detail: tuple[str, ...]

    def line(self) -> PointsLine:
        return PointsLine(seat=self.seat, opponent=self.opponent, points=self.points,
                          detail=self.detail)


def judge(seat: ChineseSeat, scoring: Scoring) -> Judged:
    """Classify a player's hand: automatic win (CHP-7), fouled (CHP-3, COM-6) or played."""
    if seat.folded or seat.segments is None:
        return Judged(seat.seat, "fouled", "left the table before setting (COM-6)")
    front, middle, back = seat.segments
    if seat.declaration is not None:
        win = AutomaticWin(seat.declaration)
        if win not in automatic_wins(front, middle, back):
            raise RuleViolation(
                "declaration_not_supported",
                f"seat {seat.seat}'s cards do not make {win.value} (CHP-7)",
                seat=seat.seat, declaration=win.value, rule="CHP-7",
            )
        return Judged(seat.seat, "automatic", automatic=win)
    sizes = tuple(len(s) for s in seat.segments)
    if sizes != SEGMENT_SIZES:
        return Judged(seat.seat, "fouled", f"segments of {sizes[0]}/{sizes[1]}/{sizes[2]} "
                      "cards instead of 3/5/5 (CHP-3)")
    if is_fouled(front, middle, back):
        return Judged(seat.seat, "fouled", "segments out of order (CHP-2, CHP-3)")
    strengths = (evaluate_front(front), evaluate_segment(middle), evaluate_segment(back))
    bonuses: tuple[Bonus, ...] = ()
    if scoring == "mandarin":
        bonuses = tuple(
            Bonus(i, high.category(strengths[i]).label, points)
            for i in range(3)
            if (points := _BONUSES[i].get(high.category(strengths[i]), 0))
        )
    return Judged(seat.seat, "played", strengths=strengths, bonuses=bonuses)


def score_table(seats: Sequence[ChineseSeat], scoring: Scoring) -> dict[tuple[int, int], PairScore]:
    """Every ordered pair of players (CHP-3..7), keyed ``(seat, opponent)``, in ``seats`` order."""
    judged = [judge(s, scoring) for s in seats]
    supers = _super_seats(judged, scoring)
    return {(a.seat, b.seat): score_pair(a, b, scoring, supers)
            for a in judged for b in judged if a is not b}


def segment_results(a: Judged, b: Judged) -> tuple[int, ...]:
    """CHP-2, CHP-4: per segment +1 when ``a`` wins it, -1 when ``b`` does, 0 on a tie."""
    return tuple((x > y) - (x < y) for x, y in zip(a.strengths, b.strengths, strict=True))


def _super_seats(judged: Sequence[Judged], scoring: Scoring) -> frozenset[int]:
    """CHP-6: the played hands that scoop all three opponents at a full table."""
    if scoring != "mandarin" or len(judged) != FULL_TABLE:
        return frozenset()
    return frozenset(
        a.seat for a in judged
        if a.status == "played" and all(
            b.status == "fouled" or (b.status == "played" and min(segment_results(a, b)) == 1)
            for b in judged if b is not a
        )
    )


def score_pair(a: Judged, b: Judged, scoring: Scoring, supers: frozenset[int]) -> PairScore:
    """The points between ``a`` and ``b`` from ``a``'s side (CHP-3..7); ``score_pair(b, a)`` is
    the exact opposite."""
    if a.status == "automatic" or b.status == "automatic":
        points, rule, detail, scoop = _automatic(a, b)
    elif a.status == "fouled" and b.status == "fouled":
        points, rule, detail, scoop = 0, "CHP-3", ["both hands fouled: 0 (CHP-3)"], False
    elif a.status == "fouled" or b.status == "fouled":
        points, rule, detail, scoop = _foul(a, b, scoring, supers)
    else:
        points, rule, detail, scoop = _played(a, b, scoring, supers)
    if points > 0:
        result: Result = "scoop" if scoop else "win"
    else:
        result = "lose" if points < 0 else "push"
    return PairScore(a.seat, b.seat, points, result, rule, tuple(detail))


_Scored = tuple[int, str, list[str], bool]


def _automatic(a: Judged, b: Judged) -> _Scored:
    """CHP-7 from ``a``'s side: the Dragon beats every other automatic win; two other
    automatic wins, or two Dragons, push; an automatic win collects from any other hand."""
    if a.automatic is not None and b.automatic is not None:
        head = f"automatic {a.automatic.value} against automatic {b.automatic.value}"
        a_dragon = a.automatic == AutomaticWin.DRAGON
        if a_dragon == (b.automatic == AutomaticWin.DRAGON):
            return 0, "CHP-7", [f"{head}: push (CHP-7)"], False
        points = AUTOMATIC_POINTS[AutomaticWin.DRAGON] * (1 if a_dragon else -1)
        return points, "CHP-7", [f"{head}: the dragon wins {points:+d} (CHP-7)"], False
    if a.automatic is not None:
        points = AUTOMATIC_POINTS[a.automatic]
        text = f"automatic {a.automatic.value} {points:+d} (CHP-7)"
    else:
        assert b.automatic is not None
        points = -AUTOMATIC_POINTS[b.automatic]
        text = f"opponent automatic {b.automatic.value} {points:+d} (CHP-7)"
    other = b if a.automatic is not None else a
    if other.status == "fouled":
        text += ", instead of the foul penalty"
    return points, "CHP-7", [text], False


def _foul(a: Judged, b: Judged, scoring: Scoring, supers: frozenset[int]) -> _Scored:
    """CHP-3 from ``a``'s side, one of the two fouled: the fouled hand pays 6 plus every bonus
    the other holds, super bonus included (CHP-5, CHP-6)."""
    winner, fouled = (a, b) if b.status == "fouled" else (b, a)
    sign = 1 if winner is a else -1
    who = "opponent" if winner is a else "own hand"
    detail = [f"{who} fouled: {fouled.reason}"]
    if winner.seat in supers:
        base, rule = SUPER_POINTS, "CHP-6"
        detail.append(f"super bonus, scoop of all three opponents {sign * base:+d} (CHP-6)")
    else:
        base, rule = FOUL_POINTS, "CHP-3"
        detail.append(f"foul {sign * base:+d} (CHP-3)")
    bonuses = winner.bonuses if scoring == "mandarin" else ()
    detail.extend(_bonus_text(bonus, sign) for bonus in bonuses)
    points = sign * (base + sum(bonus.points for bonus in bonuses))
    return points, rule, detail, rule == "CHP-6"


def _played(a: Judged, b: Judged, scoring: Scoring, supers: frozenset[int]) -> _Scored:
    """CHP-4 between two played hands from ``a``'s side; ``mandarin`` adds the scoop, the
    bonuses of the segments that win (CHP-5) and the super bonus (CHP-6)."""
    results = segment_results(a, b)
    words = {1: "win", -1: "lose", 0: "tie"}
    detail = [f"{name} {words[r]}" for name, r in zip(SEGMENT_NAMES, results, strict=True)]
    net = sum(results)
    if scoring == "basic" or abs(net) != 3:
        detail.append(f"segments {net:+d} (CHP-4)")
        points, rule, scoop = net, "CHP-4", False
    elif (a if net > 0 else b).seat in supers:
        points, rule, scoop = SUPER_POINTS * (net // 3), "CHP-6", True
        detail.append(f"super bonus, scoop of all three opponents {points:+d} (CHP-6)")
    else:
        points, rule, scoop = SCOOP_POINTS * (net // 3), "CHP-4", True
        detail.append(f"scoop {points:+d} (CHP-4)")
    if scoring == "mandarin":
        for bonus in a.bonuses:
            if results[bonus.segment] == 1:
                points += bonus.points
                detail.append(_bonus_text(bonus, 1))
        for bonus in b.bonuses:
            if results[bonus.segment] == -1:
                points -= bonus.points
                detail.append(_bonus_text(bonus, -1))
    return points, rule, detail, scoop


def _bonus_text(bonus: Bonus, sign: int) -> str:
    owner = "bonus" if sign > 0 else "opponent bonus"
    name = SEGMENT_NAMES[bonus.segment]
    return f"{owner} {name} {bonus.label} {sign * bonus.points:+d} (CHP-5)"
