"""The garbage collector while a ``ledger`` command starts.

Importing modules makes objects that live as long as the process: modules, classes, their
validators. The collector walks every one of them again at each full collection, and a short
command (one hand's replay or audit) spent about a fifth of its CPU there, more on PostgreSQL,
whose driver adds some 160 modules. :func:`held` holds collections off while such imports run
and then sets what they made aside (``gc.freeze``), so that later collections skip it.

Only in a ``ledger`` command's process (:func:`command_process`, called by ``ledger.cli.main``):
frozen objects are never collected, which suits one process's start, not a library's caller
or a test run that opens many stores.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

_command = False


def command_process() -> None:
    """Mark this process as one ``ledger`` command (its start-up imports are held)."""
    global _command
    _command = True


@contextmanager
def held() -> Iterator[None]:
    """No automatic collection while this runs, then what exists is frozen, in a command's
    process with the collector enabled; nothing otherwise."""
    if not (_command and gc.isenabled()):
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        gc.enable()
