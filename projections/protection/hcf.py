"""High Card Flush decisions against the designated player's hidden hand (HCF-4..11), exact.

A player folds or raises (HCF-5) seeing seven cards. The DP's seven are any seven of the 45
others: 45,379,620 equally likely hands, counted here exactly, not sampled.

What decides every wager is two numbers of the DP's hand: its flush key (``length << 13 | rank
mask`` of its best suit, HCF-4: larger is better, equal is a tie) and its straight-flush run key
(``length << 4 | top rank``, HCF-10). Both are the best of four per-suit values, so "the DP's
flush key is below ``t`` and its run key below ``r``" holds exactly when it holds in every suit.
In one suit the DP takes a subset of the ranks the player does not hold; the subsets meeting
both bounds, counted by size, make a polynomial, and the DP hands meeting them in all four suits
are the coefficient of ``x^7`` in the product of the four polynomials (the same generating
functions as :mod:`projections.reports.mathematics.hcf`, with the player's cards fixed). Bounds
at the qualifying flush (HCF-8), the player's flush and the player's run cut the DP's hands into
at most twelve cells, each homogeneous in every wager's result:

- the main wagers (HCF-8, HCF-9): the DP does not qualify (Ante 1-1, Raise pushes), or the
  player's flush is better (both win 1-1), equal (both push) or worse (both lose);
- the Flush Bonus (HCF-11) and the Straight Flush Bonus (HCF-10), in action only when raised:
  against the DP's flush and run, at the table's paytables.

A fold loses the Ante and both bonus wagers. A raise's result is linear in its size, so the best
raise is always the smallest (1x Ante) or the largest the flush allows: the actions compared are
the fold, those two raises, and the raise the player made when it is neither. A few milliseconds
per decision (``ops/bench/surveillance.py --timing``). Not modelled: the COM-7 cap, the HCF-12
coverage (a dead hand gets its wagers back), and the fee (HCF-13), which a player pays whether
it folds or raises.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from math import comb

import numpy as np
import numpy.typing as npt

from ledger.evaluation import hcf as ev
from ledger.evaluation._masks import MASK_COUNT, RUNS
from projections.protection.odds import ActionOdds

I64 = npt.NDArray[np.int64]
HAND = ev.HAND_SIZE
QUALIFYING_KEY = 3 << 13 | (1 << ev.NINE | 0b11)
"""The smallest qualifying flush key (HCF-8): a three-card flush 9-3-2."""
_NO_LIMIT = 1 << 20


@dataclass(frozen=True)
class Stakes:
    """What a seat has on the table when it decides (minor units)."""

    ante: int
    flush_bonus: int = 0
    straight_flush_bonus: int = 0


@dataclass(frozen=True)
class Cell:
    """A set of DP hands alike for every wager: each comparison is -1, 0, 1 from the player's
    side (1: the player's is better)."""

    qualifies: bool
    flush: int
    run: int
    count: int

    @property
    def name(self) -> str:
        """``qualified/player_flush_better/dp_run_better`` and the like."""
        return "/".join((
            "qualified" if self.qualifies else "not_qualified",
            _SIDES[self.flush].format("flush"),
            _SIDES[self.run].format("run"),
        ))


_SIDES = {1: "player_{}_better", 0: "{}_tie", -1: "dp_{}_better"}


@cache
def _mask_tables() -> tuple[I64, I64, I64]:
    masks = np.arange(MASK_COUNT, dtype=np.int64)
    size = np.array([m.bit_count() for m in range(MASK_COUNT)], dtype=np.int64)
    runs = np.array(RUNS.whole(), dtype=np.int64)
    return size, size << 13 | masks, runs


def keys(cards: Sequence[int]) -> tuple[int, int]:
    """A hand's flush key and run key (the best of its four suits)."""
    _, flush_key, run_key = _mask_tables()
    masks = ev.suit_masks(cards)
    return (max(int(flush_key[m]) for m in masks), max(int(run_key[m]) for m in masks))


def dp_cells(player: Sequence[int], also_seen: Sequence[int] = ()) -> tuple[Cell, ...]:
    """The DP's hidden hands from the cards not seen (45, or fewer with ``also_seen``), in
    cells against ``player``'s seven cards, each with its exact count. Hands alike up to a
    permutation of suits share one computation (the suits' seen ranks, unordered, and the
    player's two keys decide everything)."""
    mine_flush, mine_run = keys(player)
    seen = tuple(sorted(ev.suit_masks((*player, *also_seen))))
    return _cells(seen, mine_flush, mine_run, 52 - len(player) - len(also_seen))


@lru_cache(maxsize=65_536)
def _cells(seen: tuple[int, ...], mine_flush: int, mine_run: int,
           unseen: int) -> tuple[Cell, ...]:
    size, flush_key, run_key = _mask_tables()
    suits = []
    for mask in seen:
        subset = (np.arange(MASK_COUNT) & mask) == 0
        subset &= size <= HAND
        suits.append((size[subset], flush_key[subset], run_key[subset]))
    flush_cuts = sorted({QUALIFYING_KEY, mine_flush, mine_flush + 1, _NO_LIMIT})
    run_cuts = sorted({mine_run, mine_run + 1, _NO_LIMIT})
    below = np.zeros((len(flush_cuts) + 1, len(run_cuts) + 1), dtype=np.int64)
    for i, f in enumerate(flush_cuts):
        for j, r in enumerate(run_cuts):
            below[i + 1, j + 1] = _hands_below(suits, f, r)
    cells = []
    for i in range(len(flush_cuts)):
        low_f = flush_cuts[i - 1] if i else 0
        for j in range(len(run_cuts)):
            low_r = run_cuts[j - 1] if j else 0
            count = int(below[i + 1, j + 1] - below[i, j + 1] - below[i + 1, j] + below[i, j])
            # Every key in [low, cut) compares alike; the interval's lowest key stands for it.
            cells.append(Cell(qualifies=low_f >= QUALIFYING_KEY,
                              flush=_sign(mine_flush - low_f), run=_sign(mine_run - low_r),
                              count=count))
    assert sum(c.count for c in cells) == comb(unseen, HAND), "the cells must cover every hand"
    return tuple(cells)


def _sign(value: int) -> int:
    return (value > 0) - (value < 0)


def _hands_below(suits: list[tuple[I64, I64, I64]], flush_limit: int, run_limit: int) -> int:
    """DP hands whose flush key is below ``flush_limit`` and run key below ``run_limit``."""
    product = np.zeros(HAND + 1, dtype=np.int64)
    product[0] = 1
    for size, flush_key, run_key in suits:
        poly = np.bincount(size[(flush_key < flush_limit) & (run_key < run_limit)],
                           minlength=HAND + 1)[:HAND + 1]
        product = np.convolve(product, poly)[:HAND + 1]
    return int(product[HAND])


def cell_of(player: Sequence[int], dp: Sequence[int]) -> Cell:
    """The cell (count 0) the DP's seven cards fall in against the player's seven."""
    mine_flush, mine_run = keys(player)
    dp_flush, dp_run = keys(dp)
    return Cell(qualifies=dp_flush >= QUALIFYING_KEY, flush=_sign(mine_flush - dp_flush),
                run=_sign(mine_run - dp_run), count=0)


def raise_sizes(player: Sequence[int], ante: int, chosen: int | None = None) -> tuple[int, ...]:
    """The raises compared (HCF-5): 1x Ante, the maximum the flush allows, and ``chosen``."""
    top = ev.max_raise_multiple(ev.flush(player).length) * ante
    return tuple(sorted({ante, top, *(() if chosen is None else (chosen,))}))


def action_odds(player: Sequence[int], cells: Sequence[Cell], stakes: Stakes,
                flush_paytable: Mapping[int, int], straight_flush_paytable: Mapping[int, int],
                raises: Sequence[int]) -> ActionOdds:
    """Fold and each raise in ``raises``, cell by cell, in minor units (HCF-5, HCF-8..11)."""
    flush_length = ev.flush(player).length
    run_length = ev.straight_flush(player).length
    flush_odds = ev.flush_bonus_odds(flush_length, flush_paytable)
    run_odds = ev.straight_flush_bonus_odds(run_length, straight_flush_paytable)
    fold = -(stakes.ante + stakes.flush_bonus + stakes.straight_flush_bonus)
    rows = []
    for cell in cells:
        bonus = (_bonus(stakes.flush_bonus, flush_odds, cell.flush)
                 + _bonus(stakes.straight_flush_bonus, run_odds, cell.run))
        row = [fold]
        for amount in raises:
            # HCF-8: a DP that does not qualify pays the Ante 1-1 and the Raise pushes; HCF-9.
            main = cell.flush * (stakes.ante + amount) if cell.qualifies else stakes.ante
            row.append(main + bonus)
        rows.append(tuple(row))
    return ActionOdds(
        actions=("fold", *(f"raise:{amount}" for amount in raises)),
        cells=tuple(cell.name for cell in cells),
        counts=tuple(cell.count for cell in cells),
        results=tuple(rows),
    )


def _bonus(stake: int, odds: int | None, comparison: int) -> int:
    """A bonus wager's result: it loses below its minimum length (odds None), else it wins
    at its odds when the player's hand is better, pushes when equal, loses when worse."""
    if not stake:
        return 0
    if odds is None or comparison < 0:
        return -stake
    return stake * odds if comparison > 0 else 0


def action_name(decision: str, amount: int | None) -> str:
    """The action as :func:`action_odds` names it: ``fold`` or ``raise:<amount>``."""
    return "fold" if decision == "fold" else f"raise:{amount}"

