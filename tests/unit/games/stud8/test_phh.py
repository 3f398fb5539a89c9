"""PHH export (variant F7S/8): pokerkit, the standard PHH tooling, loads the documents and
replays them to the finishing stacks the ledger recorded."""

from __future__ import annotations

import random
import tomllib
import warnings
from collections import Counter
from typing import Any

import pytest
from pokerkit import HandHistory

from ledger.domain.errors import LedgerError
from ledger.domain.records import HandSettled, HandStarted, Record
from ledger.games.stud8.model import StudConfig
from ledger.games.stud8.phh import hand_to_phh
from ledger.sim.base import CommandIds, Walkouts, play_hand
from ledger.sim.stud8 import StudBot, starting_stack

from .helpers import (
    TABLE,
    Executor,
    act,
    deal,
    open_table,
    play_streets,
    recorded_table,
    seeded_decks,
    settle,
    show_down,
    stack,
)

BIG = 20_000
BLOCKING_RULES = {"COM-6", "STUD8-3", "STUD8-5", "STUD8-6", "STUD8-7", "STUD8-8", "STUD8-9",
                  "STUD8-10"}


def replay(text: str) -> tuple[list[int], list[int]]:
    """(pokerkit's finishing stacks, the document's). PHH has no rake field: pokerkit replays
    the hand unraked, and the ledger's rake is in ``_rake`` / ``_pot_rakes``."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        history = HandHistory.loads(text)
        state = None
        for state in history:  # noqa: B007 - the last state is the end of the hand
            pass
    assert state is not None and not state.status
    return list(state.stacks), list(history.finishing_stacks or [])


def check_replay(text: str) -> None:
    """Unraked, pokerkit ends on the recorded stacks; raked, it pays out exactly the rake more
    and takes nothing from anyone."""
    finished, recorded = replay(text)
    rake = tomllib.loads(text)["_rake"]
    assert sum(finished) - sum(recorded) == rake
    if not rake:
        assert finished == recorded, text
    assert all(pk >= ours for pk, ours in zip(finished, recorded, strict=True)), text


def hand_records(ex: Executor) -> list[Record]:
    start = max(i for i, r in enumerate(ex.records) if isinstance(r, HandStarted))
    return ex.records[start:]


def export(ex: Executor, before: dict[int, int]) -> str:
    return hand_to_phh(hand_records(ex), before, ex.config, table=TABLE, currency="EUR")


def test_stud8_8_phh_of_a_quartered_low_replays_in_pokerkit() -> None:
    ex = recorded_table({1: BIG, 2: BIG, 3: BIG})
    play_streets(ex, [{1: "Kc Kd Ks", 2: "Ah 2h 4d", 3: "As 2s 4h"},
                      {1: "9c", 2: "5c", 3: "5d"}, {1: "9d", 2: "7s", 3: "7h"},
                      {1: "Tc", 2: "Qc", 3: "Qd"}, {1: "Js", 2: "Jd", 3: "Jh"}])
    show_down(ex)
    settle(ex)
    text = export(ex, {1: BIG, 2: BIG, 3: BIG})
    doc = tomllib.loads(text)
    assert doc["variant"] == "F7S/8"
    assert (doc["antes"], doc["bring_in"], doc["small_bet"], doc["big_bet"]) == (
        [2, 2, 2], 5, 10, 20)
    assert doc["starting_stacks"] == [200, 200, 200]
    assert doc["finishing_stacks"] == [stack(ex, s) // 100 for s in (1, 2, 3)] == [204, 198, 198]
    assert doc["actions"][:4] == ["d dh p1 KcKdKs", "d dh p2 Ah2h4d", "d dh p3 As2s4h", "p2 pb"]
    assert doc["actions"][-3:] == ["p1 sm KcKdKs9c9dTcJs", "p2 sm Ah2h4d5c7sQcJd",
                                   "p3 sm As2s4h5d7hQdJh"]
    assert (doc["players"], doc["seats"], doc["_chip_unit"]) == (["p1", "p2", "p3"], [1, 2, 3], 100)
    check_replay(text)


def test_stud8_9_phh_of_side_pots_and_rake_replays_in_pokerkit() -> None:
    ex = recorded_table({1: 1_800, 2: 3_200, 3: BIG, 4: BIG}, rake_bps=1_000, rake_cap=700)
    deal(ex, {1: "Ac 3h 2d", 2: "9h Td Js", 3: "9s Th Jc", 4: "5d 5h 2c"})
    for seat, action in ((4, "bring_in"), (1, "complete"), (2, "raise"), (3, "raise"),
                         (4, "fold"), (1, "call"), (2, "call")):
        act(ex, seat, action)
    for cards in ({1: "4s", 2: "Qc", 3: "Qd"}, {1: "6c", 2: "Ks", 3: "Kc"},
                  {1: "Kd", 2: "8d", 3: "7d"}, {1: "Qh", 2: "8s", 3: "7h"}):
        deal(ex, cards)
    show_down(ex, mucks=(1,))  # seat 1 mucks its winning low: the low half goes to nobody else
    settle(ex)
    text = export(ex, {1: 1_800, 2: 3_200, 3: BIG, 4: BIG})
    doc = tomllib.loads(text)
    assert doc["_rake"] == 7 and doc["_pot_rakes"] == [7]  # one pot: seat 1 mucked
    assert "p1 sm" in doc["actions"]
    check_replay(text)


def test_stud8_6_phh_writes_the_community_card_as_a_board_card() -> None:
    seats = {s: BIG for s in range(1, 9)}
    ex = recorded_table(seats)
    deck = [f"{r}{s}" for r in "23456789TJQKA" for s in "cdhs"]
    hands = {s: deck[(s - 1) * 6:(s - 1) * 6 + 6] for s in seats}
    play_streets(ex, [{s: " ".join(hands[s][:3]) for s in seats}] + [
        {s: hands[s][k] for s in seats} for k in range(3, 6)] + [{"community": deck[48]}])
    show_down(ex)
    settle(ex)
    doc = tomllib.loads(export(ex, seats))
    assert "d db Ac" in doc["actions"]
    assert len(doc["finishing_stacks"]) == 8
    assert sum(doc["finishing_stacks"]) == sum(doc["starting_stacks"])


def test_stud8_11_phh_refuses_an_unsettled_hand() -> None:
    ex = recorded_table({1: BIG, 2: BIG})
    with pytest.raises(ValueError, match="not been settled"):
        export(ex, {1: BIG, 2: BIG})


def bot_hands(seed: int, config: dict[str, Any], hands: int) -> list[str]:
    """PHH documents of ``hands`` hands played by the stud bot, players walking out now and
    then (COM-6, folding in turn or not)."""
    rng = random.Random(seed)
    cfg = StudConfig(**config)
    players = 2 + seed % 7
    ex = open_table({s: starting_stack(cfg, rng) for s in range(1, players + 1)}, config,
                    seeded_decks(random.Random(seed)))
    bot = StudBot()
    ids = CommandIds(TABLE, f"x{seed}")
    walkouts = Walkouts(0.01)
    out: list[str] = []
    for _ in range(hands):
        before = {e: stack(ex, e) for e in range(1, players + 1)}
        try:
            play_hand(ex, bot, rng, ids, walkouts=walkouts)
        except LedgerError as exc:  # the table ran out of players
            assert exc.code == "not_enough_players"
            break
        walkouts.come_back(ex, ids)
        records = hand_records(ex)
        end = next(i for i, r in enumerate(records) if isinstance(r, HandSettled))
        out.append(hand_to_phh(records[:end + 1], before, cfg))
    return out


def test_stud8_phh_every_hand_marked_replayable_replays_in_pokerkit() -> None:
    """Over a few hundred bot hands (open-pair big bets, uncapped heads-up raising, rake,
    players who leave): each document says whether pokerkit replays it and, if not, which rules
    prevent it; every one marked replayable replays to the recorded finishing stacks."""
    replayable, blocked = 0, Counter[str]()
    for seed in range(48):
        configs: list[dict[str, Any]] = [{}, {"rake_bps": 500, "rake_cap": 500},
                                          {"heads_up_unlimited": True}]
        config = configs[seed % 3]
        for text in bot_hands(seed, config, 6):
            doc = tomllib.loads(text)
            if doc["_replayable"]:
                assert doc["_not_replayable"] == []
                check_replay(text)
                replayable += 1
            else:
                rules = [line.split(":")[0] for line in doc["_not_replayable"]]
                assert rules and all(r in BLOCKING_RULES for r in rules), doc
                blocked.update(rules)
    assert replayable > 150, (replayable, blocked)
    assert {"COM-6", "STUD8-3"} <= set(blocked), blocked
