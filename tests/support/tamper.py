"""Edit stored events behind the ledger's back, the way someone with database access could."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from ledger.application import LedgerApp


def _is_postgres(app: LedgerApp) -> bool:
    return type(app.recorder).__name__.startswith("LedgerPostgres")


def _table(app: LedgerApp) -> str:
    return (
        app.recorder.events_table_name
        if not _is_postgres(app)
        # type: ignore[attr-defined]
        else (
            f'"{app.recorder.datastore.schema}"."{app.recorder.events_table_name}"'  # type: ignore[attr-defined]
        )
    )


def _execute(app: LedgerApp, sql: str, params: tuple[Any, ...]) -> None:
    if not _is_postgres(app):
        sql = sql.replace("%s", "?")
    with app.recorder.datastore.transaction(commit=True) as cursor:  # type: ignore[attr-defined]
        cursor.execute(sql, params)


def _id(app: LedgerApp, tid: UUID) -> Any:
    return tid if _is_postgres(app) else tid.hex


def replace_in_event(app: LedgerApp, tid: UUID, version: int, old: str, new: str) -> None:
    """Edit the JSON of one stored event."""
    if _is_postgres(app):
        sql = (
            f"UPDATE {_table(app)} SET state = convert_to(replace(convert_from(state, 'UTF8'), "
            "%s, %s), 'UTF8') WHERE originator_id = %s AND originator_version = %s"
        )
    else:
        sql = (
            f"UPDATE {_table(app)} SET state = CAST(replace(CAST(state AS TEXT), %s, %s) "
            "AS BLOB) WHERE originator_id = %s AND originator_version = %s"
        )
    _execute(app, sql, (old, new, _id(app, tid), version))


def delete_event(app: LedgerApp, tid: UUID, version: int) -> None:
    _execute(
        app,
        f"DELETE FROM {_table(app)} WHERE originator_id = %s AND originator_version = %s",
        (_id(app, tid), version),
    )


def swap_events(app: LedgerApp, tid: UUID, first: int, second: int) -> None:
    """Exchange the stored content of two events (a reordering)."""
    temp = -1
    for a, b in ((first, temp), (second, first), (temp, second)):
        _execute(
            app,
            f"UPDATE {_table(app)} SET originator_version = %s WHERE originator_id = %s "
            "AND originator_version = %s",
            (b, _id(app, tid), a),
        )


def insert_copy(app: LedgerApp, tid: UUID, source_version: int, new_version: int) -> None:
    """Insert a copy of one event's content at a new version (an insertion)."""
    _execute(
        app,
        f"INSERT INTO {_table(app)} (originator_id, originator_version, topic, state) "
        f"SELECT originator_id, %s, topic, state FROM {_table(app)} WHERE originator_id = %s "
        "AND originator_version = %s",
        (new_version, _id(app, tid), source_version),
    )
