"""The audit and the views find an event's kind by a set lookup on its classes
(``projections.views.base.ancestry``) and its fields by ``field_of``: the same answers as
``isinstance`` and ``getattr`` give, for every record and event class, a subclass made after
the fact included, so no check is skipped for an event of an unexpected class."""

from __future__ import annotations

import inspect
from typing import Any

from pydantic import BaseModel

from ledger.domain import records as r
from ledger.table import events as t
from projections.views.base import ancestry, field_of

CLASSES = sorted({c for m in (r, t) for _, c in inspect.getmembers(m, inspect.isclass)
                  if issubclass(c, BaseModel)}, key=lambda c: c.__qualname__)
NAMES = ("hand_no", "transfers", "hand", "amount", "deck", "salt", "seat", "fixes", "chips")


def test_a_set_lookup_is_isinstance_for_every_record_and_event_class() -> None:
    assert len(CLASSES) > 40
    for cls in CLASSES:
        for other in CLASSES:
            assert (other in ancestry(cls)) == issubclass(cls, other), (cls, other)


def test_a_subclass_made_after_the_fact_is_found_as_its_base() -> None:
    class Later(t.EVENT_FOR[r.HandCorrected]):  # type: ignore[misc,valid-type]
        pass

    assert r.HandCorrected in ancestry(Later) and t.TableEvent in ancestry(Later)
    assert r.HAND_ENDINGS[0] not in ancestry(Later)


def test_field_of_is_getattr_for_every_field_name_of_every_class() -> None:
    missing = object()
    for cls in CLASSES:
        if cls is BaseModel:
            continue
        fields: dict[str, Any] = cls.model_fields
        values: dict[str, Any] = {name: f"value of {name}" for name in fields}
        event = cls.model_construct(**values)
        for name in (*NAMES, *fields):
            assert field_of(event, name, missing) == getattr(event, name, missing), (cls, name)
