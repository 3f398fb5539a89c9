"""Hand-evaluation throughput: ours against phevaluator and treys, on the same hands, one run.

Run after ``pip install -e '.[bench]'``::

    .venv/bin/python ops/bench/evaluation.py            # or with -O; the output says which
    .venv/bin/python ops/bench/evaluation.py --hands 50000 --repeat 5

Each figure is evaluations per second, the best of ``--repeat`` timed passes over the same
seeded random hands, loop overhead included (one Python call per hand for everybody). The
hands are converted to each library's card format before any timing starts. Before timing,
the three evaluators' orders are checked against each other on the same hands.
"""

from __future__ import annotations

import argparse
import platform
import random
import sys
import time
from collections.abc import Callable, Sequence
from importlib.metadata import version
from itertools import pairwise
from typing import Any

from ledger.domain.cards import format_card
from ledger.evaluation import chinese, hcf, high, low


def best_rate(count: int, repeat: int, timed: Callable[[], object]) -> float:
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        timed()
        best = min(best, time.perf_counter() - started)
    return count / best


def seven_card_hands(count: int, rng: random.Random) -> list[tuple[int, ...]]:
    deck = list(range(52))
    return [tuple(rng.sample(deck, 7)) for _ in range(count)]


def chinese_hands(
    count: int, rng: random.Random
) -> list[tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]]:
    deck = list(range(52))
    out = []
    for _ in range(count):
        cards = rng.sample(deck, 13)
        out.append((tuple(cards[:3]), tuple(cards[3:8]), tuple(cards[8:])))
    return out


def check_agreement(ours: Sequence[int], theirs: Sequence[int], name: str) -> int:
    """Compare consecutive hands: our order (higher better) against theirs (lower better)."""
    disagreements = 0
    for (a, b), (x, y) in zip(pairwise(ours), pairwise(theirs), strict=True):
        if (a > b, a == b) != (x < y, x == y):
            disagreements += 1
    print(f"  order agreement with {name}: {len(ours) - 1:,} pairs, {disagreements} disagreements")
    return disagreements


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=200_000, help="hands per pass")
    parser.add_argument("--repeat", type=int, default=3, help="timed passes; the best counts")
    parser.add_argument("--seed", type=int, default=20_240_601)
    args = parser.parse_args(argv)
    count, repeat = args.hands, args.repeat

    from phevaluator import evaluate_cards  # the bench extra
    from treys import Card as TreysCard
    from treys import Evaluator as TreysEvaluator

    rng = random.Random(args.seed)
    hands = seven_card_hands(count, rng)
    sets = chinese_hands(count, rng)
    # Card formats, converted before timing: phevaluator ids from the text form (they happen
    # to equal ours), treys' bit-packed ints split into 2 hole cards and a 5-card board.
    ph_hands = [tuple(_ph_id(format_card(c)) for c in hand) for hand in hands]
    treys_hands = [[TreysCard.new(format_card(c)) for c in hand] for hand in hands]
    treys_split = [(cards[:2], cards[2:]) for cards in treys_hands]
    treys = TreysEvaluator()

    optimized = f"python -O (optimize={sys.flags.optimize})" if sys.flags.optimize else "no -O"
    print(
        f"Python {platform.python_version()} ({optimized}), {platform.machine()}, "
        f"{count:,} random 7-card hands (13 for Chinese), best of {repeat}; "
        f"phevaluator {version('phevaluator')}, treys {version('treys')}"
    )

    evaluate, evaluate_low8 = high.evaluate, low.evaluate_low8
    disagreements = check_agreement(
        [evaluate(h) for h in hands], [evaluate_cards(*h) for h in ph_hands], "phevaluator"
    )
    disagreements += check_agreement(
        [evaluate(h) for h in hands], [treys.evaluate(a, b) for a, b in treys_split], "treys"
    )

    def ours_high() -> None:
        for hand in hands:
            evaluate(hand)

    def ours_stud8() -> None:
        for hand in hands:
            evaluate(hand)
            evaluate_low8(hand)

    flush, straight_flush, dp_qualifies = hcf.flush, hcf.straight_flush, hcf.dp_qualifies

    def ours_hcf() -> None:
        for hand in hands:
            dp_qualifies(flush(hand))
            straight_flush(hand)

    segment, fouled, wins = chinese.evaluate_segment, chinese.is_fouled, chinese.automatic_wins

    def ours_chinese() -> None:
        for front, middle, back in sets:
            segment(front)
            segment(middle)
            segment(back)
            fouled(front, middle, back)
            wins(front, middle, back)

    def phevaluator_high() -> None:
        for hand in ph_hands:
            evaluate_cards(*hand)

    def treys_high() -> None:
        for hole, board in treys_split:
            treys.evaluate(hole, board)

    rates: dict[str, float] = {}
    runs: list[tuple[str, Callable[[], None]]] = [
        ("ours: 7-card high (high.evaluate)", ours_high),
        ("phevaluator: 7-card high (evaluate_cards)", phevaluator_high),
        ("treys: 7-card high (Evaluator.evaluate)", treys_high),
        ("ours: stud8, high + eight-or-better low", ours_stud8),
        ("ours: HCF, flush + straight flush + DP qualification", ours_hcf),
        ("ours: Chinese, 3 segments + foul + automatic wins", ours_chinese),
    ]
    for label, timed in runs:
        rates[label] = best_rate(count, repeat, timed)
        print(f"  {label:<55} {rates[label]:>12,.0f} /s")
    ours, ph, tr = (rates[label] for label, _ in runs[:3])
    print(f"  ratio ours / phevaluator (7-card high): {ours / ph:.2f}")
    print(f"  ratio ours / treys (7-card high):       {ours / tr:.2f}")
    native = _phevaluator_native()
    if native is not None:
        evaluate_7 = native
        rate = best_rate(count, repeat, lambda: [evaluate_7(*hand) for hand in ph_hands])
        print(
            f"  (context: phevaluator's C core called directly, skipping its Python wrapper: "
            f"{rate:,.0f} /s)"
        )
    return 1 if disagreements else 0


def _ph_id(text: str) -> int:
    from phevaluator.card import Card

    return int(Card(text).id_)


def _phevaluator_native() -> Any:
    try:
        from phevaluator import _pheval
    except ImportError:  # a pure-Python phevaluator: nothing more to show
        return None
    return _pheval.evaluate_7cards


if __name__ == "__main__":
    sys.exit(main())
