"""Whether a view's tables in the store have the layout the code makes: every table there,
every column of the code's ``CREATE TABLE`` there with its type, no column the code does not
make. A view whose tables differ (a store made by another version, a column dropped by hand,
a table removed) cannot be caught up or compared: it is ``projection_outdated`` with the
difference as the reason, and ``ledger projections rebuild`` drops and makes its tables again.
Columns a view adds to tables made before them (``View.added_columns``) are added by the
runner's setup and are not a difference while missing.
"""

from __future__ import annotations

import re
from typing import Any

from projections.db import Store, Tx
from projections.views.base import View

_CREATE = re.compile(r"^\s*CREATE TABLE IF NOT EXISTS \{(\w+)\}\s*\((.*)\)\s*$",
                     re.IGNORECASE | re.DOTALL)
_CONSTRAINTS = ("PRIMARY", "UNIQUE", "CHECK", "FOREIGN", "CONSTRAINT")


def _split(body: str) -> list[str]:
    parts, depth, current = [], 0, ""
    for ch in body:
        depth += (ch == "(") - (ch == ")")
        if ch == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += ch
    return [*parts, current]


def expected(view: View) -> dict[str, dict[str, str]]:
    """Table -> column -> type (lower case), as the view's DDL makes them."""
    tables: dict[str, dict[str, str]] = {}
    for statement in view.ddl:
        found = _CREATE.match(statement)
        if found is None:
            continue
        columns: dict[str, str] = {}
        for part in _split(found.group(2)):
            words = part.split()
            if words and words[0].upper() not in _CONSTRAINTS:
                columns[words[0].lower()] = words[1].lower() if len(words) > 1 else ""
        tables[found.group(1)] = columns
    for table, column, kind in view.added_columns:
        tables.setdefault(table, {})[column.lower()] = kind.split()[0].lower()
    return tables


def stored(store: Store, tx: Tx, table: str) -> dict[str, str] | None:
    """Column -> type (lower case) of ``table`` in the store; None when there is no such
    table."""
    if not store.exists(tx, table):
        return None
    if store.postgres:
        # the catalog, not information_schema (which shows only columns this user may use)
        rows = tx.fetchall("SELECT a.attname::text AS name, format_type(a.atttypid, "
                           "a.atttypmod) AS kind FROM pg_attribute a JOIN pg_class c ON "
                           "c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace "
                           "WHERE n.nspname = ? AND c.relname = ? AND a.attnum > 0 AND NOT "
                           "a.attisdropped", (store.schema, table))
    else:
        rows = tx.fetchall("SELECT name, type AS kind FROM pragma_table_info(?)", (table,))
    return {str(r["name"]).lower(): str(r["kind"]).lower() for r in rows}


def difference(store: Store, tx: Tx, view: View) -> str | None:
    """What differs between the view's tables in the store and the code's, or None."""
    added = {(t, c.lower()) for t, c, _ in view.added_columns}
    problems: list[str] = []
    for table, want in expected(view).items():
        have = stored(store, tx, table)
        if have is None:
            problems.append(f"table {table} is missing")
            continue
        missing = [c for c in want if c not in have and (table, c) not in added]
        if missing:
            problems.append(f"{table} lacks column{'s' if len(missing) > 1 else ''} "
                            + ", ".join(missing))
        changed = [f"{c} is {have[c]}, not {kind}" for c, kind in want.items()
                   if c in have and kind and have[c] and have[c] != kind]
        if changed:
            problems.append(f"{table}: " + "; ".join(changed))
        extra = [c for c in have if c not in want]
        if extra:
            problems.append(f"{table} has column{'s' if len(extra) > 1 else ''} "
                            + ", ".join(extra) + " that this version does not make")
    return "; ".join(problems) or None


def differences(store: Store, tx: Tx, views: list[View]) -> dict[str, str]:
    """View name -> what differs, for every view whose tables differ from the code's."""
    found: dict[str, str] = {}
    for view in views:
        why = difference(store, tx, view)
        if why is not None:
            found[view.name] = why
    return found


def of_app(app: Any, names: list[str]) -> dict[str, str]:
    """:func:`differences` of the views ``names`` in ``app``'s store (its own read)."""
    from projections.views.registry import VIEW_TYPES

    store = Store(app.recorder)
    with store.transaction(commit=False) as tx:
        return differences(store, tx, [VIEW_TYPES[n]() for n in names if n in VIEW_TYPES])
