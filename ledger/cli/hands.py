"""``ledger hands``: search the hands by table, game, gaming day or period, player, rule,
status and the amount won or lost, a page at a time with the number found
(``projections.read.search``, which ``GET /hands`` and the console's hand search answer from
too)."""

from __future__ import annotations

import json
from typing import Any

import typer

from ledger.cli import app
from ledger.cli.common import DATABASE_OPTION, err_console, ledger_app

RULE_HELP = ("Hands whose ending paid under this rule: a wager won, a jackpot award, a rake, "
             "a dead hand's or an uncalled bet's wagers returned, a void (e.g. CSP-6: the "
             "jackpot awards; STUD8-11: the raked hands; COM-5: the voided hands).")


@app.command("hands")
def hands(
    table: str | None = typer.Option(None, "--table", help="Only this table (code)."),
    game: str | None = typer.Option(
        None, "--game", metavar="[caribbean-stud|chinese-poker|high-card-flush|stud-hilo]",
        help="Only this game."),
    day: str | None = typer.Option(None, "--day", help="One gaming day (YYYY-MM-DD)."),
    first: str | None = typer.Option(None, "--from", help="First gaming day (with --to)."),
    last: str | None = typer.Option(None, "--to", help="Last gaming day (with --from)."),
    month: str | None = typer.Option(None, "--month", help="A month of gaming days (YYYY-MM)."),
    player: str | None = typer.Option(None, "--player", help="Only this player's hands (one "
                                      "row per hand with the seat, wagers and the player's "
                                      "result), oldest first."),
    rule: str | None = typer.Option(None, "--rule", metavar="ID", help=RULE_HELP),
    cites: str | None = typer.Option(None, "--cites", metavar="ID", help="Hands that cite "
                                     "this rule anywhere: a wager, a decision, a loss (e.g. "
                                     "CSP-6: every hand with a jackpot wager)."),
    status: str | None = typer.Option(
        None, "--status", metavar="[in_progress|settled|voided|cancelled]", help="Only hands "
        "in this state."),
    won: str | None = typer.Option(None, "--won", metavar="AMOUNT", help="Some player (with "
                                   "--player: that player) won at least AMOUNT over the hand, "
                                   "in the table's currency (e.g. 50 or 12.50)."),
    lost: str | None = typer.Option(None, "--lost", metavar="AMOUNT", help="Some player (with "
                                    "--player: that player) lost at least AMOUNT."),
    limit: int = typer.Option(100, "--limit", min=1, max=10_000, help="Hands per page."),
    offset: int = typer.Option(0, "--offset", min=0, max=10**9, help="Hands to skip (the "
                               "next page starts at --offset plus --limit)."),
    as_json: bool = typer.Option(False, "--json", help='Print one object: {"total", "limit", '
                                 '"offset", "next_offset", "searched", "items"} (each item '
                                 "with its table's currency; amounts in its minor unit)."),
    database_url: str | None = DATABASE_OPTION,
) -> None:
    """Search the hands: every filter given must hold (none: every hand). Without --player, one
    row per hand, by table then hand number; with --player, that player's hands across tables,
    oldest first, with the player's result (positive when the player won). A page of --limit
    hands from --offset, and how many match in all. A period never runs past today: one that
    ends later is searched up to today (said on standard error), one that starts later is
    refused (day_not_started)."""
    from ledger.cli.projections import catch_up
    from ledger.store.fleet import table_guard
    from projections.read.fleet import read_model
    from projections.read.search import HandFilter, search_hands, today
    from projections.reports.periods import period

    with ledger_app(database_url, reading=True) as ledger, table_guard(ledger, table):
        chosen = None
        if any(v is not None for v in (day, first, last, month)):
            chosen = period(day, first, last, month)
        catch_up(ledger)
        read = read_model(ledger)
        currencies = {t["table_code"]: t["currency"] for t in read.tables()}
        found = HandFilter(table=table, game=game, period=chosen, player=player, rule=rule,
                           cites=cites, status=status,
                           won_min=_amount("--won", won, table, currencies),
                           lost_min=_amount("--lost", lost, table, currencies))
        answer = search_hands(read, found, limit=limit, offset=offset,
                              latest=today(read, ledger.settings.gaming_day_start))
    following = offset + len(answer["items"])
    answer["next_offset"] = following if following < answer["total"] else None
    if answer.get("note"):
        err_console.print(f"note: {answer['note']}", highlight=False, soft_wrap=True)
    if as_json:
        typer.echo(json.dumps({k: answer[k] for k in (
            "total", "limit", "offset", "next_offset", "searched", "items")}, indent=2))
        return
    for line in _lines(answer, player is not None, _currency_of(table, currencies)):
        typer.echo(line)


def _currency_of(table: str | None, currencies: dict[str, str]) -> str | None:
    """The currency the amounts of the search's filters are in (the table's; else the one
    every table uses, or None)."""
    chosen = {c for code, c in currencies.items() if table is None or code.upper() ==
              table.upper()}
    return next(iter(chosen)) if len(chosen) == 1 else None


def _amount(option: str, text: str | None, table: str | None,
            currencies: dict[str, str]) -> int | None:
    """An amount typed in currency units, in minor units of the table's currency (or of every
    table's, when they all have the same decimals)."""
    from ledger.domain.errors import InvalidInput
    from ledger.domain.money import minor_units, units_to_minor

    if text is None:
        return None
    if table is not None:
        chosen = {c for code, c in currencies.items() if code.upper() == table.upper()}
    else:
        chosen = set(currencies.values())
    decimals = {minor_units(c) for c in chosen} or {2}
    if len(decimals) > 1:
        raise InvalidInput("invalid_amount", f"{option} {text}: the tables use currencies with "
                           f"different decimals ({', '.join(sorted(chosen))}): choose a table "
                           "with --table to search by amount")
    try:
        return units_to_minor(text, min(chosen) if chosen else None)
    except InvalidInput as exc:
        raise InvalidInput(exc.code, f"{option} {exc.message}", **exc.details) from None


def _lines(answer: dict[str, Any], by_player: bool, currency: str | None) -> list[str]:
    from ledger.domain.money import format_amount
    from ledger.games.registry import get_game

    def money(minor: int | None, currency: str | None, sign: bool = False) -> str:
        if minor is None:
            return "-"
        text = format_amount(int(minor), currency)
        return f"{'+' if sign and minor > 0 else ''}{text} {currency or ''}".rstrip()

    out = []
    for r in answer["items"]:
        cur = r.get("currency")
        head = f"{r['table_code']} #{r['hand_no']}  {r['gaming_day']}  {r['status']}"
        paid = f"  paid under {', '.join(r['paid_rules'])}" if r.get("paid_rules") else ""
        if by_player:
            out.append(f"{head}  seat {r['seat']}  wagered {money(r['wagered_minor'], cur)}  "
                       f"result {money(r['net_minor'], cur, sign=True)}{paid}")
            continue
        players = f"{r['players']} player{'' if r['players'] == 1 else 's'}"
        line = f"{head}  {players}  wagered {money(r['wagered_minor'], cur)}"
        if get_game(r["game"]).banking == "house":
            line += f"  house {money(r['house_result_minor'], cur, sign=True)}"
        if r.get("dp_result_minor") is not None:
            line += f"  DP {money(r['dp_result_minor'], cur, sign=True)}"
        if r.get("rake_minor"):
            line += f"  rake {money(r['rake_minor'], cur)}"
        out.append(line + paid)
    out.append(_summary(answer, currency))
    return out


def _summary(answer: dict[str, Any], currency: str | None) -> str:
    """``hands 1-100 of 189 (table CSP-1, ...); next page: --offset 100``, or what was searched
    when nothing matched."""
    from ledger.domain.money import format_amount

    searched = dict(answer["searched"])
    for key in ("won_min", "lost_min"):
        if key in searched:
            searched[key] = f"{format_amount(searched[key], currency)} {currency or ''}".rstrip()
    names = {"table": "table", "game": "game", "player": "player", "rule": "paid under",
             "cites": "citing", "status": "status", "won_min": "someone won at least",
             "lost_min": "someone lost at least"}
    if "player" in searched:
        names.update(won_min="the player won at least", lost_min="the player lost at least")
    parts = [f"{label} {searched[key]}" for key, label in names.items() if key in searched]
    if "from" in searched:
        parts.insert(1 if "table" in searched else 0, f"gaming day {searched['from']}"
                     if searched["from"] == searched["to"] else
                     f"gaming days {searched['from']} to {searched['to']}")
    scope = f" ({', '.join(parts)})" if parts else " (every hand)"
    total, items = answer["total"], answer["items"]
    if not total:
        return f"no hand matches{scope}"
    if not items:
        return f"no hand from --offset {answer['offset']}: {total} match{scope}"
    first = answer["offset"] + 1
    shown = f"hands {first}-{first + len(items) - 1} of {total}" if len(items) < total else \
        f"{total} hand{'' if total == 1 else 's'}"
    following = answer.get("next_offset")
    return shown + scope + ("" if following is None else f"; next page: --offset {following}")
