"""``ledger report``: paytable mathematics, hold against theory, player ratings."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import typer

from ledger.cli import app
from ledger.cli.common import DATABASE_OPTION, err_console, fail, handle_errors, ledger_app
from ledger.domain import jsontext
from ledger.domain.errors import InvalidInput
from ledger.domain.jsontext import DuplicateKey
from ledger.domain.money import to_decimal

report_app = typer.Typer(
    name="report",
    help="Reports for regulators and accounting: a configuration's mathematics, expected "
    "against actual hold with variance flags, player ratings.",
    no_args_is_help=True,
)
app.add_typer(report_app)

DAY = typer.Option(None, "--day", help="One gaming day (YYYY-MM-DD).")
FROM = typer.Option(None, "--from", help="First gaming day of a range (with --to).")
TO = typer.Option(None, "--to", help="Last gaming day of a range (with --from).")
MONTH = typer.Option(None, "--month", help="A calendar month of gaming days (YYYY-MM).")
JSON = typer.Option(False, "--json", help="Print JSON instead of text.")
CONFIG_FILE = typer.Option(None, "--config", help="A JSON file with the configuration "
                           "(defaults fill what it leaves out).")


def _money(minor: int | None, currency: str | None = None) -> str:
    """Minor units in ``currency``'s decimals (ISO 4217: EUR 12,345.50, JPY 12,345, KWD
    12.345; two decimals when no currency is named), thousands grouped, never via a float."""
    return "" if minor is None else f"{to_decimal(int(minor), currency):,f}"


def _pct(text: str | None) -> str:
    return "" if text is None else f"{float(text) * 100:.4f}%"


@report_app.command("paytable")
def paytable(
    table: str | None = typer.Option(None, "--table", help="A table's code: its configuration "
                                     "history and the current configuration's figures."),
    game: str | None = typer.Option(
        None, "--game", metavar="[caribbean-stud|chinese-poker|high-card-flush|stud-hilo]",
        help="With --config: a configuration not in use."),
    config: Path | None = CONFIG_FILE,
    as_json: bool = JSON,
    database_url: str | None = DATABASE_OPTION,
) -> None:
    """The exact mathematics of a table's configuration: Caribbean Stud house edge, element of
    risk and probability of playing for the optimal and four simple strategies, the
    progressive's return by meter and its break-even meter; High Card Flush DP qualification,
    bonus returns against the DP and as pure paytables, the player's expected result; the rake
    of player-banked games. A simulation is printed beside the exact figures as a check. The
    first computation of a configuration takes seconds (Caribbean Stud about 20 s); it is then
    kept in the store by the configuration's digest."""
    from projections.reports.paytable import compute, table_report

    if (table is None) == (game is None):
        fail(InvalidInput("invalid_request", "give --table CODE, or --game G with --config FILE"))
    if table is not None and config is not None:
        fail(InvalidInput("invalid_request", "--config goes with --game: a table's report uses "
                          "the table's own configurations"))
    if table is not None:
        from ledger.cli.projections import catch_up
        from projections.read.fleet import read_model

        with ledger_app(database_url) as ledger, _computing():
            catch_up(ledger)
            report = table_report(read_model(ledger), table)
    else:
        assert game is not None
        data: dict[str, Any] = {}
        if config is not None:
            try:
                data = jsontext.loads(config.read_text(encoding="utf-8"), str(config))
            except DuplicateKey as exc:
                fail(exc)
            except (OSError, ValueError) as exc:
                fail(InvalidInput("invalid_config", f"cannot read {config}: {exc}"))
            if not isinstance(data, dict):
                fail(InvalidInput("invalid_config", f"{config} does not hold a JSON object"))
        with handle_errors(), _computing():
            report = {"table": None, "game": game, "configs": [],
                      "mathematics": compute(game, data)}
    if as_json:
        typer.echo(json.dumps(report, indent=2))
        return
    _print_paytable(report)


@contextmanager
def _computing() -> Iterator[None]:
    """A line on stderr when paytable mathematics start and end being computed (seconds to a
    minute the first time for a paytable; kept in the store after that), and a spinner on a
    terminal meanwhile."""
    from projections.reports.paytable import PROGRESS

    def tell(text: str) -> None:
        err_console.print(text, highlight=False, soft_wrap=True)

    PROGRESS.append(tell)
    try:
        if not sys.stderr.isatty():
            yield
            return
        with err_console.status("paytable mathematics (the first time for a paytable: up to "
                                "a minute)"):
            yield
    finally:
        PROGRESS.remove(tell)


HEADLINE = (("house_edge", "house edge"), ("element_of_risk", "element of risk"),
            ("play_probability", "P(play)"), ("dp_qualifies", "DP qualifies"),
            ("player_expected_per_ante", "player against the DP"),
            ("flush_bonus_return_against_dp", "Flush Bonus"),
            ("straight_flush_bonus_return_against_dp", "Straight Flush Bonus"))
"""The figures shown beside each configuration version of a table's history."""


def _print_paytable(report: dict[str, Any]) -> None:
    echo = typer.echo
    currency = report.get("currency")
    if report.get("table"):
        echo(f"table {report['table']} ({report['game']}, {report['currency']})")
        for c in report["configs"]:
            figures = [f"{label} {_pct(c[key])}" for key, label in HEADLINE if key in c]
            if "rake_policy" in c:
                figures.append(c["rake_policy"])
            echo(f"  config v{c['config_version']}  {c['at']}  approved by {c['approver']} "
                 f"({c['reason']})  digest {c['digest'][:16]}"
                 + (f"\n    {', '.join(figures)}" if figures else ""))
    m = report["mathematics"]
    echo(f"mathematics of digest {m['digest'][:16]} (version {m['math_version']}, computed in "
         f"{m['seconds']} s)")
    if m.get("method"):
        echo(f"  method: {m['method']}")
    if m.get("kind") == "house-banked":
        echo(f"  {'strategy':<8} {'house edge':>12} {'element of risk':>16} {'P(play)':>10} "
             f"{'SD/hand':>8}   simulation (hands, edge ± 1 s.e.)")
        for s in m["strategies"]:
            sim = s["simulation"]
            echo(f"  {s['name']:<8} {_pct(s['house_edge']):>12} {_pct(s['element_of_risk']):>16}"
                 f" {_pct(s['play_probability']):>10} {s['sd_per_hand_antes']:>8}   "
                 f"{sim['hands']:,}: {_pct(sim['house_edge'])} ± {_pct(sim['stderr'])}")
        jp = m["jackpot"]
        be = jp["break_even_meter_minor"]
        echo(f"  progressive (CSP-6): wager {_money(jp['wager_minor'], currency)}, return at "
             f"the seed {_pct(jp['return_at_seed'])}, break-even meter "
             f"{_money(be, currency) if be else 'none'}")
        echo("    " + ", ".join(f"meter {_money(r['meter_minor'], currency)}: "
                                f"{_pct(r['return'])}"
                                for r in jp["returns"]))
    elif m.get("kind") == "designated-player":
        echo(f"  DP qualifies (HCF-8): {_pct(m['dp_qualifies'])}")
        echo(f"  player's expected result against the DP: {_pct(m['player_expected_per_ante'])}"
             f" of the Ante (the DP expects {_pct(m['dp_expected_per_player_hand_antes'])} per "
             f"player hand); raises {_pct(m['raise_probability'])} of hands; strategy: raise "
             f"three-card flushes from {m['strategy']['lowest_three_card_flush_raised']} up")
        for name, rule in (("flush_bonus", "HCF-11"), ("straight_flush_bonus", "HCF-10")):
            b = m[name]
            echo(f"  {name} ({rule}): return against the DP {_pct(b['return_against_dp'])}, "
                 f"as a pure paytable {_pct(b['return_pure'])}")
        sim = m["simulation"]
        echo(f"  simulation ({sim['hands']:,} hands, ± 1 s.e.): " + ", ".join(
            f"{k} {_pct(sim[k]['mean'])} ± {_pct(sim[k]['stderr'])}"
            for k in ("dp_qualifies", "player", "flush", "straight_flush")))
    else:
        echo(f"  {m.get('note', '')}")
        if m.get("policy"):
            echo(f"  rake policy: {m['policy']}")
    if "rake" in report:
        r = report["rake"]
        per_hand = round(float(r["expected_per_hand_minor"]))
        echo(f"  rake: {r['policy']}; {r['recorded_hands']} hands recorded, on average "
             f"{_money(per_hand, currency)} {currency or ''} per hand".rstrip())


def _period(day: str | None, first: str | None, last: str | None, month: str | None) -> Any:
    from projections.reports.periods import period

    with handle_errors():
        return period(day, first, last, month)


@report_app.command("hold")
def hold(
    day: str | None = DAY, first: str | None = FROM, last: str | None = TO,
    month: str | None = MONTH,
    table: str | None = typer.Option(None, "--table", help="Only this table."),
    as_json: bool = JSON,
    database_url: str | None = DATABASE_OPTION,
) -> None:
    """Expected against actual hold per table: handle, drop, win, hold %, theoretical win per
    wager kind, the standard deviation of the win for the hands played and a flag (naming the
    hands that contributed most) outside the 95% interval; the rake for player-banked games.
    Columns: the period, month to date, year to date (COMAR 36.05.03.25). Exit status 1 when a
    column is flagged."""
    from ledger.cli.projections import catch_up
    from projections.read.fleet import read_model
    from projections.reports.hold import hold_report

    chosen = _period(day, first, last, month)
    with ledger_app(database_url, reading=True) as ledger, _computing():
        catch_up(ledger)
        report = hold_report(read_model(ledger), chosen, table)
    flagged = any(c["flagged"] for t in report["tables"] for c in t["columns"])
    if as_json:
        typer.echo(json.dumps(report, indent=2))
    else:
        for t in report["tables"]:
            typer.echo(f"{t['table']} ({t['game']}, {t['currency']})")
            cur = t["currency"]
            for c in t["columns"]:
                head = (f"  {c['label']:<14} {c['from']}..{c['to']}  hands {c['hands']:>6}  "
                        f"handle {_money(c['handle_minor'], cur)}  drop "
                        f"{_money(c['drop_minor'], cur)}")
                mark = "  FLAGGED" if c["flagged"] else ""
                if "theoretical_win_minor" in c:  # the house banks the game
                    low, high = c["interval_minor"]
                    typer.echo(
                        f"{head}  win {_money(c['win_minor'], cur)}  hold "
                        f"{c['hold_pct'] or '-'}%  expected "
                        f"{_money(c['theoretical_win_minor'], cur)} (95%: {_money(low, cur)} "
                        f".. {_money(high, cur)}, z {c['z']}){mark}")
                    for h in c["flag_hands"]:
                        typer.echo(f"      hand {h['table']} #{h['hand_no']} "
                                   f"({h['gaming_day']}): win "
                                   f"{_money(h['house_result_minor'], cur)}")
                    continue
                typer.echo(
                    f"{head}  rake {_money(c['rake_minor'], cur)}  owed by the policy "
                    f"{_money(c['expected_rake_minor'], cur)}  variance "
                    f"{_money(c['rake_variance_minor'], cur)}{mark}")
                for d in c["rake_differences"]:
                    typer.echo(f"      hand {t['table']} #{d['hand_no']} ({d['gaming_day']}): "
                               f"rake {_money(d['recorded_minor'], cur)}, owed "
                               f"{_money(d['owed_minor'], cur)}")
                dp = c.get("dp")
                if dp is not None:
                    low, high = dp["interval_minor"]
                    typer.echo(
                        f"    designated players: result {_money(dp['result_minor'], cur)}  "
                        f"theory {_money(dp['theoretical_minor'], cur)} (95%: "
                        f"{_money(low, cur)} .. {_money(high, cur)}, z {dp['z']})"
                        + ("  FLAGGED" if dp["flagged"] else ""))
                    for h in dp["flag_hands"]:
                        typer.echo(f"      hand {t['table']} #{h['hand_no']} "
                                   f"({h['gaming_day']}): DP result "
                                   f"{_money(h['dp_result_minor'], cur)}, "
                                   f"{_money(h['beyond_theory_minor'], cur)} beyond theory")
    if flagged:
        raise typer.Exit(1)


@report_app.command("inventory")
def inventory(
    day: str | None = DAY, first: str | None = FROM, last: str | None = TO,
    month: str | None = MONTH,
    table: str | None = typer.Option(None, "--table", help="Only this table."),
    as_json: bool = JSON,
    database_url: str | None = DATABASE_OPTION,
) -> None:
    """The win by inventory of house-banked tables (INV-4: drop + credits - fills + closing -
    opening) per gaming day, against the ledger's house win; exit status 1 when a day shows a
    variance."""
    from ledger.cli.projections import catch_up
    from projections.read.fleet import read_model
    from projections.reports.inventory import inventory_report

    chosen = _period(day, first, last, month)
    with ledger_app(database_url, reading=True) as ledger:
        catch_up(ledger)
        report = inventory_report(read_model(ledger), chosen, table)
    if as_json:
        typer.echo(json.dumps(report, indent=2))
    else:
        if not report["rows"]:
            typer.echo(f"no house-banked table played or counted its tray from {chosen.first} "
                       f"to {chosen.last}" + (f" at {table}" if table else ""))
        for r in report["rows"]:
            cur = r["currency"]

            def money(key: str, cur: str | None = cur, r: dict[str, Any] = r) -> str:
                return "-" if r[key] is None else _money(r[key], cur)

            typer.echo(
                f"{r['table']} {r['gaming_day']} ({cur}): opening {money('opening_minor')}, "
                f"fills {money('fills_minor')}, credits {money('credits_minor')}, closing "
                f"{money('closing_minor')}, drop {money('drop_minor')}; win by inventory "
                f"{money('inventory_win_minor')}, ledger {money('ledger_win_minor')}, "
                f"variance {money('variance_minor')} ({r['status']}"
                + (f": {r['reason']})" if r.get("reason") else ")"))
        for t in report["totals"]:
            cur = t["currency"]
            for c in t["columns"]:
                typer.echo(
                    f"{t['table']} {c['label']:<14} {c['from']}..{c['to']} ({cur}): {c['days']} "
                    f"days ({c['reconciled']} reconciled, {c['variance_days']} with a variance, "
                    f"{c['incomplete']} incomplete); win by inventory "
                    f"{_money(c['inventory_win_minor'], cur)}, ledger "
                    f"{_money(c['ledger_win_minor'], cur)}, variance "
                    f"{_money(c['variance_minor'], cur)}")
    if any(r["status"] == "variance" for r in report["rows"]):
        raise typer.Exit(1)


@report_app.command("players")
def players(
    day: str | None = DAY, first: str | None = FROM, last: str | None = TO,
    month: str | None = MONTH,
    player: str | None = typer.Option(None, "--player", help="Only this player."),
    as_json: bool = JSON,
    database_url: str | None = DATABASE_OPTION,
) -> None:
    """Player ratings across tables: hands, time at the tables, average wager, handle, the
    player's theoretical and actual result (the player's side: a win is positive, as in
    ``ledger hands``), per currency of the tables played (never added across currencies)."""
    from ledger.cli.projections import catch_up
    from projections.read.fleet import read_model
    from projections.reports.players import player_report

    chosen = _period(day, first, last, month)
    with ledger_app(database_url, reading=True) as ledger, _computing():
        catch_up(ledger)
        report = player_report(read_model(ledger), chosen, player)
    if as_json:
        typer.echo(json.dumps(report, indent=2))
        return
    if not report["players"]:
        typer.echo(f"no settled hands {('of ' + player + ' ') if player else ''}from "
                   f"{chosen.first} to {chosen.last}")
        return
    typer.echo(f"{'player':<16} {'tables':>6} {'hands':>6} {'minutes':>8} {'avg wager':>10} "
               f"{'handle':>12} {'theo result':>12} {'result':>11} currency")
    for p in report["players"]:
        rows = [(p["player"], p["by_currency"])] + [
            (f"  {c['label']}", c["by_currency"]) for c in p["columns"][1:]]  # MTD, YTD
        for label, totals in rows:
            for t in totals:
                cur = t["currency"]
                typer.echo(f"{label:<16} {t['tables']:>6} {t['hands']:>6} "
                           f"{t['seconds'] / 60:>8.1f} "
                           f"{_money(t['average_wager_minor'], cur):>10} "
                           f"{_money(t['handle_minor'], cur):>12} "
                           f"{_money(t['theoretical_result_minor'], cur):>12} "
                           f"{_money(t['result_minor'], cur):>11} {cur}")


@report_app.command("surveillance")
def surveillance(
    day: str | None = DAY, first: str | None = FROM, last: str | None = TO,
    month: str | None = MONTH,
    table: str | None = typer.Option(None, "--table", help="Only this table."),
    rate: float = typer.Option(0.05, "--rate", help="The false discovery rate of the flags "
                               "(Benjamini-Hochberg), between 0 and 1."),
    every: bool = typer.Option(False, "--all", help="Every test, not only the flags."),
    as_json: bool = JSON,
    database_url: str | None = DATABASE_OPTION,
) -> None:
    """Game protection: the players, pairs and dealers whose results the cards and the rules
    cannot explain. Caribbean Stud and High Card Flush decisions against the hidden cards
    (the information test, with each player's decision cost), Stud Hi/Lo and Chinese Poker
    pairs, and each dealer's hold, rake, voids and corrections; every test's p-value adjusted
    together (Benjamini-Hochberg at --rate). JSON: the list of flags (with --all, of every
    test), each with kind, table, players, dealer, statistic, p_value (adjusted), decisions or
    hands_tested, and the most telling hands."""
    from ledger.cli.projections import catch_up
    from projections.protection.report import check_rate
    from projections.protection.report import surveillance as run
    from projections.read.fleet import read_model

    chosen = _period(day, first, last, month)
    with handle_errors():
        check_rate(rate)
    with ledger_app(database_url, reading=True) as ledger, _hands_progress() as progress:
        catch_up(ledger)
        report = run(read_model(ledger), chosen, table, rate=rate, progress=progress)
    shown = report["all"] if every else report["flags"]
    if as_json:
        typer.echo(json.dumps(shown, indent=2))
        return
    period_text = f"{report['period']['from']} to {report['period']['to']}"
    typer.echo(f"surveillance {period_text}: {report['hands']} hands, {report['tests']} tests, "
               f"{len(report['flags'])} flagged at a false discovery rate of {rate:g}")
    for test in shown:
        who = ", ".join(test["players"]) or f"dealer {test['dealer']}"
        size = (f"{test['decisions']} decisions" if test["decisions"] is not None
                else f"{test['hands_tested']} hands")
        mark = "FLAG " if test["flagged"] else ""
        typer.echo(f"{mark}{test['kind']:<22} {test['table'] or '(all tables)':<12} {who:<30} "
                   f"z {test['statistic']:>7.2f}  p {test['p_value']:.3g}  {size}")
        if test["kind"] in ("csp_hidden_cards", "hcf_hidden_hand"):
            d = test["detail"]
            typer.echo(f"    best {d['best']} of {test['decisions']} (expected "
                       f"{d['expected_best']}); result z {d['result_z']}; decision cost "
                       f"{_money(d['decision_cost_minor'])} "
                       f"({_money(round(d['decision_cost_per_decision_minor']))} a decision)")
        if test["hands"]:
            hands = ", ".join(f"{h['table']}#{h['hand_no']}" for h in test["hands"])
            typer.echo(f"    hands: {hands}")


@contextmanager
def _hands_progress() -> Iterator[Any]:
    """``progress(done, total)`` drawn as a bar on a terminal (hands read); silent otherwise."""
    if not sys.stderr.isatty():
        yield None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    with Progress(TextColumn("hands"), BarColumn(), MofNCompleteColumn(),
                  console=err_console, transient=True) as bar:
        task = bar.add_task("hands", total=None)

        def advance(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        yield advance
