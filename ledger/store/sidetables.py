"""The ledger's own tables beside the events: the register of principals (a chained stream,
``ledger.access.register``; ``ledger_principals`` is its predecessor, read once to import the
principals registered before signatures), the proposals awaiting approval and the access log
(the tokens' table is in :mod:`ledger.store.persistence`; its chain, ``ledger_token_chain``,
is :mod:`ledger.access.tokenchain`), the signed checkpoints of every chain head
(``ledger_checkpoints``, ``projections.audit.checkpoint``), their DDL for both stores, and one
small helper to run SQL on them through the application's recorder (SQLite or PostgreSQL alike).
"""

from __future__ import annotations

from typing import Any

from eventsourcing.sqlite import SQLiteApplicationRecorder

from ledger.store.identity import IDENTITY_COLUMNS, IDENTITY_TABLE

PRINCIPALS_TABLE = "ledger_principals"
ACCESS_TABLE = "ledger_access_log"
REGISTER_TABLE = "ledger_register"
PROPOSALS_TABLE = "ledger_proposals"
TOKEN_CHAIN_TABLE = "ledger_token_chain"
CHECKPOINTS_TABLE = "ledger_checkpoints"

_PRINCIPALS = (
    "principal_id {text} PRIMARY KEY, name {text} NOT NULL, role {text} NOT NULL, "
    "created_at {text} NOT NULL, created_by {text} NOT NULL, revoked_at {text}, "
    "revoked_by {text}"
)
_ACCESS = (
    "seq {int} PRIMARY KEY, at {text} NOT NULL, who {text} NOT NULL, what {text} NOT NULL, "
    "table_code {text}, hand_no {int}, detail {text} NOT NULL, prev_hash {text} NOT NULL, "
    "row_hash {text} NOT NULL"
)
_REGISTER = (
    "seq {int} PRIMARY KEY, at {text} NOT NULL, kind {text} NOT NULL, "
    "principal_id {text} NOT NULL, body {text} NOT NULL, prev_hash {text} NOT NULL, "
    "row_hash {text} NOT NULL"
)
_PROPOSALS = (
    "proposal_id {text} PRIMARY KEY, created_at {text} NOT NULL, kind {text} NOT NULL, "
    "table_code {text} NOT NULL, proposer {text} NOT NULL, proposer_principal {text}, "
    "payload {text} NOT NULL, expires_at {text} NOT NULL, status {text} NOT NULL, "
    "approvals {text} NOT NULL, result {text}, updated_at {text} NOT NULL"
)
_TOKEN_CHAIN = (
    "seq {int} PRIMARY KEY, at {text} NOT NULL, kind {text} NOT NULL, "
    "token_id {text} NOT NULL, body {text} NOT NULL, prev_hash {text} NOT NULL, "
    "row_hash {text} NOT NULL, mac {text} NOT NULL"
)
_CHECKPOINTS = "seq {int} PRIMARY KEY, at {text} NOT NULL, body {text} NOT NULL"
SIDE_TABLES: dict[str, str] = {PRINCIPALS_TABLE: _PRINCIPALS, ACCESS_TABLE: _ACCESS,
                               REGISTER_TABLE: _REGISTER, PROPOSALS_TABLE: _PROPOSALS,
                               IDENTITY_TABLE: IDENTITY_COLUMNS,
                               TOKEN_CHAIN_TABLE: _TOKEN_CHAIN, CHECKPOINTS_TABLE: _CHECKPOINTS}


def sqlite_ddl() -> list[str]:
    return [f"CREATE TABLE IF NOT EXISTS {name} ({columns.format(text='TEXT', int='INTEGER')})"
            for name, columns in SIDE_TABLES.items()]


def postgres_ddl(schema: str) -> list[str]:
    quoted = '"' + schema.replace('"', '""') + '"'
    return [f"CREATE TABLE IF NOT EXISTS {quoted}.{name} "
            f"({columns.format(text='text', int='bigint')})"
            for name, columns in SIDE_TABLES.items()]


class SideTable:
    """One of the ledger's own tables, reached through the application's recorder."""

    def __init__(self, recorder: Any, name: str) -> None:
        self.recorder: Any = recorder
        self.sqlite = isinstance(recorder, SQLiteApplicationRecorder)
        if self.sqlite:
            self.name, self.p = name, "?"
        else:
            schema = self.recorder.datastore.schema
            self.name, self.p = f'"{schema}"."{name}"', "%s"

    def marks(self, count: int) -> str:
        """``?,?,?`` or ``%s,%s,%s``."""
        return ",".join([self.p] * count)

    def execute(self, sql: str, params: tuple[Any, ...]) -> None:
        with self.recorder.datastore.transaction(commit=True) as cursor:
            cursor.execute(sql, params)

    def query(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        with self.recorder.datastore.transaction(commit=False) as cursor:
            cursor.execute(sql, params)
            rows = cursor.fetchall()
        return [tuple(row.values()) if isinstance(row, dict) else tuple(row) for row in rows]


SEALED_MARK = b'"aesgcm1:'
"""How a sealed deck begins in an event's stored JSON (``ledger.table.decks``)."""


def holds_sealed_decks(recorder: Any) -> bool:
    """Whether any stored event holds a deck sealed with a deck key (one scan of the events,
    made only when the deck key file is missing: ``ledger.store.deckkeys.deck_key``)."""
    events = SideTable(recorder, recorder.events_table_name)
    test = (f"instr(state, {events.p}) > 0" if events.sqlite
            else f"position({events.p}::bytea in state) > 0")
    return bool(events.query(f"SELECT 1 FROM {events.name} WHERE {test} LIMIT 1",
                             (SEALED_MARK,)))
