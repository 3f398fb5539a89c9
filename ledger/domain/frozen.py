"""Cheap copies of frozen pydantic values, and values derived from them kept with them.

The table's state machine folds every record into a new frozen hand state (``Game.evolve``):
a seat's wager added, a card dealt, an action appended. Those values come from records that
were validated when they were decided or read, so validating them again, or copying a model
through the general ``model_copy`` machinery, is work without purpose, and the audit does it
for every event of the store. ``replaced(model, **changes)`` makes exactly the model
``model.model_copy(update=changes)`` makes (same fields in the same order, the same fields set)
without that machinery; like it, it does not validate the changes.

:class:`Kept` keeps a value derived from a frozen model with the model itself.
"""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel
from pydantic_core import PydanticUndefined

M = TypeVar("M", bound=BaseModel)

_set = object.__setattr__
_new = object.__new__


def replaced(model: M, /, **changes: Any) -> M:
    """``model.model_copy(update=changes)``: a shallow copy with some fields replaced."""
    new = _new(model.__class__)
    _set(new, "__dict__", {**model.__dict__, **changes})
    _set(new, "__pydantic_fields_set__", model.__pydantic_fields_set__ | changes.keys())
    extra = model.__pydantic_extra__
    _set(new, "__pydantic_extra__", None if extra is None else dict(extra))
    private = model.__pydantic_private__
    _set(new, "__pydantic_private__", None if private is None else {
        k: v for k, v in private.items() if v is not PydanticUndefined})
    return new


class Kept:
    """A value derived from a frozen model and kept with it, in one of its ``__slots__``.

    A slot is no field: it is neither validated, dumped, compared nor copied (``replaced``
    and ``model_copy`` make a model without it), so a model holds only what was derived from
    its own fields. Read through the slot itself: a model's ``__getattr__`` (pydantic's, for
    private attributes) is slow to say a slot is empty.
    """

    __slots__ = ("_slot",)

    def __init__(self, cls: type[BaseModel], name: str) -> None:
        self._slot = cls.__dict__[name]

    def get(self, model: BaseModel) -> Any:
        """The value kept, or None."""
        try:
            return self._slot.__get__(model, None)
        except AttributeError:
            return None

    def put(self, model: BaseModel, value: Any) -> None:
        self._slot.__set__(model, value)
