"""``ledger audit``: verify the record, replay one hand, seal a gaming day."""

from __future__ import annotations

import json
import shutil
import sys
import textwrap
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, cast

import typer

from ledger.cli import app
from ledger.cli.common import (
    DATABASE_OPTION,
    err_console,
    ledger_app,
    out_console,
    progress_bar,
    report_day,
)

audit_app = typer.Typer(
    name="audit",
    help="Verify the record from the events alone: hash chains, every decision recomputed by "
    "the rules in force, chip conservation; replay one hand; seal a gaming day.",
    no_args_is_help=True,
)
app.add_typer(audit_app)
SHOWN = 50
SEAL_OPTION = typer.Option(
    None, "--seal", help="Also check the store against this seal (`ledger audit seal`; repeat "
    "for more, or give a directory: its seal-*.json files): a rewritten history, a cut tail, a "
    "deleted table, other balances, a missing day in the chain of seals. With --day D and the "
    "seal of D-1 the audit is incremental: it starts from that seal's heads.")
PREVIOUS_OPTION = typer.Option(
    None, "--previous", help="The seal of the day before (default: seal-(D-1).json beside the "
    "output file).")
PUBLIC_KEY_OPTION = typer.Option(
    None, "--public-key", envvar="LEDGER_SEAL_PUBLIC_KEY", show_envvar=False,
    help="The public key the seals were signed with (ed25519:<hex>, or a file holding it; "
    "default LEDGER_SEAL_PUBLIC_KEY). Seals of the first format (HMAC) need LEDGER_SEAL_KEY "
    "instead.")
SEAL_OUT_OPTION = typer.Option(
    None, "--out",
    help="File to write (default: seal-DAY.json in the current directory, e.g. "
    "seal-2026-03-14.json).")


@audit_app.command("verify")
def verify(
    table: str | None = typer.Option(None, "--table", help="Only this table (code)."),
    day: str | None = typer.Option(
        None, "--day", help="Recompute only the hands of this gaming day (YYYY-MM-DD); the "
        "chains and conservation are checked whole."),
    as_json: bool = typer.Option(
        False, "--json", help='Print one object: {"tables", "hands_checked", "events_checked",'
        ' "discrepancies": [{"table", "hand", "kind", "expected", "recorded", "rule"}],'
        ' "chain_ok", "conservation_ok", "seal_ok", "events_read", "incremental_from",'
        ' "decks_unchecked", "signatures_ok", "unsigned_before_signatures"}.'),
    seal: list[Path] | None = SEAL_OPTION,
    public_key: str | None = PUBLIC_KEY_OPTION,
    jobs: int | None = typer.Option(
        None, "--jobs", min=1, help="Processes to audit the tables with, side by side "
        "(default: the number of cores; a store of fewer than 20,000 events, or an audit with "
        "seals, is audited in one)."),
    database_url: str | None = DATABASE_OPTION,
) -> None:
    """Replay every hand from the stored events, recompute every settlement, rake and jackpot
    movement with the rules and configuration in force at the time, and compare with what was
    recorded; check each table's hash chain and the command log's copy of every event, that
    every event's transfers balance, that wager spots and pots are empty between hands, and
    that all accounts sum to the net cage movements; recompute the read models' totals and
    compare them with the stored views (`projection_mismatch`), and build every view again
    from the events to compare every stored row and column (`view_row_mismatch`). Everything
    is read in one consistent snapshot of the store, so tables may play meanwhile.

    Exit status 0 only when everything holds; 1 when a discrepancy is found (each is listed
    with its table, hand, kind, expected and recorded values and rule id); 2 on bad input."""
    from ledger.store.fleet import log_head, table_guard
    from projections.audit import keys
    from projections.audit.parallel import default_jobs
    from projections.audit.seal import FORMAT_V1, read_seals, seal_key
    from projections.audit.verify import verify as run
    from projections.views.context import parse_day

    with ledger_app(database_url, reading=True) as ledger, table_guard(ledger, table):
        seals = read_seals(list(seal or []))
        key = seal_key(ledger.settings) if any(s["format"] == FORMAT_V1 for s in seals) \
            else None
        public = keys.public_key(public_key) if public_key else None
        head = log_head(ledger)
        with progress_bar(head, "audit") as advance:
            report = run(ledger, table=table, day=day, seals=seals, public_key=public,
                         seal_key=key, progress=advance, jobs=jobs or default_jobs())
        if day is not None:
            report_day(ledger, parse_day(day), table)
    if as_json:
        typer.echo(json.dumps(report.as_dict()))
    else:
        _print_report(report.as_dict(), day, sealed=len(seals))
    raise typer.Exit(0 if report.ok else 1)


def _print_report(data: dict[str, Any], day: str | None, *, sealed: int = 0) -> None:
    from rich.markup import escape
    from rich.table import Table as RichTable

    console = out_console()
    scope = f" (hands of gaming day {day})" if day else ""
    console.print(f"tables {len(data['tables'])}, hands checked {data['hands_checked']}{scope}, "
                  f"events checked {data['events_checked']}", highlight=False)
    console.print(f"hash chains: {'intact' if data['chain_ok'] else '[red]BROKEN[/]'}; "
                  f"conservation: {'holds' if data['conservation_ok'] else '[red]VIOLATED[/]'}"
                  + ("" if not data["seal_ok"] or not sealed
                     else f"; seals: {sealed} signed and linked")
                  + ("" if data["seal_ok"] else "; seals: [red]NOT VALID[/]"))
    if data.get("incremental_from"):
        console.print(f"incremental: from the seal of {data['incremental_from']}, "
                      f"{data['events_read']} events read", highlight=False)
    unsigned = data.get("unsigned_before_signatures") or []
    console.print(f"signatures: {'verified' if data.get('signatures_ok', True) else '[red]BAD[/]'}"
                  + (f"; {len(unsigned)} approvals unsigned (before signatures), valid"
                     if unsigned else ""), highlight=False)
    for hand in data.get("decks_unchecked", []):
        console.print(f"not checked: {escape(hand['table'])} hand {hand['hand']} was voided "
                      "without its deck (the deck key in use could not open it): its deals "
                      "cannot be checked against its deck commitment (COM-8)", highlight=False)
    found = data["discrepancies"]
    if not found:
        console.print("[green]no discrepancies[/]: every recorded decision is what the rules "
                      "produce")
        return
    table = RichTable(title=f"{len(found)} discrepancies")
    for column in ("table", "hand", "kind", "rule", "expected", "recorded"):
        table.add_column(column, overflow="fold")
    for item in found[:SHOWN]:
        table.add_row(escape(item["table"]), str(item["hand"] or "-"), item["kind"],
                      item["rule"] or "-", escape(_short(item["expected"])),
                      escape(_short(item["recorded"])))
    console.print(table)
    if len(found) > SHOWN:
        console.print(f"... and {len(found) - SHOWN} more (use --json for all)")


def _short(value: Any, width: int = 160) -> str:
    text = json.dumps(value) if not isinstance(value, str) else value
    return text if len(text) <= width else text[: width - 3] + "..."


@audit_app.command("hand")
def hand(
    table: str = typer.Argument(..., metavar="TABLE", help="Table code."),
    hand_no: int = typer.Argument(..., metavar="HAND_NO", help="Hand number."),
    rule_texts: bool = typer.Option(False, "--rules", help="End with the text of every rule "
                                    "the hand cites (the rule book, docs/rules.md)."),
    whole: bool = typer.Option(False, "--all", help="Every line of the record beside the "
                               "recomputation, chip movements included, where they agree too."),
    as_json: bool = typer.Option(
        False, "--json", help='Print one object, as GET /tables/CODE/hands/N/replay: "steps" '
        '(each with "recorded", "recomputed", "agrees", "rules" and its "differences"), '
        '"discrepancies", "commitment_ok", "chain_breaks", "ok", "results", "rule_texts".'),
    database_url: str | None = DATABASE_OPTION,
) -> None:
    """Replay one hand decision by decision and check each against what the rules in force
    recompute for the same command, with the rule id behind each decision, the time (UTC and
    the table's local time) and the amounts in the table's currency. Where the two agree the
    decision is shown once; where they differ, the differing lines side by side (--all: every
    line side by side, chip movements included). Then a verdict per section: the hash chain
    and command log, the decisions, the deck commitment (COM-8), the discrepancies and each
    seat's result. Exit status 1 when the two differ anywhere."""
    from ledger.access.accesslog import record_access
    from ledger.app.fleet import app_of
    from ledger.cli.replay import stored_head, vouch
    from ledger.domain.records import Record
    from ledger.domain.results import hand_results
    from ledger.store.fleet import table_guard
    from ledger.store.readstore import primary_of
    from ledger.table.events import table_id
    from projections.audit.handreplay import hand_replay

    with ledger_app(database_url, reading=True) as ledger, table_guard(ledger, table):
        holder, tid = app_of(ledger, table), table_id(table)
        head = stored_head(holder, tid)  # read before the replay's walk of the chain
        replay = hand_replay(ledger, table, hand_no)
        if not replay.chain_breaks and replay.walked_whole:  # the load need not walk it again
            vouch(holder, tid, head)
        results = hand_results(cast(list[Record], replay.events))
        if replay.in_progress:
            with primary_of(ledger) as writer:  # the access log: on the primary
                record_access(writer, who=ledger.actor.id, what="hand_replay",
                              table=replay.table, hand=hand_no,
                              detail={"command": "ledger audit hand"})
    if as_json:
        from ledger.cli.handaudit import as_json as replay_json
        from ledger.domain.rulebook import cited

        texts = {r.id: r.text for r in cited({x for s in replay.steps for x in s.rules})}
        typer.echo(replay_json(replay, results, texts))
        raise typer.Exit(0 if replay.ok else 1)
    width = shutil.get_terminal_size((160, 24)).columns if sys.stdout.isatty() else 160
    if whole:
        lines = render_replay(replay, width, results=results, rule_texts=rule_texts)
    else:
        from ledger.cli.handaudit import compact_lines

        lines = compact_lines(replay, width, results=results, rule_texts=rule_texts)
    for line in lines:
        typer.echo(line)
    raise typer.Exit(0 if replay.ok else 1)


def render_replay(replay: Any, width: int, *, results: Any = None,
                  rule_texts: bool = False) -> list[str]:
    """The replay as text: per event a header (version, time, event, command, rules, verdict),
    then the recorded lines and the recomputed lines side by side; each seat's result, and
    with ``rule_texts`` the text of every rule cited."""
    from ledger.cli.replay import stamp
    from ledger.domain.rulebook import cited
    from ledger.table.describe import results_lines

    width = max(width, 100)
    half = (width - 7) // 2
    zone = replay.timezone or "UTC"
    out = [f"table {replay.table} hand {replay.hand_no} ({replay.game}, amounts in "
           f"{replay.currency}, times UTC (Z) and {zone}): each recorded event beside what the "
           "rules in force produce for the same command", ""]
    from projections.audit.chain import breaks_text

    warning = breaks_text(replay.table, replay.chain_breaks) if replay.chain_breaks else None
    if warning:
        out[:0] = [warning, ""]
    cites: set[str] = set()
    for step in replay.steps:
        cites.update(step.rules)
        verdict = {True: "= agrees", False: "** DIFFERS **", None: "- not recomputed"}[
            step.agrees]
        at = stamp(datetime.fromisoformat(step.at.replace("Z", "+00:00")), zone)
        head = f"v{step.version}  {at}  {step.event}" + (
            f" ({step.command})" if step.command else "") + (
            f"  by {step.actor}" if step.actor else "")
        rules = f"rules {', '.join(step.rules)}" if step.rules else ""
        out.append(f"{head}  {rules}".ljust(width - len(verdict) - 1) + " " + verdict)
        right = step.recomputed if step.recomputed is not None else [
            "(an rng deal of an unfinished hand: its deck is revealed when the hand ends)"]
        left_lines = _wrapped(step.recorded, half)
        right_lines = _wrapped(right, half)
        if step.approval:
            out.append(f"     {step.approval}")
        out.append("     " + "recorded".ljust(half) + "| recomputed")
        for i in range(max(len(left_lines), len(right_lines))):
            left = left_lines[i] if i < len(left_lines) else ""
            other = right_lines[i] if i < len(right_lines) else ""
            out.append(f"     {left.ljust(half)}| {other}")
        out.append("")
    if replay.commitment_ok is not None:
        out.append("deck commitment (COM-8): " + (
            "verified: the revealed deck and salt hash to the commitment recorded at the start"
            if replay.commitment_ok else "DOES NOT MATCH the revealed deck"))
    for d in replay.discrepancies:
        out.append(f"DISCREPANCY {d.kind} [{d.rule or '-'}]: expected {_short(d.expected)}, "
                   f"recorded {_short(d.recorded)}")
    if results is not None:
        out.extend(results_lines(results, replay.currency))
    out.append("every decision agrees with the rules" if replay.ok else
               warning or "the record differs from the rules (see above)")
    if rule_texts:
        out.append("")
        out.extend(f"{rule.id}: {rule.text.replace('**', '')}" for rule in cited(cites))
    return out


def _wrapped(lines: list[str], width: int) -> list[str]:
    wrapped: list[str] = []
    for line in lines:
        wrapped.extend(textwrap.wrap(line, width - 1, subsequent_indent="  ") or [""])
    return wrapped


@audit_app.command("seal")
def seal(
    day: str = typer.Option(..., "--day", help="Gaming day to seal (YYYY-MM-DD)."),
    out: Path | None = SEAL_OUT_OPTION,
    previous: Path | None = PREVIOUS_OPTION,
    database_url: str | None = DATABASE_OPTION,
) -> None:
    """Seal the gaming day: each table's head at its end (last version, its chain digest, the
    number of events, every account's balance and the table's state), a digest of each view's
    totals of the day, and the digest of the previous day's seal, signed with the Ed25519
    signing key (LEDGER_SIGNING_KEY or its file; `ledger keys create`). Keep the file away
    from the database; `ledger audit verify --seal FILE --public-key KEY` checks the store
    against it with the public key only.

    The previous day's seal is taken from --previous, else seal-(D-1).json beside the output
    file; with it only the events after its heads are read. Without it a new chain starts (a
    warning says so).

    A gaming day that has not started yet at any table is refused (`day_not_started`). A day
    still in progress is sealed with a warning: the heads are those of now, so seal it again
    once the day has ended."""
    from ledger.domain.errors import InvalidInput
    from projections.audit import keys
    from projections.audit.seal import make_seal, previous_for, read_seal, unfinished
    from projections.views.context import parse_day

    with ledger_app(database_url) as ledger:
        day = parse_day(day)
        now = datetime.now(UTC)
        path = out or Path(f"seal-{day}.json")
        before = read_seal(previous) if previous is not None else previous_for(day, path.parent)
        payload = make_seal(ledger, day, keys.signing_key(ledger.settings), previous=before,
                            now=now)
        report_day(ledger, day)
        open_at = unfinished(ledger, day, now=now)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
        except FileExistsError:  # mkdir met a file where a directory must be
            raise InvalidInput("output_not_writable", f"cannot write {path}: {path.parent} or "
                               "a directory above it is a file, not a directory") from None
        except OSError as exc:
            raise InvalidInput("output_not_writable",
                               f"cannot write {path}: {exc.strerror or exc}") from None
    if open_at:
        from rich.markup import escape

        tables = ", ".join(sorted(code for code, _ in open_at))
        ends = max(end for _, end in open_at).isoformat()
        err_console.print(
            f"[yellow]warning[/]: gaming day {day} is still in progress at {escape(tables)} "
            f"(it ends at {ends} at the latest): the seal covers their events up to now; seal "
            "the day again once it has ended", highlight=False, soft_wrap=True)
    if before is None:
        err_console.print(f"[yellow]warning[/]: no seal of the day before {day} (give "
                          "--previous): this seal starts a new chain of seals",
                          highlight=False, soft_wrap=True)
    typer.echo(f"sealed gaming day {day}: {len(payload['tables'])} table heads, key id "
               f"{payload['key_id']} -> {path}")
