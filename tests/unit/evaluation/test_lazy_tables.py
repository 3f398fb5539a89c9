"""The evaluation tables made at their first use are the tables made at import before: as a
sequence (what the paytable mathematics hands to numpy), and under threads looking up a fresh
table at once (the HTTP service serves from threads)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ledger.evaluation import _high_tables, _masks
from ledger.evaluation._masks import MASK_COUNT, LazyTable

TABLES: dict[str, tuple[LazyTable[Any], Callable[[], Sequence[Any]]]] = {
    "DESCENDING": (_masks.DESCENDING, _masks._descending),
    "RUNS": (_masks.RUNS, _masks._runs),
    "MASK_KEY": (_high_tables.MASK_KEY, _high_tables._mask_keys),
    "_STRAIGHT": (_high_tables._STRAIGHT, _high_tables._straight_values),
    "FLUSH_STRENGTH": (_high_tables.FLUSH_STRENGTH, _high_tables._flush_strengths),
}


def test_a_lazy_table_is_whole_as_the_tuple_it_was() -> None:
    for name, (table, build) in TABLES.items():
        assert table.whole() == tuple(build()), name
        assert LazyTable(build).whole() == tuple(build()), name  # before any lookup
    runs = np.array(_masks.RUNS.whole(), dtype=np.int64)
    assert runs.shape == (MASK_COUNT,)
    assert [int(v) for v in runs] == list(_masks._runs())


def test_threads_first_using_a_table_at_once_read_the_same_entries() -> None:
    expected = tuple(_masks._runs())
    for _ in range(20):
        table: LazyTable[int] = LazyTable(_masks._runs)
        start = threading.Barrier(8)
        seen: list[object] = []

        def read(table: LazyTable[int] = table, start: threading.Barrier = start,
                 seen: list[object] = seen) -> None:
            start.wait()
            try:
                seen.append(tuple(table[m] for m in range(MASK_COUNT - 1, -1, -1))[::-1])
            except Exception as exc:  # a KeyError from a table half made
                seen.append(exc)

        threads = [threading.Thread(target=read) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert seen == [expected] * 8
