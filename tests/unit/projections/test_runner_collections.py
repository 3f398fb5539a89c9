"""The runner collects the youngest generation less often while it builds views, and puts the
thresholds back afterwards, also when runs overlap (threads of the API) or one fails."""

from __future__ import annotations

import gc

import pytest

from projections.views.gcpolicy import GC_FIRST_GENERATION, fewer_collections


def test_thresholds_are_raised_while_views_are_built_and_restored_after() -> None:
    before = gc.get_threshold()
    gc.set_threshold(700, *before[1:])
    try:
        with fewer_collections():
            assert gc.get_threshold()[0] == GC_FIRST_GENERATION
            with fewer_collections():  # another runner at the same time
                assert gc.get_threshold()[0] == GC_FIRST_GENERATION
            assert gc.get_threshold()[0] == GC_FIRST_GENERATION  # the first is still running
        assert gc.get_threshold() == (700, *before[1:])
        with pytest.raises(RuntimeError), fewer_collections():
            raise RuntimeError("a failed batch")
        assert gc.get_threshold() == (700, *before[1:])
    finally:
        gc.set_threshold(*before)


def test_collection_switched_off_or_rarer_already_is_left_alone() -> None:
    before = gc.get_threshold()
    try:
        for first in (0, GC_FIRST_GENERATION * 2):
            gc.set_threshold(first, *before[1:])
            with fewer_collections():
                assert gc.get_threshold()[0] == first
            assert gc.get_threshold()[0] == first
    finally:
        gc.set_threshold(*before)
