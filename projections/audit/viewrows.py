"""Every stored column of every view reconciled: the views built again from the events, row by
row.

:mod:`projections.audit.reconcile` recomputes the totals (drop, house win, balances, meters).
A row can be wrong while every total holds: a hand's ``result_json`` emptied, a correction's
``reason`` or approvers rewritten, a seat's wager or player changed, a configuration's text
edited. So the audit also builds every view again, with the views' own code, from the events
it reads in its snapshot, in a scratch SQLite database of its own (a temporary file, deleted
afterwards; nothing is written to the store), and compares each stored table with the rebuilt
one: every row by its primary key and every column of it.

Each view is rebuilt up to its own position (its ``proj_tracking`` row, read in the audit's
snapshot), so a view that lags behind the log is compared with what it has seen, not reported.
A view built by another version (outdated: ``projections status`` says so already) or being
built is not compared. The events the views left out (``proj_rejects``, a number no column
holds) are left out here too; each of them is reported as ``unholdable_value`` by the audit.

A difference is ``view_row_mismatch``: the view, its table, the row's key, the column (None
for a row that is missing or that no event makes), the value the events give and the value
stored. The views found so are marked as not matching (``projections status`` shows them
outdated, and they must be rebuilt before they are read again), as for ``projection_mismatch``.
"""

from __future__ import annotations

import sqlite3
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import time
from decimal import Decimal
from pathlib import Path
from typing import Any

from projections.audit.model import Discrepancy
from projections.audit.reader import PinnedStore
from projections.audit.reconcile import MISMATCH
from projections.db import Store, Tx, _Names
from projections.views import decode, unholdable
from projections.views.base import Item, View
from projections.views.registry import VIEW_TYPES
from projections.views.runner import Runner

KIND = "view_row_mismatch"
BATCH = 5_000
"""Events decoded and handed to the rebuilt views at a time."""
SHOWN = 300
"""Characters of a text value a finding shows (a hand's JSON may be long)."""


class ScratchStore(Store):
    """A SQLite file of the audit's own, for the views rebuilt (the read side's SQL layer over
    a plain ``sqlite3`` connection)."""

    def __init__(self, path: Path) -> None:
        self.connection = sqlite3.connect(path, isolation_level=None)
        self.connection.row_factory = sqlite3.Row
        self.connection.execute("PRAGMA journal_mode = OFF")
        self.connection.execute("PRAGMA synchronous = OFF")
        self.postgres = False
        self.schema = None
        self.events_table = "no_events"
        self.notification_column = "rowid"
        self._names = _Names(None)
        self._compiled = {}

    @contextmanager
    def transaction(self, *, commit: bool = True) -> Iterator[Tx]:
        cursor = self.connection.cursor()
        cursor.execute("BEGIN")
        try:
            yield Tx(self, cursor)
        except BaseException:
            cursor.execute("ROLLBACK")
            raise
        cursor.execute("COMMIT" if commit else "ROLLBACK")

    def columns(self, table: str) -> tuple[list[str], list[str]]:
        """The columns of ``table`` and those of its primary key (in key order)."""
        info = self.connection.execute(f"PRAGMA table_info({table})").fetchall()
        keyed = sorted((int(row["pk"]), str(row["name"])) for row in info if int(row["pk"]))
        return [str(row["name"]) for row in info], [name for _, name in keyed]

    def close(self) -> None:
        self.connection.close()


class _Feeder(Runner):
    """Decodes the log as the runner does, leaving out what the views left out, and writes
    nothing to the store."""

    def __init__(self, app: Any, views: Sequence[str], left_out: frozenset[int]) -> None:
        super().__init__(app, views)
        self._held_out = left_out

    def _screen(self, items: list[Item]) -> list[Item]:
        left = {r.position for r in unholdable.screen(items)} | self._held_out
        return [i for i in items if i.position not in left] if left else items


def view_limits(reader: Any, day_start: time) -> dict[str, int]:
    """Each view to compare and its position: set up, current (by this version, with this
    gaming-day start; one already marked as not matching is compared again) and not being
    built."""
    if not reader.exists("proj_tracking"):
        return {}
    rows = reader.fetchall("SELECT view, position, fingerprint FROM {proj_tracking}")
    return {row["view"]: int(row["position"]) for row in rows
            if row["view"] in VIEW_TYPES and str(row["fingerprint"]).removeprefix(MISMATCH)
            == f"v{VIEW_TYPES[row['view']].version};day_start={day_start.isoformat()}"}


def row_discrepancies(app: Any, reader: Any, *, left_out: frozenset[int] = frozenset(),
                      table: str | None = None) -> list[Discrepancy]:
    """Every stored row of every current view compared with the views rebuilt from the events
    (only the rows of table ``table`` when given)."""
    limits = view_limits(reader, app.settings.gaming_day_start)
    limits = {name: at for name, at in limits.items()
              if all(reader.exists(t) for t in VIEW_TYPES[name].tables)}
    if not limits:
        return []
    feeder = _Feeder(app, list(limits), left_out)
    with tempfile.TemporaryDirectory(prefix="ledger-audit-") as folder:
        scratch = ScratchStore(Path(folder) / "views.sqlite3")
        try:
            _build(scratch, feeder, PinnedStore(reader.store, reader.tx), limits, table)
            found: list[Discrepancy] = []
            for view in feeder.views:
                for name in view.tables:
                    found.extend(_compare(scratch, reader, view.name, name, table))
            return found
        finally:
            scratch.close()


def _build(scratch: ScratchStore, feeder: _Feeder, source: Any, limits: dict[str, int],
           table: str | None) -> None:
    views = feeder.views
    with scratch.transaction() as tx:
        for view in views:
            for statement in view.ddl:
                tx.execute(statement)
            for name, column, kind in view.added_columns:
                if column not in scratch.columns(name)[0]:
                    tx.execute(f"ALTER TABLE {{{name}}} ADD COLUMN {column} {kind}")
    after, stop = 0, max(limits.values())
    while after < stop:
        rows = decode.select(source, after, BATCH, stop)
        if not rows:
            break
        after = int(rows[-1][0])
        items = feeder._decode_rows(rows)
        if table is not None:
            items = [i for i in items if i.code == table]
        with scratch.transaction() as tx:
            _feed(tx, views, limits, items)


def _feed(tx: Tx, views: list[View], limits: dict[str, int], items: list[Item]) -> None:
    try:
        for view in views:
            view.begin(tx)
        for view in views:
            limit, handle = limits[view.name], view.handle
            for item in items:
                if item.position <= limit:
                    handle(item)
        for view in views:
            view.flush()
    finally:
        for view in views:
            view.end()


def _compare(scratch: ScratchStore, reader: Any, view: str, name: str,
             table: str | None) -> Iterator[Discrepancy]:
    columns, key = scratch.columns(name)
    key = key or columns
    where, params = ("", ()) if table is None else (" WHERE table_code = ?", (table,))
    with scratch.transaction(commit=False) as tx:
        rebuilt = {_key(row, key): row for row in tx.fetchall(
            f"SELECT * FROM {{{name}}}{where}", params)}
    stored = {_key(row, key): row for row in reader.fetchall(
        f"SELECT * FROM {{{name}}}{where}", params)}
    for row_key in sorted(set(rebuilt) | set(stored), key=_sortable):
        want, got = rebuilt.get(row_key), stored.get(row_key)
        named = dict(zip(key, row_key, strict=True))
        if want is None or got is None:
            yield _finding(view, name, named, None, "row" if want else None,
                           "row" if got else None)
            continue
        if want == got:  # the common case, at once (same types on both stores but numerics)
            continue
        for column in columns:
            a, b = _plain(want.get(column)), _plain(got.get(column))
            if a != b:
                yield _finding(view, name, named, column, a, b)


def _finding(view: str, table: str, row: dict[str, Any], column: str | None, want: Any,
             got: Any) -> Discrepancy:
    code = str(row.get("table_code", "-"))
    hand = row.get("hand_no")
    where = {"view": view, "table": table, "row": row, "column": column}
    return Discrepancy(code, hand if isinstance(hand, int) else None, KIND,
                       {**where, "value": _shown(want)}, {**where, "value": _shown(got)})


def _key(row: dict[str, Any], key: list[str]) -> tuple[Any, ...]:
    found = tuple(row.get(column) for column in key)
    if all(type(v) in (int, str) for v in found):
        return found
    return tuple(_plain(v) for v in found)


def _sortable(key: tuple[Any, ...]) -> tuple[tuple[int, str], ...]:
    return tuple((0, f"{v:020d}") if isinstance(v, int) else (1, str(v)) for v in key)


def _plain(value: Any) -> Any:
    """A stored value as both stores give it back (PostgreSQL's numbers and booleans as
    SQLite's)."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, memoryview):
        return bytes(value)
    return value


def _shown(value: Any) -> Any:
    if isinstance(value, str) and len(value) > SHOWN:
        return value[:SHOWN] + "..."
    return value
