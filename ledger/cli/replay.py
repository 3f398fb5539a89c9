"""``ledger replay``: one hand, event by event, as an auditor reads it."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any, NoReturn, cast
from uuid import UUID
from zoneinfo import ZoneInfo

import typer

from ledger.cli import app
from ledger.cli.common import DATABASE_OPTION, err_console, ledger_app


def stamp(moment: datetime, zone: str) -> str:
    """``2026-03-14 22:05:13Z (23:05:13 Europe/Amsterdam)``: UTC with its mark, and the table's
    local time (the date too when it differs)."""
    utc = moment.strftime("%Y-%m-%d %H:%M:%S") + "Z"
    local = moment.astimezone(ZoneInfo(zone))
    shown = local.strftime("%H:%M:%S") if local.date() == moment.date() else \
        local.strftime("%Y-%m-%d %H:%M:%S")
    return f"{utc} ({shown} {zone})"


def stored_head(ledger: Any, tid: UUID) -> Any:
    """The table's last stored row (None: no row), read before the audit's chain walk."""
    rows = ledger.recorder.select_events(tid, desc=True, limit=1)
    return rows[0] if rows else None


def vouch(ledger: Any, tid: UUID, head: Any) -> None:
    """Tell the chain guard that the stored chain holds through ``head``, a row read before
    the audit's walk of the chain found no break (the guard's checks are a part of the
    audit's: versions from 1 without a gap, the opening first on the genesis link, each row
    carrying the digest of the one before)."""
    from ledger.store.mapper import state_bytes
    from ledger.table.events import chain_digest

    if head is not None:
        ledger.repository.guard.remember(tid, head.originator_version, chain_digest(
            tid, head.originator_version, head.topic, state_bytes(head.state)))


def shown_spans(events: list[Any]) -> list[tuple[int, int]]:
    """The versions a replay shows, as spans: a hand's events (from its first to its last,
    whatever lies between) and each correction on its own."""
    from ledger.domain.records import HandCorrected, SeatCorrected

    own: list[int] = []
    fixes: list[tuple[int, int]] = []
    for event in events:
        version = int(event.originator_version)
        if isinstance(event, HandCorrected | SeatCorrected):
            fixes.append((version, version))
        else:
            own.append(version)
    return ([(min(own), max(own))] if own else []) + fixes


def unreadable(table: str, breaks: list[dict[str, Any]] | None, exc: Any) -> NoReturn:
    """End a replay that met a stored row it cannot decode: ``error [undecodable_event] ...``
    (the table, the version, what is wrong) on standard error, after the chain's warning when
    the walk found a break, and exit status 1, as for a broken chain (the record was altered;
    not an error of the command)."""
    from rich.markup import escape

    from ledger.cli.common import _print_error
    from projections.audit.chain import breaks_text

    if breaks:
        err_console.print(f"[bold red]{escape(breaks_text(table, breaks))}[/]",
                          highlight=False, soft_wrap=True)
    _print_error(exc.code, exc.message)
    raise typer.Exit(1)


@app.command()
def replay(
    table: str = typer.Argument(..., metavar="TABLE", help="Table code."),
    hand_no: int = typer.Argument(..., metavar="HAND_NO",
                                  help="Hand number (1 is the table's first hand)."),
    as_json: bool = typer.Option(False, "--json", help="One JSON object per event instead."),
    transfers: bool = typer.Option(True, "--transfers/--no-transfers", help="List chip movements."),
    rule_texts: bool = typer.Option(False, "--rules", help="End with the text of every rule the "
                                    "hand cites (the rule book, docs/rules.md)."),
    database_url: str | None = DATABASE_OPTION,
) -> None:
    """Print hand HAND_NO of TABLE event by event: the time (UTC and the table's local time),
    what happened, the rule behind each decision and every chip movement in the table's
    currency; Caribbean Stud hands name each hand's rank. A settled hand ends with each seat's
    result. The deck is shown only once the hand has ended. Each event's actor (who sent the
    command: token:ID or cli:NAME) is named when it changes. When the table's hash chain or
    command log does not verify, a warning says where, at the top and at the end (and on
    standard error), and the exit status is 1. When a stored row it reads cannot be decoded
    (the hand's, the rows its search reads, its corrections'), nothing is replayed: the error
    names the table, the version and what is wrong, on standard error, and the exit status
    is 1."""
    from ledger.access.accesslog import record_access
    from ledger.app.fleet import app_of
    from ledger.domain.actors import actor_text
    from ledger.domain.cards import verify_commitment
    from ledger.domain.errors import UndecodableEvent
    from ledger.domain.records import HAND_ENDINGS, HandCorrected, HandStarted, Record
    from ledger.domain.results import hand_results
    from ledger.domain.rulebook import cited
    from ledger.store.fleet import table_guard
    from ledger.store.history import hand_events, opening
    from ledger.store.readstore import primary_of
    from ledger.table.describe import describe, results_lines, transfer_line
    from projections.audit.chain import breaks_text, chain_breaks
    from projections.audit.handchain import anchored, span_breaks
    from projections.audit.handreplay import rules_of
    from projections.read.correction_queries import correction_events

    breaks = None
    with ledger_app(database_url, reading=True) as fleet, table_guard(fleet, table):
        ledger = app_of(fleet, table)  # with LEDGER_SHARDS: the store that holds the table
        try:
            opened = opening(ledger, table)
            tid = opened.originator_id
            # A table without a chain anchor is walked whole (that walk vouches for an intact
            # chain, so the load does not walk it again); one with anchors, only the stretches
            # between signed snapshots that hold what is shown (projections.audit.handchain).
            breaks = chain_breaks(ledger, tid) if not anchored(ledger, tid) else None
            events = hand_events(ledger, table, hand_no)
            corrections = correction_events(
                ledger, table, hand_no, after=events[0].originator_version - 1 if events else 0)
        except UndecodableEvent as exc:
            if breaks is None:  # with anchors: the stretch that holds the row
                from ledger.table.events import table_id

                version = int(exc.details["version"])
                breaks = span_breaks(ledger, table_id(table), [(version, version)])
            unreadable(table, breaks, exc)
        if breaks is None:
            breaks = span_breaks(ledger, tid, shown_spans([*events, *corrections]))
        if events and not isinstance(events[-1], HAND_ENDINGS):
            # The access log: on the primary (with shards: in the fleet's home store).
            with primary_of(fleet) as writer:
                record_access(writer, who=ledger.actor.id, what="hand_replay",
                              table=opened.code, hand=hand_no,
                              detail={"command": "ledger replay"})
    warning = breaks_text(opened.code, breaks) if breaks else None
    if warning:
        from rich.markup import escape

        err_console.print(f"[bold red]{escape(warning)}[/]", highlight=False, soft_wrap=True)
    if as_json:
        for e in [*events, *corrections]:
            data = e.model_dump(mode="json", exclude={"originator_id", "sealed_deck"})
            data["type"] = type(e).__name__
            typer.echo(json.dumps(data))
        if warning:
            raise typer.Exit(1)
        return
    currency, zone, game = opened.currency, opened.timezone, opened.game
    if warning:
        typer.echo(warning)
    typer.echo(f"table {opened.code} hand {hand_no}: {game}, amounts in {currency}, "
               f"times UTC (Z) and {zone}")
    commitment = None
    cites: set[str] = set()
    actor = None
    for e in [*events, *corrections]:
        lines = describe(e, currency, game)
        typer.echo(f"v{e.originator_version:<6} {stamp(e.timestamp, zone)}  "
                   f"{type(e).__name__:<15} {lines[0]}")
        indent = " " * 8
        if getattr(e, "actor", None) != actor:
            actor = getattr(e, "actor", None)
            typer.echo(f"{indent}by {actor_text(actor)}")
        for line in lines[1:]:
            typer.echo(f"{indent}{line}")
        if transfers:
            for t in getattr(e, "transfers", ()):
                typer.echo(f"{indent}  {transfer_line(t, currency)}")
        cites.update(rules_of(e))
        if isinstance(e, HandStarted):
            commitment = e.deck_commitment
        deck, salt = getattr(e, "deck", None), getattr(e, "salt", None)
        if commitment and deck is not None and salt is not None:
            ok = verify_commitment(deck, salt, commitment)
            typer.echo(f"{indent}deck commitment {'verified' if ok else 'DOES NOT MATCH'} "
                       "(COM-8)")
    if events and isinstance(events[-1], HAND_ENDINGS):
        results = hand_results(cast(list[Record], events))
        if results is not None:
            for line in results_lines(results, currency):
                typer.echo(line)
        settled = [c.settlement for c in corrections if isinstance(c, HandCorrected)]
        corrected = hand_results([*events[:-1], settled[-1]]) if settled else None
        if corrected is not None:
            typer.echo("after the correction (COR-1):")
            for line in results_lines(corrected, currency):
                typer.echo(line)
    if rule_texts:
        typer.echo("")
        for rule in cited(cites):
            typer.echo(f"{rule.id}: {rule.text.replace('**', '')}")
    if warning:
        typer.echo(warning)
        raise typer.Exit(1)
