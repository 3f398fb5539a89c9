"""The application and the read side open the same tables: the library names a store's tables
after the application class's ``name``, so every class built on the store handle keeps it."""

from __future__ import annotations

import pytest

from ledger.app.application import LedgerApp
from ledger.store.base import LedgerStore


def test_the_application_keeps_the_stores_name() -> None:
    assert LedgerApp.name == LedgerStore.name == "Ledger"


def test_a_subclass_that_renames_the_store_is_refused_when_defined() -> None:
    with pytest.raises(TypeError, match="must keep the store's name"):
        type("Renamed", (LedgerStore,), {})

    class Kept(LedgerStore):
        name = "Ledger"

    assert Kept.name == "Ledger"
