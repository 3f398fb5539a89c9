"""Paytable mathematics: the exact Caribbean Stud computation against brute force.

Baseline, measured in the same run: the brute-force value of the Play for a few (player hand,
up card) pairs, each against all 163,185 dealer hands with the game's evaluator; extrapolated
to the 122,151,120 pairs of the deck (or to the ~5.4 million distinct up to suits). Then the
exact computation (every pair by rank pattern and suit class) and the High Card Flush counts.

With ``--independent``, the figures are computed a second time by the slower, independent
method of :mod:`projections.reports.mathematics.caribbean_check` (every player hand against
every up rank, counted by inclusion and exclusion), timed, and compared exactly.

    .venv/bin/python -O ops/bench/paytable.py [--independent]
"""

from __future__ import annotations

import argparse
import time

import _common

from ledger.domain.cards import parse_cards
from ledger.evaluation import hcf as ev
from ledger.games.caribbean.config import CaribbeanConfig
from projections.reports.mathematics import caribbean as csp
from projections.reports.mathematics import caribbean_check, hcf
from projections.reports.mathematics.caribbean_counts import dealer_counts

PAIRS = (("Ac Kc Qc Jc Td", "3d"), ("7h 7d 4c 3s 2h", "7s"), ("Ah Kd 5c 4s 2h", "Ad"))
DECK_PAIRS = 2_598_960 * 47


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--independent", action="store_true",
                        help="also compute the figures by inclusion and exclusion and compare")
    args = parser.parse_args()
    print(f"paytable mathematics ({_common.optimised()})")
    odds = csp.play_odds_array(CaribbeanConfig().play_paytable)
    started = time.perf_counter()
    for player, up in PAIRS:
        csp.brute_force_play_value(parse_cards(player), parse_cards(up)[0], odds)
    per_pair = (time.perf_counter() - started) / len(PAIRS)
    print(f"baseline: brute force {per_pair:.2f} s per (hand, up card) pair; all "
          f"{DECK_PAIRS:,} pairs would take {per_pair * DECK_PAIRS / 86_400 / 365:,.0f} years")
    started = time.perf_counter()
    counts = dealer_counts()
    exact = csp.exact(CaribbeanConfig())
    seconds = time.perf_counter() - started
    optimal = exact["strategies"]["optimal"]
    print(f"exact Caribbean Stud: {seconds:.1f} s for {counts.keys:,} classes covering every "
          f"pair; house edge {float(optimal['house_edge']):.6%}, element of risk "
          f"{float(optimal['element_of_risk']):.6%}")
    for name, fig in exact["strategies"].items():
        print(f"  {name:<8} house edge {float(fig['house_edge']):.6%}  element of risk "
              f"{float(fig['element_of_risk']):.6%}  P(play) {float(fig['play_probability']):.6%}")
    print(f"  progressive break-even meter "
          f"{float(exact['jackpot']['break_even_meter_minor']) / 100:,.2f}")
    print(f"ratio: {per_pair * DECK_PAIRS / seconds:,.0f}x faster than brute force")
    started = time.perf_counter()
    figures = hcf.exact(ev.DEFAULT_FLUSH_BONUS_PAYTABLE, ev.DEFAULT_STRAIGHT_FLUSH_BONUS_PAYTABLE)
    print(f"exact High Card Flush: {time.perf_counter() - started:.1f} s; DP qualifies "
          f"{float(figures['dp_qualifies']):.6%}")
    if args.independent:
        started = time.perf_counter()
        sums = caribbean_check.Sums()
        for rank in range(13):
            sums.add(caribbean_check.up_card_counts(rank), CaribbeanConfig().play_paytable)
            print(f"  independent: up rank {rank + 1:>2}/13 at "
                  f"{time.perf_counter() - started:.0f} s", flush=True)
        slow = sums.figures()
        elapsed = time.perf_counter() - started
        same = all(slow["strategies"][name][key] == exact["strategies"][name][key]
                   for name in slow["strategies"]
                   for key in ("house_edge", "element_of_risk", "play_probability"))
        lines = {line["line"]: line["probability"] for line in exact["jackpot"]["lines"]}
        print(f"independent (inclusion-exclusion, {sums.pairs:,} pairs): {elapsed:.0f} s; "
              f"optimal house edge {float(slow['strategies']['optimal']['house_edge']):.6%}; "
              f"every figure equal to the exact one: {same and slow['lines'] == lines}")


if __name__ == "__main__":
    main()
