"""The day's exports: Excel-friendly CSV, JSON Lines, hand histories (JSON Lines, PHH, OHH)."""

from __future__ import annotations

import csv
import io
import json
import tomllib
import warnings
from pathlib import Path

import pytest
from pokerkit import HandHistory

from ledger.app.application import LedgerApp
from ledger.domain.errors import LedgerError
from projections.exports.accounting import export_accounting
from projections.exports.hands import export_hands
from projections.exports.poker import starting_stacks
from projections.read.queries import ReadModel

from .conftest import HANDS


@pytest.fixture
def read(shared: tuple[LedgerApp, dict[str, str]]) -> ReadModel:
    return ReadModel(shared[0])


@pytest.fixture
def app(shared: tuple[LedgerApp, dict[str, str]]) -> LedgerApp:
    return shared[0]


@pytest.fixture
def played(shared: tuple[LedgerApp, dict[str, str]]) -> dict[str, str]:
    return shared[1]


def _day(read: ReadModel) -> str:
    (day,) = read.gaming_days()
    return day


def _csv(path: Path) -> list[dict[str, str]]:
    raw = path.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf"), "UTF-8 with a byte-order mark, for Excel"
    text = raw.decode("utf-8-sig")
    assert "\r\n" in text or text.count("\n") <= 1
    return list(csv.DictReader(io.StringIO(text)))


def test_accounting_files_as_csv_and_json_lines(read: ReadModel, tmp_path: Path,
                                                played: dict[str, str]) -> None:
    day = _day(read)
    written = export_accounting(read, day, tmp_path / "out")
    names = sorted(w.path.name for w in written)
    assert names == sorted(f"{n}-{day}.{ext}" for n in ("accounting", "rake", "jackpot",
                                                        "bankrolls", "dp-results",
                                                        "corrections")
                           for ext in ("csv", "jsonl"))
    rows = _csv(tmp_path / "out" / f"accounting-{day}.csv")
    assert {r["table"] for r in rows} == set(played.values())
    csp = next(r for r in rows if r["table"] == played["caribbean-stud"])
    viewed = read.accounting(table=played["caribbean-stud"])[0]
    assert csp["drop"] == f"{viewed['drop_minor'] // 100}.{viewed['drop_minor'] % 100:02d}"
    assert csp["hold_pct"] == viewed["hold_pct"]
    for row in rows:
        for column in ("drop", "cash_outs", "rake", "jackpot_awards"):
            whole, _, cents = row[column].lstrip("-").partition(".")
            assert whole.isdigit() and len(cents) == 2
    hcf = next(r for r in rows if r["table"] == played["high-card-flush"])
    assert hcf["house_win"] == "" and hcf["dp_results"] != ""
    lines = (tmp_path / "out" / f"accounting-{day}.jsonl").read_text().splitlines()
    objects = [json.loads(line) for line in lines]
    assert [o["table"] for o in objects] == [r["table"] for r in rows]
    assert objects[0]["drop"] == rows[0]["drop"]  # the same values, as strings
    assert all(o["house_win"] is None for o in objects if o["game"] != "caribbean-stud")
    bank = _csv(tmp_path / "out" / f"bankrolls-{day}.csv")
    assert {r["account"] for r in bank} >= {"cage", "house", "rake", "jackpot"}
    jackpot = _csv(tmp_path / "out" / f"jackpot-{day}.csv")
    assert jackpot and {r["kind"] for r in jackpot} >= {"seed", "contribution"}
    assert _csv(tmp_path / "out" / f"dp-results-{day}.csv")


def test_hand_histories_as_json_lines_for_every_game(app: LedgerApp, read: ReadModel,
                                                     tmp_path: Path) -> None:
    day = _day(read)
    result = export_hands(app, read, day, "jsonl", tmp_path)
    assert result.hands == sum(HANDS.values()) and not result.skipped
    hands = [json.loads(line) for line in result.written[0].path.read_text().splitlines()]
    assert {h["game"] for h in hands} == set(HANDS)
    assert all(h["currency"] == "EUR" and h["result"]["outcomes"] for h in hands
               if h["status"] == "settled")


def test_stud_hands_as_phh_and_open_hand_history(app: LedgerApp, read: ReadModel,
                                                 tmp_path: Path,
                                                 played: dict[str, str]) -> None:
    day = _day(read)
    phh = export_hands(app, read, day, "phh", tmp_path)
    assert phh.hands == HANDS["stud-hilo"]
    assert phh.skipped == {g: n for g, n in HANDS.items() if g != "stud-hilo"}
    replayed = 0
    for written in phh.written:
        text = written.path.read_text()
        doc = tomllib.loads(text)
        hand = read.hand(played["stud-hilo"], doc["hand"])
        stacks = starting_stacks(read, hand)
        assert doc["variant"] == "F7S/8"
        assert doc["starting_stacks"] == [stacks[s] // 100 for s in doc["seats"]]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            history = HandHistory.loads(text)
            try:
                for _ in history:
                    pass
                replayed += 1
            except (ValueError, KeyError):
                pass  # pokerkit's stud limits, listed in ledger.games.stud8.phh
    assert replayed > 0
    ohh = export_hands(app, read, day, "ohh", tmp_path)
    (written,) = ohh.written
    chunks = written.path.read_text().split("\n\n")
    documents = [json.loads(chunk) for chunk in chunks]
    assert len(documents) == HANDS["stud-hilo"]
    first = documents[0]["ohh"]
    assert first["game_type"] == "StudHiLo" and first["bet_limit"]["bet_type"] == "FL"
    assert first["rounds"][0]["street"] == "Third Street"
    assert first["rounds"][0]["actions"][0]["action"] == "Post Ante"
    won = sum(w["win_amount"] for p in first["pots"] for w in p["player_wins"])
    pots = sum(p["amount"] - p["rake"] for p in first["pots"])
    assert round(won * 100) == round(pots * 100)
    assert '"ante_amount":2.00' in chunks[0]


@pytest.mark.parametrize(("day", "fmt", "code"), [
    ("2026/03/14", "jsonl", "invalid_day"),
    ("2026-03-14", "csv", "unknown_format"),
])
def test_bad_export_requests_are_coded_errors(app: LedgerApp, read: ReadModel, tmp_path: Path,
                                              day: str, fmt: str, code: str) -> None:
    with pytest.raises(LedgerError) as err:
        export_hands(app, read, day, fmt, tmp_path)
    assert err.value.code == code


def test_an_unwritable_output_is_a_coded_error(read: ReadModel, tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    with pytest.raises(LedgerError) as err:
        export_accounting(read, _day(read), blocker / "out")
    assert err.value.code == "output_not_writable"
