"""Pull-based catch-up from the application's notification log, exactly once per view.

Each view has a tracking row (``proj_tracking``: view, position, fingerprint). A batch reads the
next notifications after the lowest position among the views being run, decodes them once, and
in one transaction: moves each view's tracking row from the position it was read at to the last
notification of the batch (a conditional update: if another runner moved it first, the batch is
rolled back and read again), lets each view handle the events past its own position, and writes
the view rows. A crash anywhere rolls the whole batch back, so a view never counts an event
twice and never skips one; the next run starts where the last committed batch ended.

This works the same on SQLite and PostgreSQL (the library's push subscriptions exist only for
PostgreSQL). With ``POSTGRES_ENABLE_DB_FUNCTIONS`` off, which the ledger requires, PostgreSQL
makes notifications visible in id order, so reading "after the last position" skips nothing.

The fingerprint is the view's version and the gaming-day start it was built with; a view whose
stored fingerprint differs must be rebuilt before it can be caught up (``projection_outdated``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from ledger.errors import LedgerError, NotFound, StateConflict
from ledger.persistence import permission_denied
from ledger.table import TableEvent
from projections.base import Item, View
from projections.context import TableDirectory, gaming_day
from projections.db import Store, Tx, iso
from projections.registry import VIEW_TYPES, view_names

Progress = Callable[[int], None]
TRACKING = "proj_tracking"
TRACKING_DDL = (
    "CREATE TABLE IF NOT EXISTS {proj_tracking} (view TEXT PRIMARY KEY, "
    "position BIGINT NOT NULL, fingerprint TEXT NOT NULL, updated_at TEXT NOT NULL)"
)


class _Moved(Exception):
    """Another runner moved a tracking row while this batch was being built."""


@dataclass(frozen=True)
class ViewStatus:
    view: str
    description: str
    position: int
    head: int
    lag: int
    """Events in the log after the view's position."""
    outdated: bool
    updated_at: str | None

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


class Runner:
    """Keeps the chosen views (default: all) up to date with one ledger application."""

    def __init__(
        self, app: Any, views: Sequence[str] | None = None, *, batch_size: int = 1_000
    ) -> None:
        self.app = app
        self.store = Store(app.recorder)
        self.day_start = app.settings.gaming_day_start
        self.views: list[View] = [VIEW_TYPES[name]() for name in resolve_views(views)]
        self.batch_size = batch_size
        self.directory = TableDirectory(app)
        self._ready = False

    # --- schema and tracking ---------------------------------------------------------------

    def fingerprint(self, view: View) -> str:
        return f"v{view.version};day_start={self.day_start.isoformat()}"

    def setup(self) -> None:
        """Create the view tables and tracking rows that do not exist yet.

        A database user that may not create tables (one granted only SELECT, say) uses the
        views as they are when they are all set up already, and gets
        ``store_permission_denied`` when they are not.
        """
        if self._ready:
            return
        try:
            with self.store.transaction() as tx:
                tx.execute(TRACKING_DDL)
                for view in self.views:
                    for statement in view.ddl:
                        tx.execute(statement)
                    tx.execute(
                        "INSERT INTO {proj_tracking} (view, position, fingerprint, updated_at) "
                        "VALUES (?, 0, ?, ?) ON CONFLICT (view) DO NOTHING",
                        (view.name, self.fingerprint(view), iso(datetime.now(UTC))),
                    )
        except Exception as exc:
            if not permission_denied(exc):
                raise
            missing = self._not_set_up()
            if missing:
                raise LedgerError(
                    "store_permission_denied",
                    f"the read models ({', '.join(missing)}) are not set up in this store and "
                    "this database user may not create them: run `ledger projections update` "
                    "once as a user who may (the schema's owner); reading them then needs only "
                    "SELECT", views=missing) from None
        self._ready = True

    def _not_set_up(self) -> list[str]:
        """The views whose tables or tracking row do not exist."""
        with self.store.transaction(commit=False) as tx:
            if not self.store.exists(tx, TRACKING):
                return [v.name for v in self.views]
            tracked = self._tracking(tx)
            return [v.name for v in self.views if v.name not in tracked
                    or not all(self.store.exists(tx, t) for t in v.tables)]

    def _tracking(self, tx: Tx) -> dict[str, dict[str, Any]]:
        rows = tx.fetchall("SELECT view, position, fingerprint, updated_at FROM {proj_tracking}")
        return {row["view"]: row for row in rows}

    def head(self) -> int:
        """The last notification id in the log (0 when empty)."""
        return int(self.app.recorder.max_notification_id() or 0)

    def status(self) -> list[ViewStatus]:
        self.setup()
        with self.store.transaction(commit=False) as tx:
            tracking = self._tracking(tx)
            head = self.head()
            result = []
            for view in self.views:
                row = tracking[view.name]
                position = int(row["position"])
                result.append(ViewStatus(
                    view=view.name, description=view.description, position=position,
                    head=head, lag=self._count_after(tx, position),
                    outdated=row["fingerprint"] != self.fingerprint(view),
                    updated_at=row["updated_at"],
                ))
        return result

    def lag(self) -> int:
        """Events the furthest-behind view has still to see."""
        self.setup()
        with self.store.transaction(commit=False) as tx:
            low = min(int(r["position"]) for n, r in self._tracking(tx).items()
                      if n in {v.name for v in self.views})
            return self._count_after(tx, low)

    def _count_after(self, tx: Tx, position: int) -> int:
        column, table = self.store.notification_column, self.store.name(self.store.events_table)
        value = tx.scalar(f"SELECT COUNT(*) AS n FROM {table} WHERE {column} > ?", (position,))
        return int(value or 0)

    # --- running ---------------------------------------------------------------------------

    def rebuild(self, progress: Progress | None = None, max_batches: int | None = None) -> int:
        """Empty the views and build them again from the first event."""
        self.reset()
        return self.catch_up(progress, max_batches)

    def reset(self) -> None:
        """Empty the views' tables and set their positions to zero, in one transaction."""
        self.setup()
        with self.store.transaction() as tx:
            for view in self.views:
                for table in view.tables:
                    tx.execute(f"DELETE FROM {{{table}}}")
                tx.execute(
                    "UPDATE {proj_tracking} SET position = 0, fingerprint = ?, updated_at = ? "
                    "WHERE view = ?",
                    (self.fingerprint(view), iso(datetime.now(UTC)), view.name),
                )

    def catch_up(self, progress: Progress | None = None, max_batches: int | None = None) -> int:
        """Process every event the views have not seen; the number of events read.

        ``max_batches`` stops early (tests use it to interrupt a rebuild; ``--follow`` polls one
        batch at a time so that a stop request is honoured between batches).
        """
        self.setup()
        self._check_fingerprints()
        done, batches = 0, 0
        while max_batches is None or batches < max_batches:
            with self.store.transaction(commit=False) as tx:
                positions = {n: int(r["position"]) for n, r in self._tracking(tx).items()}
            start = min(positions[v.name] for v in self.views)
            notes = self.app.recorder.select_notifications(
                start, self.batch_size, inclusive_of_start=False
            )
            if not notes:
                break
            items = self._decode(notes)
            try:
                self._apply(items, positions, int(notes[-1].id))
            except _Moved:
                continue
            done += len(notes)
            batches += 1
            if progress is not None:
                progress(len(notes))
        return done

    def _check_fingerprints(self) -> None:
        with self.store.transaction(commit=False) as tx:
            tracking = self._tracking(tx)
        stale = [v.name for v in self.views
                 if tracking[v.name]["fingerprint"] != self.fingerprint(v)]
        if stale:
            raise StateConflict(
                "projection_outdated",
                f"view(s) {', '.join(stale)} were built by another version or with another "
                "gaming-day start; run `ledger projections rebuild"
                + (f" --view {stale[0]}`" if len(stale) == 1 else "`"),
                views=stale,
            )

    def _decode(self, notes: Sequence[Any]) -> list[Item]:
        events: list[tuple[int, TableEvent]] = []
        for note in notes:
            try:
                event: TableEvent = self.app.mapper.to_domain_event(note)
            except Exception as exc:
                raise LedgerError(
                    "undecodable_event",
                    f"event {note.originator_id} v{note.originator_version} (log position "
                    f"{note.id}) cannot be read: {exc}; run `ledger audit verify`",
                    position=note.id,
                ) from None
            self.directory.learn(event)
            events.append((int(note.id), event))
        self.directory.load({e.originator_id for _, e in events})
        items = []
        for position, event in events:
            info = self.directory.get(event.originator_id)
            if info is None:
                raise LedgerError(
                    "corrupt_stream",
                    f"stream {event.originator_id} has no TableOpened event; run "
                    "`ledger audit verify`", position=position,
                )
            day = gaming_day(event.timestamp, info.timezone, self.day_start)
            items.append(Item(position, event, info, day, iso(event.timestamp)))
        return items

    def _apply(self, items: list[Item], positions: dict[str, int], last: int) -> None:
        now = iso(datetime.now(UTC))
        with self.store.transaction() as tx:
            active = [v for v in self.views if positions[v.name] < last]
            for view in active:
                moved = tx.execute(
                    "UPDATE {proj_tracking} SET position = ?, updated_at = ? "
                    "WHERE view = ? AND position = ?",
                    (last, now, view.name, positions[view.name]),
                )
                if moved != 1:
                    raise _Moved(view.name)
            try:
                for view in active:
                    view.begin(tx)
                for item in items:
                    for view in active:
                        if item.position > positions[view.name]:
                            view.handle(item)
                for view in active:
                    view.flush()
            finally:
                for view in active:
                    view.end()


def resolve_views(names: Sequence[str] | None) -> list[str]:
    """The views named (all when None), checked: an unknown name is ``unknown_view``."""
    if not names:
        return view_names()
    unknown = [n for n in names if n not in VIEW_TYPES]
    if unknown:
        raise NotFound(
            "unknown_view",
            f"no view {unknown[0]!r}; views: {', '.join(view_names())}",
            view=unknown[0],
        )
    return list(dict.fromkeys(names))
