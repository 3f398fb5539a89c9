"""``ledger demo``: what ``make demo`` runs."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from rich.table import Table as RichTable

from ledger.cli import app
from ledger.cli.common import ledger_app, progress_bar
from ledger.domain.money import format_amount

DEMO_URL = "sqlite:///var/demo.sqlite3"
DEMO_LEAVE_RATE = 0.005
"""Now and then a player gets up in the middle of a hand (COM-6)."""


@app.command()
def demo(
    hands: int = typer.Option(200, "--hands", min=1, help="Hands per game."),
    seed: int = typer.Option(2026, "--seed", help="Seed of the random players and of the tables' "
                             "shuffles (card source `seeded`): the same seed plays the same "
                             "hands."),
    database_url: str = typer.Option(
        DEMO_URL, "--database-url", help="Store for the demo (the default file is recreated)."
    ),
    out: str = typer.Option("out", "--out", help="Directory for the day's exports."),
) -> None:
    """Open a table of every implemented game, play hands with seeded random players through
    the ledger (the tables deal from a shuffle seeded with --seed, so a run repeats exactly;
    players now and then leave mid-hand, COM-6), and print a summary: hands, events, chips
    moved, house result, jackpot meter.
    Then the read side: rebuild the projections, audit every table (`ledger audit verify`) and
    write the gaming day's exports to --out (default ./out/). Exit status 1 if the audit finds
    a discrepancy."""
    from ledger.games.registry import get_game
    from ledger.sim.profiles import PROFILES
    from ledger.sim.runner import simulate

    if database_url == DEMO_URL:
        for suffix in ("", "-wal", "-shm"):
            path = Path(f"var/demo.sqlite3{suffix}")
            if path.exists():
                os.remove(path)
        for key in DEMO_KEYS.glob("*.key"):  # a new store, a new register: new principals
            key.unlink()
    console = Console(width=None if sys.stdout.isatty() else 140)
    results = []
    with ledger_app(database_url, allow_seeded=True) as ledger:
        for i, game in enumerate(sorted(PROFILES)):
            code = f"{PROFILES[game].code}-1"
            with progress_bar(hands, f"{game:<16}") as advance:
                if get_game(game).banking == "house":
                    stats = _with_tray(ledger, game, code, hands, seed + i, advance)
                else:
                    stats = simulate(
                        ledger, game, code, hands, seed=seed + i, seeded=True,
                        leave_rate=DEMO_LEAVE_RATE, on_hand=lambda _n: advance(1),
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
    with ledger_app(database_url) as ledger:
        ok = _read_side(ledger, console, Path(out))
        tokens = _console_tokens(ledger, Path("var"))
    url = f" --database-url {database_url}"
    ledger_cmd = command_path()
    console.print(f"Replay any hand: {ledger_cmd} replay {results[0].table} 1{url}")
    console.print(f"Audit one hand:  {ledger_cmd} audit hand {results[0].table} 1{url}")
    console.print(f"Console:         {ledger_cmd} serve{url}, then open http://127.0.0.1:8000/ "
                  f"and sign in with the auditor's token in {tokens['auditor']} "
                  f"(accounting's: {tokens['accounting']})")
    if DEMO_KEYS.exists():
        console.print(f"Principals:      the demo's own, with their keys in {DEMO_KEYS}/ "
                      f"(sim-admin is the register's root): {ledger_cmd} principals list{url}")
    if not ok:
        raise typer.Exit(1)


def command_path() -> str:
    """How to call this very ``ledger`` from the working directory: ``ledger`` when that name
    on the PATH is this command, else its path (``.venv/bin/ledger`` after ``make demo``: the
    virtual environment is not on the PATH), else ``python -m ledger`` with this interpreter."""
    import shutil

    script = Path(sys.argv[0])
    if script.name != "ledger" or not script.exists():
        return f"{_shown(Path(sys.executable))} -m ledger"
    found = shutil.which("ledger")
    if found is not None and Path(found).resolve() == script.resolve():
        return "ledger"
    return _shown(script)


def _shown(path: Path) -> str:
    """``path`` relative to the working directory when it lies below it (without resolving
    links: a virtual environment's python is one), else absolute."""
    absolute = Path(os.path.abspath(path))
    try:
        relative = absolute.relative_to(Path.cwd())
    except ValueError:
        return str(absolute)
    return str(relative) if "/" in str(relative) else f"./{relative}"


def _console_tokens(ledger: Any, directory: Path) -> dict[str, Path]:
    """An auditor's and an accountant's token for the console, each written to a file of its
    own under ``directory`` (mode 600; only their SHA-256 is in the store)."""
    from ledger.access.tokens import TokenStore
    from ledger.app.fleet import home_of

    store = TokenStore.of(home_of(ledger), 0)
    directory.mkdir(parents=True, exist_ok=True)
    paths = {}
    for role in ("auditor", "accounting"):
        token, _ = store.create(role, label=f"demo {role}")
        path = directory / f"demo-{role}.token"
        path.unlink(missing_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as handle:
            handle.write(token + "\n")
        paths[role] = path
    return paths


OPENING_TRAY = 5_000_000
FILL = 1_000_000


DEMO_KEYS = Path("var/demo-keys")
"""The demo's own principals' keys (its admin and the tray's signers), mode 600."""


def _with_tray(ledger: Any, game: str, code: str, hands: int, seed: int, advance: Any) -> Any:
    """A house-banked table opened and closed with tray counts, and a fill half way (INV-1..3):
    the closing count is what the table's events leave in the tray."""
    from ledger.sim.runner import simulate
    from ledger.sim.tray import count, fill, register_signers, tray_now

    register_signers(ledger, DEMO_KEYS)
    simulate(ledger, game, code, 0, seed=seed, seeded=True)  # open (seeded) and seat players
    count(ledger, code, "opening", OPENING_TRAY, f"{code}-tray-open")
    first = simulate(ledger, game, code, hands // 2, seed=seed, leave_rate=DEMO_LEAVE_RATE,
                     on_hand=lambda _n: advance(1))
    fill(ledger, code, FILL, f"{code}-fill-1")
    second = simulate(ledger, game, code, hands - hands // 2, seed=seed + 1000,
                      leave_rate=DEMO_LEAVE_RATE, on_hand=lambda _n: advance(1))
    count(ledger, code, "closing", tray_now(ledger, code), f"{code}-tray-close")
    for name in ("hands", "commands", "events", "chips_moved", "seconds"):
        setattr(second, name, getattr(first, name) + getattr(second, name))
    second.house_before = first.house_before
    second.house_after -= FILL  # the fill is the cage's chips, not a result
    return second


def _read_side(ledger: Any, console: Console, out: Path) -> bool:
    """Rebuild the projections, audit every table, write the day's exports; True if clean."""
    from ledger.store.fleet import log_head
    from projections.audit import verify
    from projections.exports.accounting import export_accounting
    from projections.exports.hands import export_hands
    from projections.read.fleet import read_model
    from projections.read.fleet import runner as make_runner
    from projections.views.context import current_gaming_day

    runner = make_runner(ledger)
    runner.reset()
    with progress_bar(runner.lag(), "projections") as advance:
        events = runner.catch_up(progress=advance)
    console.print(f"projections rebuilt: {len(runner.views)} views, {events} events")
    head = log_head(ledger)
    with progress_bar(head, "audit") as advance:
        report = verify(ledger, progress=advance)
    verdict = "no discrepancies" if report.ok else f"{len(report.discrepancies)} DISCREPANCIES"
    console.print(
        f"audit verify: {len(report.tables)} tables, {report.hands_checked} hands, "
        f"{report.events_checked} events; hash chains "
        f"{'intact' if report.chain_ok else 'BROKEN'}, conservation "
        f"{'holds' if report.conservation_ok else 'VIOLATED'}; {verdict}"
    )
    read = read_model(ledger)
    zone = read.tables()[0]["timezone"]
    day = current_gaming_day(zone, ledger.settings.gaming_day_start)
    files = [w.path for w in export_accounting(read, day, out)]
    for fmt in ("jsonl", "phh", "ohh"):
        files.extend(w.path for w in export_hands(ledger, read, day, fmt, out).written)
    from projections.exports.workbook import export_workbook
    from projections.reports.inventory import inventory_report
    from projections.reports.periods import period

    for row in inventory_report(read, period(day=day))["rows"]:
        console.print(f"tray of {row['table']} on {row['gaming_day']}: opening "
                      f"{format_amount(row['opening_minor'])}, fills "
                      f"{format_amount(row['fills_minor'])}, closing "
                      f"{format_amount(row['closing_minor'])}, drop "
                      f"{format_amount(row['drop_minor'])}; win by inventory "
                      f"{format_amount(row['inventory_win_minor'])} against the ledger's "
                      f"{format_amount(row['ledger_win_minor'])}: {row['status']}")
    workbook, _ = export_workbook(read, period(day=day), out)
    files.append(workbook)
    console.print(f"exports of gaming day {day}: {len(files)} files in {out}/ "
                  "(accounting, rake, jackpot, bankrolls, DP results, corrections as CSV and "
                  "JSON Lines; hands as JSON Lines, PHH and OHH; the accounting workbook)")
    return report.ok
