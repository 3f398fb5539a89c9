"""Cheap copies and constructions of frozen pydantic values from values already valid.

The table's state machine folds every record into a new frozen hand state (``Game.evolve``):
a seat's wager added, a card dealt, an action appended. Those values come from records that
were validated when they were decided or read, so validating them again, or copying a model
through the general ``model_copy`` machinery, is work without purpose, and the audit does it
for every event of the store. These two helpers make exactly the models pydantic would make
(same fields in the same order, the same fields set) without that work:

``replaced(model, **changes)`` is ``model.model_copy(update=changes)``;
``built(cls, **values)`` is ``cls(**values)`` for values already of the fields' types (defaults
filled in as pydantic fills them; only for models whose defaults are plain values).

Neither validates: use them only with values taken from valid models or computed by the rules.
"""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel
from pydantic_core import PydanticUndefined

M = TypeVar("M", bound=BaseModel)

_set = object.__setattr__
_new = object.__new__
_MISSING: Any = object()
_TEMPLATES: dict[type[BaseModel], tuple[dict[str, Any], frozenset[str]]] = {}


def replaced(model: M, /, **changes: Any) -> M:
    """``model.model_copy(update=changes)``: a shallow copy with some fields replaced."""
    new = _new(model.__class__)
    _set(new, "__dict__", {**model.__dict__, **changes})
    _set(new, "__pydantic_fields_set__", model.__pydantic_fields_set__ | changes.keys())
    _set(new, "__pydantic_extra__", None)
    private = model.__pydantic_private__
    _set(new, "__pydantic_private__", None if private is None else dict(private))
    return new


def built(cls: type[M], /, **values: Any) -> M:
    """``cls(**values)`` for values already of the fields' types, without validating them."""
    known = _TEMPLATES.get(cls)
    template, required = known if known is not None else _template(cls)
    fields = template.copy()
    fields.update(values)
    if len(fields) != len(template) or not required <= values.keys():
        raise TypeError(f"{cls.__name__} needs exactly its fields, got {sorted(values)}")
    new = cls.__new__(cls)
    _set(new, "__dict__", fields)
    _set(new, "__pydantic_fields_set__", set(values))
    _set(new, "__pydantic_extra__", None)
    _set(new, "__pydantic_private__", None)
    return new


def _template(cls: type[BaseModel]) -> tuple[dict[str, Any], frozenset[str]]:
    """Every field of ``cls`` in order with its default (``_MISSING`` when it has none), and
    the names of the fields without one."""
    if cls.__private_attributes__ or cls.model_config.get("extra") == "allow":
        raise TypeError(f"{cls.__name__}: built() makes models without private or extra fields")
    template: dict[str, Any] = {}
    for name, info in cls.model_fields.items():
        if info.default_factory is not None:
            raise TypeError(f"{cls.__name__}.{name} has a default factory: use the model")
        template[name] = _MISSING if info.default is PydanticUndefined else info.default
    required = frozenset(name for name, value in template.items() if value is _MISSING)
    _TEMPLATES[cls] = template, required
    return template, required


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
