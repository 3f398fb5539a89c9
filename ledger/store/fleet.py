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

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from typing import Any, Generic, TypeVar

from ledger.domain.actors import Actor
from ledger.domain.errors import InvalidInput, LedgerError, NotFound, StateConflict
from ledger.settings import Settings, get_settings
from ledger.store.base import LedgerStore
from ledger.store.errors import StoreError
from ledger.store.identity import store_identity
from ledger.store.shards import Shard, ShardMap, parse_shards
from ledger.store.urls import redact_url
from ledger.table.dealing import DeckKeeper
from ledger.table.events import Table, table_id

S = TypeVar("S", bound=LedgerStore)

RETRY_S = 1.0
"""A shard that is down is asked again at most this often (seconds)."""


def one_store_each(shards: ShardMap, apps: dict[str, Any]) -> dict[str, str]:
    """The identity of each open shard's store (:mod:`ledger.store.identity`); two shards
    whose stores are one (whatever the spelling of their URLs) are ``invalid_shards`` naming
    both: every table of that store would be counted twice."""
    found: dict[str, str] = {}
    by_name = {s.name: s for s in shards.shards}
    for name, app in apps.items():
        identity = store_identity(app.recorder)
        twin = next((other for other, seen in found.items() if seen == identity), None)
        if twin is not None:
            raise InvalidInput(
                "invalid_shards",
                f"LEDGER_SHARDS: shards {twin!r} ({redact_url(by_name[twin].url)}) and "
                f"{name!r} ({redact_url(by_name[name].url)}) are one store (the same "
                f"identity, {identity}), although their URLs differ: every table of it would "
                "be counted twice; give each shard a store of its own",
                shards=[twin, name], identity=identity)
        found[name] = identity
    return found


def _shard_down(shard: Shard, exc: LedgerError) -> LedgerError:
    return StoreError(exc.code, f"shard {shard.name}: {exc.message}",
                      **{**exc.details, "shard": shard.name})


class StoreFleet(Generic[S]):
    """The stores of every shard, routed by table code; a shard that is down is asked again
    (at most every :data:`RETRY_S` seconds) until it answers, without a restart."""

    def __init__(self, settings: Settings, shards: ShardMap, apps: dict[str, S], *,
                 down: dict[str, LedgerError] | None = None,
                 make: Callable[[Settings], S] | None = None,
                 identities: dict[str, str] | None = None) -> None:
        self.settings = settings
        self.map = shards
        self.opened = apps
        """Shard name -> its store (an application, in the application's fleet), for every
        shard whose store is open."""
        self.down: dict[str, LedgerError] = dict(down or {})
        """Shard name -> why its store could not be opened (asked again when needed)."""
        self.identities = dict(identities or {})
        """Shard name -> the identity of its store (:mod:`ledger.store.identity`)."""
        self._make = make
        self._asked: dict[str, float] = {}
        self._guard = threading.Lock()

    @staticmethod
    def open_each(settings: Settings, make: Callable[[Settings], S]
                  ) -> tuple[ShardMap, dict[str, S], dict[str, LedgerError], dict[str, str]]:
        """Check the map, then open every shard's store with ``make``. A shard whose store
        cannot be opened (a :class:`StoreError`: unreachable, unreadable, ...) is left down
        and the others are served; the home store (the first) must open, or its error ends
        the start. Two shards that are one store end it with ``invalid_shards``."""
        shards = parse_shards(settings.shards, settings)
        apps: dict[str, S] = {}
        down: dict[str, LedgerError] = {}
        with ExitStack() as undo:
            for index, shard in enumerate(shards.shards):
                try:
                    app = make(shards.settings_for(settings, shard))
                except StoreError as exc:
                    if index == 0:
                        raise
                    down[shard.name] = _shard_down(shard, exc)
                    continue
                undo.callback(app.close)
                apps[shard.name] = app
            identities = one_store_each(shards, apps)
            undo.pop_all()
        return shards, apps, down, identities

    @property
    def apps(self) -> dict[str, S]:
        """Every shard's store, in the map's order (the first is the home store): what covers
        every table fans out over these. While a shard is down this is ``store_unavailable``
        naming it: an answer over every table never silently leaves a shard out."""
        self.revive()
        if self.down:
            raise self.not_covered()
        return {s.name: self.opened[s.name] for s in self.map.shards}

    def not_covered(self) -> LedgerError:
        """``store_unavailable`` naming every shard that is down."""
        names = [s.name for s in self.map.shards if s.name in self.down]
        reasons = "; ".join(f"{name}: {self.down[name].message}" for name in names)
        return StoreError(
            "store_unavailable",
            f"shard{'s' if len(names) > 1 else ''} {', '.join(names)} cannot be reached, so "
            f"this cannot cover {'their' if len(names) > 1 else 'its'} tables ({reasons}); "
            "the other shards are served; try again when it is back (no restart is needed)",
            shards=names)

    def revive(self, name: str | None = None) -> None:
        """Ask the store of each down shard (or of ``name``) again, at most every
        :data:`RETRY_S` seconds: a store that answers joins the fleet (after its identity is
        checked against the others')."""
        if not self.down or self._make is None:
            return
        with self._guard:
            for shard in self.map.shards:
                if shard.name not in self.down or (name is not None and shard.name != name):
                    continue
                now = time.monotonic()
                if now < self._asked.get(shard.name, 0.0):
                    continue
                self._asked[shard.name] = now + RETRY_S
                try:
                    app = self._make(self.map.settings_for(self.settings, shard))
                except StoreError as exc:
                    self.down[shard.name] = _shard_down(shard, exc)
                    continue
                try:
                    found = one_store_each(self.map, {**self.opened, shard.name: app})
                except LedgerError as exc:
                    app.close()
                    self.down[shard.name] = exc
                    continue
                self._joined(app)
                self.opened[shard.name] = app
                self.identities = found
                del self.down[shard.name]

    def _joined(self, app: S) -> None:
        """A store opened after the start, before it is served (the application's fleet gives
        it the home store's register of principals)."""

    def live(self, name: str) -> S:
        """The store of shard ``name``; ``store_unavailable`` naming the shard while down."""
        if name in self.down:
            self.revive(name)
            if name in self.down:
                found = self.down[name]
                if found.code == "store_unavailable":
                    raise found
                raise StoreError("store_unavailable", found.message, shard=name)
        return self.opened[name]

    def states(self) -> dict[str, str]:
        """Shard name -> ``ready`` (opened) or ``down``, in the map's order (``/ready`` asks
        each opened store too)."""
        self.revive()
        return {s.name: "down" if s.name in self.down else "ready" for s in self.map.shards}

    @property
    def home(self) -> S:
        """The first shard's store: tokens, principals and the access log live there."""
        return self.opened[self.map.shards[0].name]

    @property
    def keeper(self) -> DeckKeeper:
        return self.home.keeper

    @property
    def actor(self) -> Actor:
        return self.home.actor

    def store_down(self) -> LedgerError | None:
        """``store_unavailable`` when any open shard's store was unreachable at the last
        attempt."""
        for app in list(self.opened.values()):
            found = app.store_down()
            if found is not None:
                return found
        return None

    def shard_of(self, code: str) -> Shard:
        return self.map.shard_of(code)

    def app_for(self, code: str) -> S:
        """The store (application) that holds table ``code`` (``no_shard`` if none may;
        ``store_unavailable`` naming the shard while its store is down)."""
        return self.live(self.map.shard_of(code).name)

    # --- table state, routed ---------------------------------------------------------------

    def load(self, code: str) -> Table:
        shard = self.shard_of(code)
        with self._moved_if_missing(code, shard):
            return self.live(shard.name).load(code)

    @contextmanager
    def reading(self, code: str) -> Iterator[Table]:
        shard = self.shard_of(code)
        with self._moved_if_missing(code, shard), self.live(shard.name).reading(code) as table:
            yield table

    @contextmanager
    def peeking(self, code: str) -> Iterator[Table]:
        shard = self.shard_of(code)
        with self._moved_if_missing(code, shard), self.live(shard.name).peeking(code) as table:
            yield table

    def close(self) -> None:
        for app in self.opened.values():
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
        for name, app in list(self.opened.items()):  # a shard that is down cannot say
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
        shards, stores, down, identities = StoreFleet.open_each(settings, make)
        return StoreFleet(settings, shards, stores, down=down, make=make, identities=identities)
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
