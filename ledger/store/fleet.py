"""A fleet of stores: each table lives in the store the shard map (``LEDGER_SHARDS``) names.

:class:`StoreFleet` routes by table code: a read of a table's state, a hand's replay go to the
store that holds the table; what covers every table (the views, the audit, exports, reports, the
table list) fans out over :attr:`StoreFleet.apps` and merges (:mod:`projections.read.fleet`).
Records that belong to no table (API tokens, the register of principals, the access log) live in
the fleet's home store, the first shard of the map. The application's fleet
(:class:`ledger.app.fleet.Fleet`) is a :class:`StoreFleet` of applications that also routes
commands.

Without ``LEDGER_SHARDS`` there is no fleet: one store (:class:`~ledger.store.base.LedgerStore`)
of ``LEDGER_DATABASE_URL``, exactly as before; the helpers :func:`store_of`, :func:`stores_of`
and :func:`home_store_of` take either.

A table never moves silently. The map's patterns may not overlap (:mod:`ledger.store.shards`), so
adding a shard for new codes leaves every existing table where it is; when an edited map would
place an existing table on another store, the fleet refuses the table (``table_moved``) rather
than open a second one of the same code there or answer from the wrong store. Moving a table
means restoring its pattern; there is no silent or automatic move.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from typing import Any, Generic, TypeVar

from ledger.domain.actors import Actor
from ledger.domain.errors import LedgerError, NotFound, StateConflict
from ledger.settings import Settings, get_settings
from ledger.store.base import LedgerStore
from ledger.store.shards import Shard, ShardMap, parse_shards
from ledger.table.dealing import DeckKeeper
from ledger.table.events import Table, table_id

S = TypeVar("S", bound=LedgerStore)


class StoreFleet(Generic[S]):
    """The stores of every shard, routed by table code."""

    def __init__(self, settings: Settings, shards: ShardMap, apps: dict[str, S]) -> None:
        self.settings = settings
        self.map = shards
        self.apps = apps
        """Shard name -> its store (an application, in the application's fleet), in the map's
        order (the first is the home store)."""

    @staticmethod
    def open_each(settings: Settings, make: Callable[[Settings], S]
                  ) -> tuple[ShardMap, dict[str, S]]:
        """Check the map, then open every shard's store with ``make`` (all or none: a shard
        that cannot be opened closes those opened before it and its error ends the start)."""
        shards = parse_shards(settings.shards, settings)
        apps: dict[str, S] = {}
        with ExitStack() as undo:
            for shard in shards.shards:
                app = make(shards.settings_for(settings, shard))
                undo.callback(app.close)
                apps[shard.name] = app
            undo.pop_all()
        return shards, apps

    @property
    def home(self) -> S:
        """The first shard's store: tokens, principals and the access log live there."""
        return next(iter(self.apps.values()))

    @property
    def keeper(self) -> DeckKeeper:
        return self.home.keeper

    @property
    def actor(self) -> Actor:
        return self.home.actor

    def store_down(self) -> LedgerError | None:
        """``store_unavailable`` when any shard's store was unreachable at the last attempt."""
        for app in self.apps.values():
            found = app.store_down()
            if found is not None:
                return found
        return None

    def shard_of(self, code: str) -> Shard:
        return self.map.shard_of(code)

    def app_for(self, code: str) -> S:
        """The store (application) that holds table ``code`` (``no_shard`` if none may)."""
        return self.apps[self.map.shard_of(code).name]

    # --- table state, routed ---------------------------------------------------------------

    def load(self, code: str) -> Table:
        shard = self.shard_of(code)
        with self._moved_if_missing(code, shard):
            return self.apps[shard.name].load(code)

    @contextmanager
    def reading(self, code: str) -> Iterator[Table]:
        shard = self.shard_of(code)
        with self._moved_if_missing(code, shard), self.apps[shard.name].reading(code) as table:
            yield table

    @contextmanager
    def peeking(self, code: str) -> Iterator[Table]:
        shard = self.shard_of(code)
        with self._moved_if_missing(code, shard), self.apps[shard.name].peeking(code) as table:
            yield table

    def close(self) -> None:
        for app in self.apps.values():
            app.close()

    # --- a table never moves silently -------------------------------------------------------

    @contextmanager
    def table_guard(self, code: str) -> Iterator[None]:
        """Around a read of one table that goes straight to its store (a replay, ``audit
        hand``): ``unknown_table`` there becomes ``table_moved`` when another store holds it."""
        with self._moved_if_missing(code, self.shard_of(code)):
            yield

    @contextmanager
    def _moved_if_missing(self, code: str, shard: Shard) -> Iterator[None]:
        try:
            yield
        except NotFound as exc:
            if exc.code == "unknown_table":
                self._refuse_elsewhere(code, shard)
            raise

    def _refuse_elsewhere(self, code: str, shard: Shard) -> None:
        """``table_moved`` when a store other than ``shard``'s holds table ``code``."""
        tid = table_id(code)
        for name, app in self.apps.items():
            if name != shard.name and app.recorder.select_events(tid, limit=1):
                held = next(s for s in self.map.shards if s.name == name)
                raise StateConflict(
                    "table_moved",
                    f"table {code} is kept in shard {held.describe()}, but LEDGER_SHARDS now "
                    f"places it in shard {shard.describe()}: a table never moves; restore the "
                    f"pattern that placed it in {name!r} (`ledger shards` lists every "
                    "table out of place)",
                    table=code, held_by=name, mapped_to=shard.name)


Stores = LedgerStore | StoreFleet[Any]
"""What the read side holds: one store, or a fleet of them."""


def open_stores(settings: Settings | None = None, *, keeper: DeckKeeper | None = None,
                env: dict[str, str] | None = None, actor: Actor | None = None) -> Stores:
    """The fleet of ``LEDGER_SHARDS`` when it is set, else the one store of
    ``LEDGER_DATABASE_URL``: what the read side opens (no commands)."""
    settings = settings or get_settings()

    def make(chosen: Settings) -> LedgerStore:
        return LedgerStore(chosen, keeper=keeper, env=env, actor=actor)

    if settings.shards.strip():
        shards, stores = StoreFleet.open_each(settings, make)
        return StoreFleet(settings, shards, stores)
    return make(settings)


@contextmanager
def table_guard(ledger: Any, code: str | None) -> Iterator[None]:
    """:meth:`StoreFleet.table_guard` for a fleet and a table; nothing for one store, or for a
    command over every table (``code`` None)."""
    if isinstance(ledger, StoreFleet) and code is not None:
        with ledger.table_guard(code):
            yield
    else:
        yield


def store_of(ledger: Any, code: str) -> LedgerStore:
    """The store that holds table ``code``."""
    store: LedgerStore = ledger.app_for(code) if isinstance(ledger, StoreFleet) else ledger
    return store


def stores_of(ledger: Any) -> list[LedgerStore]:
    """Every store: the fleet's shards in the map's order, or the one."""
    if isinstance(ledger, StoreFleet):
        return list(ledger.apps.values())
    return [ledger]


def home_store_of(ledger: Any) -> LedgerStore:
    """The store that keeps what belongs to no table (tokens, principals, the access log)."""
    store: LedgerStore = ledger.home if isinstance(ledger, StoreFleet) else ledger
    return store


def log_head(ledger: Any) -> int:
    """Events in the log of every store (the sum of each store's last notification id)."""
    return sum(int(app.recorder.max_notification_id() or 0) for app in stores_of(ledger))


def not_across_shards(what: str) -> LedgerError:
    """What works on one store at a time and not yet over a fleet (``LEDGER_SHARDS``)."""
    return LedgerError(
        "not_across_shards",
        f"{what} works on one store at a time, not yet over the shards of LEDGER_SHARDS: run it "
        "for each shard's store (LEDGER_SHARDS unset, LEDGER_DATABASE_URL set to the shard's URL)")
