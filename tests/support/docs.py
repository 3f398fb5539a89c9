"""The shell sessions of the docs: every ``console`` block of the README and of ``docs/``.

A block fenced as ``console`` holds commands after ``$ `` (a line ending in ``\\`` goes on on
the next) and, below a command, the output the docs quote for it: compared as doctest does with
ELLIPSIS (``...`` stands for anything), runs of blanks within a line counting as one blank;
a command without quoted output may print anything. Every block runs, in the order of its page,
in one shell per page (what one block exports or activates holds for the next), unless the
line right above it is ``<!-- docs-test: not run, REASON -->``. A command must end with status
0 unless the next command is ``echo $?``, which then shows the status the docs quote.
"""

from __future__ import annotations

import doctest
import re
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MARKER = re.compile(r"^<!--\s*docs-test:\s*not run,\s*(?P<reason>.*?)\s*-->$")
FENCE = re.compile(r"^(?P<indent>\s*)(?P<ticks>`{3,})(?P<info>[\w-]*)")
ACTIVATE = re.compile(r"(^|[;&|]\s*)(\.|source)\s+\S*\.venv/bin/activate\b")
BARE_LEDGER = re.compile(r"(^|[;&|(]\s*|\$\(\s*|\b(?:time|exec|nohup|sudo)\s+)ledger\b")


@dataclass
class Command:
    text: str
    line: int
    expected: list[str] = field(default_factory=list)


@dataclass
class Block:
    path: Path
    line: int
    commands: list[Command]
    skip_reason: str | None

    @property
    def where(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def pages() -> list[Path]:
    """The README and every page of the docs, in a stable order."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def blocks(path: Path) -> list[Block]:
    """The ``console`` blocks of one page."""
    found: list[Block] = []
    lines = path.read_text(encoding="utf-8").splitlines()
    index = 0
    while index < len(lines):
        opening = FENCE.match(lines[index])
        if opening is None:
            index += 1
            continue
        end = index + 1
        while end < len(lines) and not lines[end].strip().startswith(opening["ticks"]):
            end += 1
        if opening["info"] == "console":
            above = lines[index - 1].strip() if index else ""
            marker = MARKER.match(above)
            found.append(Block(path, index + 1, _commands(lines, index + 1, end,
                                                          len(opening["indent"])),
                               marker["reason"] if marker else None))
        index = end + 1
    return found


def _commands(lines: list[str], start: int, end: int, indent: int) -> list[Command]:
    commands: list[Command] = []
    pending = ""
    for number in range(start, end):
        line = lines[number][indent:]
        if pending:
            pending = pending + "\n" + line
        elif line.startswith("$ "):
            pending = line[2:]
        elif commands:
            commands[-1].expected.append(line)
            continue
        else:
            continue
        if pending.endswith("\\"):
            continue
        commands.append(Command(pending, number + 1))
        pending = ""
    return commands


def bare_ledger(page: list[Block]) -> list[str]:
    """Commands that call ``ledger`` by name before the page has activated the environment
    (a reader's shell would answer "command not found")."""
    found = []
    activated = False
    for block in page:
        for command in block.commands:
            text = re.sub(r"#.*", "", command.text)
            if ACTIVATE.search(text):
                activated = True
            if not activated and BARE_LEDGER.search(text):
                found.append(f"{block.path.relative_to(ROOT)}:{command.line}: {command.text}")
    return found


def matches(expected: list[str], got: str) -> bool:
    want = _blanks("\n".join(expected)).strip("\n")
    if not want:
        return True
    if not want.endswith("..."):  # a last line of "..." may stand for nothing at all
        want += "\n"
    got = _blanks(got).strip("\n") + "\n"
    return doctest.OutputChecker().check_output(want, got, doctest.ELLIPSIS)


def _blanks(text: str) -> str:
    """Runs of blanks within a line as one blank, none at either end (line breaks kept)."""
    return "\n".join(" ".join(line.split()) for line in text.splitlines())


START = "@@@docs-test start {index}@@@"
END = "@@@docs-test end {index} "


def script(commands: list[Command]) -> str:
    """One bash script running ``commands`` in order, each one's output (standard error
    included) between markers with its exit status; ``$?`` is kept from one to the next."""
    parts = ["set -o pipefail", "__status=0"]
    for index, command in enumerate(commands):
        parts += [
            f"printf '\\n{START.format(index=index)}\\n'",
            "(exit $__status)",
            "{",
            command.text,
            "} 2>&1",
            "__status=$?",
            f"printf '\\n{END.format(index=index)}%d@@@\\n' $__status",
        ]
    return "\n".join(parts) + "\n"


def outputs(text: str, count: int) -> list[tuple[str, int | None]]:
    """Each command's output and exit status, from the script's output (None: never ran)."""
    found: list[tuple[str, int | None]] = []
    for index in range(count):
        start = text.find(START.format(index=index))
        end = text.find(END.format(index=index))
        if start < 0 or end < 0:
            found.append((text[start:] if start >= 0 else "", None))
            continue
        body = text[start + len(START.format(index=index)):end]
        status = int(text[end + len(END.format(index=index)):].split("@", 1)[0])
        found.append((body.strip("\n"), status))
    return found
