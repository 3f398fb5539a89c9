"""Run simulated hands through the ledger application (or any executor)."""

from __future__ import annotations

import random
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ledger.app.application import CommandResult, LedgerApp
from ledger.domain import accounts
from ledger.domain.commands import BuyIn, Command, OpenTable, SeatPlayer, SignInDealer
from ledger.domain.errors import InvalidInput, NotFound, StateConflict
from ledger.games.base import Step, TableView
from ledger.games.registry import get_game
from ledger.sim.base import Bot, CommandIds, Walkouts, play_hand
from ledger.sim.cheats import Cheat, CheatingBot, RecordedShoe, check
from ledger.sim.profiles import profile_for


@dataclass
class RunStats:
    """What a simulation appended."""

    game: str
    table: str
    hands: int = 0
    commands: int = 0
    events: int = 0
    chips_moved: int = 0
    seconds: float = 0.0
    house_before: int = 0
    house_after: int = 0
    rake_before: int = 0
    rake_after: int = 0
    jackpot_after: int = 0
    event_types: dict[str, int] = field(default_factory=dict)
    cheated: dict[str, list[int]] = field(default_factory=dict)
    """Per cheat (``kind:who,...``), the hands in which it cheated."""

    @property
    def house_result(self) -> int:
        return self.house_after - self.house_before

    @property
    def rake(self) -> int:
        return self.rake_after - self.rake_before


class AppExecutor:
    """Drives one table of a LedgerApp and counts what the commands append."""

    def __init__(self, app: LedgerApp, code: str, stats: RunStats) -> None:
        self.app = app
        self.code = code
        self.stats = stats

    def execute(self, command: Command) -> CommandResult:
        result = self.app.execute(command)
        self.stats.commands += 1
        self.stats.events += result.count
        for event in result.events:
            kind = event["type"]
            self.stats.event_types[kind] = self.stats.event_types.get(kind, 0) + 1
            for t in event.get("transfers", ()):
                self.stats.chips_moved += t["amount"]
        return result

    def observe(self) -> tuple[TableView, Any, Step]:
        with self.app.reading(self.code) as table:
            state = table.state
            return state.view(), state.hand, state.next_step()


def simulate(
    app: LedgerApp,
    game: str,
    code: str,
    hands: int,
    *,
    players: int | None = None,
    seed: int | None = None,
    leave_rate: float = 0.0,
    seeded: bool = False,
    on_hand: Callable[[int], None] | None = None,
    cheats: Sequence[Cheat] = (),
    dealers: Sequence[str] = (),
    dealer_shift: int = 40,
) -> RunStats:
    """Open ``code`` if needed, seat players, and play ``hands`` hands through ``app``.

    ``leave_rate``: before each step of a hand, the chance that a player of the hand gets up
    (COM-6: its seat folds at once); players who left sit down again after the hand.
    ``seeded`` (with ``seed``): a table this opens deals from a shuffle seeded with ``seed``
    (card source ``seeded``, COM-8), so that the run repeats exactly; ``app`` must allow it.
    ``dealers``: principal ids who deal in turn, ``dealer_shift`` hands each (DLR-1; registered
    as dealers if the register lacks them). ``cheats``: players (or a dealer) who cheat
    (:mod:`ledger.sim.cheats`); with an ``overpaying-dealer`` a table this opens has its cards
    recorded (COM-8), keyed in by the simulation.
    """
    profile = profile_for(game)
    rules = get_game(game)
    seats = players if players is not None else profile.players
    if not 1 <= seats <= len(rules.seats):
        raise StateConflict(
            "invalid_player_count",
            f"{rules.title} seats 1 to {len(rules.seats)} players, not {seats}",
        )
    for cheat in cheats:
        try:
            check(cheat, game)
        except ValueError as exc:
            raise InvalidInput("invalid_cheat", str(exc)) from None
    rng = random.Random(seed)
    ids = CommandIds(code, f"sim-{uuid.uuid4().hex[:12]}")
    stats = RunStats(game=game, table=code)
    executor = AppExecutor(app, code, stats)
    config = dict(profile.config)
    crooked = [c for c in cheats if c.kind == "overpaying-dealer"]
    dealers = [*dealers, *(c.who[0] for c in crooked if c.who[0] not in dealers)]
    shoe = RecordedShoe(random.Random(rng.random()), crooked) if crooked else None
    if shoe is not None:
        config["card_source"] = "recorded"
    elif seeded and seed is not None:
        config.update(card_source="seeded", shuffle_seed=seed)
    _ensure_table(app, executor, game, code, config, ids)
    table, _, _ = executor.observe()
    for seat in list(rules.seats)[:seats]:
        if seat not in table.seats:
            executor.execute(
                SeatPlayer(
                    command_id=ids.next(), table=code, seat=seat, player=f"player-{seat:02d}"
                )
            )
    table, _, _ = executor.observe()
    stats.house_before = table.balances.get(accounts.HOUSE, 0)
    stats.rake_before = table.balances.get(accounts.RAKE, 0)
    bot: Bot = profile.make_bot()
    if cheats:
        bot = CheatingBot(bot, cheats)
    _register_dealers(app, dealers)
    walkouts = Walkouts(leave_rate)
    started = time.perf_counter()
    for n in range(hands):
        table, hand, _ = executor.observe()
        if hand is None and dealers and n % max(dealer_shift, 1) == 0:
            on_duty = dealers[n // max(dealer_shift, 1) % len(dealers)]
            with app.reading(code) as current:
                relief = current.state.dealer != on_duty
            if relief:
                executor.execute(SignInDealer(command_id=ids.next(), table=code, dealer=on_duty))
            if shoe is not None:
                shoe.on_duty = on_duty
        if hand is None:
            for seat in sorted(table.seats):
                top_up = profile.top_up(table, seat)
                if top_up is not None:
                    executor.execute(
                        BuyIn(
                            command_id=ids.next(),
                            table=code,
                            seat=seat,
                            amount=top_up.amount,
                            kind=top_up.kind,
                        )
                    )
        play_hand(executor, bot, rng, ids, walkouts=walkouts, recorded_cards=shoe)
        walkouts.come_back(executor, ids)
        stats.hands += 1
        if on_hand is not None:
            on_hand(n + 1)
    stats.seconds = time.perf_counter() - started
    if isinstance(bot, CheatingBot):
        for cheat, found in bot.cheated.items():
            stats.cheated[f"{cheat.kind}:{','.join(cheat.who)}"] = sorted(found)
    if shoe is not None:
        for dealer, found in shoe.cheated.items():
            stats.cheated[f"overpaying-dealer:{dealer}"] = sorted(found)
    table, _, _ = executor.observe()
    stats.house_after = table.balances.get(accounts.HOUSE, 0)
    stats.rake_after = table.balances.get(accounts.RAKE, 0)
    stats.jackpot_after = table.balances.get(accounts.JACKPOT, 0)
    return stats


def _register_dealers(app: LedgerApp, dealers: Sequence[str]) -> None:
    """The simulated dealers, registered as dealer principals by the simulation's admin (with
    the keys the application already holds, :func:`ledger.sim.principals.ensure_principals`)."""
    if not dealers:
        return
    from ledger.sim.principals import ensure_principals

    ensure_principals(app, {d: (f"simulated dealer {d}", "dealer") for d in dict.fromkeys(dealers)},
                      keyring=app.keyring)


def _ensure_table(
    app: LedgerApp,
    executor: AppExecutor,
    game: str,
    code: str,
    config: dict[str, Any],
    ids: CommandIds,
) -> None:
    try:
        with app.reading(code) as table:
            existing = table.state.game.name
    except NotFound:
        executor.execute(OpenTable(command_id=ids.next(), table=code, game=game, config=config))
        return
    if existing != game:
        raise StateConflict(
            "table_game_mismatch", f"table {code} plays {existing}, not {game}", table=code
        )
