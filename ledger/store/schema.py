"""The ledger's own tables beside the events: the command log (``ledger_commands``: one row per
command id and table, written in the transaction of the command's events), the tokens table's
name, and the partial index that holds the correction events alone."""

from __future__ import annotations

from dataclasses import dataclass

COMMANDS_TABLE = "ledger_commands"


TOKENS_TABLE = "ledger_tokens"


CORRECTION_TOPICS = ("ledger.table:HandCorrected", "ledger.table:SeatCorrected")
"""The topics of the correction events (COR-1, COR-3)."""


CORRECTIONS_WHERE = "topic IN ('ledger.table:HandCorrected', 'ledger.table:SeatCorrected')"
"""The condition of the corrections index, a partial index of the events table on (table,
version) holding the correction events alone: it finds the corrections of a hand without
reading the table's other events (``projections.read.correction_queries``). A query uses it when
its condition holds this text as it stands (literal topics, no parameters)."""


def corrections_index(table: str, qualified: str | None = None) -> str:
    """The statement that makes the corrections index of the events table ``table`` (named
    ``qualified`` where a schema comes first). A store made before it gets it when next opened
    by a user who may create it (one pass over the events table)."""
    return (f"CREATE INDEX IF NOT EXISTS {table}_corrections ON {qualified or table} "
            f"(originator_id, originator_version) WHERE {CORRECTIONS_WHERE}")


@dataclass(frozen=True)
class CommandRow:
    """One command recorded with the events it appended."""

    command_id: str
    table_id: str
    command: str
    payload_sha256: str
    result: str
