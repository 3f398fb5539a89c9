"""PHH and Open Hand History over stud hands played into a store (players walk
out now and then, COM-6): every hand says whether standard tools replay it; every PHH document
marked replayable replays in pokerkit to the recorded finishing stacks; every OHH hand balances
(what the players put in is what the pots hold, uncalled bets returned, STUD8-11, and the pots
are the wins plus the rake) and marks the actions that put a player all in."""

from __future__ import annotations

import json
import tomllib
import warnings
from decimal import Decimal
from pathlib import Path
from typing import Any

from pokerkit import HandHistory

from ledger.app.application import LedgerApp
from ledger.domain.commands import OpenTable
from ledger.settings import Settings
from ledger.sim.runner import simulate
from projections.exports.hands import export_hands
from projections.read.queries import ReadModel
from projections.views.runner import Runner

TABLES: dict[str, tuple[int, int, int | None, dict[str, Any]]] = {
    # code: (seed, hands, players, configuration beside the seeded shuffle)
    "PK-1": (18, 80, None, {"rake_bps": 500, "rake_cap": 300}),
    "PK-2": (5, 110, 3, {"heads_up_unlimited": True}),
    "PK-3": (31, 110, 6, {"rake_bps": 1_000, "rake_cap": 2_000, "chip_unit": 100}),
}
HANDS = sum(hands for _, hands, _, _ in TABLES.values())


def test_stud_exports_replay_and_balance(sqlite_settings: Settings, tmp_path: Path) -> None:
    """A few hundred hands on three tables (eight players raked, three unraked with heads-up
    raising unlimited, six raked more heavily). The deals are seeded (COM-8) so the run repeats
    exactly: seed 18 plays, among others, a fourth street with an open pair where a short stack
    goes all in for more than the small bet and less than the big bet (STUD8-3), which pokerkit
    cannot replay."""
    app = LedgerApp(sqlite_settings, allow_seeded=True)
    try:
        for code, (seed, hands, players, config) in TABLES.items():
            app.execute(OpenTable(command_id=f"open-{code}", table=code, game="stud-hilo",
                                  config={"card_source": "seeded", "shuffle_seed": seed,
                                          **config}))
            simulate(app, "stud-hilo", code, hands, players=players, seed=seed, seeded=True,
                     leave_rate=0.01)
        Runner(app).catch_up()
        read = ReadModel(app)
        (day,) = read.gaming_days()
        phh = export_hands(app, read, day, "phh", tmp_path)
        ohh = export_hands(app, read, day, "ohh", tmp_path)
    finally:
        app.close()
    assert phh.hands == ohh.hands == HANDS
    assert phh.replayable == ohh.replayable > HANDS // 2
    assert phh.not_replayable == ohh.not_replayable
    replayed = 0
    for written in phh.written:
        text = written.path.read_text()
        doc = tomllib.loads(text)
        if not doc["_replayable"]:
            assert doc["_not_replayable"]
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            state = None
            for state in HandHistory.loads(text):  # noqa: B007 - the last state ends the hand
                pass
        assert state is not None and not state.status
        stacks, recorded = list(state.stacks), doc["finishing_stacks"]
        # PHH has no rake: unraked, pokerkit ends on the recorded stacks; raked, it pays out
        # exactly the rake more and takes nothing from anyone.
        assert sum(stacks) - sum(recorded) == doc["_rake"], text
        if not doc["_rake"]:
            assert stacks == recorded, text
        assert all(pk >= ours for pk, ours in zip(stacks, recorded, strict=True)), text
        replayed += 1
    assert replayed == phh.replayable
    (written,) = ohh.written
    allin = checked = 0
    for chunk in written.path.read_text().split("\n\n"):
        hand = json.loads(chunk, parse_float=Decimal)["ohh"]
        put_in: dict[int, Decimal] = {}
        for rnd in hand["rounds"]:
            for action in rnd["actions"]:
                amount = action.get("amount", Decimal(0))
                player = action["player_id"]
                put_in[player] = put_in.get(player, Decimal(0)) + amount
                stack = next(p["starting_stack"] for p in hand["players"] if p["id"] == player)
                assert action.get("is_allin", False) == (amount > 0 and put_in[player] == stack)
                allin += bool(action.get("is_allin"))
        pots = hand["pots"]
        assert sum(put_in.values()) == sum(p["amount"] for p in pots), hand["game_number"]
        assert sum(p["amount"] for p in pots) == sum(
            w["win_amount"] for p in pots for w in p["player_wins"]) + sum(p["rake"] for p in pots)
        assert isinstance(hand["ledger_replayable"], bool)
        checked += 1
    assert checked == HANDS and allin > 0
