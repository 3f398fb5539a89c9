"""One store of table streams, opened: the handle every layer above reads through.

:class:`LedgerStore` is the eventsourcing application of one store (``LEDGER_DATABASE_URL``)
without any command: it opens the store (checking it first, :mod:`ledger.store.persistence`),
maps events with the pydantic mapper, loads a table through the trusted repository (the hash
chain checked on a cold load, snapshots signed with a key derived from the deck key,
:mod:`ledger.store.trust`), and serves reads of a table's state under a per-table lock with a
bounded wait (:mod:`ledger.store.availability`). The read side (views, audit, exports, reports)
works on a :class:`LedgerStore`; the application (:class:`ledger.app.application.LedgerApp`)
adds commands to it.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from typing import Any
from uuid import UUID

from eventsourcing.application import AggregateNotFoundError, Application
from eventsourcing.persistence import PersistenceError
from eventsourcing.utils import strtobool

from ledger.domain.actors import Actor
from ledger.domain.errors import LedgerError, NotFound
from ledger.settings import Settings, get_settings
from ledger.store import availability
from ledger.store.deckkeys import deck_key
from ledger.store.errors import store_error
from ledger.store.mapper import PydanticMapper
from ledger.store.persistence import prepare_store, store_env
from ledger.store.sidetables import holds_sealed_decks
from ledger.store.trust import ChainGuard, TrustedRepository, snapshot_key
from ledger.table.dealing import DeckKeeper
from ledger.table.decks import SealedDeckKeeper
from ledger.table.events import Table, TableSnapshot, table_id


class LedgerStore(Application[UUID]):
    """The tables of one store: opened, loaded through their hash chain, read under a lock."""

    name = "Ledger"
    """The library names the store's tables after it (``ledger_events``, ``ledger_snapshots``
    on PostgreSQL): every subclass keeps it, or it would open other tables."""
    snapshot_class = TableSnapshot

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.name != LedgerStore.name:
            raise TypeError(f"{cls.__name__} must keep the store's name {LedgerStore.name!r} "
                            "(its tables are named after it)")

    def __init__(
        self,
        settings: Settings | None = None,
        *,
        keeper: DeckKeeper | None = None,
        env: dict[str, str] | None = None,
        actor: Actor | None = None,
    ) -> None:
        self.settings = settings or get_settings()
        self.actor = actor or Actor.cli(self.settings.actor)
        """Who this process acts as when the caller names no one (the command line's
        ``--actor``/``LEDGER_ACTOR``/OS user): the events a command appends name it, and so
        does the access log for what a reading command shows."""
        merged = {
            **store_env(self.settings),
            **prepare_store(self.settings, self.name.lower()),
            "IS_SNAPSHOTTING_ENABLED": "y",
            # Fresh reads (DESIGN "Several processes, one truth"): a table served from the
            # cache is first brought forward with the events stored after its version (one
            # indexed query; another process may have written). ops/bench/fresh_reads.py.
            "AGGREGATE_CACHE_FASTFORWARD": "y",
            "DEEPCOPY_FROM_AGGREGATE_CACHE": "n",
            **(env or {}),
        }
        if self.settings.cache_size > 0:
            merged["AGGREGATE_CACHE_MAXSIZE"] = str(self.settings.cache_size)
        try:
            super().__init__(env=merged)
        except PersistenceError as exc:
            found = store_error(exc, self.settings)
            if found is None:
                raise
            raise found from exc
        self.keeper: DeckKeeper = keeper or SealedDeckKeeper(
            deck_key(self.settings, partial(holds_sealed_decks, self.recorder)))
        self.snapshot_key = snapshot_key(self.keeper)
        self.repository.key = self.snapshot_key
        self.repository.anchor_every = self.settings.chain_anchor_interval
        self._locks: dict[UUID, threading.Lock] = {}
        self._locks_guard = threading.Lock()

    def construct_mapper(self) -> PydanticMapper:
        return PydanticMapper()

    def construct_repository(self) -> TrustedRepository:
        """The library's repository, but a cold load trusts only what matches the chain."""
        maxsize = self.env.get(self.AGGREGATE_CACHE_MAXSIZE)
        repository = TrustedRepository(
            event_store=self.events, snapshot_store=self.snapshots,
            cache_maxsize=int(maxsize) if maxsize else None,
            fastforward=strtobool(self.env.get(self.AGGREGATE_CACHE_FASTFORWARD, "y")),
            deepcopy_from_cache=strtobool(self.env.get(self.DEEPCOPY_FROM_AGGREGATE_CACHE, "y")))
        repository.guard = ChainGuard(self.recorder, repository.anchor)
        return repository

    @property
    def repository(self) -> TrustedRepository:
        return self._repository  # type: ignore[return-value]

    # --- reading ------------------------------------------------------------------------

    def load(self, code: str) -> Table:
        """The table with every event committed before the call: from the cache, brought
        forward with the events stored since (by any process), or from the store."""
        tid = table_id(code)
        try:
            table: Table = self.repository.get(tid)
        except AggregateNotFoundError:
            raise NotFound("unknown_table", f"no table {code!r} is open", table=code) from None
        except BaseException:
            self._evict(tid)  # a fast-forward that failed half-way leaves no torn table
            raise
        return table

    @contextmanager
    def reading(self, code: str) -> Iterator[Table]:
        """Hold the table's lock while reading its state."""
        with self._table_lock(table_id(code)):
            yield self.load(code)

    @contextmanager
    def peeking(self, code: str) -> Iterator[Table]:
        """Like :meth:`reading`, but a table that was not in the cache is not left there: another
        process may write to it next, and an aggregate cached now would go stale, where a later
        command or read would otherwise load it fresh from the store."""
        tid = table_id(code)
        cache = self.repository.cache
        with self._table_lock(tid):
            was_cached = cache is None or _in_cache(cache, tid)
            try:
                yield self.load(code)
            finally:
                if not was_cached:
                    self._evict(tid)

    def _exists(self, tid: UUID) -> bool:
        if self.repository.cache is not None:
            try:
                self.repository.cache.get(tid)
                return True
            except KeyError:
                pass
        return bool(self.recorder.select_events(tid, limit=1))

    # --- plumbing -----------------------------------------------------------------------

    @contextmanager
    def _table_lock(self, tid: UUID) -> Iterator[None]:
        """The table's lock in this process; a request gives up waiting for it when its wait
        budget (LEDGER_CONNECT_TIMEOUT) is spent (ledger.store.availability)."""
        with availability.waiting_for(self._lock_of(tid), self.store_down, "the table"):
            yield

    def _lock_of(self, tid: UUID) -> threading.Lock:
        """The table's lock in this process (made on first use)."""
        lock = self._locks.get(tid)
        if lock is None:
            with self._locks_guard:
                lock = self._locks.setdefault(tid, threading.Lock())
        return lock

    def store_down(self) -> LedgerError | None:
        """``store_unavailable`` when the store was unreachable at the last attempt."""
        return availability.outage(self.recorder, self.settings)

    def _evict(self, tid: UUID) -> None:
        cache = self.repository.cache
        if cache is not None:
            with contextlib.suppress(KeyError):
                cache.get(tid, evict=True)


def _in_cache(cache: Any, tid: UUID) -> bool:
    try:
        cache.get(tid)
    except KeyError:
        return False
    return True
