"""The docs' commands, run as a reader runs them (``tests/support/docs.py`` says how a block is
marked): in a copy of a demo store made once for the session, from a directory holding the
``.venv`` the docs tell the reader to use, with a ``PATH`` that has no ``ledger`` on it and no
``LEDGER_*`` setting. A renamed option, a bare ``ledger`` or output that no longer reads as the
docs quote it fails here."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.docs import ROOT, Block, bare_ledger, blocks, matches, outputs, pages, script

DEMO_HANDS = "6"
PAGE_SECONDS = 300


def reader_environment() -> dict[str, str]:
    """The environment of a reader's fresh shell: no LEDGER_* setting, no active virtual
    environment, no ``ledger`` on the PATH."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("LEDGER_") and k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    path = [d for d in env.get("PATH", "").split(os.pathsep)
            if d and not (Path(d) / "ledger").exists()]
    env["PATH"] = os.pathsep.join(path)
    env["COLUMNS"] = "200"
    return env


@pytest.fixture(scope="session")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory laid out as a clone after ``make demo``: ``.venv``, ``ops/`` and the demo's
    store, exports and tokens."""
    if sys.prefix == sys.base_prefix:
        pytest.fail("run the tests from the project's virtual environment (make test)")
    home = tmp_path_factory.mktemp("docs") / "demo"
    home.mkdir()
    (home / ".venv").symlink_to(sys.prefix)
    (home / "ops").symlink_to(ROOT / "ops")  # the scripts the docs run (ops/audit/daily.sh)
    out = subprocess.run([".venv/bin/ledger", "demo", "--hands", DEMO_HANDS], cwd=home,
                         env=reader_environment(), capture_output=True, text=True,
                         timeout=600, check=False)
    assert out.returncode == 0, out.stdout + out.stderr
    # its closing hints name the command as this reader can call it (the venv is not on PATH)
    hints = " ".join(out.stdout.split())
    assert "Replay any hand: .venv/bin/ledger replay CSP-1 1 --database-url" in hints, hints
    assert "Console: .venv/bin/ledger serve --database-url" in hints, hints
    return home


def runnable_pages() -> list[Path]:
    return [p for p in pages() if any(b.skip_reason is None and b.commands for b in blocks(p))]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def test_no_page_calls_ledger_before_it_is_on_the_path() -> None:
    found = [line for page in pages() for line in bare_ledger(blocks(page))]
    assert not found, "call it .venv/bin/ledger, or activate the environment first:\n" + \
        "\n".join(found)


def test_every_block_not_run_says_why() -> None:
    unexplained = [b.where for p in pages() for b in blocks(p)
                   if b.skip_reason is not None and len(b.skip_reason) < 8]
    assert not unexplained


def test_the_marker_finds_commands_and_their_output() -> None:
    """The parser on a page of its own: a continued command, quoted output, a skipped block."""
    page = ROOT / "docs" / "getting-started.md"
    found = blocks(page)
    assert found[0].skip_reason and found[0].commands[0].text.startswith("make demo")
    version = next(b for b in found if b.commands[0].text == ".venv/bin/ledger --version")
    assert version.commands[0].expected == ["ledger 0.1.0"]
    assert matches(["tables 4, hands ..."], "tables 4, hands checked 24")
    assert not matches(["tables 4"], "tables 5")
    assert matches(["...", "every decision agrees", "..."], "a\nevery decision agrees")
    text = script(version.commands)
    assert ".venv/bin/ledger --version" in text


@pytest.mark.parametrize("page", runnable_pages(), ids=lambda p: str(p.relative_to(ROOT)))
def test_the_commands_of_the_page_run_as_quoted(page: Path, demo: Path, tmp_path: Path) -> None:
    runnable: list[Block] = [b for b in blocks(page) if b.skip_reason is None]
    commands = [c for b in runnable for c in b.commands]
    port = str(free_port())
    for command in commands:  # a page that serves takes a free port, not 8000
        command.text = command.text.replace("127.0.0.1:8000", f"127.0.0.1:{port}").replace(
            "--port 8000", f"--port {port}")
    home = tmp_path / "clone"
    shutil.copytree(demo, home, symlinks=True)
    (home / "session.sh").write_text(script(commands), encoding="utf-8")
    process = subprocess.Popen(["bash", "--noprofile", "--norc", "session.sh"], cwd=home,
                               env=reader_environment(), stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, text=True,
                               start_new_session=True)
    try:
        text, _ = process.communicate(timeout=PAGE_SECONDS)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        text, _ = process.communicate()
        pytest.fail(f"{page.name} did not finish in {PAGE_SECONDS} s:\n{text[-3000:]}")
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)  # a server the page left running
    results = outputs(text, len(commands))
    for index, (command, (got, status)) in enumerate(zip(commands, results, strict=True)):
        where = f"{page.relative_to(ROOT)}:{command.line}: $ {command.text}"
        assert status is not None, f"{where}\nnever finished:\n{text[-3000:]}"
        shown = index + 1 < len(commands) and commands[index + 1].text.strip() == "echo $?"
        assert status == 0 or shown, f"{where}\nexit status {status}:\n{got[-3000:]}"
        assert matches(command.expected, got), (
            f"{where}\nthe docs quote:\n" + "\n".join(command.expected)
            + f"\nit printed:\n{got[-3000:]}")
