"""The rule book (``docs/rules.md``) as data: every rule by its id, with its section and text.

``ledger rules [ID]``, ``GET /rules/{id}``, and the hand replays (``ledger replay --rules``,
``ledger audit hand --rules``) read it from here. A rule is a list item that begins with its id
(``- HCF-12 ...``) and runs until the next item or heading; its lines are joined into one text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from ledger.domain.errors import LedgerError, NotFound

BOOK = Path(__file__).resolve().parents[2] / "docs" / "rules.md"
RULE_ID = re.compile(r"^(COM|HCF|CSP|CHP|STUD8|COR|DLR)-(\d+)$")
_ITEM = re.compile(r"^- ((?:COM|HCF|CSP|CHP|STUD8|COR|DLR)-\d+) (.*)$")


@dataclass(frozen=True)
class Rule:
    id: str
    section: str
    """The heading the rule is under (``Common``, ``High Card Flush Poker ...``)."""
    text: str
    """The rule as written, its lines joined, markdown kept (``**Decision:**``)."""

    @property
    def summary(self) -> str:
        """The rule's first sentence."""
        first = re.split(r"(?<=[.!?])\s", self.text, maxsplit=1)[0]
        return first if len(first) <= 160 else first[:157] + "..."


@cache
def rules(path: Path = BOOK) -> dict[str, Rule]:
    """Every rule of the book, in the book's order."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise LedgerError("rule_book_missing", f"cannot read the rule book {path}: "
                          f"{exc.strerror or exc}") from None
    found: dict[str, Rule] = {}
    section, current = "", None
    text: list[str] = []

    def close() -> None:
        if current is not None:
            found[current] = Rule(current, section, " ".join(text))

    for line in lines:
        item = _ITEM.match(line)
        if line.startswith("## ") or item or (line.startswith("- ") and current):
            close()
            current, text = None, []
        if line.startswith("## "):
            section = line[3:].strip()
        elif item:
            current, text = item.group(1), [item.group(2).strip()]
        elif current and line.strip():
            text.append(line.strip())
    close()
    return found


def rule(rule_id: str) -> Rule:
    """One rule (``com-6`` and ``COM-6`` alike); ``unknown_rule`` when the book has none."""
    key = rule_id.strip().upper()
    found = rules().get(key)
    if found is None:
        raise NotFound("unknown_rule", f"the rule book has no rule {rule_id!r}; rules are "
                       "written like COM-6, HCF-12, CSP-4, CHP-7, STUD8-11 (ledger rules lists "
                       "them)", rule=rule_id)
    return found


def cited(ids: set[str] | list[str]) -> list[Rule]:
    """The rules among ``ids`` that the book has, in the book's order."""
    wanted = {i.upper() for i in ids}
    return [r for key, r in rules().items() if key in wanted]
