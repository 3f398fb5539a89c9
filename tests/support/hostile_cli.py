"""Hostile command lines: the ``ledger`` CLI run on a store, a path or an argument it cannot use,
as a careless operator (or a damaged disk) would give them: a truncated, bit-flipped, foreign
or non-SQLite store file, a database URL or deck-key file that points under a regular file or
at a directory, unreadable files, and bad table codes, days, hand numbers and options.

:func:`make_files` builds the files in a directory (a real ledger store first, made by the
checkout under test); :func:`cli_cases` lists the cases; :func:`run_case` runs one and sorts
its end into ``coded`` (exit status 2 and an ``error [code] message`` line), ``uncoded`` (a
failure without a code), ``crash`` (a Python traceback) or ``ok`` (exit status 0 or 1).

Only the standard library: ``ops/hostile/cases.py`` uses it to run the same cases against
another checkout (the code before the bounds) for the closing note's table.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

DAY = "2026-01-15"
TABLE = "HC-1"
STORE_COMMANDS: list[tuple[str, ...]] = [
    ("projections", "status"),
    ("projections", "rebuild"),
    ("audit", "verify"),
    ("replay", TABLE, "1"),
    ("simulate", "--game", "caribbean-stud", "--hands", "1", "--table", "HC-2"),
    ("export", "accounting", "--day", DAY, "--out", "{tmp}/out"),
    ("tokens", "create", "--role", "auditor"),
]
"""Commands that open the store (``serve`` aside: it has its own check)."""
DECK_COMMANDS: list[tuple[str, ...]] = [
    ("simulate", "--game", "caribbean-stud", "--hands", "1", "--table", "HC-3"),
    ("replay", TABLE, "1"),
    ("audit", "verify"),
    ("projections", "update"),
]
"""Commands that read the deck key (or create its file)."""


@dataclass(frozen=True)
class CliCase:
    name: str
    args: tuple[str, ...]
    env: dict[str, str] = field(default_factory=dict)
    """``LEDGER_*`` settings of this case (``{tmp}`` is the directory of the files)."""
    as_nobody: bool = False
    """Run without the power to read what file permissions deny (a file unreadable to it), when
    running as root (:func:`run_ledger`)."""


@dataclass
class Files:
    tmp: Path
    good: Path
    """A ledger store with a table ``HC-1`` and a hand, made by the checkout under test."""


@dataclass
class CliOutcome:
    case: CliCase
    kind: str
    """coded, uncoded, crash or ok."""
    status: int
    code: str | None
    stderr: str


def ledger_env(tmp: Path, **settings: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LEDGER_")}
    env.update({"LEDGER_DATABASE_URL": f"sqlite:///{tmp}/store/good.sqlite3",
                "LEDGER_DECK_KEY_FILE": f"{tmp}/keys/deck.key", "LEDGER_LOG_LEVEL": "WARNING",
                "COLUMNS": "200"})
    env.update({k: v.format(tmp=tmp) for k, v in settings.items()})
    return env


def run_ledger(python: str, args: Sequence[str], env: dict[str, str], cwd: Path, *,
               as_nobody: bool = False, timeout: float = 120,
               ) -> subprocess.CompletedProcess[str]:
    command = [python, "-m", "ledger", *args]
    if as_nobody and os.geteuid() == 0:
        # Root reads every file whatever its mode; without the capabilities that let it (DAC
        # override and read-search), it is held to the owner's permission bits like anyone:
        # a mode-000 file is unreadable to it, and the checkout, the virtual environment and
        # the temporary files (all root's) stay readable wherever they live, even under a
        # directory only their owner may enter (another user, such as nobody, could not even
        # import the ledger from there).
        command = ["setpriv", "--bounding-set=-dac_override,-dac_read_search", *command]
    return subprocess.run(command, capture_output=True, text=True, env=env, cwd=cwd,
                          timeout=timeout, check=False)


def make_files(python: str, tmp: Path, pythonpath: str | None = None) -> Files:
    """The files every case uses, under ``tmp`` (made readable to every user)."""
    for name in ("store", "keys", "out", "bad"):
        (tmp / name).mkdir(parents=True, exist_ok=True)
    env = ledger_env(tmp)
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    made = run_ledger(python, ["simulate", "--game", "caribbean-stud", "--hands", "2",
                               "--table", TABLE, "--seed", "7"], env, tmp)
    if made.returncode != 0:
        raise RuntimeError(f"cannot make the ledger store: {made.stderr[-2000:]}")
    good = tmp / "store" / "good.sqlite3"
    data = good.read_bytes()
    bad = tmp / "bad"
    (bad / "truncated.sqlite3").write_bytes(data[: len(data) // 2])
    (bad / "truncated-header.sqlite3").write_bytes(data[:60])
    flipped = bytearray(data)
    for offset in range(16, 24):  # page size, versions, reserved bytes: the header is damaged
        flipped[offset] ^= 0xFF
    (bad / "flipped-header.sqlite3").write_bytes(bytes(flipped))
    flipped = bytearray(data)
    page = int.from_bytes(data[16:18], "big") or 65536
    for start in range(page, len(data), page):  # every page's b-tree header, past page 1
        for offset in range(start, start + 12):
            flipped[offset] ^= 0x5A
    (bad / "flipped-pages.sqlite3").write_bytes(bytes(flipped))
    foreign = sqlite3.connect(bad / "foreign.sqlite3")
    with foreign:
        foreign.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)")
        foreign.execute("INSERT INTO notes (text) VALUES ('not a ledger')")
    foreign.close()
    (bad / "text.sqlite3").write_text("this is a text file, not a database\n" * 50)
    (bad / "a-file").write_text("a regular file\n")
    (bad / "a-dir").mkdir(exist_ok=True)
    shutil.copy(good, bad / "unreadable.sqlite3")
    (bad / "unreadable.sqlite3").chmod(0)
    (bad / "closed-dir").mkdir(exist_ok=True)
    shutil.copy(good, bad / "closed-dir" / "ledger.sqlite3")
    (bad / "closed-dir").chmod(0)
    (tmp / "keys" / "unreadable.key").write_text("00" * 32 + "\n")
    (tmp / "keys" / "unreadable.key").chmod(0)
    (tmp / "keys" / "garbage.key").write_bytes(b"\xff\xfe not hex at all \x00")
    for path in (good, tmp / "keys" / "deck.key"):
        path.chmod(0o666)
    return Files(tmp, good)


BAD_STORES: dict[str, tuple[str, bool]] = {
    "truncated": ("sqlite:///{tmp}/bad/truncated.sqlite3", False),
    "truncated_header": ("sqlite:///{tmp}/bad/truncated-header.sqlite3", False),
    "bitflip_header": ("sqlite:///{tmp}/bad/flipped-header.sqlite3", False),
    "bitflip_pages": ("sqlite:///{tmp}/bad/flipped-pages.sqlite3", False),
    "not_ledger_sqlite": ("sqlite:///{tmp}/bad/foreign.sqlite3", False),
    "not_sqlite": ("sqlite:///{tmp}/bad/text.sqlite3", False),
    "under_regular_file": ("sqlite:///{tmp}/bad/a-file/ledger.sqlite3", False),
    "at_directory": ("sqlite:///{tmp}/bad/a-dir", False),
    "unreadable_file": ("sqlite:///{tmp}/bad/unreadable.sqlite3", True),
    "in_closed_directory": ("sqlite:///{tmp}/bad/closed-dir/ledger.sqlite3", True),
}
BAD_DECK_KEYS: dict[str, tuple[str, bool]] = {
    "under_regular_file": ("{tmp}/bad/a-file/deck.key", False),
    "at_directory": ("{tmp}/bad/a-dir", False),
    "unreadable": ("{tmp}/keys/unreadable.key", True),
    "garbage": ("{tmp}/keys/garbage.key", False),
}
BAD_ARGUMENTS: dict[str, tuple[str, ...]] = {
    "simulate_table_dotdot": ("simulate", "--game", "caribbean-stud", "--hands", "1",
                              "--table", "../../x"),
    "simulate_table_slash": ("simulate", "--game", "caribbean-stud", "--hands", "1",
                             "--table", "a/b"),
    "simulate_table_space": ("simulate", "--game", "caribbean-stud", "--hands", "1",
                             "--table", "T 1"),
    "simulate_table_long": ("simulate", "--game", "caribbean-stud", "--hands", "1",
                            "--table", "X" * 5_000),
    "simulate_table_control": ("simulate", "--game", "caribbean-stud", "--hands", "1",
                               "--table", "T\x07\x1b[2J"),
    "simulate_game_unknown": ("simulate", "--game", "baccarat", "--hands", "1"),
    "simulate_hands_zero": ("simulate", "--game", "caribbean-stud", "--hands", "0"),
    "simulate_hands_negative": ("simulate", "--game", "caribbean-stud", "--hands", "-5"),
    "simulate_seed_text": ("simulate", "--game", "caribbean-stud", "--seed", "abc"),
    "replay_table_dotdot": ("replay", "../../x", "1"),
    "replay_hand_negative": ("replay", TABLE, "-1"),
    "replay_hand_huge": ("replay", TABLE, str(2**64)),
    "audit_verify_table_dotdot": ("audit", "verify", "--table", "../../x"),
    "audit_verify_day_bad": ("audit", "verify", "--day", "2026-13-45"),
    "audit_hand_table_escape": ("audit", "hand", "\x1b[31mx", "1"),
    "export_day_bad": ("export", "accounting", "--day", "yesterday", "--out", "{tmp}/out"),
    "export_out_under_file": ("export", "accounting", "--day", DAY, "--out",
                              "{tmp}/bad/a-file/out"),
    "export_hands_out_under_file": ("export", "hands", "--day", DAY, "--out",
                                    "{tmp}/bad/a-file/out"),
    "projections_unknown_view": ("projections", "rebuild", "--view", "nope"),
    "database_url_nonsense": ("tokens", "list", "--database-url", "nonsense"),
    "database_url_unknown_scheme": ("tokens", "list", "--database-url", "mysql://x/y"),
    "database_url_device": ("tokens", "list", "--database-url", "sqlite:////dev/null"),
    "tokens_unknown_role": ("tokens", "create", "--role", "root"),
    "unknown_command": ("frobnicate",),
}


def cli_cases() -> list[CliCase]:
    """Every hostile command line: each bad store with every command that opens one, each bad
    deck key with the commands that read it, and the bad arguments."""
    cases = []
    for label, (url, nobody) in BAD_STORES.items():
        for command in STORE_COMMANDS:
            cases.append(CliCase(f"store {label}: {' '.join(command[:2])}", command,
                                 {"LEDGER_DATABASE_URL": url}, nobody))
    for label, (path, nobody) in BAD_DECK_KEYS.items():
        for command in DECK_COMMANDS:
            cases.append(CliCase(f"deck key {label}: {' '.join(command[:2])}", command,
                                 {"LEDGER_DECK_KEY_FILE": path}, nobody))
    for label, args in BAD_ARGUMENTS.items():
        cases.append(CliCase(f"argument {label}", args))
    return cases


def classify(out: subprocess.CompletedProcess[str]) -> tuple[str, str | None]:
    text = out.stdout + out.stderr
    if "Traceback (most recent call last)" in text:
        return "crash", None
    if out.returncode in (0, 1):
        return "ok", None
    errors = [line for line in out.stderr.splitlines() if line.startswith("error [")]
    if out.returncode == 2 and len(errors) == 1 and "]" in errors[0]:  # warnings may come first
        return "coded", errors[0][len("error ["):errors[0].index("]")]
    return "uncoded", None


def run_case(python: str, files: Files, case: CliCase,
             pythonpath: str | None = None) -> CliOutcome:
    env = ledger_env(files.tmp, **case.env)
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    args = [a.format(tmp=files.tmp) for a in case.args]
    try:
        out = run_ledger(python, args, env, files.tmp, as_nobody=case.as_nobody)
    except subprocess.TimeoutExpired as exc:
        return CliOutcome(case, "crash", -1, None, f"timed out after {exc.timeout} s")
    kind, code = classify(out)
    return CliOutcome(case, kind, out.returncode, code, out.stderr[-3000:])


def main() -> None:  # pragma: no cover - a quick look: python -m tests.support.hostile_cli DIR
    import tempfile

    tmp = Path(sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix="hostile-cli-"))
    files = make_files(sys.executable, tmp)
    groups = tuple(sys.argv[2:]) or ("store", "deck key", "argument")
    for case in cli_cases():
        if not case.name.startswith(groups):
            continue
        o = run_case(sys.executable, files, case)
        last = o.stderr.strip().splitlines()[-1] if o.stderr.strip() else ""
        print(f"{o.kind:8} {o.status:3} {o.code or '-':24} {case.name}  | {last[:150]}",
              flush=True)


if __name__ == "__main__":
    main()
