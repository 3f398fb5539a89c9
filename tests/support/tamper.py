"""Edit stored events behind the ledger's back, the way someone with database access could."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from ledger.app.application import LedgerApp
from ledger.store.postgres import LedgerPostgresRecorder
from ledger.store.sqlite import LedgerSQLiteRecorder


def _recorder(app: LedgerApp) -> LedgerSQLiteRecorder | LedgerPostgresRecorder:
    recorder = app.recorder
    assert isinstance(recorder, LedgerSQLiteRecorder | LedgerPostgresRecorder)
    return recorder


def _is_postgres(app: LedgerApp) -> bool:
    return type(app.recorder).__name__.startswith("LedgerPostgres")


def _table(app: LedgerApp) -> str:
    recorder: Any = app.recorder
    name: str = recorder.events_table_name
    return name if not _is_postgres(app) else f'"{recorder.datastore.schema}"."{name}"'


def _execute(app: LedgerApp, sql: str, params: tuple[Any, ...]) -> None:
    if not _is_postgres(app):
        sql = sql.replace("%s", "?")
    with _recorder(app).datastore.transaction(commit=True) as cursor:
        cursor.execute(sql, params)


def _id(app: LedgerApp, tid: UUID) -> Any:
    return tid if _is_postgres(app) else tid.hex


def replace_in_event(app: LedgerApp, tid: UUID, version: int, old: str, new: str,
                     *, as_text: bool = False) -> None:
    """Edit the JSON of one stored event (``as_text``: on SQLite, the way a hand edit with
    ``replace(state, ...)`` does it, leaving text where the ledger wrote bytes)."""
    if as_text and not _is_postgres(app):
        sql = (f"UPDATE {_table(app)} SET state = replace(state, %s, %s) "
               "WHERE originator_id = %s AND originator_version = %s")
        _execute(app, sql, (old, new, _id(app, tid), version))
        return
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


def _rows(app: LedgerApp, tid: UUID, after: int) -> list[Any]:
    return list(app.recorder.select_events(tid, gt=after))


def _set_state(app: LedgerApp, tid: UUID, version: int, state: bytes) -> None:
    _execute(
        app,
        f"UPDATE {_table(app)} SET state = %s WHERE originator_id = %s AND originator_version = %s",
        (state, _id(app, tid), version),
    )


def rechain(app: LedgerApp, tid: UUID, edited: int) -> None:
    """Recompute the chain after an edit at ``edited``: every later event gets the digest of
    the one before it, as a forger with database access and the chain's recipe would do
    (the snapshots are left as they are: see :func:`drop_snapshots`)."""
    import json

    from ledger.table.events import chain_digest

    before = app.recorder.select_events(tid, gt=edited - 1, lte=edited)[0]
    digest = chain_digest(tid, before.originator_version, before.topic, bytes(before.state))
    for row in _rows(app, tid, edited):
        text = bytes(row.state).decode()
        old = json.loads(text)["prev_hash"]
        state = text.replace(f'"prev_hash":"{old}"', f'"prev_hash":"{digest}"', 1).encode()
        _set_state(app, tid, row.originator_version, state)
        digest = chain_digest(tid, row.originator_version, row.topic, state)


def _command_rows(app: LedgerApp, tid: UUID) -> tuple[str, list[tuple[str, str]]]:
    """The schema prefix of the command log and its (command id, result) rows for a table."""
    recorder = _recorder(app)
    schema = (
        f'"{recorder.datastore.schema}".' if isinstance(recorder, LedgerPostgresRecorder) else ""
    )
    with recorder.datastore.transaction(commit=False) as cursor:
        sql = f"SELECT command_id, result FROM {schema}ledger_commands WHERE table_id = %s"
        cursor.execute(sql if _is_postgres(app) else sql.replace("%s", "?"), (str(tid),))
        rows = [(r[0], r[1]) if not isinstance(r, dict) else (r["command_id"], r["result"])
                for r in cursor.fetchall()]
    return schema, rows


def rewrite_command_log(app: LedgerApp, tid: UUID) -> None:
    """Make the command log's copy of every event of a table match the stored events."""
    import json

    stored = {r.originator_version: json.loads(r.state) for r in _rows(app, tid, 0)}
    schema, rows = _command_rows(app, tid)
    for command_id, result in rows:
        data = json.loads(result)
        data["events"] = [{"type": e["type"], "version": e["version"],
                           **stored.get(e["version"], {})} for e in data["events"]]
        _execute(app, f"UPDATE {schema}ledger_commands SET result = %s "
                 "WHERE table_id = %s AND command_id = %s",
                 (json.dumps(data), str(tid), command_id))


def delete_command(app: LedgerApp, tid: UUID, version: int) -> None:
    """Remove the command-log row that appended ``version`` (to hide a truncation)."""
    import json

    schema, rows = _command_rows(app, tid)
    for command_id, result in rows:
        if any(e["version"] >= version for e in json.loads(result)["events"]):
            _execute(app, f"DELETE FROM {schema}ledger_commands "
                     "WHERE table_id = %s AND command_id = %s", (str(tid), command_id))


def insert_at(app: LedgerApp, tid: UUID, source_version: int, at: int) -> None:
    """Insert a copy of one event's content at version ``at``, moving every event from ``at``
    on one version up (an insertion in the middle of the history)."""
    for row in reversed(_rows(app, tid, at - 1)):
        _execute(app, f"UPDATE {_table(app)} SET originator_version = %s WHERE originator_id = "
                 "%s AND originator_version = %s",
                 (row.originator_version + 1, _id(app, tid), row.originator_version))
    source = source_version if source_version < at else source_version + 1
    insert_copy(app, tid, source, at)


def edit_snapshot(app: LedgerApp, tid: UUID, old: str, new: str) -> int:
    """Edit the JSON of a table's latest snapshot; returns its version."""
    recorder: Any = app.recorder
    name = recorder.events_table_name.replace("_events", "_snapshots")
    table = name if not _is_postgres(app) else f'"{recorder.datastore.schema}"."{name}"'
    assert app.snapshots is not None
    (latest,) = list(app.snapshots.get(tid, desc=True, limit=1))
    version: int = latest.originator_version
    if _is_postgres(app):
        sql = (f"UPDATE {table} SET state = convert_to(replace(convert_from(state, 'UTF8'), "
               "%s, %s), 'UTF8') WHERE originator_id = %s AND originator_version = %s")
    else:
        sql = (f"UPDATE {table} SET state = CAST(replace(CAST(state AS TEXT), %s, %s) AS BLOB) "
               "WHERE originator_id = %s AND originator_version = %s")
    _execute(app, sql, (old, new, _id(app, tid), version))
    return version


UNDECODABLE = {
    "topic": None,  # the row's topic lowercased: no such event class
    "json": ('"timestamp":', '"timestamp"'),  # not JSON
    "field": ('"timestamp":"', '"timestamp":"x'),  # a field that fails validation
    "class_version": ('"timestamp":', '"class_version":0,"timestamp":'),  # no such version
}
"""The ways :func:`make_undecodable` makes a stored row that the ledger cannot decode."""


def make_undecodable(app: LedgerApp, tid: UUID, version: int, how: str) -> None:
    """Make the stored row at ``version`` undecodable (``how``: a key of
    :data:`UNDECODABLE`), then recompute the chain after it and rewrite the command log, as
    an insider with write access to the store would, so that only the row itself is wrong."""
    import json

    if how == "topic":
        _execute(app, f"UPDATE {_table(app)} SET topic = lower(topic) WHERE originator_id = %s "
                 "AND originator_version = %s", (_id(app, tid), version))
    else:
        old, new = UNDECODABLE[how] or ("", "")
        replace_in_event(app, tid, version, old, new)
    rechain(app, tid, version)
    stored: dict[int, Any] = {}
    for row in _rows(app, tid, 0):
        try:
            stored[row.originator_version] = json.loads(row.state)
        except ValueError:
            stored[row.originator_version] = None
    schema, rows = _command_rows(app, tid)
    for command_id, result in rows:
        data = json.loads(result)
        if any(stored.get(e["version"], 0) is None for e in data["events"]):
            continue  # not JSON: the log keeps the ledger's copy
        data["events"] = [{"type": e["type"], "version": e["version"],
                           **stored.get(e["version"], {})} for e in data["events"]]
        _execute(app, f"UPDATE {schema}ledger_commands SET result = %s "
                 "WHERE table_id = %s AND command_id = %s",
                 (json.dumps(data), str(tid), command_id))


def force_command(app: LedgerApp, command: Any, approval: Any = None) -> int:
    """What an insider with write access to the store can do: the events the rules decide for
    ``command``, never checked for approval, written with a valid chain link and their
    command-log row (``approval``: an envelope of their own making). The new table version."""
    import hashlib
    from datetime import UTC, datetime

    from ledger.app.application import CommandResult
    from ledger.domain.commands import CORRECTION_COMMANDS
    from ledger.store.schema import CommandRow

    table = app.load(command.table)
    now = datetime.now(UTC)
    if isinstance(command, CORRECTION_COMMANDS):
        records = app._correction(table, command, now)
    else:
        records = table.state.decide(command, app.keeper)
    for number, record in enumerate(records):
        table.record(record, command.command_id, now, app.actor,
                     approval if number == 0 else None)
    result = CommandResult.of(command, table, table.pending_events)
    payload = hashlib.sha256(command.model_dump_json(exclude={"command_id"}).encode()).hexdigest()
    app.commit(table, CommandRow(command.command_id, str(table.id), command.name, payload,
                                 result.to_json()))
    return int(table.version)


def side_table(app: Any, name: str) -> str:
    """The name to write in SQL for one of the ledger's own tables (``ledger_tokens``,
    ``ledger_access_log``, ``ledger_register`` ...), schema first on PostgreSQL."""
    recorder: Any = app.recorder
    return name if not _is_postgres(app) else f'"{recorder.datastore.schema}"."{name}"'


def execute_sql(app: Any, sql: str, params: tuple[Any, ...] = ()) -> None:
    """Run ``sql`` (``%s`` marks) on the store, committed: an insider at the database."""
    _execute(app, sql, params)


def query_sql(app: Any, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    if not _is_postgres(app):
        sql = sql.replace("%s", "?")
    with _recorder(app).datastore.transaction(commit=False) as cursor:
        cursor.execute(sql, params)
        rows = cursor.fetchall()
    return [tuple(r.values()) if isinstance(r, dict) else tuple(r) for r in rows]


def rename_everywhere(app: LedgerApp, tid: UUID, old: str, new: str) -> None:
    """A consistent rewrite of a table: ``old`` replaced by ``new`` in every event, the chain
    recomputed from the first event changed and the command log rewritten to match, as an
    insider with write access and the chain's recipe would do."""
    first = None
    for row in _rows(app, tid, 0):
        if old.encode() in bytes(row.state):
            replace_in_event(app, tid, row.originator_version, old, new)
            first = first or row.originator_version
    assert first is not None, f"{old!r} is in no event"
    rechain(app, tid, first)
    rewrite_command_log(app, tid)


def drop_snapshots(app: LedgerApp, tid: UUID, since: int = 0) -> None:
    """Delete a table's snapshots, as a forger does whose rewrite a snapshot's keyed signature
    would otherwise show (``snapshot_mismatch``): loading then replays the events."""
    recorder: Any = app.recorder
    name = recorder.events_table_name.replace("_events", "_snapshots")
    table = name if not _is_postgres(app) else f'"{recorder.datastore.schema}"."{name}"'
    _execute(app, f"DELETE FROM {table} WHERE originator_id = %s AND originator_version >= %s",
             (_id(app, tid), since))
