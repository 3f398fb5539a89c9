"""``ledger projections``: the read models, their positions and rebuilds."""

from __future__ import annotations

import json
import signal
import threading
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import typer
from rich.markup import escape
from rich.table import Table as RichTable

from ledger.cli import app
from ledger.cli.common import DATABASE_OPTION, ledger_app, out_console, progress_bar

projections_app = typer.Typer(
    name="projections",
    help="The read models rebuilt from the events (hands, bankrolls, coverage, rake, jackpot, "
    "accounting): their positions, catch-up and rebuild.",
    no_args_is_help=True,
)
app.add_typer(projections_app)

VIEW_OPTION = typer.Option(
    None, "--view", help="Only this view (repeat for several): tables, hands, bankrolls, "
    "coverage, rake, jackpot, accounting. Default: every view.",
)


@projections_app.command("status")
def status(
    as_json: bool = typer.Option(False, "--json", help="One JSON object per view."),
    database_url: str | None = DATABASE_OPTION,
) -> None:
    """Each view's position in the event log, the log's head and the lag (events not yet
    projected); ``outdated`` views must be rebuilt. With LEDGER_READ_DATABASE_URL set: those
    of the read store (a standby), as far as it has replayed the primary.

    Exit status 0 when every view can be brought up to date (a lag alone is not a failure);
    1 when any view is outdated (built by another version or with another
    LEDGER_GAMING_DAY_START, or its tables differ from this version's: a column or table
    missing or changed; the reason is given: run `ledger projections rebuild`, which makes
    such tables again); 2 on an error."""
    from projections.read.fleet import runner as make_runner

    with ledger_app(database_url, reading=True) as ledger:
        runner = make_runner(ledger)
        rows = [s.as_dict() for s in runner.status()]
        _warn_left_out(runner.left_out())
    code = 1 if any(row["outdated"] for row in rows) else 0
    if as_json:
        for row in rows:
            typer.echo(json.dumps(row))
        raise typer.Exit(code)
    table = RichTable(title="Projections")
    for column in ("view", "position", "head", "lag", "state", "updated at"):
        table.add_column(column, justify="right" if column in ("position", "head", "lag")
                         else "left")
    for row in rows:
        state = "OUTDATED: rebuild" if row["outdated"] else ("current" if not row["lag"]
                                                             else "behind")
        table.add_row(f"{row['shard']}/{row['view']}" if "shard" in row else row["view"],
                      str(row["position"]), str(row["head"]), str(row["lag"]),
                      state, row["updated_at"] or "-")
    out_console().print(table)
    for row in rows:
        if row.get("reason"):
            where = f"{row['shard']}/" if "shard" in row else ""
            out_console().print(f"{where}{row['view']}: projection_outdated: "
                                f"{escape(row['reason'])}")
    raise typer.Exit(code)


@projections_app.command("rebuild")
def rebuild(
    view: list[str] | None = VIEW_OPTION,
    jobs: int | None = typer.Option(
        None, "--jobs", min=1, help="Processes to build the tables' rows with, side by side "
        "(default: the number of cores; a store of fewer than 20,000 events, or of one table, "
        "is rebuilt in one)."),
    database_url: str | None = DATABASE_OPTION,
) -> None:
    """Empty the views (all, or those named with --view) and build them again from the first
    event, with progress on a terminal. In one process it is safe to interrupt: `ledger
    projections update` goes on from the last batch written; a rebuild in several processes
    that is interrupted leaves the views outdated, to be rebuilt."""
    _run(view, database_url, rebuild=True, jobs=jobs)


@projections_app.command("update")
def update(
    view: list[str] | None = VIEW_OPTION,
    database_url: str | None = DATABASE_OPTION,
    follow: bool = typer.Option(
        False, "--follow", help="Keep running: catch up, then poll for new events every "
        "--interval seconds until interrupted (Ctrl-C or SIGTERM end it cleanly, between two "
        "batches).",
    ),
    interval: float = typer.Option(
        1.0, "--interval", min=0.05, help="Seconds between two polls with --follow."
    ),
) -> None:
    """Bring the views up to date with the events appended since their last update."""
    if follow:
        _follow(view, database_url, interval)
        return
    _run(view, database_url, rebuild=False)


def _follow(view: list[str] | None, database_url: str | None, interval: float) -> None:
    """Poll and catch up until SIGINT or SIGTERM; one line per catch-up that read events."""
    from projections.read.fleet import runner as make_runner

    stop = threading.Event()
    previous = {sig: signal.signal(sig, lambda *_: stop.set())
                for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        with ledger_app(database_url) as ledger:
            runner = make_runner(ledger, view)
            names = ", ".join(v.name for v in runner.views)
            typer.echo(f"following {names} every {interval:g} s (Ctrl-C to stop)")
            total = follow(runner, stop, interval, typer.echo)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    typer.echo(f"stopped: {total} events read")


def follow(runner: Any, stop: threading.Event, interval: float,
           say: Callable[[str], None]) -> int:
    """Catch up one batch at a time, polling every ``interval`` seconds, until ``stop`` is
    set; the number of events read. While a rebuild has the views marked as being built
    (``projection_rebuilding``, or a batch it overtook) one line says so and nothing is
    written until it has marked them current; if that rebuild no longer runs,
    ``projection_outdated`` says it was interrupted."""
    from ledger.domain.errors import StateConflict

    total = 0
    waiting: list[str] = []
    while not stop.is_set():
        try:
            done = runner.catch_up(max_batches=1)
        except StateConflict as exc:
            if exc.code not in ("projection_rebuilding", "projection_outdated"):
                raise
            building = runner.check_rebuilding()  # a rebuild that died: outdated, said so
            if not building:
                raise
            if building != waiting:
                say(f"{_now()} projections_rebuilding: {', '.join(building)} being built by "
                    "`ledger projections rebuild`; waiting for it to end")
                waiting = building
            stop.wait(interval)
            continue
        if waiting:
            say(f"{_now()} projections_rebuilt: {', '.join(waiting)} current again; following")
            waiting = []
        total += done
        if done:
            say(f"{_now()} updated: {done} events read")
            continue  # a full batch may mean more are waiting
        stop.wait(interval)
    return total


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _run(view: list[str] | None, database_url: str | None, *, rebuild: bool,
         jobs: int | None = None) -> None:
    from projections.audit.parallel import default_jobs
    from projections.read.fleet import runner as make_runner

    with ledger_app(database_url) as ledger:
        runner = make_runner(ledger, view)
        if rebuild:
            total = runner.head()
            with progress_bar(total, "rebuild") as advance:
                done = runner.rebuild(progress=advance, jobs=jobs or default_jobs())
        else:
            with progress_bar(runner.lag(), "update") as advance:
                done = runner.catch_up(progress=advance)
        names = ", ".join(v.name for v in runner.views)
    typer.echo(f"{'rebuilt' if rebuild else 'updated'} {names}: {done} events read")
    _warn_left_out(runner.rejected)


def _warn_left_out(rejected: list[Any]) -> None:
    """Events the views left out (projections.views.unholdable): reported, the rest went on."""
    for left in rejected:
        typer.echo(f"warning: table {left.table_code} version {left.version} (log position "
                   f"{left.position}) is left out of the views: {left.why}; see "
                   "docs/architecture/projections.md, 'A row the views cannot hold'", err=True)


def catch_up(ledger: Any, label: str = "projections") -> int:
    """Bring every view up to date (used before exports), with progress on a terminal; on a
    read store (a standby, read-only) the views are read as the primary's catch-up left them."""
    from ledger.store.readstore import is_replica
    from projections.read.fleet import runner as make_runner

    if is_replica(ledger):
        return 0
    runner = make_runner(ledger)
    with progress_bar(runner.lag(), label) as advance:
        return runner.catch_up(progress=advance)
