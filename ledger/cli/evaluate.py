"""``ledger evaluate``: the auditor's hand evaluator, one JSON object per input line.

The per-line work is plain functions from a line of text to a JSON-ready dict
(:data:`EVALUATORS`), so that the help text, the tests and the command share them; the command only
reads standard input and writes standard output.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterable, Iterator
from enum import StrEnum
from typing import Annotated, Any, TextIO

import typer
from typer.core import TyperCommand

from ledger.cli import app
from ledger.domain.cards import RANK_NAMES, card_list, ensure_distinct, parse_cards
from ledger.domain.errors import InvalidInput, LedgerError
from ledger.evaluation import caribbean, chinese, hcf, high, low

Json = dict[str, Any]


class Rules(StrEnum):
    """Which game's evaluation to apply to each line."""

    HIGH = "high"
    STUD8 = "stud8"
    CARIBBEAN = "caribbean"
    HCF = "hcf"
    CHINESE = "chinese"


def _high_hand(cards: tuple[int, ...]) -> Json:
    strength = high.evaluate(cards)
    return {**_describe(strength), "cards": card_list(high.best_five(cards, strength))}


def evaluate_high(line: str) -> Json:
    """COM-1, CSP-5: the best five of 5 to 7 cards."""
    return _high_hand(parse_cards(line, count=(5, 6, 7)))


def evaluate_stud8(line: str) -> Json:
    """STUD8-7: high and eight-or-better low, chosen independently from 5 to 7 cards."""
    cards = parse_cards(line, count=(5, 6, 7))
    low_value = low.evaluate_low8(cards)
    return {
        "high": _high_hand(cards),
        "low": None if low_value is None else {"ranks": low.low_labels(low_value)},
    }


def evaluate_caribbean(line: str) -> Json:
    """CSP-3, CSP-4, CSP-6, CSP-7 on the default paytable."""
    strength = high.evaluate(parse_cards(line, count=5))
    return {
        **_describe(strength),
        "dealer_qualifies": caribbean.dealer_qualifies(strength),
        "play_odds": caribbean.play_odds(strength),
        "jackpot_award": caribbean.jackpot_line(strength),
    }


def evaluate_hcf(line: str) -> Json:
    """HCF-4, HCF-5, HCF-8, HCF-10, HCF-11 on the default paytables."""
    cards = parse_cards(line, count=7)
    hand_flush = hcf.flush(cards)
    run = hcf.straight_flush(cards)
    return {
        "flush": {
            "length": hand_flush.length,
            "ranks": [RANK_NAMES[rank] for rank in hand_flush.ranks],
        },
        "straight_flush": {"length": run.length, "high": RANK_NAMES[run.high]},
        "dp_qualifies": hcf.dp_qualifies(hand_flush),
        "max_raise_multiple": hcf.max_raise_multiple(hand_flush.length),
        "flush_bonus_odds": hcf.flush_bonus_odds(hand_flush.length),
        "straight_flush_bonus_odds": hcf.straight_flush_bonus_odds(run.length),
    }


def evaluate_chinese(line: str) -> Json:
    """CHP-2, CHP-3, CHP-7: ``front | middle | back``."""
    parts = line.split("|")
    if len(parts) != 3:
        raise InvalidInput(
            "wrong_segment_count",
            f"expected three segments 'front | middle | back', got {len(parts)}",
            expected=3,
            got=len(parts),
        )
    segments = [parse_cards(part) for part in parts]
    ensure_distinct(card for segment in segments for card in segment)
    for name, segment, size in zip(
        ("front", "middle", "back"), segments, chinese.SEGMENT_SIZES, strict=True
    ):
        if len(segment) != size:
            raise InvalidInput(
                "wrong_card_count",
                f"the {name} holds {size} cards, got {len(segment)}",
                segment=name,
                expected=[size],
                got=len(segment),
            )
    front, middle, back = segments
    win = chinese.best_automatic_win(front, middle, back)
    return {
        "fouled": chinese.is_fouled(front, middle, back),
        "segments": [_describe(chinese.evaluate_segment(segment)) for segment in segments],
        "automatic_win": None if win is None else win.value,
    }


def _describe(strength: int) -> Json:
    return {"category": high.category(strength).label, "ranks": high.rank_labels(strength)}


EVALUATORS: dict[Rules, Callable[[str], Json]] = {
    Rules.HIGH: evaluate_high,
    Rules.STUD8: evaluate_stud8,
    Rules.CARIBBEAN: evaluate_caribbean,
    Rules.HCF: evaluate_hcf,
    Rules.CHINESE: evaluate_chinese,
}

EXAMPLES: tuple[tuple[Rules, str], ...] = (
    (Rules.HIGH, "Kh Kd 4s Ks 4c 9d 2h"),
    (Rules.HIGH, "5c 4d 3h 2s Ah"),
    (Rules.STUD8, "8c 6d 4h 2s Ad Kh Kc"),
    (Rules.STUD8, "9c 9d Th Js Qd Kh Ac"),
    (Rules.CARIBBEAN, "As Kd 9h 5c 2c"),
    (Rules.HCF, "Ah Kh 7h 6s 5s 4s 2d"),
    (Rules.CHINESE, "Qs Qh 2d | 9c 9d 5s 5h 3c | Ac Kc Tc 7c 4c"),
    (Rules.CHINESE, "Ah Kd Qc | 2c 3d 4h 5s 7c | 6d 8h 9s Tc Jd"),
    (Rules.HIGH, "As Kd Zz Qh Jc"),
)
"""Lines shown, with their real output, in ``--help`` (the tests run them too)."""


def evaluate_line(rules: Rules, line: str) -> Json:
    """The JSON object for one line: the evaluation, or ``{"error": {"code", "message"}}``."""
    try:
        return EVALUATORS[rules](line)
    except LedgerError as err:
        return {"error": {"code": err.code, "message": err.message}}


def evaluate_lines(rules: Rules, lines: Iterable[str]) -> Iterator[Json]:
    """One object per non-blank line, in order."""
    for line in lines:
        if line.strip():
            yield evaluate_line(rules, line)


def _examples() -> str:
    shown = []
    for rules, line in EXAMPLES:
        output = json.dumps(evaluate_line(rules, line))
        shown.append(f"  --rules {rules.value}: {line}\n  {output}")
    return "\n\n".join(shown)


def _help() -> str:
    """The command's help: its examples' output is computed, when the help is shown."""
    return _HELP.format(examples=_examples())


_HELP = """Evaluate hands read from standard input, one per line; write one JSON object per line.

Cards are written As, Td, 9h (10h is read as Th), separated by spaces or commas. Blank lines are
skipped; every other line gets exactly one output line, in the same order, flushed as soon as it
is written. Ranks are listed most significant first, grouped as compared (full house K K K 4 4,
the wheel 5 4 3 2 A, a low 8 6 4 2 A). Categories: high_card, one_pair, two_pair,
three_of_a_kind, straight, flush, full_house, four_of_a_kind, straight_flush, royal_flush.

Output per --rules (odds are the N of N-1 on the default paytables):

```
  high       5-7 cards (COM-1, CSP-5)
             {{"category", "ranks", "cards"}}   cards: the best five
  stud8      5-7 cards (STUD8-7)
             {{"high": {{as high}}, "low": {{"ranks"}} | null}}
  caribbean  5 cards (CSP-3, CSP-4, CSP-6, CSP-7)
             {{"category", "ranks", "dealer_qualifies", "play_odds",
              "jackpot_award"}}   jackpot_award: flush, full_house,
             four_of_a_kind, straight_flush, royal_flush or null
  hcf        7 cards (HCF-4, HCF-5, HCF-8, HCF-10, HCF-11)
             {{"flush": {{"length", "ranks"}},
              "straight_flush": {{"length", "high"}}, "dp_qualifies",
              "max_raise_multiple", "flush_bonus_odds",
              "straight_flush_bonus_odds"}}   odds null where the bet
             does not pay
  chinese    13 cards as 'front | middle | back', 3, 5 and 5 cards
             (CHP-2, CHP-3, CHP-7)
             {{"fouled", "segments": [{{"category", "ranks"}} x3],
              "automatic_win"}}   automatic_win: dragon, six_pairs,
             three_flushes, three_straights or null
```

A malformed line gets {{"error": {{"code", "message"}}}} and the stream goes on:

```
  unknown_card         a token that is not a card
  duplicate_card       a card written twice on the line (chinese: in
                       the whole hand)
  wrong_card_count     too few or too many cards (chinese: in a segment)
  wrong_segment_count  chinese: not three segments separated by '|'
```

Exit status: 0 when the whole input was read, malformed lines included; 1 when standard input
cannot be read (the reason is printed on standard error). Bytes that are not UTF-8 make their line
an unknown_card error.

Examples (input line, then output line):

```
{examples}
```
"""


class _HelpWithExamples(TyperCommand):
    """The command whose help is :func:`_help`, made when it is read: ``ledger --help`` lists
    the command by its short help, and does not evaluate the examples (the first hand
    evaluated builds the evaluator's tables)."""

    @property
    def help(self) -> str:
        return _help()

    @help.setter
    def help(self, _value: str | None) -> None:
        pass


@app.command("evaluate", cls=_HelpWithExamples,
             short_help=_HELP.split("\n", 1)[0])
def evaluate_command(
    rules: Annotated[
        Rules,
        typer.Option(
            "--rules",
            case_sensitive=False,
            help="Which game's evaluation: high, stud8, caribbean, hcf or chinese.",
        ),
    ],
) -> None:
    """Evaluate hands read from standard input, one JSON object per line."""
    if sys.stdin is None:
        sys.stderr.write("ledger evaluate: cannot read standard input: it is closed\n")
        raise typer.Exit(1)
    try:
        run(rules, sys.stdin.buffer, sys.stdout)
    except UnreadableInput as err:
        sys.stderr.write(f"ledger evaluate: cannot read standard input: {err.__cause__}\n")
        raise typer.Exit(1) from None
    except BrokenPipeError:
        # The reader went away (``| head``): stop quietly, and keep Python from complaining
        # when it flushes the dead pipe at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        raise typer.Exit(0) from None


class UnreadableInput(Exception):
    """Standard input could not be read; the ``OSError`` is the cause."""


def run(rules: Rules, source: Iterable[bytes], sink: TextIO) -> None:
    """Evaluate every line of ``source`` into ``sink``, one flushed JSON line each."""
    for result in evaluate_lines(rules, _decoded(source)):
        sink.write(json.dumps(result) + "\n")
        sink.flush()


def _decoded(source: Iterable[bytes]) -> Iterator[str]:
    lines = iter(source)
    while True:
        try:
            raw = next(lines)
        except StopIteration:
            return
        except OSError as err:
            raise UnreadableInput(str(err)) from err
        yield raw.decode("utf-8", errors="replace")
