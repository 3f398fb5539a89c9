"""The ``ledger`` command line, run as a user runs it (a subprocess per call)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest


def ledger(*args: str, db: Path, stdin: str | None = None,
           **settings: str) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "LEDGER_DATABASE_URL": f"sqlite:///{db}",
        "LEDGER_DECK_KEY_FILE": str(db.parent / "deck.key"),
        "LEDGER_LOG_LEVEL": "WARNING",
        **settings,
    }
    return subprocess.run(
        [sys.executable, "-m", "ledger", *args],
        capture_output=True,
        text=True,
        env=env,
        input=stdin,
        timeout=300,
        check=False,
    )


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "ledger.sqlite3"


def test_every_command_has_help(db: Path) -> None:
    out = ledger("--help", db=db)
    assert out.returncode == 0
    for command in ("demo", "simulate", "replay", "serve", "tokens"):
        assert command in out.stdout
        sub = ledger(command, "--help", db=db)
        assert sub.returncode == 0 and "Usage" in sub.stdout


def test_simulate_then_replay_a_hand(db: Path) -> None:
    out = ledger(
        "simulate",
        "--game",
        "caribbean-stud",
        "--hands",
        "30",
        "--seed",
        "3",
        "--table",
        "CSP-7",
        db=db,
    )
    assert out.returncode == 0, out.stderr
    assert "caribbean-stud table CSP-7: 30 hands" in out.stdout
    again = ledger(
        "simulate", "--game", "caribbean-stud", "--hands", "5", "--table", "CSP-7", db=db
    )
    assert again.returncode == 0, again.stderr
    replay = ledger("replay", "CSP-7", "35", db=db)
    assert replay.returncode == 0, replay.stderr
    assert "hand 35 starts" in replay.stdout and "HandSettled" in replay.stdout
    assert "deck commitment verified (COM-8)" in replay.stdout


def test_replay_of_an_unknown_hand_or_table_is_a_coded_error(db: Path) -> None:
    ledger("simulate", "--game", "caribbean-stud", "--hands", "2", "--table", "T", db=db)
    out = ledger("replay", "T", "9", db=db)
    assert out.returncode == 2 and "unknown_hand" in out.stderr
    out = ledger("replay", "NOPE", "1", db=db)
    assert out.returncode == 2 and "unknown_table" in out.stderr


def test_simulate_refuses_an_unknown_game(db: Path) -> None:
    out = ledger("simulate", "--game", "blackjack", "--hands", "1", db=db)
    assert out.returncode == 2 and "unknown_game" in out.stderr


@pytest.mark.parametrize(("variable", "value", "problem"), [
    ("LEDGER_GAMING_DAY_START", "25:00", "hour value is outside expected range"),
    ("LEDGER_LOG_FORMAT", "xml", "'console' or 'json'"),
    ("LEDGER_SNAPSHOT_INTERVAL", "1", "greater than or equal to 2"),
    ("LEDGER_LOG_LEVEL", "bogus", "not a log level"),
    ("LEDGER_CONNECT_TIMEOUT", "soon", "valid integer"),
])
def test_a_bad_setting_is_a_coded_error_naming_the_variable(
        db: Path, variable: str, value: str, problem: str) -> None:
    for args in (("tokens", "list"), ("serve", "--port", "0"), ("projections", "status")):
        out = ledger(*args, db=db, **{variable: value})
        assert out.returncode == 2, (args, out.stdout, out.stderr)
        assert "Traceback" not in out.stderr
        assert out.stderr.startswith(f"error [invalid_setting] {variable}={value!r}: ")
        assert problem in out.stderr, out.stderr


def test_every_bad_setting_is_named_at_once(db: Path) -> None:
    out = ledger("tokens", "list", db=db, LEDGER_SNAPSHOT_INTERVAL="x",
                 LEDGER_API_TOKEN_CACHE_SECONDS="-1")
    assert out.returncode == 2 and out.stderr.count("\n") == 1, out.stderr
    assert "LEDGER_SNAPSHOT_INTERVAL='x'" in out.stderr
    assert "LEDGER_API_TOKEN_CACHE_SECONDS='-1'" in out.stderr


def test_the_log_level_is_accepted_in_any_case(db: Path) -> None:
    out = ledger("tokens", "list", "--json", db=db, LEDGER_LOG_LEVEL="info")
    assert out.returncode == 0, out.stderr


def test_tokens_create_json_reports_errors_like_every_other_command(db: Path) -> None:
    out = ledger("tokens", "create", "--role", "nobody", "--json", db=db)
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.startswith("error [invalid_role] ")
    out = ledger("tokens", "create", "--role", "device", "--seat", "3", "--json", db=db)
    assert out.returncode == 2 and out.stdout == "" and out.stderr.startswith("error [")


@pytest.mark.parametrize("columns", ["80", "50"])
def test_tokens_list_shows_whole_ids_at_any_width(db: Path, columns: str) -> None:
    for n in range(3):
        made = ledger("tokens", "create", "--role", "device", "--table", f"CSP-{n}",
                      "--table", f"HCF-{n}", "--label",
                      f"the dealer terminal at the far end of the room, table {n}", db=db)
        assert made.returncode == 0, made.stderr
    ids = [json.loads(line)["token_id"] for line in
           ledger("tokens", "list", "--json", db=db).stdout.splitlines()]
    assert len(ids) == 3
    shown = ledger("tokens", "list", db=db, COLUMNS=columns)
    assert shown.returncode == 0, shown.stderr
    assert all(len(line) <= int(columns) for line in shown.stdout.splitlines())
    listed = re.findall(r"^│ ([0-9a-f]+)\s", shown.stdout, flags=re.MULTILINE)
    assert listed == ids, shown.stdout
    revoked = ledger("tokens", "revoke", listed[0], db=db)
    assert revoked.returncode == 0, revoked.stderr


def test_ledger_rules_prints_a_rule_and_lists_the_book() -> None:
    """COM-6 (the 2026-12-01 decision) from the project's own rule book; an unknown id is a
    coded error."""
    import subprocess
    import sys
    from pathlib import Path

    ledger = str(Path(sys.executable).parent / "ledger")
    one = subprocess.run([ledger, "rules", "com-6"], capture_output=True, text=True, check=False)
    assert one.returncode == 0, one.stderr
    assert one.stdout.startswith("COM-6  (Common)") and "whoever's turn it is" in one.stdout
    listed = subprocess.run([ledger, "rules", "--json"], capture_output=True, text=True,
                            check=False)
    ids = [r["id"] for r in __import__("json").loads(listed.stdout)]
    assert len(ids) == 58 and ids[0] == "COM-1" and "DLR-2" in ids
    bad = subprocess.run([ledger, "rules", "XYZ-1"], capture_output=True, text=True, check=False)
    assert bad.returncode == 2 and "[unknown_rule]" in bad.stderr


def test_tokens_list_into_a_pipe_prints_whole_rows(db: Path) -> None:
    """Not a terminal and no COLUMNS: every row whole, nothing cut at 80 columns, dates not
    wrapped."""
    label = "the dealer terminal at the far end of the room by the window, table 7"
    made = ledger("tokens", "create", "--role", "device", "--table", "CSP-7", "--label", label,
                  db=db)
    assert made.returncode == 0, made.stderr
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    shown = subprocess.run([sys.executable, "-m", "ledger", "tokens", "list"],
                           capture_output=True, text=True, check=False, timeout=300,
                           env={**env, "LEDGER_DATABASE_URL": f"sqlite:///{db}",
                                "LEDGER_DECK_KEY_FILE": str(db.parent / "deck.key")})
    assert shown.returncode == 0, shown.stderr
    row = next(line for line in shown.stdout.splitlines() if label in line)
    assert len(row) > 80 and re.search(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}", row)


def test_amounts_are_printed_in_each_tables_currency(db: Path) -> None:
    """ISO 4217 minor units on the command line: a JPY table's amounts have no decimals, a
    EUR table's two, each named with its currency; a player's figures over tables of two
    currencies are never added together."""
    from ledger.app.application import LedgerApp
    from ledger.domain.commands import OpenTable
    from ledger.settings import Settings

    app = LedgerApp(Settings(database_url=f"sqlite:///{db}", deck_key_file=db.parent / "deck.key",
                             log_level="WARNING"))
    try:
        app.execute(OpenTable(command_id="open", table="JPY-1", game="stud-hilo",
                              currency="JPY", config={}))
    finally:
        app.close()
    jpy = ledger("simulate", "--game", "stud-hilo", "--hands", "5", "--players", "3",
                 "--table", "JPY-1", db=db)
    assert jpy.returncode == 0, jpy.stderr
    moved = re.search(r"chips moved (\S+),", jpy.stdout)
    assert moved and moved.group(1).isdigit() and jpy.stdout.rstrip().endswith(" JPY"), \
        jpy.stdout
    eur = ledger("simulate", "--game", "stud-hilo", "--hands", "3", "--players", "3",
                 "--table", "EUR-1", "--seed", "4", db=db)
    assert eur.returncode == 0 and re.search(r"chips moved \d+\.\d\d,", eur.stdout), eur.stdout

    hands = ledger("hands", "--player", "player-01", db=db)
    assert hands.returncode == 0, hands.stderr
    rows = [line for line in hands.stdout.splitlines() if " #" in line]
    assert len(rows) == 8
    for line in rows:
        if line.startswith("JPY-1"):
            assert re.search(r"wagered [\d,]+ JPY  result [+-]?[\d,]+ JPY( |$)", line), line
        else:
            assert re.search(r"wagered [\d,]+\.\d\d EUR  result [+-]?[\d,]+\.\d\d EUR( |$)",
                             line), line
    day = json.loads(ledger("hands", "--player", "player-01", "--json", db=db).stdout)[
        "items"][0]["gaming_day"]

    players = ledger("report", "players", "--day", day, "--player", "player-01", db=db)
    assert players.returncode == 0, players.stderr
    lines = [line.split() for line in players.stdout.splitlines()[1:]]
    period = [line for line in lines if line[0] == "player-01"]
    assert sorted(line[-1] for line in period) == ["EUR", "JPY"]
    # The month and the year to date (COMAR's columns) follow, per currency likewise.
    assert sorted((line[0], line[-1]) for line in lines if line[0] != "player-01") == [
        ("month_to_date", "EUR"), ("month_to_date", "JPY"),
        ("year_to_date", "EUR"), ("year_to_date", "JPY")]
    for row in lines:
        amounts = row[4:-1]
        assert all(("." in a) == (row[-1] == "EUR") for a in amounts), row

    hold = ledger("report", "hold", "--day", day, "--table", "JPY-1", db=db)
    assert hold.returncode == 0, hold.stderr
    handle = re.search(r"handle (\S+)  drop (\S+)", hold.stdout)
    assert handle and "." not in handle.group(1) + handle.group(2), hold.stdout


def test_every_help_names_its_arguments_and_lists_the_choices() -> None:
    """Every command's --help (45 of them) names its arguments in capitals (``TABLE HAND_NO``,
    not ``{table} {hand_no}``), shows no ``<bool>``, and every --game, --format and --role
    option lists its choices."""
    import typer
    from typer.testing import CliRunner

    from ledger.cli import _register, app

    _register()
    runner = CliRunner()

    def walk(command: object, path: list[str]) -> list[list[str]]:
        found = [path]
        for name, sub in getattr(command, "commands", {}).items():
            found += walk(sub, [*path, name])
        return found

    paths = walk(typer.main.get_command(app), [])
    assert len(paths) >= 40
    chosen = 0
    for path in paths:
        out = runner.invoke(app, [*path, "--help"], env={"COLUMNS": "250"})
        assert out.exit_code == 0, (path, out.output)
        assert not re.search(r"<bool>|\{[a-z_]+\}", out.output), (path, out.output)
        for option in ("--game", "--format", "--role"):
            line = next((x for x in out.output.splitlines()
                         if re.match(rf"^│\s+(\*\s+)?{option}\s", x)), None)
            if line is not None:
                assert re.search(r"\[[a-z0-9_-]+(\|[a-z0-9_-]+)+\]", line), (path, line)
                chosen += 1
    assert chosen >= 5
    replay = runner.invoke(app, ["replay", "--help"], env={"COLUMNS": "250"})
    assert "TABLE HAND_NO" in replay.output


def test_replay_and_audit_hand_show_zones_currency_ranks_results_and_rule_texts(
    db: Path,
) -> None:
    """A Caribbean Stud hand replayed and audited as a newcomer reads it: times in UTC with the
    zone mark and in the table's local time, the currency named, each hand's rank, the
    transfers recorded and recomputed side by side, each seat's result summing with the table
    lines to zero, and with --rules the text of every rule cited."""
    out = ledger("simulate", "--game", "caribbean-stud", "--hands", "3", "--seed", "5",
                 "--table", "CSP-9", db=db)
    assert out.returncode == 0, out.stderr
    for command in (("replay", "CSP-9", "2", "--rules"), ("audit", "hand", "CSP-9", "2",
                                                          "--rules", "--all")):
        shown = ledger(*command, db=db)
        assert shown.returncode == 0, shown.stderr
        text = shown.stdout
        assert re.search(r"\d{2}:\d{2}:\d{2}Z \(\d{2}:\d{2}:\d{2} Europe/Amsterdam\)", text), text
        assert "EUR" in text
        assert re.search(r"\((high card|one pair|two pair|three of a kind|straight|flush|full "
                         r"house|four of a kind|straight flush|royal flush)[ A-Z2-9]*[;)]",
                         text), text
        assert "results per seat (net = won + returned - wagered - fee):" in text
        assert "(with the seats' nets: 0)" in text
        assert "CSP-1: Banked by the house." in text and "COM-8: Cards come from" in text
        if command[0] == "audit":
            sides = [line for line in text.splitlines() if " -> " in line and " | " in line]
            assert sides and all(line.count(" -> ") == 2 for line in sides), text
