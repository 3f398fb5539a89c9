"""The coverage view (RULES HCF-12): per designated-player hand, the DP, the funds in action at
the start, each seat's liability tested in settlement order, covered or dead, what it paid into
the funds and what the funds paid it, and the funds left. Read from the ``coverage`` section and
the transfers of HandSettled."""

from __future__ import annotations

from typing import Any

from ledger.domain.records import HandSettled
from ledger.games.hcf.settlement import coverage_flows
from projections.views.base import Item, View

COVERAGE_DDL = (
    "CREATE TABLE IF NOT EXISTS {proj_coverage} ("
    "table_code TEXT NOT NULL, hand_no BIGINT NOT NULL, version BIGINT NOT NULL, "
    "at TEXT NOT NULL, gaming_day TEXT NOT NULL, dp_seat INTEGER NOT NULL, "
    "funds_at_start_minor BIGINT NOT NULL, funds_left_minor BIGINT NOT NULL, "
    "dead_seats INTEGER NOT NULL, PRIMARY KEY (table_code, hand_no))"
)
LINES_DDL = (
    "CREATE TABLE IF NOT EXISTS {proj_coverage_lines} ("
    "table_code TEXT NOT NULL, hand_no BIGINT NOT NULL, seq INTEGER NOT NULL, "
    "seat INTEGER NOT NULL, liability_minor BIGINT NOT NULL, covered INTEGER NOT NULL, "
    "funds_before_minor BIGINT NOT NULL, funds_after_minor BIGINT NOT NULL, "
    "paid_in_minor BIGINT NOT NULL, paid_minor BIGINT NOT NULL, "
    "PRIMARY KEY (table_code, hand_no, seq))"
)


class Coverage(View):
    name = "coverage"
    description = "designated-player coverage per HCF hand (HCF-12)"
    version = 2
    tables = ("proj_coverage", "proj_coverage_lines")
    ddl = (
        COVERAGE_DDL,
        LINES_DDL,
        "CREATE INDEX IF NOT EXISTS proj_coverage_day ON {proj_coverage} (gaming_day)",
    )

    def reset(self) -> None:
        self._hands: list[tuple[Any, ...]] = []
        self._lines: list[tuple[Any, ...]] = []

    def handle(self, item: Item) -> None:
        if HandSettled not in item.isa:
            return
        event: Any = item.event
        if event.coverage is None:
            return
        c = event.coverage
        dead = sum(1 for line in c.lines if not line.covered)
        self._hands.append((item.code, event.hand_no, item.version, item.at, item.day,
                            c.dp_seat, c.funds_at_start, c.funds_left, dead))
        flows = coverage_flows(event)
        for seq, line in enumerate(c.lines):
            paid_in, paid = flows[line.seat]
            self._lines.append((item.code, event.hand_no, seq, line.seat, line.liability,
                                int(line.covered), line.funds_before, line.funds_after,
                                paid_in, paid))

    def flush(self) -> None:
        self.tx.insert("proj_coverage", (
            "table_code", "hand_no", "version", "at", "gaming_day", "dp_seat",
            "funds_at_start_minor", "funds_left_minor", "dead_seats"), self._hands)
        self.tx.insert("proj_coverage_lines", (
            "table_code", "hand_no", "seq", "seat", "liability_minor", "covered",
            "funds_before_minor", "funds_after_minor", "paid_in_minor", "paid_minor"),
            self._lines)

