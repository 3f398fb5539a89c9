"""``ledger evaluate`` end to end: the installed command, fed through standard input."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import typer

from ledger.cli import evaluate as evaluate_module

_SCRIPT = Path(sys.executable).with_name("ledger")
COMMAND = (
    [str(_SCRIPT)]
    if _SCRIPT.exists()
    else [sys.executable, "-c", "from ledger.cli import main; main()"]
)
ENV = {**os.environ, "COLUMNS": "400", "NO_COLOR": "1", "TERM": "dumb"}


def ledger(*args: str, stdin: bytes | str = b"") -> subprocess.CompletedProcess[bytes]:
    data = stdin.encode() if isinstance(stdin, str) else stdin
    return subprocess.run(
        [*COMMAND, *args], input=data, capture_output=True, env=ENV, timeout=60, check=False
    )


def evaluate(rules: str, *lines: str) -> list[Any]:
    result = ledger("evaluate", "--rules", rules, stdin="".join(line + "\n" for line in lines))
    assert result.returncode == 0, result.stderr.decode()
    return [json.loads(line) for line in result.stdout.decode().splitlines()]


def test_com_1_high_rules() -> None:
    assert evaluate("high", "Kh Kd 4s Ks 4c 9d 2h", "5c 4d 3h 2s Ah", "As Ks Qs Js Ts") == [
        {
            "category": "full_house",
            "ranks": ["K", "K", "K", "4", "4"],
            "cards": ["Kh", "Kd", "Ks", "4s", "4c"],
        },
        {
            "category": "straight",
            "ranks": ["5", "4", "3", "2", "A"],
            "cards": ["5c", "4d", "3h", "2s", "Ah"],
        },
        {
            "category": "royal_flush",
            "ranks": ["A", "K", "Q", "J", "T"],
            "cards": ["As", "Ks", "Qs", "Js", "Ts"],
        },
    ]


def test_stud8_7_stud8_rules() -> None:
    with_low, without = evaluate("stud8", "8c 6d 4h 2s Ad Kh Kc", "9c 9d Th Js Qd Kh Ac")
    assert with_low == {
        "high": {
            "category": "one_pair",
            "ranks": ["K", "K", "A", "8", "6"],
            "cards": ["Kh", "Kc", "Ad", "8c", "6d"],
        },
        "low": {"ranks": ["8", "6", "4", "2", "A"]},
    }
    assert without["low"] is None
    assert without["high"]["category"] == "straight"


def test_csp_3_csp_4_csp_6_caribbean_rules() -> None:
    ak, aq, royal = evaluate("caribbean", "As Kd 9h 5c 2c", "As Qd Jh 9c 8c", "Ac Kc Qc Jc Tc")
    assert ak == {
        "category": "high_card",
        "ranks": ["A", "K", "9", "5", "2"],
        "dealer_qualifies": True,
        "play_odds": 1,
        "jackpot_award": None,
    }
    assert aq["dealer_qualifies"] is False
    assert (royal["play_odds"], royal["jackpot_award"]) == (100, "royal_flush")


def test_hcf_4_hcf_10_hcf_rules() -> None:
    (result,) = evaluate("hcf", "Ah Kh 7h 6s 5s 4s 2d")
    assert result == {
        "flush": {"length": 3, "ranks": ["A", "K", "7"]},
        "straight_flush": {"length": 3, "high": "6"},
        "dp_qualifies": True,
        "max_raise_multiple": 1,
        "flush_bonus_odds": None,
        "straight_flush_bonus_odds": 8,
    }
    (seven,) = evaluate("hcf", "8d 9d Td Jd Qd Kd Ad")
    assert seven["flush"] == {"length": 7, "ranks": ["A", "K", "Q", "J", "T", "9", "8"]}
    assert seven["straight_flush"] == {"length": 7, "high": "A"}
    assert (seven["max_raise_multiple"], seven["flush_bonus_odds"]) == (3, 200)
    assert seven["straight_flush_bonus_odds"] == 1000


def test_chp_3_chp_7_chinese_rules() -> None:
    plain, dragon = evaluate(
        "chinese",
        "Qs Qh 2d | 9c 9d 5s 5h 3c | Ac Kc Tc 7c 4c",
        "Ah Kd Qc | 2c 3d 4h 5s 7c | 6d 8h 9s Tc Jd",
    )
    assert plain == {
        "fouled": False,
        "segments": [
            {"category": "one_pair", "ranks": ["Q", "Q", "2"]},
            {"category": "two_pair", "ranks": ["9", "9", "5", "5", "3"]},
            {"category": "flush", "ranks": ["A", "K", "T", "7", "4"]},
        ],
        "automatic_win": None,
    }
    assert (dragon["fouled"], dragon["automatic_win"]) == (True, "dragon")


@pytest.mark.parametrize(
    ("rules", "line", "code"),
    [
        ("high", "As Kd Zz Qh Jc", "unknown_card"),
        ("high", "As Kd As Qh Jc", "duplicate_card"),
        ("high", "As Kd Qh Jc", "wrong_card_count"),
        ("high", "As Kd Qh Jc Tc 9c 8c 7c", "wrong_card_count"),
        ("stud8", "As Kd", "wrong_card_count"),
        ("caribbean", "As Kd Qh Jc Tc 9c", "wrong_card_count"),
        ("hcf", "As Kd Qh Jc Tc 9c", "wrong_card_count"),
        ("chinese", "Qs Qh 2d 9c 9d 5s 5h 3c Ac Kc Tc 7c 4c", "wrong_segment_count"),
        ("chinese", "Qs Qh | 2d 9c 9d 5s 5h 3c | Ac Kc Tc 7c 4c", "wrong_card_count"),
        ("chinese", "Qs Qh 2d | 9c 9d 5s 5h Qs | Ac Kc Tc 7c 4c", "duplicate_card"),
        ("chinese", "Qs Qh 2d | 9c 9d 5s 5h 3c | Ac Kc Tc 7c 4c | 2c", "wrong_segment_count"),
    ],
)
def test_com_1_malformed_line_gets_a_coded_error(rules: str, line: str, code: str) -> None:
    (result,) = evaluate(rules, line)
    assert set(result) == {"error"}
    assert set(result["error"]) == {"code", "message"}
    assert result["error"]["code"] == code
    assert result["error"]["message"]


def test_stream_goes_on_after_errors_and_skips_blank_lines() -> None:
    stdin = "As Ks Qs Js Ts\n\n   \nAs As Kd Qd Jd\nnot cards\n\xff\n5c 4d 3h 2s Ah\n"
    result = ledger("evaluate", "--rules", "high", stdin=stdin.encode("latin-1"))
    assert result.returncode == 0
    out = [json.loads(line) for line in result.stdout.decode().splitlines()]
    assert [o.get("category") or o["error"]["code"] for o in out] == [
        "royal_flush",
        "duplicate_card",
        "unknown_card",
        "unknown_card",  # bytes that are not UTF-8
        "straight",
    ]


def test_each_line_is_flushed_as_soon_as_it_is_written() -> None:
    with subprocess.Popen(
        [*COMMAND, "evaluate", "--rules", "high"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env=ENV,
    ) as process:
        assert process.stdin is not None and process.stdout is not None
        for line, label in (("As Ks Qs Js Ts", "royal_flush"), ("2c 2d 7h 8s 9d", "one_pair")):
            process.stdin.write(line.encode() + b"\n")
            process.stdin.flush()
            # stdin is still open: the answer must arrive without waiting for the end of input
            assert json.loads(process.stdout.readline())["category"] == label
        process.stdin.close()
        assert process.wait(timeout=60) == 0


def test_help_documents_every_output_shape_and_its_examples_are_real() -> None:
    result = ledger("evaluate", "--help")
    assert result.returncode == 0
    text = "\n".join(line.rstrip() for line in result.stdout.decode().splitlines())
    for word in (
        "high", "stud8", "caribbean", "hcf", "chinese", '"category"', '"ranks"', '"cards"',
        '"low"', '"dealer_qualifies"', '"play_odds"', '"jackpot_award"', '"straight_flush"',
        '"dp_qualifies"', '"max_raise_multiple"', '"flush_bonus_odds"',
        '"straight_flush_bonus_odds"', '"fouled"', '"segments"', '"automatic_win"',
        "unknown_card", "duplicate_card", "wrong_card_count", "wrong_segment_count",
        "Exit status",
    ):  # fmt: skip
        assert word in text, word
    examples = re.findall(r"--rules (\w+): (.+)\n\s*(\{.*\})\n", text)
    assert len(examples) == len(evaluate_module.EXAMPLES)
    assert {rules for rules, _, _ in examples} == {"high", "stud8", "caribbean", "hcf", "chinese"}
    for rules, line, shown in examples:
        assert evaluate(rules, line) == [json.loads(shown)], line


def test_rules_option_is_required_and_checked() -> None:
    assert ledger("evaluate", stdin="As Ks Qs Js Ts\n").returncode != 0
    assert ledger("evaluate", "--rules", "omaha", stdin="As Ks Qs Js Ts\n").returncode != 0


def test_unreadable_standard_input_exits_with_status_1(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    class Unreadable:
        def __iter__(self) -> Unreadable:
            return self

        def __next__(self) -> bytes:
            raise OSError(5, "Input/output error")

    class FakeStdin:
        buffer = Unreadable()

    monkeypatch.setattr(sys, "stdin", FakeStdin())
    with pytest.raises(typer.Exit) as exited:
        evaluate_module.evaluate_command(evaluate_module.Rules.HIGH)
    assert exited.value.exit_code == 1
    assert "cannot read standard input" in capsys.readouterr().err


def test_run_writes_one_line_per_hand() -> None:
    sink = io.StringIO()
    evaluate_module.run(evaluate_module.Rules.HIGH, [b"As Ks Qs Js Ts\n", b"\n", b"x\n"], sink)
    assert [json.loads(line).keys() for line in sink.getvalue().splitlines()] == [
        {"category", "ranks", "cards"},
        {"error"},
    ]
