"""The collector during a command's start (``ledger.startup``)."""

from __future__ import annotations

import gc
import subprocess
import sys

from ledger import startup


def test_outside_a_command_nothing_is_held_or_frozen() -> None:
    frozen = gc.get_freeze_count()
    with startup.held():
        assert gc.isenabled()
    assert gc.isenabled()
    assert gc.get_freeze_count() == frozen


def test_in_a_command_imports_are_held_then_frozen_and_collection_resumes() -> None:
    code = """
import gc
from ledger import startup
startup.command_process()
with startup.held():
    assert not gc.isenabled()
    import json  # noqa
assert gc.isenabled()
assert gc.get_freeze_count() > 0
try:
    with startup.held():
        raise KeyError
except KeyError:
    pass
assert gc.isenabled()
gc.disable()
with startup.held():
    pass
assert not gc.isenabled()
print("ok")
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "ok"
