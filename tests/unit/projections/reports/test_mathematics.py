"""Paytable mathematics against published figures and against slower methods of our own.

Caribbean Stud (CSP-2..7): the exact rank-pattern counts give the published optimal house edge
(5.224%) and element of risk (2.555%); for chosen player hands and up cards, the Play's value
from the counts equals a brute-force evaluation of all 163,185 dealer hands with the game's own
evaluator; for an up card, every one of the 2,349,060 player hands gets the same dealer counts
from an independent, slower method (inclusion and exclusion over the player's cards,
:mod:`projections.reports.mathematics.caribbean_check`), and over all thirteen up ranks (slow)
that method gives every strategy's figures and the jackpot lines exactly; a seeded simulation
agrees within four standard errors.

High Card Flush (HCF-4..11): the per-suit generating functions are checked against brute force
over every pair of hands of a reduced deck (four suits of the ranks 6, 7, 8, 9 and a 4-card
hand: 1,820 x 495 pairs), where the same code paths run (flush lengths, three-card flushes
below a 9, runs, ties), and the real deck's flush-length distribution is pinned to its known
closed form.
"""

from __future__ import annotations

import os
from fractions import Fraction
from itertools import combinations
from math import comb
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from ledger.domain.cards import parse_cards
from ledger.evaluation import hcf as ev
from ledger.games.caribbean.config import CaribbeanConfig
from projections.reports.mathematics import caribbean as csp_math
from projections.reports.mathematics import caribbean_check
from projections.reports.mathematics import hcf as hcf_math
from projections.reports.mathematics.caribbean_counts import DEALER_HANDS, dealer_counts


@pytest.fixture(scope="module")
def csp_exact() -> dict[str, Any]:
    return csp_math.exact(CaribbeanConfig())


def test_csp_optimal_strategy_matches_the_published_figures(csp_exact: dict[str, Any]) -> None:
    optimal = csp_exact["strategies"]["optimal"]
    assert round(float(optimal["house_edge"]) * 100, 3) == 5.224
    assert round(float(optimal["element_of_risk"]) * 100, 3) == 2.555
    assert round(float(optimal["play_probability"]), 4) == 0.5223
    # Pinned exact values (the figures the report prints, six decimals).
    assert f"{float(optimal['house_edge']):.8f}" == "0.05224306"
    simple = csp_exact["strategies"]
    assert f"{float(simple['akj83']['house_edge']):.6f}" == "0.053163"
    assert f"{float(simple['always']['house_edge']):.6f}" == "0.166072"
    for name in ("akj83", "pair", "ak", "always"):
        assert simple[name]["house_edge"] > optimal["house_edge"]


PUBLISHED_COMBINATIONS = 19_933_230_517_200  # C(52, 5) x 47 up cards x C(46, 4) dealer hands
PUBLISHED = {  # strategy: total loss in Antes over those combinations, house edge %, risk %
    "optimal": (1_041_372_912_372, 5.224, 2.555),
    "akj83": (1_059_715_400_580, 5.316, 2.596),
    "pair": (1_090_272_101_460, 5.470, 2.738),
    "ak": (1_132_600_203_540, 5.682, 2.672),
    "always": (3_310_360_338_060, 16.607, 5.536),
}
"""The published Caribbean Stud strategy table (M. Shackelford, The Wizard of Odds; also in
Contingencies, Nov/Dec 2000): each strategy's total loss over every combination, its house edge
and element of risk."""


@pytest.mark.parametrize("name", sorted(PUBLISHED))
def test_csp_every_strategy_matches_the_published_table(csp_exact: dict[str, Any],
                                                        name: str) -> None:
    """CSP-2..4: the exact edge of each strategy is the published total loss over the published
    number of combinations, to the unit; edge and element of risk round to the published
    percentages."""
    loss, edge, risk = PUBLISHED[name]
    figures = csp_exact["strategies"][name]
    assert figures["house_edge"] == Fraction(loss, PUBLISHED_COMBINATIONS)
    assert round(float(figures["house_edge"]) * 100, 3) == edge
    assert round(float(figures["element_of_risk"]) * 100, 3) == risk


@pytest.mark.parametrize(("awards", "meter"), [
    ({"four_of_a_kind": 10_000, "full_house": 7_500, "flush": 5_000}, 263_205),
    ({"four_of_a_kind": 15_000, "full_house": 10_000, "flush": 5_000}, 246_784),
])
def test_csp_progressive_break_even_matches_the_published_meters(awards: dict[str, int],
                                                                 meter: int) -> None:
    """CSP-6/7: the published break-even meters of the 1.00 side wager (royal flush 100% and
    straight flush 10% of the meter) for two fixed-award tables (Shackelford, Contingencies,
    Nov/Dec 2000), in whole units."""
    config = CaribbeanConfig.model_validate({"jackpot": {"fixed_awards": awards}})
    jackpot = csp_math.exact(config)["jackpot"]
    assert round(jackpot["break_even_meter_minor"] / 100) == meter


def test_csp_counts_cover_every_deal_once() -> None:
    counts = dealer_counts()
    assert 4 * int(counts.weight.sum()) == comb(52, 5) * 47
    total = counts.not_qualified + counts.player_wins + counts.ties + counts.dealer_wins
    assert (total == DEALER_HANDS).all()
    assert (counts.not_qualified >= 0).all() and (counts.dealer_wins >= 0).all()


@pytest.mark.parametrize(("player", "up"), [
    ("Ac Kc Qc Jc Td", "3d"),   # A-K high: a borderline play
    ("As Ks 8s 4s 2s", "Qs"),   # a spade flush against a spade up card (CSP-4 flush)
    ("7h 7d 4c 3s 2h", "7s"),   # a pair, the dealer shows the third seven
    ("Ah Kd 5c 4s 2h", "Ad"),   # no pair, the dealer shows an ace
    ("9s 8s 7s 6s 5s", "Ts"),   # a straight flush: the dealer cannot hold the T-high one
])
def test_csp_play_value_agrees_with_brute_force(player: str, up: str) -> None:
    """CSP-3/4: the counted value of the Play equals every dealer hand evaluated one by one."""
    cards = parse_cards(player)
    (up_card,) = parse_cards(up)
    counts = dealer_counts()
    odds = csp_math.play_odds_array(CaribbeanConfig().play_paytable)
    # The key: the up card's suit mapped to spades.
    suit = up_card & 3
    mapped = [c & ~3 | (3 if c & 3 == suit else suit if c & 3 == 3 else c & 3) for c in cards]
    pattern = sum(5 ** (c >> 2) for c in cards)
    spades = sum(1 << (c >> 2) for c in mapped if c & 3 == 3)
    flush = len({c & 3 for c in cards}) == 1
    row = np.nonzero((counts.pattern == pattern) & (counts.spade_mask == spades)
                     & (counts.flush == flush) & (counts.up_rank == up_card >> 2))[0]
    assert len(row) == 1
    fast = int(csp_math.play_value(counts, odds)[row[0]])
    assert fast == csp_math.brute_force_play_value(cards, up_card, odds)


def _key_rows(found: caribbean_check.UpCardCounts) -> npt.NDArray[np.int64]:
    """The row of the rank-pattern counts that stands for each player hand of ``found``."""
    counts = dealer_counts()
    ranks, suits = found.cards >> 2, found.cards & 3
    pattern = (5 ** ranks).sum(axis=1)
    spades = ((suits == 3) << ranks).sum(axis=1)
    flush = (suits == suits[:, :1]).all(axis=1)
    key = (pattern << 14 | spades << 1 | flush) << 4 | found.up_rank
    keys = (counts.pattern << 14 | counts.spade_mask << 1 | counts.flush.astype(np.int64)) << 4 \
        | counts.up_rank
    order = np.argsort(keys)
    row = order[np.searchsorted(keys[order], key)]
    assert (keys[row] == key).all()
    rows: npt.NDArray[np.int64] = row
    return rows


@pytest.mark.parametrize("up_rank", [12])  # the dealer shows an ace: A-K qualification (CSP-3)
def test_csp_counts_equal_inclusion_exclusion_for_every_player_hand(up_rank: int) -> None:
    """CSP-3/4: every player hand against one up card, counted one by one by another method,
    has the same dealer hands that do not qualify, lose, tie and win as its class in the fast
    counts, and the classes' weights are the numbers of hands they stand for."""
    found = caribbean_check.up_card_counts(up_rank)
    assert len(found.strength) == comb(51, 5)
    counts = dealer_counts()
    row = _key_rows(found)
    assert (counts.strength[row] == found.strength).all()
    assert (counts.not_qualified[row] == found.not_qualified).all()
    assert (counts.player_wins[row] == found.player_wins).all()
    assert (counts.ties[row] == found.ties).all()
    assert (found.dealer_wins >= 0).all()
    mine = np.nonzero(counts.up_rank == up_rank)[0]
    assert (np.bincount(row, minlength=counts.keys)[mine] == counts.weight[mine]).all()


@pytest.mark.slow
@pytest.mark.skipif(
    not os.environ.get("LEDGER_SLOW_TESTS"),
    reason="one to four minutes: set LEDGER_SLOW_TESTS=1, or run ops/bench/paytable.py "
    "--independent",
)
def test_csp_figures_equal_an_independent_computation(csp_exact: dict[str, Any]) -> None:
    """Every strategy's house edge, element of risk and probability of playing, and the jackpot
    lines, summed over all 122,151,120 (player hand, up card) pairs by inclusion and exclusion
    (a few minutes), equal the fast figures exactly; and the published ones."""
    *_, (_, sums) = caribbean_check.every_up_card(CaribbeanConfig().play_paytable)
    slow = sums.figures()
    assert sums.pairs == comb(52, 5) * 47
    for name, fig in slow["strategies"].items():
        fast = csp_exact["strategies"][name]
        for key in ("house_edge", "element_of_risk", "play_probability"):
            assert fig[key] == fast[key], (name, key)
    assert round(float(slow["strategies"]["optimal"]["house_edge"]) * 100, 3) == 5.224
    assert round(float(slow["strategies"]["optimal"]["element_of_risk"]) * 100, 3) == 2.555
    lines = {line["line"]: line["probability"] for line in csp_exact["jackpot"]["lines"]}
    assert slow["lines"] == lines


def test_csp_simulation_agrees(csp_exact: dict[str, Any]) -> None:
    simulated = csp_math.simulate(CaribbeanConfig(), 20_000, seed=11)
    for name, sim in simulated.items():
        edge = float(csp_exact["strategies"][name]["house_edge"])
        assert abs(-sim["mean"] - edge) < 4 * sim["stderr"], name


def test_csp_progressive_break_even(csp_exact: dict[str, Any]) -> None:
    """CSP-6/7: the return is linear in the meter and is 1 at the break-even meter."""
    jackpot = csp_exact["jackpot"]
    lines = {line["line"]: line["probability"] for line in jackpot["lines"]}
    assert lines["royal_flush"] == Fraction(4, comb(52, 5))  # always played
    assert lines["flush"] == Fraction(5_108, comb(52, 5))
    meter = jackpot["break_even_meter_minor"]
    assert csp_math.jackpot_return(jackpot, meter) == 1
    assert f"{float(meter) / 100:.2f}" == "218047.37"


SMALL = hcf_math.Deck(ranks=(4, 5, 6, 7), hand=4)


def _brute_force(deck: hcf_math.Deck, flush_pay: dict[int, int],
                 sf_pay: dict[int, int]) -> dict[str, Fraction]:
    cards = [r * 4 + s for r in deck.ranks for s in range(4)]
    info = {}
    for hand in combinations(cards, deck.hand):
        fl = ev.flush(hand)
        info[hand] = (fl, ev.straight_flush(hand), ev.dp_qualifies(fl), sum(1 << c for c in hand))
    total = 0
    dp_nq = flush_net = sf_net = 0
    by_flush: dict[tuple[int, tuple[int, ...]], list[int]] = {}
    for pf, ps, _, pbits in info.values():
        group = by_flush.setdefault((pf.length, pf.ranks), [0, 0, 0, 0])
        for df, ds, dq, dbits in info.values():
            if pbits & dbits:
                continue
            total += 1
            dp_nq += not dq
            odds = flush_pay.get(pf.length) if pf.length >= 4 else None
            flush_net += -1 if odds is None or pf < df else odds if pf > df else 0
            sodds = sf_pay.get(ps.length) if ps.length >= 3 else None
            sf_net += -1 if sodds is None or ps < ds else sodds if ps > ds else 0
            group[0] += 1
            if not dq:
                group[1] += 1
            elif pf > df:
                group[2] += 1
            elif pf < df:
                group[3] += 1
    player = Fraction(0)
    for (length, _), (hands, nq, wins, losses) in by_flush.items():
        options = [Fraction(-1)] + [Fraction(nq + (wins - losses) * (1 + m), hands)
                                    for m in {1, ev.max_raise_multiple(length)}]
        player += Fraction(hands, total) * max(options)
    return {"dp_qualifies": 1 - Fraction(dp_nq, total), "flush": Fraction(flush_net, total),
            "sf": Fraction(sf_net, total), "player": player, "total": Fraction(total)}


def test_hcf_exact_counts_equal_brute_force_on_a_reduced_deck() -> None:
    """HCF-4/8/9/10/11 on a 16-card deck with 4-card hands: every figure equal, exactly."""
    flush_pay, sf_pay = {4: 7}, {4: 40, 3: 5}
    exact = hcf_math.exact(flush_pay, sf_pay, deck=SMALL)
    slow = _brute_force(SMALL, flush_pay, sf_pay)
    assert SMALL.total == slow["total"]
    assert exact["dp_qualifies"] == slow["dp_qualifies"]
    assert exact["flush_bonus"]["against_dp"] == slow["flush"]
    assert exact["straight_flush_bonus"]["against_dp"] == slow["sf"]
    assert exact["player_expected"] == slow["player"]


def test_hcf_standard_deck_figures() -> None:
    exact = hcf_math.exact(ev.DEFAULT_FLUSH_BONUS_PAYTABLE,
                           ev.DEFAULT_STRAIGHT_FLUSH_BONUS_PAYTABLE)
    lengths = exact["flush_length_probability"]
    # Closed form: a seven-card flush is 4 * C(13, 7) of C(52, 7) hands.
    assert lengths[7] == Fraction(4 * comb(13, 7), comb(52, 7))
    assert sum(lengths.values()) == 1
    assert sum(exact["run_length_probability"].values()) == 1
    # HCF-8: the DP does not qualify with at most two of every suit (2-2-2-1) or 3-card
    # flushes below a 9; pinned, and checked from the suit counts directly.
    per_suit = np.array([1, 13, 78, comb(7, 3)], dtype=object)  # <=2 cards, or 3 below a 9
    not_qualified = np.convolve(np.convolve(per_suit, per_suit), np.convolve(per_suit, per_suit))
    assert exact["dp_qualifies"] == 1 - Fraction(int(not_qualified[7]), comb(52, 7))
    assert f"{float(exact['dp_qualifies']):.6f}" == "0.753637"
    assert f"{float(exact['player_expected']):.6f}" == "-0.027114"
    assert f"{float(exact['flush_bonus']['pure']):.6f}" == "0.012121"
    assert f"{float(exact['flush_bonus']['against_dp']):.6f}" == "-0.072423"
    assert f"{float(exact['straight_flush_bonus']['against_dp']):.6f}" == "-0.099601"
