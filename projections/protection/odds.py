"""What the hidden cards can do to each action a player could take, and how one decision is
judged against them once the cards are known.

A decision is made from the cards a player can see. The cards it cannot see fall into a few
*cells* (for Caribbean Stud: the dealer does not qualify, the player wins, a tie, the dealer
wins); every hidden hand of a cell gives each action the same result. :class:`ActionOdds` holds,
per cell, how many of the equally likely hidden hands fall in it and what each action returns
there (integer minor units). From it follow, exactly:

- the expected result of each action (what the cards the player saw promise);
- the probability that an action turns out *a best one* once every card is known (its result
  is the largest of all actions' in the hidden hand that came);
- the variance of an action's result.

:func:`judge` then scores the action chosen, given the cell the real hidden cards fell in: was
it a best one (``was_best``), its real result, and the same figures a player who could not see
the hidden cards would expect. The information test (:mod:`.stats`) sums these over many
decisions: an honest player's ``was_best`` is a coin with probability ``p_best`` whatever its
strategy, a player who sees the hidden cards picks a best action far more often.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

__all__ = ["ActionOdds", "Judgement", "judge"]


@dataclass(frozen=True)
class ActionOdds:
    """Per cell of hidden hands: how many (``counts``) and each action's result (``results``,
    one row per cell, one column per action, minor units). Cells with no hands may be left in."""

    actions: tuple[str, ...]
    cells: tuple[str, ...]
    counts: tuple[int, ...]
    results: tuple[tuple[int, ...], ...]

    def __post_init__(self) -> None:
        if len(self.cells) != len(self.counts) or len(self.counts) != len(self.results):
            raise ValueError("one count and one row of results per cell")
        if any(len(row) != len(self.actions) for row in self.results):
            raise ValueError("one result per action in every cell")
        if any(c < 0 for c in self.counts) or not self.total:
            raise ValueError("counts must be non-negative and not all zero")

    @property
    def total(self) -> int:
        """The hidden hands counted (all equally likely)."""
        return sum(self.counts)

    def index(self, action: str) -> int:
        return self.actions.index(action)

    def expected(self, action: int) -> Fraction:
        """The expected result of an action, exact (minor units)."""
        total = sum(n * row[action] for n, row in zip(self.counts, self.results, strict=True))
        return Fraction(total, self.total)

    def variance(self, action: int) -> Fraction:
        """The variance of an action's result over the hidden hands, exact."""
        mean = self.expected(action)
        total = sum(n * (row[action] - mean) ** 2
                    for n, row in zip(self.counts, self.results, strict=True))
        return Fraction(total) / self.total

    def best_in(self, cell: int, action: int) -> bool:
        """Whether ``action`` gives the largest result of all actions in ``cell``."""
        row = self.results[cell]
        return row[action] == max(row)

    def p_best(self, action: int) -> Fraction:
        """The probability that ``action`` turns out a best one once the hidden cards are known."""
        hits = sum(n for cell, n in enumerate(self.counts) if n and self.best_in(cell, action))
        return Fraction(hits, self.total)

    def optimal(self) -> int:
        """The action with the largest expected result (the first of equals)."""
        values = [self.expected(a) for a in range(len(self.actions))]
        return values.index(max(values))

    def probabilities(self) -> dict[str, float]:
        """Each cell's probability (for display)."""
        return {cell: n / self.total for cell, n in zip(self.cells, self.counts, strict=True)}


@dataclass(frozen=True)
class Judgement:
    """One decision scored against the hidden cards that came (see :func:`judge`)."""

    action: str
    p_best: float
    """Probability that the chosen action turns out a best one, from the cards seen."""
    was_best: bool
    """Whether it did, with every card known."""
    expected: float
    """Expected result of the chosen action from the cards seen (minor units)."""
    variance: float
    result: int
    """The chosen action's result with the hidden cards that came (minor units)."""
    optimal_action: str
    optimal_expected: float
    """The largest expected result of any action: the chosen one's shortfall is the cost of
    the decision (decision quality)."""
    cell: str

    @property
    def cost(self) -> float:
        """Expected result given up by not taking the optimal action (>= 0)."""
        return self.optimal_expected - self.expected


def judge(odds: ActionOdds, chosen: str, cell: str) -> Judgement:
    """Score the action ``chosen`` given the ``cell`` the hidden cards fell in."""
    action = odds.index(chosen)
    where = odds.cells.index(cell)
    if not odds.counts[where]:
        raise ValueError(f"the hidden cards cannot fall in cell {cell!r}")
    best = odds.optimal()
    return Judgement(
        action=chosen,
        p_best=float(odds.p_best(action)),
        was_best=odds.best_in(where, action),
        expected=float(odds.expected(action)),
        variance=float(odds.variance(action)),
        result=odds.results[where][action],
        optimal_action=odds.actions[best],
        optimal_expected=float(odds.expected(best)),
        cell=cell,
    )


def tally(judgements: Sequence[Judgement]) -> tuple[int, float]:
    """How many decisions were a best one, and how many were expected to be."""
    return sum(j.was_best for j in judgements), sum(j.p_best for j in judgements)
