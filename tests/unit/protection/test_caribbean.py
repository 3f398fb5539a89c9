"""Caribbean Stud decisions (CSP-2..6): the exact dealer counts against an independent
brute-force enumeration of the dealer's hidden cards, with the game's own evaluator."""

from __future__ import annotations

import random
from itertools import combinations

import pytest

from ledger.evaluation import caribbean as csp
from ledger.evaluation import high
from ledger.games.caribbean.config import CaribbeanConfig
from projections.protection import caribbean
from projections.protection.odds import judge


def _brute(player: tuple[int, ...], up: int, seen: tuple[int, ...] = ()) -> dict[str, int]:
    """Every 4-subset of the unseen cards, evaluated and compared one by one."""
    mine = high.evaluate(player)
    rest = [c for c in range(52) if c not in player and c != up and c not in seen]
    tally = dict.fromkeys(caribbean.CELLS, 0)
    for hidden in combinations(rest, 4):
        theirs = high.evaluate((*hidden, up))
        if not csp.dealer_qualifies(theirs):
            tally["not_qualified"] += 1
        elif mine > theirs:
            tally["player_wins"] += 1
        elif mine == theirs:
            tally["tie"] += 1
        else:
            tally["dealer_wins"] += 1
    return tally


def _deal(seed: int) -> list[int]:
    deck = list(range(52))
    random.Random(seed).shuffle(deck)
    return deck


@pytest.mark.parametrize("seed", [1, 2])
def test_counts_equal_brute_force_over_all_163185_dealer_hands(seed: int) -> None:
    deck = _deal(seed)
    player, up = tuple(deck[:5]), deck[5]
    counts = caribbean.dealer_counts(player, up)
    assert counts.total == 163_185
    assert dict(zip(caribbean.CELLS, counts.by_cell(), strict=True)) == _brute(player, up)


@pytest.mark.parametrize("seed", range(3, 15))
def test_counts_equal_brute_force_with_more_cards_seen(seed: int) -> None:
    """Twenty-four more cards seen: ties, flushes of the up card's suit and pairs with it all
    come up over these seeds; every count still equals the enumeration."""
    deck = _deal(seed)
    player, up, seen = tuple(deck[:5]), deck[5], tuple(deck[6:30])
    counts = caribbean.dealer_counts(player, up, seen)
    assert dict(zip(caribbean.CELLS, counts.by_cell(), strict=True)) == _brute(player, up, seen)


def test_hands_alike_up_to_suits_share_counts() -> None:
    """A permutation of the suits changes nothing (the cache relies on it)."""
    player, up = (48, 44, 37, 22, 9), 51  # Ac Kc Jd 7h 4d, As up
    perm = {0: 2, 1: 3, 2: 0, 3: 1}
    moved = tuple(c - (c & 3) + perm[c & 3] for c in player)
    assert caribbean.dealer_counts(player, up) == caribbean.dealer_counts(
        moved, up - 3 + perm[3])


def test_flush_of_the_up_cards_suit_counted_as_a_flush() -> None:
    """Every spade but 2s 3s 4s 6s is seen and the As is up: of the dealer's hands, exactly
    one is the spade flush 6-4-3-2-A, which qualifies (a flush, not the A-high its ranks make:
    it beats the player's pair of kings)."""
    spades_seen = tuple(rank * 4 + 3 for rank in range(13) if rank not in (0, 1, 2, 4, 12))
    player = (44, 45, 8, 13, 26)  # Kc Kd 4c 5d 8h
    counts = caribbean.dealer_counts(player, 51, spades_seen)
    brute = _brute(player, 51, spades_seen)
    assert dict(zip(caribbean.CELLS, counts.by_cell(), strict=True)) == brute
    flush = high.evaluate((3, 7, 11, 19, 51))
    assert high.category(flush) == high.Category.FLUSH and flush > high.evaluate(player)


def test_action_odds_and_judgement() -> None:
    """Expected results from the counts equal the average over the enumeration; a fold is
    the better action exactly when the dealer wins (CSP-2..4); a jackpot award (CSP-6) is added
    to the Play only."""
    config = CaribbeanConfig()
    deck = _deal(21)
    player, up = tuple(deck[:5]), deck[5]
    counts = caribbean.dealer_counts(player, up)
    odds = caribbean.action_odds(counts, 500, config.play_paytable, jackpot_award=0)
    brute = _brute(player, up)
    mult = config.play_paytable[high.category(counts.strength).label]
    play_total = (brute["not_qualified"] * 500 + brute["player_wins"] * (500 + 1000 * mult)
                  - brute["dealer_wins"] * 1500)
    assert odds.expected(odds.index("play")) * 163_185 == play_total
    assert odds.expected(odds.index("fold")) == -500
    assert odds.p_best(odds.index("fold")) * 163_185 == brute["dealer_wins"]
    verdict = judge(odds, "fold", "dealer_wins")
    assert verdict.was_best and verdict.result == -500
    assert verdict.p_best == pytest.approx(brute["dealer_wins"] / 163_185)
    with_award = caribbean.action_odds(counts, 500, config.play_paytable, jackpot_award=5_000)
    assert with_award.expected(1) == odds.expected(1) + 5_000
    assert with_award.expected(0) == -500


def test_jackpot_award_lines() -> None:
    fixed, percent = {"flush": 5_000}, {"royal_flush": 10_000}
    flush = (0, 8, 16, 24, 40)  # 2c 4c 6c 8c Tc
    royal = (35, 39, 43, 47, 51)  # Ts Js Qs Ks As
    assert caribbean.jackpot_award(flush, fixed, percent, meter=1_000_000) == 5_000
    assert caribbean.jackpot_award(royal, fixed, percent, meter=1_234_567) == 1_234_567
    assert caribbean.jackpot_award((0, 5, 10, 15, 20), fixed, percent, meter=9) == 0
