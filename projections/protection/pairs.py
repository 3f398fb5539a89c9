"""Pair tests over a period: every ordered pair that met, against the pair's other occasions.

An *occasion* is one moment where player A (the actor) did something that concerns player B
(the other): Stud Hi/Lo's folds, bets and chips (:mod:`.stud`), Chinese Poker's shortfalls
(:mod:`.chinese`). For each ordered pair the test (:mod:`.stats`) compares the pair's occasions
with A's occasions against everyone (is B special to A?) and with everyone's occasions against
B (is A special to B?); the p-value is the larger of the two. Counted kinds (each occasion 0 or
1) use the exact hypergeometric tail, summed kinds (amounts) the normal tail of a sum drawn
without replacement.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from projections.protection.stats import PairResult, Side, pair_count_test, pair_sum_test

TOP_HANDS = 5
"""How many of the most telling hands a test lists."""


@dataclass(frozen=True)
class Occasion:
    """One occasion between an ordered pair: ``value`` is 0/1 for a counted kind, an amount for
    a summed one; ``weight`` ranks the most telling hands (0: not telling)."""

    kind: str
    actor: str
    other: str
    table: str
    hand_no: int
    value: float
    weight: float = 0.0


@dataclass(frozen=True)
class PairTest:
    kind: str
    actor: str
    other: str
    occasions: int
    """Occasions of the pair."""
    total: float
    """Events (counted) or the amount (summed) over the pair's occasions."""
    expected: float
    """What the pair's occasions would add up to at the actor's rate with everyone."""
    result: PairResult
    hands: tuple[tuple[str, int], ...]
    """(table, hand number) of the most telling occasions of the pair."""


def run_pair_tests(kind: str, items: Sequence[Occasion], counted: bool,
               min_occasions: int = 1) -> list[PairTest]:
    """Every ordered pair with at least ``min_occasions`` occasions, tested (see the module)."""
    by_actor: dict[str, list[int]] = defaultdict(list)
    by_other: dict[str, list[int]] = defaultdict(list)
    pairs: dict[tuple[str, str], list[int]] = defaultdict(list)
    for i, item in enumerate(items):
        by_actor[item.actor].append(i)
        by_other[item.other].append(i)
        pairs[(item.actor, item.other)].append(i)
    tests = []
    for (actor, other), mine in sorted(pairs.items()):
        if len(mine) < min_occasions:
            continue
        first = [items[i] for i in by_actor[actor]]
        second = [items[i] for i in by_other[other]]
        if counted:
            result = pair_count_test(_side(first, other_is=other), _side(second, actor_is=actor))
        else:
            result = pair_sum_test(
                ([o.value for o in first], [o.other == other for o in first]),
                ([o.value for o in second], [o.actor == actor for o in second]))
        total = sum(items[i].value for i in mine)
        rate = sum(o.value for o in first) / len(first)
        tests.append(PairTest(kind, actor, other, len(mine), total, rate * len(mine), result,
                              telling(items[i] for i in mine)))
    return tests


def _side(population: Sequence[Occasion], other_is: str | None = None,
          actor_is: str | None = None) -> Side:
    chosen = [o for o in population
              if (other_is is None or o.other == other_is)
              and (actor_is is None or o.actor == actor_is)]
    return Side(occasions=len(population), total=sum(o.value for o in population),
                pair_occasions=len(chosen), pair_total=sum(o.value for o in chosen))


def telling(items: Iterable[Occasion], top: int = TOP_HANDS) -> tuple[tuple[str, int], ...]:
    """The distinct hands of the heaviest occasions, heaviest first."""
    best: dict[tuple[str, int], float] = {}
    for item in items:
        if item.weight > 0:
            key = (item.table, item.hand_no)
            best[key] = max(best.get(key, 0.0), item.weight)
    ranked = sorted(best.items(), key=lambda kv: (-kv[1], kv[0]))
    return tuple(key for key, _ in ranked[:top])
