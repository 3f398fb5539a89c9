"""The read side of a fleet: the views of every shard's store, read as one.

Each shard keeps the views of its own tables in its own database (the projections are caught
up per store, exactly once per view, as on one store). :class:`FleetReadModel` answers the
queries of :class:`~projections.read.queries.ReadModel` over all of them: a query about one table
goes to the store that holds it; a query over every table asks each store and merges (every
table lives in exactly one store, so the rows of two stores never overlap) in the order the
single-store query gives, paging after the merge. :class:`FleetRunner` catches every store's
views up. :func:`read_model` and :func:`runner` give the plain single-store objects when the
ledger is one application, so an unsharded ledger reads exactly as before.

Reports that run their own SQL reach a table's rows with :func:`for_table` and the rows of
every table with :func:`each` (one model per store), never through ``model.store`` of a fleet
(which is the home store's, kept for what belongs to no table, such as cached paytable
mathematics).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import replace
from typing import Any

from ledger.store.fleet import StoreFleet
from projections.db import Row
from projections.read.queries import MAX_LIMIT, ReadModel
from projections.views.runner import Progress, Runner, ViewStatus

Key = Callable[[Row], Any]


def by(*columns: str) -> Key:
    """The sort key of rows ordered by ``columns``."""
    return lambda row: tuple(row[c] for c in columns)


class FleetReadModel(ReadModel):
    """The queries of :class:`ReadModel` over every store of a fleet (see the module)."""

    def __init__(self, fleet: StoreFleet[Any], *, ensure_schema: bool = True) -> None:
        self.fleet = fleet
        self.ensure_schema = ensure_schema
        self._models: dict[str, ReadModel] = {}
        self._frozen = False
        self._join()
        self.store = self._models[fleet.map.shards[0].name].store

    def _join(self) -> None:
        """A model for every shard whose store is open (a shard that was down joins when its
        store answers again)."""
        if self._frozen:
            return
        for name, app in list(self.fleet.opened.items()):
            if name not in self._models:
                self._models[name] = ReadModel(app, ensure_schema=self.ensure_schema)

    @property
    def models(self) -> dict[str, ReadModel]:
        """One model per shard, in the map's order: ``store_unavailable`` naming the shards
        that are down (an answer over every table never leaves one out silently)."""
        if not self._frozen:
            self.fleet.revive()
            if self.fleet.down:
                raise self.fleet.not_covered()
            self._join()
        return {s.name: self._models[s.name] for s in self.fleet.map.shards}

    @models.setter
    def models(self, value: dict[str, ReadModel]) -> None:
        self._models = value
        self._frozen = True

    def live_models(self) -> list[ReadModel]:
        """The models of the shards whose stores are open."""
        self._join()
        return [self._models[s.name] for s in self.fleet.map.shards
                if s.name in self._models and s.name not in self.fleet.down]

    @contextmanager
    def snapshot(self) -> Iterator[ReadModel]:
        """These queries, each store read in one snapshot of its own for the duration of the
        block (an export's files agree with each other store by store; the stores are separate
        databases, so there is no snapshot common to all: a table lives in one store, so every
        table's rows are consistent)."""
        with ExitStack() as stack:
            view = copy.copy(self)
            view.models = {name: stack.enter_context(model.snapshot())
                           for name, model in self.models.items()}
            view.store = next(iter(view.models.values())).store
            yield view

    def model_for(self, code: str) -> ReadModel:
        """The read model of the store that holds table ``code`` (``no_shard`` if none may;
        ``store_unavailable`` naming the shard while its store is down)."""
        name = self.fleet.shard_of(code).name
        if not self._frozen:
            self.fleet.live(name)
            self._join()
        return self._models[name]

    # --- one table: its store ---------------------------------------------------------------

    def table(self, code: str) -> Row:
        return self.model_for(code).table(code)

    def table_configs(self, code: str) -> list[Row]:
        return self.model_for(code).table_configs(code)

    def config(self, code: str, config_version: int) -> dict[str, Any]:
        return self.model_for(code).config(code, config_version)

    def hand(self, table: str, hand_no: int, *, show_hidden: bool = False) -> Row:
        return self.model_for(table).hand(table, hand_no, show_hidden=show_hidden)

    def movements(self, table: str, account: str, *, limit: int = 100, offset: int = 0,
                  after_version: int = 0) -> list[Row]:
        return self.model_for(table).movements(table, account, limit=limit, offset=offset,
                                               after_version=after_version)

    def balances_at(self, table: str, version: int) -> dict[str, int]:
        return self.model_for(table).balances_at(table, version)

    # --- every table: each store, merged ------------------------------------------------------

    def tables(self) -> list[Row]:
        return self._all_of(lambda m: m.tables(), by("table_code"))

    def gaming_days(self, table: str | None = None) -> list[str]:
        if table is not None:
            return self.model_for(table).gaming_days(table)
        days = {d for m in self.models.values() for d in m.gaming_days()}
        return sorted(days, reverse=True)

    def hands(self, *, table: str | None = None, day: str | None = None,
              game: str | None = None, status: str | None = None, limit: int = 100,
              offset: int = 0) -> list[Row]:
        return self._paged("hands", by("table_code", "hand_no"), table, limit, offset,
                           day=day, game=game, status=status)

    def count_hands(self, *, table: str | None = None, day: str | None = None,
                    status: str | None = None) -> int:
        if table is not None:
            return self.model_for(table).count_hands(table=table, day=day, status=status)
        return sum(m.count_hands(day=day, status=status) for m in self.models.values())

    def hands_full(self, *, day: str, table: str | None = None) -> list[Row]:
        if table is not None:
            return self.model_for(table).hands_full(day=day, table=table)
        return self._all_of(lambda m: m.hands_full(day=day), by("table_code", "hand_no"))

    def balances(self, *, table: str | None = None, prefix: str | None = None,
                 nonzero: bool = False) -> list[Row]:
        if table is not None:
            return self.model_for(table).balances(table=table, prefix=prefix, nonzero=nonzero)
        return self._all_of(lambda m: m.balances(prefix=prefix, nonzero=nonzero),
                            by("table_code", "account"))

    def player_totals(self) -> list[Row]:
        merged: dict[str, Row] = {}
        for model in self.models.values():
            for row in model.player_totals():
                found = merged.setdefault(row["player"], {"player": row["player"],
                                                          "tables": 0, "balance_minor": 0})
                found["tables"] += row["tables"]
                found["balance_minor"] += row["balance_minor"]
        return [merged[p] for p in sorted(merged)]

    def bankroll_day(self, day: str, table: str | None = None) -> list[Row]:
        if table is not None:
            return self.model_for(table).bankroll_day(day, table)
        return self._all_of(lambda m: m.bankroll_day(day), by("table_code", "account"))

    def coverage(self, *, table: str | None = None, day: str | None = None,
                 limit: int = 100, offset: int = 0) -> list[Row]:
        return self._paged("coverage", by("table_code", "hand_no"), table, limit, offset,
                           day=day)

    def rake_totals(self, *, day: str | None = None, table: str | None = None) -> list[Row]:
        if table is not None:
            return self.model_for(table).rake_totals(day=day, table=table)
        return self._all_of(lambda m: m.rake_totals(day=day),
                            by("gaming_day", "table_code", "method"))

    def rake_lines(self, *, table: str | None = None, day: str | None = None,
                   limit: int = 1_000, offset: int = 0) -> list[Row]:
        return self._paged("rake_lines", by("table_code", "hand_no", "seq"), table, limit,
                           offset, day=day)

    def jackpot_meters(self) -> list[Row]:
        return self._all_of(lambda m: m.jackpot_meters(), by("table_code"))

    def jackpot_moves(self, *, table: str | None = None, day: str | None = None,
                      kind: str | None = None, limit: int = 1_000,
                      offset: int = 0) -> list[Row]:
        return self._paged("jackpot_moves", by("table_code", "version", "seq"), table, limit,
                           offset, day=day, kind=kind)

    def accounting(self, *, day: str | None = None, table: str | None = None) -> list[Row]:
        if table is not None:
            return self.model_for(table).accounting(day=day, table=table)
        return self._all_of(lambda m: m.accounting(day=day), by("gaming_day", "table_code"))

    def corrections(self, *, table: str | None = None, day: str | None = None,
                    hand: int | None = None, kind: str | None = None, limit: int = 100,
                    offset: int = 0) -> list[Row]:
        return self._paged("corrections", by("table_code", "version"), table, limit, offset,
                           day=day, hand=hand, kind=kind)

    def dp_results(self, *, day: str | None = None, table: str | None = None) -> list[Row]:
        if table is not None:
            return self.model_for(table).dp_results(day=day, table=table)
        return self._all_of(lambda m: m.dp_results(day=day),
                            by("gaming_day", "table_code", "player"))

    def _code(self, table: str | None) -> str | None:
        return None if table is None else str(self.table(table)["table_code"])

    def _all(self, sql: str, params: tuple[Any, ...] = ()) -> list[Row]:
        raise TypeError("a fleet's rows are read through each store's model, never one SQL "
                        "statement on the home store")

    # --- merging -------------------------------------------------------------------------------

    def _all_of(self, query: Callable[[ReadModel], list[Row]], key: Key) -> list[Row]:
        rows = [row for model in self.models.values() for row in query(model)]
        rows.sort(key=key)
        return rows

    def _paged(self, method: str, key: Key, table: str | None, limit: int, offset: int,
               **filters: Any) -> list[Row]:
        """``limit`` rows from ``offset`` of the merged order: the first ``offset + limit``
        rows of each store (in pages the store accepts), merged, then the page cut."""
        limit, offset = max(0, min(int(limit), MAX_LIMIT)), max(0, int(offset))
        if table is not None:
            query = getattr(self.model_for(table), method)
            return list(query(table=table, limit=limit, offset=offset, **filters))
        return paged_merge([getattr(m, method) for m in self.models.values()], key, limit,
                           offset, **filters)


def paged_merge(queries: Sequence[Callable[..., list[Row]]], key: Key, limit: int,
                offset: int, **filters: Any) -> list[Row]:
    """Rows ``offset .. offset + limit`` of the union of ``queries`` (each ordered by
    ``key`` and paged with ``limit``/``offset`` keywords), in ``key`` order."""
    want = offset + limit
    rows: list[Row] = []
    for query in queries:
        got: list[Row] = []
        while len(got) < want:
            size = min(MAX_LIMIT, want - len(got))
            page = query(limit=size, offset=len(got), **filters)
            got.extend(page)
            if len(page) < size:
                break
        rows.extend(got)
    rows.sort(key=key)
    return rows[offset:want]


class FleetRunner:
    """The views of every store of a fleet, caught up store by store."""

    def __init__(self, fleet: StoreFleet[Any], views: Sequence[str] | None = None, *,
                 batch_size: int = 1_000) -> None:
        self.fleet = fleet
        self._views = views
        self._batch_size = batch_size
        self._runners: dict[str, Runner] = {}
        self._join()
        self.views = self._runners[fleet.map.shards[0].name].views

    def _join(self) -> None:
        for name, app in list(self.fleet.opened.items()):
            if name not in self._runners:
                self._runners[name] = Runner(app, self._views, batch_size=self._batch_size)

    @property
    def runners(self) -> dict[str, Runner]:
        """One runner per shard, in the map's order: ``store_unavailable`` naming the shards
        that are down (status, update and rebuild say which shards they could not cover)."""
        self.fleet.revive()
        if self.fleet.down:
            raise self.fleet.not_covered()
        self._join()
        return {s.name: self._runners[s.name] for s in self.fleet.map.shards}

    def live(self) -> dict[str, Runner]:
        """The runners of the shards whose stores are open (the API catches these up before a
        read; a read of a shard that is down is refused where it is routed)."""
        self.fleet.revive()
        self._join()
        return {s.name: self._runners[s.name] for s in self.fleet.map.shards
                if s.name in self._runners and s.name not in self.fleet.down}

    def catch_up_live(self) -> int:
        return sum(r.catch_up() for r in self.live().values())

    def status_live(self) -> list[ViewStatus]:
        return [replace(s, shard=name) for name, runner in self.live().items()
                for s in runner.status()]

    def setup(self) -> None:
        for runner in self.runners.values():
            runner.setup()

    def head(self) -> int:
        return sum(r.head() for r in self.runners.values())

    def status(self) -> list[ViewStatus]:
        """Each store's views, named with their shard."""
        return [replace(s, shard=name) for name, runner in self.runners.items()
                for s in runner.status()]

    def lag(self) -> int:
        return sum(r.lag() for r in self.runners.values())

    def reset(self) -> None:
        for runner in self.runners.values():
            runner.reset()

    def rebuild(self, progress: Progress | None = None, max_batches: int | None = None,
                jobs: int = 1) -> int:
        """Each store's views built again (``jobs`` worker processes per store, one store
        after another)."""
        return sum(r.rebuild(progress, max_batches, jobs=jobs) for r in self.runners.values())

    def check_rebuilding(self) -> list[str]:
        """The views a running rebuild has marked as being built, in any store
        (:meth:`Runner.check_rebuilding`)."""
        return list(dict.fromkeys(name for r in self.runners.values()
                                  for name in r.check_rebuilding()))

    def catch_up(self, progress: Progress | None = None, max_batches: int | None = None) -> int:
        return sum(r.catch_up(progress, max_batches) for r in self.runners.values())

    @property
    def rejected(self) -> list[Any]:
        """Events each store's views left out in these runs (``projections.views.unholdable``)."""
        return [r for runner in self.runners.values() for r in runner.rejected]

    def left_out(self) -> list[Any]:
        """Every event each store's views left out."""
        return [r for runner in self.runners.values() for r in runner.left_out()]


def read_model(ledger: Any, *, ensure_schema: bool = True) -> ReadModel:
    """The read model of a ledger: one store's, or the fleet's over every store."""
    if isinstance(ledger, StoreFleet):
        return FleetReadModel(ledger, ensure_schema=ensure_schema)
    return ReadModel(ledger, ensure_schema=ensure_schema)


def runner(ledger: Any, views: Sequence[str] | None = None) -> Runner | FleetRunner:
    """The projection runner of a ledger: one store's, or the fleet's over every store."""
    if isinstance(ledger, StoreFleet):
        return FleetRunner(ledger, views)
    return Runner(ledger, views)


def for_table(model: ReadModel, code: str) -> ReadModel:
    """The read model whose store holds table ``code``."""
    return model.model_for(code) if isinstance(model, FleetReadModel) else model


def each(model: ReadModel) -> list[ReadModel]:
    """One read model per store (one, unless ``model`` reads a fleet)."""
    return list(model.models.values()) if isinstance(model, FleetReadModel) else [model]



def fetch_all(model: ReadModel, sql: str, params: Sequence[Any], key: Key) -> list[Row]:
    """A report's own query run on every store, the rows merged in ``key`` order (the order
    its ``ORDER BY`` gives; for a query whose rows each belong to one table)."""
    models = each(model)
    if len(models) == 1:
        return models[0].store.fetchall(sql, params)
    rows = [row for m in models for row in m.store.fetchall(sql, params)]
    rows.sort(key=key)
    return rows


def placement(fleet: StoreFleet[Any]) -> list[Row]:
    """Every table of every store: ``table``, ``held_by`` (the shard whose store holds it) and
    ``mapped_to`` (the shard the map names for its code, None when no pattern matches);
    ``in_place`` when the two agree. A table out of place is refused (``table_moved``) until
    the map is restored."""
    from ledger.domain.errors import LedgerError
    from projections.audit.reader import consistent_read
    from projections.audit.seal import table_infos

    rows = []
    for name, app in fleet.apps.items():
        with consistent_read(app) as reader:
            codes = [info.code for info in table_infos(app, reader)]
        for code in codes:
            try:
                mapped: str | None = fleet.shard_of(code).name
            except LedgerError:
                mapped = None
            rows.append({"table": code, "held_by": name, "mapped_to": mapped,
                         "in_place": mapped == name})
    rows.sort(key=by("table", "held_by"))
    return rows
