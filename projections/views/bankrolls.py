"""The bankrolls view: the balance of every account of every table, and every movement.

``proj_transfers`` holds each transfer once (table, version, position within the event, from,
to, amount, rule, memo, hand, gaming day); an account's movement history is the transfers in
which it is the source (out) or the destination (in). ``proj_balances`` holds each account's
balance per table. Accounts are those of ``ledger.domain.accounts``: ``player:<id>`` stacks,
``cage``, ``house``, ``bank`` (the designated player's funds in action), ``rake``, ``jackpot`` and
the ``spot:<seat>:<kind>`` wager spots and pots, which are zero between hands. A player's total is
the sum of their stacks over tables (see :mod:`projections.read.queries`).
"""

from __future__ import annotations

from typing import Any

from projections.views.base import KEEP_AT_MOST, Item, View

TRANSFERS_DDL = (
    "CREATE TABLE IF NOT EXISTS {proj_transfers} ("
    "table_code TEXT NOT NULL, version BIGINT NOT NULL, seq INTEGER NOT NULL, "
    "at TEXT NOT NULL, gaming_day TEXT NOT NULL, hand_no BIGINT, event_type TEXT NOT NULL, "
    "src TEXT NOT NULL, dst TEXT NOT NULL, amount_minor BIGINT NOT NULL, rule TEXT, memo TEXT, "
    "PRIMARY KEY (table_code, version, seq))"
)
TRANSFER_COLUMNS = ("table_code", "version", "seq", "at", "gaming_day", "hand_no", "event_type",
                    "src", "dst", "amount_minor", "rule", "memo")
BALANCES_DDL = (
    "CREATE TABLE IF NOT EXISTS {proj_balances} ("
    "table_code TEXT NOT NULL, account TEXT NOT NULL, balance_minor BIGINT NOT NULL, "
    "last_version BIGINT NOT NULL, PRIMARY KEY (table_code, account))"
)


class Bankrolls(View):
    name = "bankrolls"
    description = "balances and movements of every account, per table"
    tables = ("proj_transfers", "proj_balances")
    ddl = (
        TRANSFERS_DDL,
        BALANCES_DDL,
        "CREATE INDEX IF NOT EXISTS proj_transfers_src ON {proj_transfers} "
        "(table_code, src, version)",
        "CREATE INDEX IF NOT EXISTS proj_transfers_dst ON {proj_transfers} "
        "(table_code, dst, version)",
        "CREATE INDEX IF NOT EXISTS proj_transfers_day ON {proj_transfers} (gaming_day)",
    )

    def reset(self) -> None:
        self._rows: list[tuple[Any, ...]] = []
        self._deltas: dict[tuple[str, str], list[int]] = {}

    def handle(self, item: Item) -> None:
        transfers = item.transfers
        if not transfers:
            return
        code, version, at, day, hand, kind = (item.code, item.version, item.at, item.day,
                                              item.hand_no, item.kind)
        self._rows.extend((code, version, seq, at, day, hand, kind, t.src, t.dst, t.amount,
                           t.rule, t.memo) for seq, t in enumerate(transfers))
        deltas = self._deltas
        for account, change in item.flows.items():
            entry = deltas.get((code, account))
            if entry is None:
                deltas[(code, account)] = [change, version]
            else:
                entry[0] += change
                entry[1] = version

    def flush(self) -> None:
        self.tx.insert("proj_transfers", TRANSFER_COLUMNS, self._rows)
        if self.keeping and len(self._deltas) <= KEEP_AT_MOST:
            return  # the balances' changes, written once at the end
        self.tx.executemany(
            "INSERT INTO {proj_balances} AS cur (table_code, account, balance_minor, "
            "last_version) VALUES (?,?,?,?) ON CONFLICT (table_code, account) DO UPDATE SET "
            "balance_minor = cur.balance_minor + excluded.balance_minor, "
            "last_version = excluded.last_version",
            [(code, account, change, version)
             for (code, account), (change, version) in self._deltas.items()],
        )
        self._deltas = {}

    def kept(self) -> None:
        self._rows = []
