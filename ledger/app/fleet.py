"""The application's fleet: the ledger applications of every shard, routed by table code.

:class:`Fleet` routes by table code: a command, a read of a table's state, a hand replay go to
the one ledger application whose store holds the table. What covers every table (the views, the
audit, exports, reports, the table list, metrics) fans out over :attr:`Fleet.apps` and merges
(:mod:`projections.read.fleet`). Records that belong to no table (API tokens, the register of
principals, the access log) live in the fleet's home store, the first shard of the map.

Without ``LEDGER_SHARDS`` there is no fleet: :func:`open_ledger` gives the one
:class:`~ledger.app.application.LedgerApp` of ``LEDGER_DATABASE_URL`` exactly as before, and the
helpers :func:`app_of`, :func:`apps_of` and :func:`home_of` take either.

A table never moves silently. The map's patterns may not overlap (:mod:`ledger.store.shards`), so
adding a shard for new codes leaves every existing table where it is; when an edited map would
place an existing table on another store, the fleet refuses the table (``table_moved``) rather
than open a second one of the same code there or answer from the wrong store. Moving a table
means restoring its pattern; there is no silent or automatic move.
"""

from __future__ import annotations

from typing import Any

from ledger.access.principals import PrincipalStore
from ledger.app.application import CommandResult, LedgerApp
from ledger.domain.actors import Actor
from ledger.domain.approval import Approval
from ledger.domain.commands import Command, OpenTable
from ledger.settings import Settings, get_settings
from ledger.store.fleet import StoreFleet, home_store_of, store_of, stores_of
from ledger.table.dealing import DeckKeeper


class Fleet(StoreFleet[LedgerApp]):
    """The ledger applications of every shard, routed by table code (commands too)."""

    @classmethod
    def open(cls, settings: Settings, *, keeper: DeckKeeper | None = None,
             allow_seeded: bool = False, env: dict[str, str] | None = None,
             actor: Actor | None = None) -> Fleet:
        """Check the map, then open every shard's store (a shard whose store cannot be opened
        is left down and asked again when needed; the home store must open). Every shard
        checks approvers against the home store's register of principals."""
        def make(chosen: Settings) -> LedgerApp:
            return LedgerApp(chosen, keeper=keeper, env=env, allow_seeded=allow_seeded,
                             actor=actor)

        shards, apps, down, identities = StoreFleet.open_each(settings, make)
        home = next(iter(apps.values()))
        for app in apps.values():
            app.principals = home.principals
        return cls(settings, shards, apps, down=down, make=make, identities=identities)

    def _joined(self, app: LedgerApp) -> None:
        app.principals = self.home.principals

    @property
    def principals(self) -> PrincipalStore:
        """The fleet's one register of principals, in the home store."""
        return self.home.principals

    def execute(self, command: Command, *, actor: Actor | None = None,
                approval: Approval | None = None) -> CommandResult:
        """The command, executed in its table's store. Opening a table that another store
        already holds is ``table_moved`` (never a second table of the same code)."""
        shard = self.shard_of(command.table)
        if isinstance(command, OpenTable):
            self._refuse_elsewhere(command.table, shard)
        with self._moved_if_missing(command.table, shard):
            return self.live(shard.name).execute(command, actor=actor, approval=approval)


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


def app_of(ledger: Any, code: str) -> LedgerApp:
    """The application that holds table ``code``."""
    app: LedgerApp = store_of(ledger, code)  # type: ignore[assignment]
    return app


def apps_of(ledger: Any) -> list[LedgerApp]:
    """Every application: the fleet's shards in the map's order, or the one."""
    apps: list[LedgerApp] = stores_of(ledger)  # type: ignore[assignment]
    return apps


def home_of(ledger: Any) -> LedgerApp:
    """The application whose store keeps what belongs to no table (tokens, principals)."""
    app: LedgerApp = home_store_of(ledger)  # type: ignore[assignment]
    return app
