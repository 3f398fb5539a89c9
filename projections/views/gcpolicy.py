"""The garbage collector while the views are built: fewer collections of the youngest generation
while a batch's short-lived objects come and go, and none at all between the writes of a
rebuild read straight through (it collects after each write instead)."""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

GC_FIRST_GENERATION = 20_000
"""Objects allocated between collections of the youngest generation while views are built
(Python's default is 700). A batch of a thousand events makes tens of thousands of objects,
nearly all freed by reference counting; with the default, collecting them took about a fifth
of a rebuild's CPU (each older collection walks every object of the process). Cycles are still
collected, a little later."""


FULL_COLLECTION_EVERY = 16
"""Writes of a rebuild read straight through between two collections of every generation (the
others collect the two younger ones)."""


_gc_lock = threading.Lock()


_gc_users = 0


_gc_saved: tuple[int, int, int] | None = None


_gc_by_hand = 0


_gc_was_enabled = False


@contextmanager
def collections_by_hand() -> Iterator[None]:
    """No automatic collection while this runs (in any thread; it is enabled again, if it was,
    when the last one ends): a rebuild read straight through collects after each write of the
    views' rows (:meth:`Runner.replay_streams`). The rows it keeps and the events it has not
    written yet live from one batch to the next, and the youngest generation's collections
    walked them again and again (a tenth of the rebuild's CPU); what reference counting does
    not free (cycles: a few objects a thousand events) waits for the next write."""
    global _gc_by_hand, _gc_was_enabled
    with _gc_lock:
        if _gc_by_hand == 0:
            _gc_was_enabled = gc.isenabled()
            gc.disable()
        _gc_by_hand += 1
    try:
        yield
    finally:
        with _gc_lock:
            _gc_by_hand -= 1
            if _gc_by_hand == 0 and _gc_was_enabled:
                gc.enable()


@contextmanager
def fewer_collections() -> Iterator[None]:
    """Collect the youngest generation every :data:`GC_FIRST_GENERATION` objects while this
    runs (in any thread; the thresholds before are restored when the last one ends)."""
    global _gc_users, _gc_saved
    with _gc_lock:
        if _gc_users == 0:
            saved = gc.get_threshold()
            if 0 < saved[0] < GC_FIRST_GENERATION:
                _gc_saved = saved
                gc.set_threshold(GC_FIRST_GENERATION, *saved[1:])
        _gc_users += 1
    try:
        yield
    finally:
        with _gc_lock:
            _gc_users -= 1
            if _gc_users == 0 and _gc_saved is not None:
                gc.set_threshold(*_gc_saved)
                _gc_saved = None
