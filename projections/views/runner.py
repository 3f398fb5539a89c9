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

import gc
import re
import uuid
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from ledger.domain.errors import LedgerError, NotFound, StateConflict
from ledger.domain.records import CORRECTIONS
from ledger.logs import get_logger
from ledger.store.errors import StoreError, permission_denied
from ledger.table.events import TableEvent, TableOpened
from projections.db import Store, Tx, iso
from projections.views import decode, layout, rebuildlock, unholdable
from projections.views import rebuild as parallel
from projections.views.base import Item, View, ancestry
from projections.views.context import TableDirectory, TableInfo
from projections.views.gcpolicy import FULL_COLLECTION_EVERY, collections_by_hand, fewer_collections
from projections.views.registry import VIEW_TYPES, view_names
from projections.views.unholdable import unholdable_error

Progress = Callable[[int], None]
log = get_logger("projections.views.runner")
TRACKING = "proj_tracking"
LAYOUT = "layout;"
"""The mark of a view whose tables differ from the code's (:mod:`projections.views.layout`)."""
TRACKING_DDL = (
    "CREATE TABLE IF NOT EXISTS {proj_tracking} (view TEXT PRIMARY KEY, "
    "position BIGINT NOT NULL, fingerprint TEXT NOT NULL, updated_at TEXT NOT NULL)"
)


_INDEX = re.compile(r"CREATE INDEX IF NOT EXISTS (\w+) ON ")
"""A view's secondary index, in its DDL (its name)."""


class _Moved(Exception):
    """Another runner moved a tracking row while this batch was being built."""


WRITE_EVERY = 10_000
"""Events a rebuild read straight through (:meth:`Runner.replay_streams`) handles, a batch at a
time, between two writes of the views' rows: a transaction and a statement (or ``COPY``) per
table for that many events, instead of for each batch (fewer commits; on PostgreSQL fewer round
trips). The rows of a batch with a correction are written at once, as a batch's are."""
_CORRECTIONS = frozenset(CORRECTIONS)


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
    shard: str | None = None
    """The store's shard in a fleet (``LEDGER_SHARDS``); None for a single store."""
    reason: str | None = None
    """Why the view is outdated (another version or gaming-day start, a layout of its tables
    that differs from the code's, a mismatch the audit found); None when it is current."""

    def as_dict(self) -> dict[str, Any]:
        data = dict(self.__dict__)
        if self.shard is None:
            del data["shard"]
        if self.reason is None:
            del data["reason"]
        return data


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
        self._decoder = decode.Decoder(app.mapper)
        self._infos: dict[Any, TableInfo] = {}
        """The table of each stream, by its id as stored (:attr:`directory`'s, found once)."""
        from projections.audit.reconcile import GamingDays  # the audit's memo, once a minute

        self._gaming_day = GamingDays(self.day_start)
        self._ready = False
        self.rejected: list[unholdable.Rejected] = []
        """Events left out of the views in this runner's batches
        (``projections.views.unholdable``)."""
        self._reported: set[int] = set()
        self._left_out: set[int] | None = None
        """Positions recorded in ``proj_rejects``: every view leaves them out alike."""
        self._writes = 0
        """Writes of the rebuild read straight through so far (:meth:`_write_pending`)."""
        self._building: str | None = None
        """The mark of the views being built by this rebuild (:meth:`reset`): another rebuild
        that starts over meanwhile marks them with its own."""

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
        if getattr(self.app, "replica", False):  # a standby (LEDGER_READ_DATABASE_URL): no DDL
            missing = self._not_set_up()
            if missing:
                raise StoreError(
                    "store_unavailable",
                    f"the read store has not replayed the read models ({', '.join(missing)}) "
                    "yet: run `ledger projections update` on the primary, then try again",
                    views=missing)
            self._ready = True
            return
        try:
            with self.store.transaction() as tx:
                if self.store.postgres:  # processes starting at once: one creates, one by one
                    from ledger.store.postgres import SCHEMA_LOCK_KEY

                    tx.execute("SELECT pg_advisory_xact_lock(?)", (SCHEMA_LOCK_KEY,))
                had_tracking = self.store.exists(tx, TRACKING)
                built = {v.name for v in self.views
                         if any(self.store.exists(tx, t) for t in v.tables)}
                tx.execute(TRACKING_DDL)
                tracked = set(self._tracking(tx))
                # Tables of another layout (or missing under a tracked view) before the DDL
                # below makes missing ones empty: such a view is outdated until rebuilt.
                differ = {name: "its tables differ from this version's: " + why
                          for name, why in layout.differences(
                              self.store, tx, [v for v in self.views if v.name in tracked]
                          ).items()}
                for view in self.views:
                    for statement in view.ddl:
                        tx.execute(statement)
                    for table, column, kind in view.added_columns:
                        if not self.store.has_column(tx, table, column):
                            tx.execute(f"ALTER TABLE {{{table}}} ADD COLUMN {column} {kind}")
                    tx.execute(
                        "INSERT INTO {proj_tracking} (view, position, fingerprint, updated_at) "
                        "VALUES (?, 0, ?, ?) ON CONFLICT (view) DO NOTHING",
                        (view.name, self.fingerprint(view), iso(datetime.now(UTC))),
                    )
                if not had_tracking:  # tables with rows but no position: not to be trusted
                    differ.update({name: f"{TRACKING} (where each view's position is kept) "
                                   "was missing while its tables were there"
                                   for name in built if name not in differ})
                for name, why in differ.items():
                    tx.execute("UPDATE {proj_tracking} SET fingerprint = ? WHERE view = ?",
                               (LAYOUT + why, name))
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
            differ = {name: "its tables differ from this version's: " + why for name, why
                      in layout.differences(self.store, tx, self.views).items()}
            head = self.head()
            result = []
            for view in self.views:
                row = tracking[view.name]
                position = int(row["position"])
                why = differ.get(view.name) or self._why_outdated(view, str(row["fingerprint"]))
                result.append(ViewStatus(
                    view=view.name, description=view.description, position=position,
                    head=head, lag=self._count_after(tx, position),
                    outdated=why is not None, updated_at=row["updated_at"], reason=why,
                ))
        return result

    def _why_outdated(self, view: View, fingerprint: str) -> str | None:
        """Why a view whose tracking row holds ``fingerprint`` is outdated, or None."""
        if fingerprint == self.fingerprint(view):
            return None
        if fingerprint.startswith(LAYOUT):
            return fingerprint[len(LAYOUT):]
        if fingerprint.startswith("building;"):
            return "a rebuild started and did not finish"
        if fingerprint.startswith("mismatch;"):
            return "`ledger audit verify` found its rows do not match the events"
        return (f"built as {fingerprint}, this version builds {self.fingerprint(view)} "
                "(another version of the view, or another gaming-day start)")

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

    def rebuild(self, progress: Progress | None = None, max_batches: int | None = None,
                jobs: int = 1) -> int:
        """Empty the views and build them again from the first event (``jobs``: processes
        to spread the tables over, :mod:`projections.views.rebuild`; a small store stays in one)."""
        spread = max_batches is None and parallel.worth_it(self, jobs)
        if spread or (max_batches is None and parallel.through(self)):
            try:
                return parallel.rebuild(self, jobs if spread else 1, progress)
            except unholdable.TotalsOverflow as exc:  # the views' totals past their columns
                log.warning("rebuild_in_one_process", why=str(exc))
        self.reset()
        return self.catch_up(progress, max_batches)

    def reset(self, *, position: int = 0, building: bool = False) -> None:
        """Empty the views' tables and set their positions, in one transaction. ``building``:
        marked as being built by several processes (outdated until :meth:`built`), with a mark
        of this rebuild's own (:meth:`_own`)."""
        self.setup()
        self._building = uuid.uuid4().hex if building else None
        with self.store.transaction() as tx:
            for view in self.views:  # first: waits for the writes under way (:meth:`_own`)
                self._track(tx, view, position, building)
            differ = layout.differences(self.store, tx, self.views)
            for view in self.views:
                if view.name in differ:  # another layout: made again as this version makes it
                    log.warning("view_tables_made_again", view=view.name, why=differ[view.name])
                    for table in view.tables:
                        tx.execute(f"DROP TABLE IF EXISTS {{{table}}}")
                    for statement in view.ddl:
                        tx.execute(statement)
                    continue
                for table in view.tables:
                    tx.execute(f"DELETE FROM {{{table}}}")
            if {v.name for v in self.views} >= set(view_names()):  # every view: judged again
                tx.execute(unholdable.REJECTS_DDL)
                tx.execute("DELETE FROM {proj_rejects}")
        self._reported.clear()
        self._left_out = None

    def drop_indexes(self) -> list[str]:
        """Drop the views' secondary indexes (a rebuild writes the rows first, then makes each
        index once, which is cheaper than keeping it up to date row by row); the statements
        that make them again (:meth:`make_indexes`). None when this database user may not
        drop them: the rebuild then keeps them up to date as rows are written. Any
        :meth:`setup` makes the missing ones, so a rebuild stopped before makes them
        again."""
        statements = [(found.group(1), statement) for view in self.views
                      for statement in view.ddl if (found := _INDEX.match(statement))]
        try:
            with self.store.transaction() as tx:
                for name, _ in statements:
                    tx.execute(f"DROP INDEX IF EXISTS {self.store.name(name)}")
        except Exception as exc:
            if not permission_denied(exc):
                raise
            return []
        return [statement for _, statement in statements]

    def make_indexes(self, statements: list[str]) -> None:
        """Make the indexes :meth:`drop_indexes` dropped."""
        if statements:
            with self.store.transaction() as tx:
                for statement in statements:
                    tx.execute(statement)

    def built(self, position: int) -> None:
        """The views hold every event up to ``position``: track them there, current (when
        they are still marked as being built by this rebuild, :meth:`_own`)."""
        with self.store.transaction() as tx:
            self._own(tx)
            for view in self.views:
                self._track(tx, view, position, False)

    def _own(self, tx: Tx) -> None:
        """Lock the views' tracking rows (on SQLite: take the write lock) and check that the
        views are still marked as being built by this rebuild (:meth:`reset`, which updates
        those rows before it empties the views, so it waits for the write under way); another
        rebuild that started over meanwhile is ``projection_rebuilt_meanwhile``: this one
        stops, leaving that one's rows."""
        mark = self._building
        if mark is None:  # pragma: no cover - a rebuild always marks its views
            tx.execute("UPDATE {proj_tracking} SET position = position WHERE view = ''")
            return
        if self.store.postgres:  # a shared lock: the workers' writes do not wait for each other
            names = [view.name for view in self.views]
            found = {row["view"]: row["fingerprint"] for row in tx.fetchall(
                "SELECT view, fingerprint FROM {proj_tracking} WHERE view IN "
                f"({','.join('?' * len(names))}) FOR SHARE", names)}
            taken = [view.name for view in self.views
                     if found.get(view.name) != self._building_mark(view, mark)]
        else:  # a write: SQLite's write lock, taken before anything else
            taken = [view.name for view in self.views if tx.execute(
                "UPDATE {proj_tracking} SET position = position WHERE view = ? AND "
                "fingerprint = ?", (view.name, self._building_mark(view, mark))) != 1]
        if taken:
            raise StateConflict(
                "projection_rebuilt_meanwhile",
                f"view(s) {', '.join(taken)} were emptied by another rebuild (or changed by "
                "another command) while this one ran: this rebuild stopped and left them as "
                "the other left them; run `ledger projections status`, and "
                "`ledger projections rebuild` once no other runs", views=taken)

    def _building_mark(self, view: View, mark: str | None) -> str:
        return f"building;{mark};" + self.fingerprint(view) if mark else \
            "building;" + self.fingerprint(view)

    def _track(self, tx: Tx, view: View, position: int, building: bool) -> None:
        fingerprint = self._building_mark(view, self._building) if building else \
            self.fingerprint(view)
        tx.execute(
            "UPDATE {proj_tracking} SET position = ?, fingerprint = ?, updated_at = ? "
            "WHERE view = ?", (position, fingerprint, iso(datetime.now(UTC)), view.name),
        )

    def replay_streams(self, streams: set[Any] | None, head: int,
                       progress: Progress | None = None,
                       stored: Sequence[Any] | None = None, building: str | None = None) -> int:
        """Write the rows of the events of ``streams`` (table ids; None: every table) up to log
        position ``head``, one transaction per batch, without moving the tracking rows (a
        rebuild, its views marked as being built: in several processes, each writes its own
        tables' rows); the number of events written. The views keep between batches the rows
        later events still change (:attr:`projections.views.base.View.keeping`) and write them
        last. ``stored``: the ids of ``streams`` as stored, to read only their events (at most
        :data:`projections.views.rebuild.MAX_STREAMS_READ`; else every event is read, and theirs
        kept). ``building``: the mark of the rebuild (a worker's; else this runner's own,
        :meth:`reset`)."""
        self._writes = 0
        if building is not None:
            self._building = building
        with fewer_collections(), collections_by_hand():
            try:
                for view in self.views:
                    view.keeping = True
                    view.reset()
                done = self._replay_streams(streams, head, progress, stored)
                self._guarded(head, self._write_kept, [])
                return done
            finally:
                for view in self.views:
                    view.keeping = False
                    view.end()

    def _replay_streams(self, streams: set[Any] | None, head: int, progress: Progress | None,
                        stored: Sequence[Any] | None) -> int:
        done, position, pending = 0, 0, 0
        stream_id = self._decoder.stream_id
        while position < head:
            rows = decode.select(self.store, position, self.batch_size, head, stored)
            if not rows:
                break
            position = int(rows[-1][0])
            mine = rows if streams is None else \
                [row for row in rows if stream_id(row[1])[0] in streams]
            if mine:
                items = self._decode_rows(mine)
                self._guarded(position, self._handle, items)
                done += len(mine)
                pending += len(mine)
                if pending >= WRITE_EVERY or any(
                        not item.isa.isdisjoint(_CORRECTIONS) for item in items):
                    self._guarded(position, self._write_pending, [])
                    pending = 0
            if progress is not None:
                progress(len(mine))
        return done

    def _handle(self, items: list[Item]) -> None:
        """The views (:attr:`View.keeping`) handle ``items``, reading in one transaction."""
        with self.store.transaction(commit=False) as tx:
            for view in self.views:
                view.begin(tx)
            for view in self.views:
                handle = view.handle
                for item in items:
                    handle(item)

    def _write_pending(self, _: list[Item]) -> None:
        """The views (:attr:`View.keeping`) write the rows they need not keep, in a transaction
        of its own that takes the write lock before anything else: processes that write other
        tables' rows side by side wait for each other only while rows are written (SQLite
        refuses a read transaction that turns into a write after another one committed)."""
        with self.store.transaction() as tx:
            self._own(tx)
            for view in self.views:
                view.write_with(tx)
        for view in self.views:
            view.kept()
        self._writes += 1
        gc.collect(1 if self._writes % FULL_COLLECTION_EVERY else 2)

    def _write_kept(self, _: list[Item]) -> None:
        """The views write what they kept (the last write of :meth:`replay_streams`)."""
        with self.store.transaction() as tx:
            self._own(tx)
            for view in self.views:
                view.keeping = False
                view.write_with(tx)

    @staticmethod
    def _guarded(position: int, write: Callable[[list[Item]], None], items: list[Item]) -> None:
        """``write(items)``; a number the store refuses is :class:`unholdable.TotalsOverflow`
        (the rebuild then starts again in one process, which finds the event and leaves it
        out)."""
        try:
            write(items)
        except Exception as exc:
            if not unholdable_error(exc):
                raise
            raise unholdable.TotalsOverflow(
                f"log positions up to {position}: {type(exc).__name__}") from None

    def catch_up(self, progress: Progress | None = None, max_batches: int | None = None) -> int:
        """Process every event the views have not seen; the number of events read.

        ``max_batches`` stops early (tests use it to interrupt a rebuild; ``--follow`` polls one
        batch at a time so that a stop request is honoured between batches).
        """
        self.setup()
        self._check_rebuilding()
        self._check_fingerprints()
        with fewer_collections():
            return self._catch_up(progress, max_batches)

    def rebuilding(self) -> list[str]:
        """The views marked as being built by a rebuild read straight through (by this
        version, with this gaming-day start): current again once it ends, outdated for good
        when it was interrupted."""
        self.setup()
        with self.store.transaction(commit=False) as tx:
            tracking = self._tracking(tx)
        return [v.name for v in self.views
                if str(tracking[v.name]["fingerprint"]).startswith("building;")
                and str(tracking[v.name]["fingerprint"]).endswith(";" + self.fingerprint(v))]

    def rebuild_running(self) -> AbstractContextManager[None]:
        """Held by a rebuild read straight through from before it marks the views until it
        has marked them current (:meth:`rebuild_alive`; :func:`rebuildlock.running`)."""
        return rebuildlock.running(self.store, self.app.settings)

    def rebuild_alive(self) -> bool:
        """Whether a rebuild of this store holds :meth:`rebuild_running` (a rebuild that died
        left its views marked as being built, and holds nothing)."""
        return rebuildlock.alive(self.store, self.app.settings)

    def check_rebuilding(self) -> list[str]:
        """The views a running rebuild has marked as being built (none: ``[]``); views a
        rebuild that no longer runs left so are ``projection_outdated``, saying so."""
        building = self.rebuilding()
        if building and not self.rebuild_alive():
            raise StateConflict(
                "projection_outdated",
                f"view(s) {', '.join(building)} were being built by a rebuild that was "
                "interrupted (it no longer runs): they must be rebuilt; run `ledger "
                "projections rebuild" + (f" --view {building[0]}`" if len(building) == 1
                                          else "`"), views=building)
        return building

    def _check_rebuilding(self) -> None:
        building = self.check_rebuilding()
        if building:
            raise StateConflict(
                "projection_rebuilding",
                f"view(s) {', '.join(building)} are being built by `ledger projections "
                "rebuild`: they cannot be updated until it ends (`update --follow` waits for "
                "it)", views=building)

    def _catch_up(self, progress: Progress | None, max_batches: int | None) -> int:
        done, batches = 0, 0
        while max_batches is None or batches < max_batches:
            with self.store.transaction(commit=False) as tx:
                positions = {n: int(r["position"]) for n, r in self._tracking(tx).items()}
            start = min(positions[v.name] for v in self.views)
            rows = decode.select(self.store, start, self.batch_size)
            if not rows:
                break
            items = self._decode_rows(rows)
            try:
                self._apply_screened(items, positions, int(rows[-1][0]))
            except _Moved:  # another runner went on; or a rebuild started over: outdated
                self._check_fingerprints()
                continue
            done += len(rows)
            batches += 1
            if progress is not None:
                progress(len(rows))
        return done

    def _check_fingerprints(self) -> None:
        with self.store.transaction(commit=False) as tx:
            tracking = self._tracking(tx)
        stale = [v.name for v in self.views
                 if tracking[v.name]["fingerprint"] != self.fingerprint(v)]
        if stale:
            reasons = {v.name: self._why_outdated(v, str(tracking[v.name]["fingerprint"]))
                       for v in self.views if v.name in stale}
            raise StateConflict(
                "projection_outdated",
                "view(s) " + "; ".join(f"{name} ({why})" for name, why in reasons.items())
                + ": run `ledger projections rebuild"
                + (f" --view {stale[0]}`" if len(stale) == 1 else "`"),
                views=stale, reasons=reasons,
            )

    def _decode_rows(self, rows: Sequence[decode.Row]) -> list[Item]:
        """The items of a page of the log (:func:`projections.views.decode.select`), screened."""
        events: list[tuple[int, Any, TableEvent]] = []
        decoded = self._decoder
        learn = self.directory.learn
        infos = self._infos
        for position, stored_id, version, topic, state in rows:
            try:
                event: TableEvent = decoded(stored_id, version, topic, state)
            except Exception as exc:
                raise LedgerError(
                    "undecodable_event",
                    f"event {stored_id} v{version} (log position "
                    f"{position}) cannot be read: {exc}; run `ledger audit verify`",
                    position=position,
                ) from None
            if TableOpened in ancestry(event.__class__):
                learn(event)
                infos.pop(stored_id, None)
            events.append((int(position), stored_id, event))
        missing = {stored_id for _, stored_id, _ in events if stored_id not in infos}
        if missing:
            directory = self.directory
            ids = {stored_id: decoded.stream_id(stored_id)[0] for stored_id in missing}
            directory.load(ids.values())
            for stored_id, uid in ids.items():
                info = directory.get(uid)
                if info is not None:
                    if len(infos) >= 100_000:
                        infos.clear()
                    infos[stored_id] = info
        items = []
        day_of = self._gaming_day
        for position, stored_id, event in events:
            info = infos.get(stored_id)
            if info is None:
                raise LedgerError(
                    "corrupt_stream",
                    f"stream {event.originator_id} has no TableOpened event; run "
                    "`ledger audit verify`", position=position,
                )
            moment = event.timestamp
            items.append(Item(position, event, info, day_of(moment, info.timezone),
                              iso(moment)))
        return self._screen(items)

    def _screen(self, items: list[Item]) -> list[Item]:
        """``items`` without the events that hold a number no view can store, each reported
        once (:meth:`_leave_out`; :mod:`projections.views.unholdable`)."""
        if self._left_out is None:  # what the views left out before, a total, say
            self._left_out = {r.position for r in unholdable.recorded(self.store)}
        rejected = unholdable.screen(items)
        if not rejected and not self._left_out:
            return items
        self._leave_out(rejected)
        left = {r.position for r in rejected} | self._left_out
        return [i for i in items if i.position not in left]

    def _leave_out(self, rejected: list[unholdable.Rejected]) -> None:
        """Report events left out of the views: the log, ``proj_rejects``, :attr:`rejected`."""
        fresh = [r for r in rejected if r.position not in self._reported]
        if not fresh:
            return
        try:
            unholdable.record(self.store, fresh)
        except Exception as exc:
            if not permission_denied(exc):
                raise
        for r in fresh:
            log.warning("event_left_out_of_views", table=r.table_code, version=r.version,
                        position=r.position, why=r.why)
            self._reported.add(r.position)
            if self._left_out is not None:
                self._left_out.add(r.position)
        self.rejected.extend(fresh)

    def left_out(self) -> list[unholdable.Rejected]:
        """Every event the views of this store left out (``proj_rejects``)."""
        return unholdable.recorded(self.store)

    def _apply_screened(self, items: list[Item], positions: dict[str, int], last: int) -> None:
        """:meth:`_apply`; when the store refuses a number all the same (a sum of many events
        past what a column holds, or a number past a 32-bit column), the first event with which
        the views cannot be written is found (by halves, each try rolled back), left out and
        reported like those :meth:`_screen` leaves out, and the batch written without it."""
        while True:
            try:
                self._apply(items, positions, last)
                return
            except Exception as exc:
                if not unholdable_error(exc) or not items:
                    raise
                culprit = self._first_unholdable(items, positions)
                if culprit is None:  # pragma: no cover - the whole batch failed, no prefix
                    raise unholdable.overflow(items, last, exc) from None
                item = items[culprit]
                self._leave_out([unholdable.Rejected(
                    item.code, item.version, item.position,
                    "with it a total of the views would be outside what their columns hold "
                    f"({type(exc).__name__})")])
                items = items[:culprit] + items[culprit + 1:]

    def _first_unholdable(self, items: list[Item], positions: dict[str, int]) -> int | None:
        """The index of the first item whose prefix of ``items`` the views cannot write."""
        def fits(n: int) -> bool:
            try:
                with self.store.transaction(commit=False) as tx:
                    self._write(tx, self.views, items[:n], positions)
            except Exception as exc:
                if unholdable_error(exc):
                    return False
                raise
            return True

        if fits(len(items)):
            return None
        low, high = 0, len(items)  # fits(low), not fits(high)
        while high - low > 1:
            middle = (low + high) // 2
            if fits(middle):
                low = middle
            else:
                high = middle
        return high - 1

    def _apply(self, items: list[Item], positions: dict[str, int], last: int) -> None:
        now = iso(datetime.now(UTC))
        with self.store.transaction() as tx:
            active = [v for v in self.views if positions[v.name] < last]
            for view in active:
                moved = tx.execute(
                    "UPDATE {proj_tracking} SET position = ?, updated_at = ? "
                    "WHERE view = ? AND position = ? AND fingerprint = ?",
                    (last, now, view.name, positions[view.name], self.fingerprint(view)),
                )
                if moved != 1:
                    raise _Moved(view.name)
            self._write(tx, active, items, positions)

    @staticmethod
    def _write(tx: Tx, views: list[View], items: list[Item],
               positions: dict[str, int] | None) -> None:
        """Let each view handle the items past its position (all: ``positions`` None), one
        view after the other (a view reads and buffers only its own rows)."""
        try:
            for view in views:
                view.begin(tx)
            for view in views:
                handle = view.handle
                if positions is None:
                    for item in items:
                        handle(item)
                    continue
                after = positions[view.name]
                for item in items:
                    if item.position > after:
                        handle(item)
            for view in views:
                view.flush()
        finally:
            for view in views:
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
