"""A fleet of stores: each table lives in the store the shard map (``LEDGER_SHARDS``) names.

:class:`Fleet` routes by table code: a command, a read of a table's state, a hand replay go to
the one ledger application whose store holds the table. What covers every table (the views, the
audit, exports, reports, the table list, metrics) fans out over :attr:`Fleet.apps` and merges
(:mod:`projections.fleet`). Records that belong to no table (API tokens, the register of
principals, the access log) live in the fleet's home store, the first shard of the map.

Without ``LEDGER_SHARDS`` there is no fleet: :func:`open_ledger` gives the one
:class:`~ledger.application.LedgerApp` of ``LEDGER_DATABASE_URL`` exactly as before, and the
helpers :func:`app_of`, :func:`apps_of` and :func:`home_of` take either.

A table never moves silently. The map's patterns may not overlap (:mod:`ledger.store.shards`), so
adding a shard for new codes leaves every existing table where it is; when an edited map would
place an existing table on another store, the fleet refuses the table (``table_moved``) rather
than open a second one of the same code there or answer from the wrong store. Moving a table
means restoring its pattern; there is no silent or automatic move.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from typing import Any

from ledger.application import CommandResult, LedgerApp
from ledger.domain.actors import Actor
from ledger.domain.commands import Command, OpenTable
from ledger.domain.errors import LedgerError, NotFound, StateConflict
from ledger.principals import PrincipalStore
from ledger.settings import Settings, get_settings
from ledger.store.shards import Shard, ShardMap, parse_shards
from ledger.table.dealing import DeckKeeper
from ledger.table.events import Table, table_id


class Fleet:
    """The ledger applications of every shard, routed by table code."""

    def __init__(self, settings: Settings, shards: ShardMap, apps: dict[str, LedgerApp]) -> None:
        self.settings = settings
        self.map = shards
        self.apps = apps
        """Shard name -> its application, in the map's order (the first is the home store)."""

    @classmethod
    def open(cls, settings: Settings, *, keeper: DeckKeeper | None = None,
             allow_seeded: bool = False, env: dict[str, str] | None = None,
             actor: Actor | None = None) -> Fleet:
        """Check the map, then open every shard's store (all or none: a shard that cannot be
        opened closes those opened before it and its error ends the start). Every shard checks
        approvers against the home store's register of principals."""
        shards = parse_shards(settings.shards, settings)
        apps: dict[str, LedgerApp] = {}
        with ExitStack() as undo:
            for shard in shards.shards:
                app = LedgerApp(shards.settings_for(settings, shard), keeper=keeper,
                                env=env, allow_seeded=allow_seeded, actor=actor)
                undo.callback(app.close)
                apps[shard.name] = app
            undo.pop_all()
        home = next(iter(apps.values()))
        for app in apps.values():
            app.principals = home.principals
        return cls(settings, shards, apps)

    @property
    def home(self) -> LedgerApp:
        """The first shard's application: tokens, principals and the access log live there."""
        return next(iter(self.apps.values()))

    @property
    def keeper(self) -> DeckKeeper:
        return self.home.keeper

    @property
    def actor(self) -> Actor:
        return self.home.actor

    @property
    def principals(self) -> PrincipalStore:
        """The fleet's one register of principals, in the home store."""
        return self.home.principals

    def store_down(self) -> LedgerError | None:
        """``store_unavailable`` when any shard's store was unreachable at the last attempt."""
        for app in self.apps.values():
            found = app.store_down()
            if found is not None:
                return found
        return None

    def shard_of(self, code: str) -> Shard:
        return self.map.shard_of(code)

    def app_for(self, code: str) -> LedgerApp:
        """The application whose store holds table ``code`` (``no_shard`` if none may)."""
        return self.apps[self.map.shard_of(code).name]

    # --- commands and table state, routed ---------------------------------------------------

    def execute(self, command: Command, *, actor: Actor | None = None) -> CommandResult:
        """The command, executed in its table's store. Opening a table that another store
        already holds is ``table_moved`` (never a second table of the same code)."""
        shard = self.shard_of(command.table)
        if isinstance(command, OpenTable):
            self._refuse_elsewhere(command.table, shard)
        with self._moved_if_missing(command.table, shard):
            return self.apps[shard.name].execute(command, actor=actor)

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


Ledger = LedgerApp | Fleet
"""What the CLI and the API hold: one application, or a fleet of them."""


def open_ledger(settings: Settings | None = None, *, keeper: DeckKeeper | None = None,
                allow_seeded: bool = False, actor: Actor | None = None) -> Ledger:
    """The fleet of ``LEDGER_SHARDS`` when it is set, else the one application of
    ``LEDGER_DATABASE_URL`` (exactly as without shards)."""
    settings = settings or get_settings()
    if settings.shards.strip():
        return Fleet.open(settings, keeper=keeper, allow_seeded=allow_seeded, actor=actor)
    return LedgerApp(settings, keeper=keeper, allow_seeded=allow_seeded, actor=actor)


@contextmanager
def table_guard(ledger: Any, code: str | None) -> Iterator[None]:
    """:meth:`Fleet.table_guard` for a fleet and a table; nothing for one application, or for a
    command over every table (``code`` None)."""
    if isinstance(ledger, Fleet) and code is not None:
        with ledger.table_guard(code):
            yield
    else:
        yield


def app_of(ledger: Any, code: str) -> LedgerApp:
    """The application that holds table ``code``."""
    if isinstance(ledger, Fleet):
        return ledger.app_for(code)
    app: LedgerApp = ledger
    return app


def apps_of(ledger: Any) -> list[LedgerApp]:
    """Every application: the fleet's shards in the map's order, or the one."""
    if isinstance(ledger, Fleet):
        return list(ledger.apps.values())
    return [ledger]


def home_of(ledger: Any) -> LedgerApp:
    """The application whose store keeps what belongs to no table (tokens, principals)."""
    if isinstance(ledger, Fleet):
        return ledger.home
    app: LedgerApp = ledger
    return app


def log_head(ledger: Any) -> int:
    """Events in the log of every store (the sum of each store's last notification id)."""
    return sum(int(app.recorder.max_notification_id() or 0) for app in apps_of(ledger))


def not_across_shards(what: str) -> LedgerError:
    """What works on one store at a time and not yet over a fleet (``LEDGER_SHARDS``)."""
    return LedgerError(
        "not_across_shards",
        f"{what} works on one store at a time, not yet over the shards of LEDGER_SHARDS: run it "
        "for each shard's store (LEDGER_SHARDS unset, LEDGER_DATABASE_URL set to the shard's URL)")
