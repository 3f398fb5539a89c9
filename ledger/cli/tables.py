"""``ledger tables``: list the tables, show one, open one, and key a table's play from the
command line: every command a table's device (a dealer terminal, a card reader) sends over
HTTP, sent through the same application commands (``ledger.cli.keying``), so that a
``recorded`` table can be opened and a disputed hand reproduced without writing HTTP.

A refused command prints ``error [code] message``, exits with status 2 and appends nothing.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import typer

from ledger.cli import app
from ledger.cli.common import DATABASE_OPTION, ledger_app, out_console
from ledger.cli.keying import (
    AS_JSON,
    COMMAND_ID,
    card_list,
    parse_cards,
    send,
    settings_from,
    typed_amount,
)

tables_app = typer.Typer(
    name="tables",
    help="List the tables, show one now, open one, and send what a table's device sends "
    "(seat, buy-in, start, wager, deal, act, reveal, settle, leave, cash-out, void, tray "
    "counts): the same commands as the HTTP API, so a recorded table can be played and a "
    "disputed hand reproduced from the command line.",
    no_args_is_help=True,
)
app.add_typer(tables_app)

TABLE = typer.Argument(..., metavar="TABLE", help="Table code, e.g. CSP-9.")
SEAT = typer.Argument(..., metavar="SEAT", help="Seat number (1 and up).")
CARD_SOURCE_HELP = (
    "Where the cards come from (COM-8): `rng`, the ledger shuffles with the operating system's "
    "secure generator and commits to the deck before the first wager (the default); "
    "`recorded`, the dealer or a card reader reports every card dealt (`ledger tables deal "
    "--cards`), as at a live table or to reproduce a hand. (`seeded` is for simulations only "
    "and is refused here.)")


@tables_app.command("list")
def list_tables(
    as_json: bool = typer.Option(False, "--json", help="Print the tables view's rows as JSON."),
    database_url: str | None = DATABASE_OPTION,
) -> None:
    """Every table: code, game, currency, time zone, card source, configuration version,
    hands started, events and the last event's time."""
    from ledger.cli.projections import catch_up
    from projections.read.fleet import read_model

    with ledger_app(database_url, reading=True) as ledger:
        catch_up(ledger)
        read = read_model(ledger)
        rows = read.tables()
        for row in rows:
            config = read.config(row["table_code"], row["config_version"])
            row["card_source"] = config.get("card_source", "rng")
    if as_json:
        typer.echo(json.dumps(rows, indent=2))
        return
    from rich.table import Table as RichTable

    shown = RichTable(title=f"{len(rows)} table{'' if len(rows) == 1 else 's'}")
    for column in ("table", "game", "currency", "time zone", "cards", "config", "hands",
                   "events", "last event (UTC)"):
        shown.add_column(column, justify="right" if column in ("config", "hands", "events")
                         else "left")
    for r in rows:
        shown.add_row(r["table_code"], r["game"], r["currency"], r["timezone"],
                      r["card_source"], f"v{r['config_version']}", str(r["hands"]),
                      str(r["last_version"]), (r["last_event_at"] or "")[:19].replace("T", " "))
    out_console().print(shown)


@tables_app.command("show")
def show(
    table: str = TABLE,
    as_json: bool = typer.Option(False, "--json", help="Print the table as GET /tables/CODE "
                                 "gives it (face-down cards of an rng hand as null)."),
    database_url: str | None = DATABASE_OPTION,
) -> None:
    """The table now: its configuration, seats and stacks, the hand in progress and what it
    waits for. The face-down cards of an rng table's hand in progress are not shown (they
    come from the sealed deck); a recorded table's are those its dealer keyed in."""
    from ledger.domain.money import format_amount

    with ledger_app(database_url, reading=True) as ledger, ledger.reading(table) as now:
        state = now.state
        hand = None if state.hand is None else state.hand.model_dump(mode="json")
        masked = state.hand is not None and state.config.card_source != "recorded"
        data = {"code": state.code, "game": state.game.name, "currency": state.currency,
                "timezone": state.timezone, "version": now.version,
                "config_version": state.config_version,
                "config": state.config.model_dump(mode="json"),
                "seats": {str(k): v for k, v in sorted(state.seats.items())},
                "balances": dict(state.balances), "button": state.button,
                "hand_no": state.hand_no, "hand": hand,
                "step": state.next_step().model_dump(mode="json")}
        if masked and hand is not None:
            from ledger.api.visibility import hidden_cards, mask
            from ledger.app.fleet import app_of

            hidden = hidden_cards(app_of(ledger, table), now, frozenset())
            data["hand"] = mask(hand, state.game.hand_type, hidden.__contains__)
    if as_json:
        typer.echo(json.dumps(data))
        return
    from ledger.cli.keying import step_line

    cur = data["currency"]
    config = data["config"]
    typer.echo(f"{data['code']}: {data['game']}, {cur}, {data['timezone']}, cards "
               f"{config.get('card_source')}, configuration v{data['config_version']}, "
               f"{data['version']} events")
    for seat, player in data["seats"].items():
        stack = data["balances"].get(f"player:{player}", 0)
        typer.echo(f"  seat {seat}: {player}, stack {format_amount(stack, cur)} {cur}")
    if not data["seats"]:
        typer.echo("  no player seated")
    if data["hand"] is not None:
        typer.echo(f"hand {data['hand_no']} in progress: {json.dumps(data['hand'])}")
    typer.echo(step_line(data["step"], data["hand_no"], cur))


@tables_app.command("open")
def open_table(
    table: str = TABLE,
    game: str = typer.Option(..., "--game",
                             metavar="[caribbean-stud|chinese-poker|high-card-flush|stud-hilo]",
                             help="The game the table plays."),
    card_source: str | None = typer.Option(None, "--card-source", metavar="[rng|recorded]",
                                           help=CARD_SOURCE_HELP),
    config: Path | None = typer.Option(  # noqa: B008
        None, "--config", help="A JSON file with the table's configuration (limits, paytables, "
        "jackpot, rake policy, card_source ...; every setting is in the games reference and "
        "GET /openapi.json); what it leaves out keeps its default."),
    settings: list[str] = typer.Option(  # noqa: B008
        [], "--set", metavar="KEY=VALUE", help="One setting, over the file's: a JSON value or "
        "text; a dotted key sets a nested one (jackpot.seed=500000, minor units as in the "
        "configuration). Repeat for more."),
    currency: str = typer.Option("EUR", "--currency", help="ISO 4217 code of the table's "
                                 "chips."),
    timezone: str = typer.Option("Europe/Amsterdam", "--timezone",
                                 help="IANA time zone of the table (its gaming days)."),
    opened_by: str = typer.Option("floor", "--opened-by", help="Who opens it (recorded)."),
    command_id: str | None = COMMAND_ID,
    as_json: bool = AS_JSON,
    database_url: str | None = DATABASE_OPTION,
) -> None:
    """Open table TABLE of a game with its configuration: a JSON file (--config), single
    settings (--set) and the card source (--card-source rng|recorded). An invalid setting is
    refused with a coded error and nothing is appended."""
    chosen = _config_file(config)
    chosen.update(settings_from(settings))
    if card_source is not None:
        chosen["card_source"] = card_source
    send("open_table", table, {"game": game, "currency": currency, "timezone": timezone,
                               "config": chosen, "opened_by": opened_by},
         command_id, as_json, database_url)


@tables_app.command("configure")
def configure(
    table: str = TABLE,
    config: Path | None = typer.Option(None, "--config",  # noqa: B008
                                       help="A JSON file with the settings to change."),
    settings: list[str] = typer.Option([], "--set", metavar="KEY=VALUE",  # noqa: B008
                                       help="One setting to change (as for `open`)."),
    approver: str = typer.Option(..., "--approver", help="The principal approving the change "
                                 "(COM-4)."),
    reason: str = typer.Option("", "--reason", help="Why (recorded)."),
    command_id: str | None = COMMAND_ID,
    as_json: bool = AS_JSON,
    database_url: str | None = DATABASE_OPTION,
) -> None:
    """An approved configuration change between hands (COM-4): the settings given change, the
    others stay."""
    chosen = _config_file(config)
    chosen.update(settings_from(settings))
    send("change_config", table, {"config": chosen, "approver": approver, "reason": reason},
         command_id, as_json, database_url)


def _config_file(path: Path | None) -> dict[str, Any]:
    from ledger.domain import jsontext
    from ledger.domain.errors import InvalidInput
    from ledger.domain.jsontext import DuplicateKey

    if path is None:
        return {}
    try:
        found = jsontext.loads(path.read_text(encoding="utf-8"), str(path))
    except DuplicateKey:
        raise
    except ValueError as exc:
        raise InvalidInput("invalid_config_file", f"{path}: not JSON ({exc})") from None
    if not isinstance(found, dict):
        raise InvalidInput("invalid_config_file", f"{path}: a configuration is a JSON object")
    return found


# --- what a table's device sends -------------------------------------------------------------


@tables_app.command("seat")
def seat(table: str = TABLE, seat_no: int = SEAT,
         player: str = typer.Argument(..., metavar="PLAYER", help="The player's id."),
         command_id: str | None = COMMAND_ID, as_json: bool = AS_JSON,
         database_url: str | None = DATABASE_OPTION) -> None:
    """Seat PLAYER at SEAT."""
    send("seat_player", table, {"seat": seat_no, "player": player}, command_id, as_json,
         database_url)


@tables_app.command("leave")
def leave(table: str = TABLE, seat_no: int = SEAT,
          reason: str = typer.Option("left", "--reason", help="Why (recorded)."),
          command_id: str | None = COMMAND_ID, as_json: bool = AS_JSON,
          database_url: str | None = DATABASE_OPTION) -> None:
    """The player at SEAT gets up (during a hand: folds at once, COM-6)."""
    send("unseat_player", table, {"seat": seat_no, "reason": reason}, command_id, as_json,
         database_url)


AMOUNT = typer.Argument(..., metavar="AMOUNT", help="In the table's currency units, e.g. 500 "
                        "or 12.50.")


@tables_app.command("buy-in")
def buy_in(table: str = TABLE, seat_no: int = SEAT, amount: str = AMOUNT,
           command_id: str | None = COMMAND_ID, as_json: bool = AS_JSON,
           database_url: str | None = DATABASE_OPTION) -> None:
    """Chips from the cage to the stack of the player at SEAT (between hands, COM-3)."""
    send("buy_in", table, {"seat": seat_no, "amount": amount}, command_id, as_json,
         database_url, amounts=("amount",))


@tables_app.command("cash-out")
def cash_out(table: str = TABLE, seat_no: int = SEAT,
             amount: str | None = typer.Argument(None, metavar="[AMOUNT]", help="In the "
                                                 "table's currency units (default: the whole "
                                                 "stack)."),
             command_id: str | None = COMMAND_ID, as_json: bool = AS_JSON,
             database_url: str | None = DATABASE_OPTION) -> None:
    """Chips from the stack of the player at SEAT back to the cage."""
    send("cash_out", table, {"seat": seat_no, "amount": amount}, command_id, as_json,
         database_url, amounts=("amount",))


@tables_app.command("start")
def start(table: str = TABLE, command_id: str | None = COMMAND_ID, as_json: bool = AS_JSON,
          database_url: str | None = DATABASE_OPTION) -> None:
    """Start the next hand."""
    send("start_hand", table, {}, command_id, as_json, database_url)


@tables_app.command("wager")
def wager(table: str = TABLE, seat_no: int = SEAT,
          kind: str = typer.Argument(..., metavar="KIND", help="The wager: ante, jackpot, "
                                     "flush_bonus, straight_flush_bonus ... (the step names "
                                     "them)."),
          amount: str = AMOUNT, command_id: str | None = COMMAND_ID, as_json: bool = AS_JSON,
          database_url: str | None = DATABASE_OPTION) -> None:
    """Place a wager for the player at SEAT."""
    send("place_wager", table, {"seat": seat_no, "kind": kind, "amount": amount}, command_id,
         as_json, database_url, amounts=("amount",))


@tables_app.command("deal")
def deal(table: str = TABLE,
         cards: list[str] = typer.Option(  # noqa: B008
             [], "--cards", metavar="TARGET=CARDS",
             help="A recorded table: the cards one target received, face-down first, e.g. "
             "1=As,Ad,Kc,7h,2s or dealer=Qh,Jd,9c,4s,8d; one --cards per target of the deal "
             "plan (the step names them). An rng table deals from its deck: give none."),
         command_id: str | None = COMMAND_ID, as_json: bool = AS_JSON,
         database_url: str | None = DATABASE_OPTION) -> None:
    """Deal the next round (COM-8): a recorded table takes the cards keyed in; a wrong target,
    count or a repeated card is refused (wrong_deal_targets, wrong_card_count,
    duplicate_card)."""
    from ledger.domain.errors import InvalidInput

    keyed: dict[str, list[str]] = {}
    for text in cards:
        target, found = parse_cards("--cards", text)
        if target in keyed:
            raise InvalidInput("invalid_cards", f"--cards {target}= is given twice")
        keyed[target] = found
    send("deal", table, {"cards": keyed} if keyed else {}, command_id, as_json, database_url)


@tables_app.command("act")
def act(table: str = TABLE, seat_no: int = SEAT,
        action: str = typer.Argument(..., metavar="ACTION", help="fold, play, raise, check, "
                                     "bet, call, complete, bring_in, accept, decline, set, "
                                     "declare, show or muck (the step names those allowed)."),
        amount: str | None = typer.Option(None, "--amount", help="Where the action needs one, "
                                          "in the table's currency units."),
        front: str | None = typer.Option(None, "--front", help="set: the front's 3 cards."),
        middle: str | None = typer.Option(None, "--middle", help="set: the middle's 5 cards."),
        back: str | None = typer.Option(None, "--back", help="set: the back's 5 cards."),
        declaration: str | None = typer.Option(None, "--declaration",
                                               help="declare: the automatic win (CHP-7)."),
        command_id: str | None = COMMAND_ID, as_json: bool = AS_JSON,
        database_url: str | None = DATABASE_OPTION) -> None:
    """A decision of the player at SEAT."""
    fields: dict[str, Any] = {"seat": seat_no, "action": action}
    for key, value in (("amount", amount), ("declaration", declaration),
                       ("front", card_list("--front", front)),
                       ("middle", card_list("--middle", middle)),
                       ("back", card_list("--back", back))):
        if value is not None:
            fields[key] = value
    send("act", table, fields, command_id, as_json, database_url, amounts=("amount",))


@tables_app.command("reveal")
def reveal(table: str = TABLE, command_id: str | None = COMMAND_ID, as_json: bool = AS_JSON,
           database_url: str | None = DATABASE_OPTION) -> None:
    """Reveal the hand due to show (the dealer's, the designated player's)."""
    send("reveal", table, {}, command_id, as_json, database_url)


@tables_app.command("settle")
def settle(table: str = TABLE, command_id: str | None = COMMAND_ID, as_json: bool = AS_JSON,
           database_url: str | None = DATABASE_OPTION) -> None:
    """Settle the hand: the rules compute every payout, rake and jackpot movement."""
    send("settle", table, {}, command_id, as_json, database_url)


@tables_app.command("void")
def void(table: str = TABLE,
         reason: str = typer.Option(..., "--reason", help="Why (recorded), e.g. misdeal."),
         approved_by: str | None = typer.Option(None, "--approved-by", help="The supervisor "
                                                "authorising a void the rules allow only with "
                                                "approval (CHP-10)."),
         command_id: str | None = COMMAND_ID, as_json: bool = AS_JSON,
         database_url: str | None = DATABASE_OPTION) -> None:
    """Void the hand in progress (COM-5): every wager returned, nothing raked."""
    fields: dict[str, Any] = {"reason": reason}
    if approved_by is not None:
        fields["approved_by"] = approved_by
    send("void_hand", table, fields, command_id, as_json, database_url)


CHIPS = typer.Option(..., "--chips", metavar="DENOMINATION=COUNT",
                     help="Chips by denomination in currency units, e.g. 25=40 (forty chips "
                     "of 25.00); repeat per denomination.")
SIGNERS = typer.Option(..., "--signer", help="One of the two people who sign (INV-1..3); give "
                       "two.")


def _tray(name: str, table: str, chips: list[str], signers: list[str],
          extra: dict[str, Any], command_id: str | None, as_json: bool,
          database_url: str | None) -> None:
    from ledger.domain.errors import InvalidInput

    with ledger_app(database_url) as ledger:
        currency = ledger.load(table).state.currency
    counted: dict[int, Any] = {}
    for text in chips:
        denomination, sep, count = text.partition("=")
        if not sep or not count.strip().isdigit():
            raise InvalidInput("invalid_chips", f"--chips {text!r}: write DENOMINATION=COUNT, "
                               "e.g. 25=40")
        counted[typed_amount("denomination", denomination, currency)] = int(count)
    send(name, table, {"chips": counted, "signers": signers, **extra}, command_id, as_json,
         database_url)


@tables_app.command("count")
def count(table: str = TABLE,
          moment: str = typer.Argument(..., metavar="[opening|closing]",
                                       help="The opening or the closing count."),
          chips: list[str] = CHIPS, signers: list[str] = SIGNERS,
          command_id: str | None = COMMAND_ID, as_json: bool = AS_JSON,
          database_url: str | None = DATABASE_OPTION) -> None:
    """Count the tray of a house-banked table (INV-1)."""
    _tray("count_inventory", table, chips, signers, {"moment": moment}, command_id, as_json,
          database_url)


@tables_app.command("fill")
def fill(table: str = TABLE, chips: list[str] = CHIPS, signers: list[str] = SIGNERS,
         command_id: str | None = COMMAND_ID, as_json: bool = AS_JSON,
         database_url: str | None = DATABASE_OPTION) -> None:
    """Chips brought from the cage to the tray (INV-2)."""
    _tray("fill", table, chips, signers, {}, command_id, as_json, database_url)


@tables_app.command("credit")
def credit(table: str = TABLE, chips: list[str] = CHIPS, signers: list[str] = SIGNERS,
           command_id: str | None = COMMAND_ID, as_json: bool = AS_JSON,
           database_url: str | None = DATABASE_OPTION) -> None:
    """Chips returned from the tray to the cage (INV-3)."""
    _tray("credit", table, chips, signers, {}, command_id, as_json, database_url)
