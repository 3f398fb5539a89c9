"""``ledger simulate``: play hands with seeded random players through the application."""

from __future__ import annotations

import typer

from ledger.cli import app
from ledger.cli.common import DATABASE_OPTION, ledger_app, progress_bar
from ledger.money import format_amount


@app.command()
def simulate(
    game: str = typer.Option(..., "--game", help="Game to play, e.g. caribbean-stud."),
    hands: int = typer.Option(100, "--hands", min=1, help="Number of hands to play."),
    table: str | None = typer.Option(
        None, "--table", help="Table code (default: SIM- and the game in capitals, e.g. "
        "SIM-STUD-HILO); opened if it does not exist."
    ),
    players: int | None = typer.Option(None, "--players", min=1, help="Players to seat."),
    seed: int | None = typer.Option(None, "--seed", help="Seed of the random players."),
    database_url: str | None = DATABASE_OPTION,
) -> None:
    """Play N hands through the ledger into the configured store and print a one-line summary.

    Players are seated as player-01, player-02, ... and topped up from the cage between hands
    when their stack runs low. Cards come from the table's own source (rng by default).
    """
    from ledger.sim.runner import simulate as run

    code = table or f"SIM-{game.upper()}"
    with ledger_app(database_url) as ledger, progress_bar(hands, f"{game} {code}") as advance:
        stats = run(
            ledger, game, code, hands, players=players, seed=seed, on_hand=lambda _n: advance(1)
        )
    rate = stats.hands / stats.seconds if stats.seconds else 0.0
    typer.echo(
        f"{game} table {code}: {stats.hands} hands, {stats.commands} commands, "
        f"{stats.events} events in {stats.seconds:.1f} s ({rate:.0f} hands/s); "
        f"chips moved {format_amount(stats.chips_moved)}, "
        f"house result {format_amount(stats.house_result)}, rake {format_amount(stats.rake)}, "
        f"jackpot meter {format_amount(stats.jackpot_after)}"
    )
