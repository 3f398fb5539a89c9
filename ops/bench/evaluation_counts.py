"""Exhaustive category counts of the high evaluator against the textbook tables.

    .venv/bin/python ops/bench/evaluation_counts.py            # all 2,598,960 five-card hands
    .venv/bin/python ops/bench/evaluation_counts.py --seven    # and all 133,784,560 seven-card

The five-card count also runs as a unit test (tests/unit/evaluation/test_high.py); the seven-card
one takes about a minute and is only here. Exit status 1 when a count differs from the table.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from itertools import combinations

from ledger.evaluation.high import Category, evaluate

FIVE_CARD = {
    Category.ROYAL_FLUSH: 4,
    Category.STRAIGHT_FLUSH: 36,
    Category.FOUR_OF_A_KIND: 624,
    Category.FULL_HOUSE: 3_744,
    Category.FLUSH: 5_108,
    Category.STRAIGHT: 10_200,
    Category.THREE_OF_A_KIND: 54_912,
    Category.TWO_PAIR: 123_552,
    Category.ONE_PAIR: 1_098_240,
    Category.HIGH_CARD: 1_302_540,
}
SEVEN_CARD = {
    Category.ROYAL_FLUSH: 4_324,
    Category.STRAIGHT_FLUSH: 37_260,
    Category.FOUR_OF_A_KIND: 224_848,
    Category.FULL_HOUSE: 3_473_184,
    Category.FLUSH: 4_047_644,
    Category.STRAIGHT: 6_180_020,
    Category.THREE_OF_A_KIND: 6_461_620,
    Category.TWO_PAIR: 31_433_400,
    Category.ONE_PAIR: 58_627_800,
    Category.HIGH_CARD: 23_294_460,
}


def count(size: int) -> tuple[Counter[Category], int, float]:
    """Category counts and the number of distinct strengths over every hand of ``size`` cards."""
    started = time.perf_counter()
    strengths = Counter(map(evaluate, combinations(range(52), size)))
    by_category: Counter[Category] = Counter()
    for strength, hands in strengths.items():
        by_category[Category(strength >> 20)] += hands
    return by_category, len(strengths), time.perf_counter() - started


def report(size: int, expected: Mapping[Category, int]) -> bool:
    got, distinct, seconds = count(size)
    print(f"{size}-card hands: {sum(got.values()):,} in {seconds:.1f} s, {distinct:,} distinct")
    ok = True
    for category in sorted(expected, reverse=True):
        mark = "ok" if got[category] == expected[category] else "DIFFERS"
        ok &= got[category] == expected[category]
        line = f"{category.label:<16} {got[category]:>12,}  textbook {expected[category]:>12,}"
        print(f"  {line}  {mark}")
    return ok


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seven", action="store_true", help="also count every 7-card hand")
    args = parser.parse_args(argv)
    ok = report(5, FIVE_CARD)
    if args.seven:
        ok &= report(7, SEVEN_CARD)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
