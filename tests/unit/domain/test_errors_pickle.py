"""A refusal raised in a worker process (a rebuild's, ``projections.views.rebuild``) reaches the
parent as itself: pickled and read back with its code, message and details, so the operator
reads ``undecodable_event`` or ``projection_rebuilt_meanwhile``, not a broken process pool."""

from __future__ import annotations

import pickle

from ledger.domain.errors import LedgerError, StateConflict
from ledger.store.errors import StoreError


def test_a_ledger_error_is_read_back_as_it_was_pickled() -> None:
    for error in (StateConflict("projection_rebuilt_meanwhile", "stopped", views=["hands"]),
                  LedgerError("undecodable_event", "cannot be read", position=7),
                  StoreError("store_unavailable", "down")):
        back = pickle.loads(pickle.dumps(error))
        assert type(back) is type(error)
        assert (back.code, back.message, back.details, str(back)) == \
            (error.code, error.message, error.details, str(error))
