"""``ledger simulate``: play hands with seeded random players through the application."""

from __future__ import annotations

import typer

from ledger.cli import app
from ledger.cli.common import DATABASE_OPTION, ledger_app, progress_bar
from ledger.domain.money import format_amount


@app.command()
def simulate(
    game: str = typer.Option(
        ..., "--game", metavar="[caribbean-stud|chinese-poker|high-card-flush|stud-hilo]",
        help="Game to play."),
    hands: int = typer.Option(100, "--hands", min=1, help="Number of hands to play."),
    table: str | None = typer.Option(
        None, "--table", help="Table code (default: SIM- and the game in capitals, e.g. "
        "SIM-STUD-HILO); opened if it does not exist."
    ),
    players: int | None = typer.Option(None, "--players", min=1, help="Players to seat."),
    seed: int | None = typer.Option(
        None, "--seed", help="Seed of the random players; a table this opens then deals from a "
        "shuffle seeded with it (card source `seeded`, simulations only), so the run repeats "
        "exactly."),
    leave_rate: float = typer.Option(
        0.0, "--leave-rate", min=0.0, max=1.0, help="Chance, before each step of a hand, that "
        "a player of the hand gets up (COM-6); they sit down again after the hand."),
    database_url: str | None = DATABASE_OPTION,
) -> None:
    """Play N hands through the ledger into the configured store and print a one-line summary.

    Players are seated as player-01, player-02, ... and topped up from the cage between hands
    when their stack runs low. Cards come from the table's own source: rng by default, or with
    --seed a shuffle seeded with it for a table this opens (card source `seeded`: the same seed
    plays the same hands again; such a table is refused by the HTTP API, it is never for real
    play). A table that already exists keeps its source.
    """
    from ledger.sim.runner import simulate as run

    code = table or f"SIM-{game.upper()}"
    with ledger_app(database_url, allow_seeded=True) as ledger, \
            progress_bar(hands, f"{game} {code}") as advance:
        stats = run(ledger, game, code, hands, players=players, seed=seed,
                    leave_rate=leave_rate, seeded=seed is not None,
                    on_hand=lambda _n: advance(1))
        state = ledger.load(code).state
        source, currency = state.config.card_source, state.currency
    rate = stats.hands / stats.seconds if stats.seconds else 0.0

    def money(amount: int) -> str:  # in the table's currency (ISO 4217 decimals)
        return format_amount(amount, currency)

    typer.echo(
        f"{game} table {code}: {stats.hands} hands, {stats.commands} commands, "
        f"{stats.events} events in {stats.seconds:.1f} s ({rate:.0f} hands/s); "
        f"chips moved {money(stats.chips_moved)}, "
        f"house result {money(stats.house_result)}, rake {money(stats.rake)}, "
        f"jackpot meter {money(stats.jackpot_after)} {currency}"
    )
    if seed is not None and source != "seeded":
        typer.echo(f"note: table {code} deals from its {source} source, so --seed repeats the "
                   "players' choices, not the cards (a table opened by simulate --seed is "
                   "seeded)")
