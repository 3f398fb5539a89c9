"""PHH and Open Hand History over stud hands played into a store (players walk
out now and then, COM-6): every hand says whether standard tools replay it; every PHH document
marked replayable replays in pokerkit to the recorded finishing stacks; every OHH hand balances
(what the players put in is what the pots hold, uncalled bets returned, STUD8-11, and the pots
are the wins plus the rake) and marks the actions that put a player all in."""

from __future__ import annotations

import json
import tomllib
import warnings
from collections.abc import Callable
from datetime import UTC, datetime
from datetime import time as dt_time
from decimal import Decimal
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

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
    sqlite_settings = sqlite_settings.model_copy(update={"venue": "Casino Test"})
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
    replayed = raked = 0
    for written in phh.written:
        text = written.path.read_text()
        doc = tomllib.loads(text)
        check_where_and_when(text, doc)
        if not doc["_replayable"]:
            assert doc["_not_replayable"]
            continue
        stacks = replay_in_pokerkit(text)
        recorded = doc["finishing_stacks"]
        # PHH has no rake: unraked, pokerkit ends on the recorded stacks; raked, it pays out
        # exactly the rake more and takes nothing from anyone.
        assert sum(stacks) - sum(recorded) == doc["_rake"], text
        if not doc["_rake"]:
            assert stacks == recorded, text
        assert all(pk >= ours for pk, ours in zip(stacks, recorded, strict=True)), text
        # ... and with the rake function built from the file, on the recorded stacks exactly
        # wherever pokerkit asks it to rake every pot (a hand won by a fold after a last bet
        # is paid out by pokerkit without asking).
        rake = pot_rake(doc)
        if doc["_rake"] and rake is not None:
            with_rake = replay_in_pokerkit(text, rake=rake)
            if set(doc["_pot_amounts"]) <= rake.asked:  # type: ignore[attr-defined]
                assert with_rake == recorded, text
                raked += 1
        replayed += 1
    assert replayed == phh.replayable and raked > 10
    (written,) = ohh.written
    allin = checked = raked_pots = 0
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
        for pot in pots:  # each pot's rake, shared among its winners
            assert sum(w["contributed_rake"] for w in pot["player_wins"]) == pot["rake"], hand
            raked_pots += pot["rake"] > 0
        assert isinstance(hand["ledger_replayable"], bool)
        checked += 1
    assert checked == HANDS and allin > 0 and raked_pots > 10


def replay_in_pokerkit(text: str, **kwargs: Any) -> list[int]:
    """The stacks pokerkit ends the hand with (its warnings of a fold where a check was
    possible are the players' choice, not the file's)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        state = None
        for state in HandHistory.loads(text, **kwargs):  # noqa: B007 - the last state ends it
            pass
    assert state is not None and not state.status
    return list(state.stacks)


def pot_rake(doc: dict[str, Any]) -> Callable[..., tuple[int, int]] | None:
    """PokerKit's rake function for this hand, from ``_pot_amounts`` and ``_pot_rakes``: the
    pot of each amount is raked what the file says (None when two pots of one amount were
    raked differently: the amount cannot tell them apart)."""
    rakes: dict[int, int] = {}
    for amount, rake in zip(doc["_pot_amounts"], doc["_pot_rakes"], strict=True):
        if rakes.setdefault(amount, rake) != rake:
            return None

    def rake_of(amount: int, state: Any = None) -> tuple[int, int]:
        rake_of.asked.add(amount)  # type: ignore[attr-defined]
        taken = rakes.get(amount, 0)
        return taken, amount - taken

    rake_of.asked = set()  # type: ignore[attr-defined]
    return rake_of


def check_where_and_when(text: str, doc: dict[str, Any]) -> None:
    """PHH's date, time, time zone, table and venue fields, read back by pokerkit."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no field pokerkit does not know
        history = HandHistory.loads(text)
    assert history.venue == "Casino Test" and history.table == doc["table"]
    assert history.time_zone == "Europe/Amsterdam" and isinstance(history.time, dt_time)
    assert history.currency == "EUR"
    assert history.year is not None and history.month is not None and history.day is not None
    local = datetime(history.year, history.month, history.day, history.time.hour,
                     history.time.minute, history.time.second,
                     tzinfo=ZoneInfo(history.time_zone))
    assert abs((datetime.now(UTC) - local).total_seconds()) < 3_600  # played just now
    assert history.winnings is not None and len(history.winnings) == len(history.players or ())
    assert sum(history.winnings) == sum(doc["_pot_amounts"]) - doc["_rake"]


def test_hand_history_fields_on_both_stores(store_settings: Settings, tmp_path: Path) -> None:
    """A few raked stud hands on SQLite and PostgreSQL: PHH's venue, table, time, time zone and
    date read back by pokerkit, with the winnings after the rake; OHH's contributed_rake adding
    up to each pot's rake, and the venue as its site."""
    settings = store_settings.model_copy(update={"venue": "Casino Test"})
    app = LedgerApp(settings, allow_seeded=True)
    try:
        app.execute(OpenTable(command_id="open-PK-9", table="PK-9", game="stud-hilo",
                              config={"card_source": "seeded", "shuffle_seed": 18,
                                      "rake_bps": 500, "rake_cap": 300}))
        simulate(app, "stud-hilo", "PK-9", 8, seed=18, seeded=True)
        Runner(app).catch_up()
        read = ReadModel(app)
        (day,) = read.gaming_days()
        phh = export_hands(app, read, day, "phh", tmp_path)
        ohh = export_hands(app, read, day, "ohh", tmp_path)
    finally:
        app.close()
    assert phh.hands == ohh.hands == 8
    for written in phh.written:
        text = written.path.read_text()
        check_where_and_when(text, tomllib.loads(text))
    (written,) = ohh.written
    rake = 0
    for chunk in written.path.read_text().split("\n\n"):
        hand = json.loads(chunk, parse_float=Decimal)["ohh"]
        assert hand["site_name"] == "Casino Test"
        for pot in hand["pots"]:
            assert sum(w["contributed_rake"] for w in pot["player_wins"]) == pot["rake"]
            rake += pot["rake"]
    assert rake > 0
