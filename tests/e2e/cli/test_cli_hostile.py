"""The real ``ledger`` command line on stores, paths and arguments it cannot use
(``tests/support/hostile_cli.py``): a truncated, bit-flipped, foreign or non-SQLite store, a
database URL or deck-key file under a regular file or at a directory, unreadable files, bad
table codes and options. Every one ends with exit status 2 and one ``error [code] message``
line, never a traceback, and no file it was pointed at is written to."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import hostile_cli
from tests.support.hostile_cli import BAD_STORES, Files, cli_cases, make_files, run_case

EXPECTED_STORE_CODES = {
    "truncated": "store_corrupt",
    "truncated_header": "store_corrupt",
    "bitflip_header": "store_corrupt",
    "bitflip_pages": "store_corrupt",
    "not_ledger_sqlite": "store_not_ledger",
    "not_sqlite": "store_not_ledger",
    "under_regular_file": "invalid_path",
    "at_directory": "invalid_path",
    "unreadable_file": "store_permission_denied",
    "in_closed_directory": "store_permission_denied",
}
ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> Files:
    if os.geteuid() == 0 and subprocess.run(["setpriv", "--version"], capture_output=True,
                                            check=False).returncode != 0:
        pytest.skip("running as root without setpriv: an unreadable file cannot be tried")
    return make_files(sys.executable, tmp_path_factory.mktemp("hostile-cli"))


def digests(files: Files) -> dict[str, str]:
    found = {}
    for path in sorted((files.tmp / "bad").rglob("*")):
        # A page damaged inside a store whose header is intact is found when it is read:
        # a command may have written before (docs/reference/errors.md says so).
        if path.is_file() and os.access(path, os.R_OK) and "unreadable" not in path.name \
                and path.name != "flipped-pages.sqlite3":
            found[path.name] = hashlib.sha256(path.read_bytes()).hexdigest()
    return found


@pytest.mark.parametrize("group", ["store", "deck key", "argument"])
def test_every_hostile_command_line_ends_with_a_coded_error(files: Files, group: str) -> None:
    before = digests(files)
    cases = [c for c in cli_cases() if c.name.startswith(group + " ")]
    assert cases
    outcomes = [run_case(sys.executable, files, case) for case in cases]
    wrong = [f"{o.case.name}: {o.kind} {o.status} {o.stderr[-400:]!r}" for o in outcomes
             if o.kind != "coded"]
    assert not wrong, "\n".join(wrong)
    for o in outcomes:
        assert "Traceback" not in o.stderr, o.case.name
        assert o.stderr.rstrip("\n").splitlines()[-1].startswith("error ["), o.stderr
        assert o.code != "internal_error", (o.case.name, o.stderr)
        if group == "store":
            label = o.case.name.split(":")[0].removeprefix("store ")
            assert o.code == EXPECTED_STORE_CODES[label], (o.case.name, o.stderr)
    assert digests(files) == before  # nothing written to a file the commands refused
    assert not (files.tmp / "bad" / "a-dir" / "ledger.sqlite3").exists()


def test_a_store_checked_is_not_refused_when_it_is_new_empty_or_the_ledgers(
        files: Files) -> None:
    env = hostile_cli.ledger_env(files.tmp)
    empty = files.tmp / "store" / "empty.sqlite3"
    empty.write_bytes(b"")
    for url in (f"sqlite:///{empty}", f"sqlite:///{files.tmp}/store/new/sub/ledger.sqlite3",
                f"sqlite:///{files.good}"):
        out = hostile_cli.run_ledger(sys.executable, ["tokens", "list"],
                                     {**env, "LEDGER_DATABASE_URL": url}, files.tmp)
        assert out.returncode == 0, (url, out.stderr)
    assert empty.stat().st_size > 0  # it became a ledger store


def test_serve_refuses_a_bad_store_with_a_coded_error(files: Files) -> None:
    env = hostile_cli.ledger_env(files.tmp)
    for label in ("not_ledger_sqlite", "truncated", "under_regular_file"):
        url = BAD_STORES[label][0].format(tmp=files.tmp)
        out = hostile_cli.run_ledger(sys.executable, ["serve", "--port", "0"],
                                     {**env, "LEDGER_DATABASE_URL": url}, files.tmp,
                                     timeout=60)
        assert out.returncode == 2, (label, out.stdout, out.stderr)
        assert "Traceback" not in out.stderr
        assert out.stderr.startswith(f"error [{EXPECTED_STORE_CODES[label]}] "), out.stderr


def test_an_unforeseen_error_is_one_coded_line_unless_a_developer_asks(files: Files) -> None:
    env = {**hostile_cli.ledger_env(files.tmp), "PYTHONPATH": str(ROOT)}
    code = ("import sys; from ledger.cli import app, _register; from ledger.cli.common import "
            "run; _register(); import ledger.cli.tokens as t; "
            "t.__dict__['ledger_app'] = lambda *a, **k: 1 / 0; "
            "sys.argv = ['ledger', 'tokens', 'list']; run(app)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         cwd=files.tmp, timeout=60, check=False)
    assert out.returncode == 2 and "Traceback" not in out.stderr, out.stderr
    assert out.stderr.startswith("error [internal_error] an unexpected ZeroDivisionError at "
                                 "ledger/cli/"), out.stderr
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={**env, "LEDGER_CLI_TRACEBACK": "1"}, cwd=files.tmp, timeout=60,
                         check=False)
    assert "Traceback" in out.stderr and "ZeroDivisionError" in out.stderr
