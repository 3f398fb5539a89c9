"""High Card Flush decisions (HCF-4..11): the exact cells of the DP's hidden hand against an
independent enumeration settled by the game's own settlement rules, and against a seeded
sample of full-deck DP hands."""

from __future__ import annotations

import random
from itertools import combinations

import pytest

from ledger.games.hcf.model import HcfConfig, HcfSeat
from ledger.games.hcf.settlement import DpHand, wager_results
from projections.protection import hcf
from projections.protection.odds import judge

CONFIG = HcfConfig()


def _deal(seed: int) -> list[int]:
    deck = list(range(52))
    random.Random(seed).shuffle(deck)
    return deck


def _settled(player: tuple[int, ...], stakes: hcf.Stakes, action: str,
             dp: tuple[int, ...]) -> int:
    """The seat's result by the game's settlement (HCF-5, HCF-8..11)."""
    if action == "fold":
        return -(stakes.ante + stakes.flush_bonus + stakes.straight_flush_bonus)
    seat = HcfSeat(seat=1, player="p", ante=stakes.ante, flush_bonus=stakes.flush_bonus,
                   straight_flush_bonus=stakes.straight_flush_bonus,
                   raised=int(action.split(":")[1]), cards=player, decision="raise")
    total = 0
    for r in wager_results(CONFIG, seat, DpHand.of(dp)):
        total += r.winnings if r.result == "win" else -r.stake if r.result == "lose" else 0
    return total


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
def test_cells_and_results_equal_an_enumeration_settled_by_the_game(seed: int) -> None:
    """Twenty-nine more cards seen leave 16: all 11,440 DP hands are settled one by one with
    the game's settlement; counts per cell and every action's total result agree exactly."""
    deck = _deal(seed)
    player, seen = tuple(deck[:7]), tuple(deck[7:36])
    stakes = hcf.Stakes(ante=100, flush_bonus=50 * (seed % 2), straight_flush_bonus=25)
    cells = hcf.dp_cells(player, seen)
    odds = hcf.action_odds(player, cells, stakes, CONFIG.flush_bonus_paytable,
                           CONFIG.straight_flush_bonus_paytable,
                           hcf.raise_sizes(player, 100, chosen=150))
    rest = [c for c in range(52) if c not in player and c not in seen]
    tally: dict[str, int] = {}
    totals = dict.fromkeys(odds.actions, 0)
    for dp in combinations(rest, 7):
        cell = hcf.cell_of(player, dp).name
        tally[cell] = tally.get(cell, 0) + 1
        for action in odds.actions:
            result = _settled(player, stakes, action, dp)
            totals[action] += result
            assert result == odds.results[odds.cells.index(cell)][odds.index(action)]
    assert {c.name: c.count for c in cells if c.count} == tally
    for i, action in enumerate(odds.actions):
        assert odds.expected(i) * odds.total == totals[action]


def test_full_deck_cells_against_a_seeded_sample() -> None:
    """All 45,379,620 DP hands: each cell's exact probability within five standard errors of
    its frequency in 20,000 DP hands drawn with a fixed seed."""
    deck = _deal(9)
    player, rest = tuple(deck[:7]), deck[7:]
    cells = hcf.dp_cells(player)
    total = sum(c.count for c in cells)
    assert total == 45_379_620
    rng = random.Random(99)
    draws = 20_000
    seen: dict[str, int] = {}
    for _ in range(draws):
        name = hcf.cell_of(player, tuple(rng.sample(rest, 7))).name
        seen[name] = seen.get(name, 0) + 1
    for cell in cells:
        p = cell.count / total
        stderr = (p * (1 - p) / draws) ** 0.5
        assert abs(seen.get(cell.name, 0) / draws - p) <= 5 * stderr + 1e-12, cell


def test_the_best_raise_is_an_end_of_the_range() -> None:
    """A raise's result is linear in its size (HCF-9): a middle raise is never the only best."""
    player = (51, 47, 43, 39, 3, 0, 4)  # As Ks Qs Js 2s + 2c 3c: a five-card spade flush
    stakes = hcf.Stakes(ante=100)
    cells = hcf.dp_cells(player)
    odds = hcf.action_odds(player, cells, stakes, CONFIG.flush_bonus_paytable,
                           CONFIG.straight_flush_bonus_paytable,
                           hcf.raise_sizes(player, 100, chosen=150))
    assert odds.actions == ("fold", "raise:100", "raise:150", "raise:200")
    middle = odds.expected(2)
    assert min(odds.expected(1), odds.expected(3)) <= middle <= max(odds.expected(1),
                                                                      odds.expected(3))
    assert odds.actions[odds.optimal()] == "raise:200"
    verdict = judge(odds, "raise:200", "qualified/player_flush_better/player_run_better")
    assert verdict.was_best and verdict.cost == 0
