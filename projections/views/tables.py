"""The tables view: every table with its game, currency, time zone, configuration history and
how far its stream has gone (for listings, and for exports that need the rules in force)."""

from __future__ import annotations

from typing import Any

from ledger.domain.records import ConfigChanged, HandStarted, TableOpened
from projections.views.base import KEEP_AT_MOST, Item, View, dumps

TABLES_DDL = (
    "CREATE TABLE IF NOT EXISTS {proj_tables} ("
    "table_code TEXT PRIMARY KEY, table_id TEXT NOT NULL, game TEXT NOT NULL, "
    "currency TEXT NOT NULL, timezone TEXT NOT NULL, opened_at TEXT NOT NULL, "
    "opened_by TEXT NOT NULL, config_version INTEGER NOT NULL, hands BIGINT NOT NULL, "
    "last_version BIGINT NOT NULL, last_event_at TEXT NOT NULL)"
)
CONFIGS_DDL = (
    "CREATE TABLE IF NOT EXISTS {proj_table_configs} ("
    "table_code TEXT NOT NULL, config_version INTEGER NOT NULL, version BIGINT NOT NULL, "
    "at TEXT NOT NULL, approver TEXT NOT NULL, reason TEXT NOT NULL, config_json TEXT NOT NULL, "
    "PRIMARY KEY (table_code, config_version))"
)


class Tables(View):
    name = "tables"
    description = "tables: game, currency, time zone, configuration history"
    tables = ("proj_tables", "proj_table_configs")
    ddl = (TABLES_DDL, CONFIGS_DDL)

    def reset(self) -> None:
        self._opened: list[tuple[Any, ...]] = []
        self._configs: list[tuple[Any, ...]] = []
        self._progress: dict[str, list[Any]] = {}

    def handle(self, item: Item) -> None:
        event: Any = item.event
        isa = item.isa
        if TableOpened in isa:
            self._opened.append((item.code, str(event.originator_id), event.game,
                                 event.currency, event.timezone, item.at, event.opened_by,
                                 event.config_version, 0, item.version, item.at))
            self._configs.append((item.code, event.config_version, item.version, item.at,
                                  event.opened_by, "table opened", dumps(event.config)))
        elif ConfigChanged in isa:
            self._configs.append((item.code, event.config_version, item.version, item.at,
                                  event.approver, event.reason, dumps(event.config)))
        progress = self._progress.get(item.code)
        if progress is None:
            progress = self._progress[item.code] = [0, 0, "", None]
        progress[0] += HandStarted in isa
        progress[1] = item.version
        progress[2] = item.at
        if ConfigChanged in isa:
            progress[3] = event.config_version

    def flush(self) -> None:
        tx = self.tx
        tx.insert("proj_tables", (
            "table_code", "table_id", "game", "currency", "timezone", "opened_at", "opened_by",
            "config_version", "hands", "last_version", "last_event_at"), self._opened)
        tx.insert("proj_table_configs", (
            "table_code", "config_version", "version", "at", "approver", "reason",
            "config_json"), self._configs)
        if self.keeping and len(self._progress) <= KEEP_AT_MOST:
            return  # how far each table has gone, written once at the end
        for code, (hands, version, at, config_version) in self._progress.items():
            tx.execute(
                "UPDATE {proj_tables} SET hands = hands + ?, last_version = ?, "
                "last_event_at = ?, config_version = COALESCE(?, config_version) "
                "WHERE table_code = ?",
                (hands, version, at, config_version, code),
            )
        self._progress = {}

    def kept(self) -> None:
        progress = self._progress
        self.reset()
        self._progress = progress
