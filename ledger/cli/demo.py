"""``ledger demo``: what ``make demo`` runs."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import typer
from rich.console import Console
from rich.table import Table as RichTable

from ledger.cli import app
from ledger.cli.common import ledger_app, progress_bar
from ledger.money import format_amount

DEMO_URL = "sqlite:///var/demo.sqlite3"


@app.command()
def demo(
    hands: int = typer.Option(200, "--hands", min=1, help="Hands per game."),
    seed: int = typer.Option(2026, "--seed", help="Seed of the random players."),
    database_url: str = typer.Option(
        DEMO_URL, "--database-url", help="Store for the demo (the default file is recreated)."
    ),
) -> None:
    """Open a table of every implemented game, play hands with seeded random players through
    the ledger, and print a summary: hands, events, chips moved, house result, jackpot meter."""
    from ledger.games.registry import get_game
    from ledger.sim.profiles import PROFILES
    from ledger.sim.runner import simulate

    if database_url == DEMO_URL:
        for suffix in ("", "-wal", "-shm"):
            path = Path(f"var/demo.sqlite3{suffix}")
            if path.exists():
                os.remove(path)
    console = Console(width=None if sys.stdout.isatty() else 140)
    results = []
    with ledger_app(database_url) as ledger:
        for i, game in enumerate(sorted(PROFILES)):
            code = f"{PROFILES[game].code}-1"
            with progress_bar(hands, f"{game:<16}") as advance:
                stats = simulate(
                    ledger, game, code, hands, seed=seed + i, on_hand=lambda _n: advance(1)
                )
            results.append(stats)
    summary = RichTable(title=f"Demo: {hands} hands per game, seed {seed}, store {database_url}")
    for column in (
        "game",
        "table",
        "hands",
        "events",
        "chips moved",
        "house result",
        "rake",
        "jackpot meter",
        "hands/s",
    ):
        summary.add_column(column, justify="left" if column in ("game", "table") else "right")
    for s in results:
        banked = get_game(s.game).banking == "house"
        summary.add_row(
            s.game,
            s.table,
            str(s.hands),
            str(s.events),
            format_amount(s.chips_moved),
            format_amount(s.house_result) if banked else "-",
            format_amount(s.rake),
            format_amount(s.jackpot_after) if s.jackpot_after else "-",
            f"{s.hands / s.seconds:.0f}" if s.seconds else "-",
        )
    console.print(summary)
    console.print(
        f"Replay any hand: ledger replay {results[0].table} 1 --database-url {database_url}"
    )
