"""``ledger simulate``: play hands with seeded random players through the application."""

from __future__ import annotations

from typing import Any

import typer

from ledger.cli import app
from ledger.cli.common import DATABASE_OPTION, fail, ledger_app, progress_bar
from ledger.domain.errors import InvalidInput
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
    cheats: list[str] = typer.Option(  # noqa: B008
        [], "--cheat", metavar="KIND:WHO[,WHO][@RATE]", help="A simulated cheat (for the "
        "game-protection demo, never real play): csp-hole-carder:PLAYER, hcf-dp-reader:PLAYER"
        "[,DP], stud-chip-dumpers:GIVER,TAKER, stud-soft-players:A,B, chinese-partners:GIVER,"
        "TAKER, overpaying-dealer:DEALER (its table's cards are then recorded); @RATE: the "
        "share of its hands it cheats in (default 1). Repeatable."),
    dealers: str | None = typer.Option(
        None, "--dealers", metavar="ID,ID,...", help="Dealers who deal in turn (DLR-1), "
        "registered as dealers if the register lacks them."),
    dealer_shift: int = typer.Option(40, "--dealer-shift", min=1,
                                     help="Hands each dealer deals before the next relieves "
                                     "it."),
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

    planted = [_cheat(text) for text in cheats]
    code = table or f"SIM-{game.upper()}"
    with ledger_app(database_url, allow_seeded=True) as ledger, \
            progress_bar(hands, f"{game} {code}") as advance:
        stats = run(ledger, game, code, hands, players=players, seed=seed,
                    leave_rate=leave_rate, seeded=seed is not None,
                    on_hand=lambda _n: advance(1), cheats=planted,
                    dealers=[d for d in (dealers or "").split(",") if d],
                    dealer_shift=dealer_shift)
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
    for name, found in stats.cheated.items():
        typer.echo(f"cheat {name}: {len(found)} hands")
    if seed is not None and source != "seeded" and not planted:
        typer.echo(f"note: table {code} deals from its {source} source, so --seed repeats the "
                   "players' choices, not the cards (a table opened by simulate --seed is "
                   "seeded)")


def _cheat(text: str) -> Any:
    """``KIND:WHO[,WHO][@RATE]`` as a :class:`~ledger.sim.cheats.Cheat`
    (``invalid_cheat`` otherwise)."""
    from ledger.sim.cheats import Cheat

    kind, _, rest = text.partition(":")
    who, _, rate = rest.partition("@")
    try:
        share = float(rate) if rate else 1.0
    except ValueError:
        share = -1.0
    names = tuple(w.strip() for w in who.split(",") if w.strip())
    if not kind or not names or not 0 <= share <= 1:
        fail(InvalidInput("invalid_cheat", f"{text!r}: write KIND:WHO[,WHO][@RATE], e.g. "
                          "csp-hole-carder:player-03@0.5"))
    return Cheat(kind.strip(), names, share)
