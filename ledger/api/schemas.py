"""Typed shapes of the API's documents, so that a client can be generated from ``/openapi.json``.

- :data:`GameConfig`: a table's configuration, one schema per game, discriminated by ``game``
  (the game's own configuration model: what the rules validate is what the document says).
- :data:`HandState`: the hand in progress, one schema per game, discriminated by ``game``.
- :data:`Event`: one event of a command's answer, one schema per event type, discriminated by
  ``type`` (the record's fields after the envelope; the sealed deck is never in it).

Cards are text (``"As"``); in every answer a card the reader may not see is ``null`` with the
shape kept (:mod:`ledger.api.visibility`), so the document writes every card as a string or
null (:func:`nullable_cards`). The answers carrying cards are sent as they are (not validated
again on the way out); the fuzz tests check every answer against this document.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, create_model

from ledger.api.visibility import CARD_PATTERN
from ledger.domain.actors import Actor
from ledger.games.registry import GAMES
from ledger.table.events import EVENT_TYPES

_CONFIGS = tuple(game.config_type for game in GAMES.values())
_HANDS = tuple(game.hand_type for game in GAMES.values())

if TYPE_CHECKING:  # the unions are built from the registry at import time
    GameConfig = Any
    HandState = Any
else:
    GameConfig = Annotated[Union[_CONFIGS], Field(discriminator="game")]  # noqa: UP007
    """A table's configuration: the model of its game, chosen by ``game``."""
    HandState = Annotated[Union[_HANDS], Field(discriminator="game")]  # noqa: UP007
    """The hand in progress: the model of its game, chosen by ``game``."""

_HIDDEN_EVENT_FIELDS = {"sealed_deck"}


@cache
def event_model(name: str) -> type[BaseModel]:
    """The answer's shape of one event type: ``type``, ``version``, the envelope the reader may
    see, then the record's fields."""
    record: type[BaseModel] = EVENT_TYPES[name].__bases__[1]  # the record it carries
    fields: dict[str, Any] = {
        "type": (Literal[name], Field(description="The event's type.")),
        "version": (int, Field(description="The table's version after this event.")),
        "timestamp": (str, Field(description="When it was recorded (ISO-8601 UTC).")),
        "command_id": (str | None, None),
        "actor": (Actor | None, Field(default=None, description=(
            "Who sent the command: token:<id> with the token's role and label, or cli:<name>; "
            "null in events recorded before actors existed."))),
        "prev_hash": (str | None, Field(default=None, description=(
            "SHA-256 chain digest of the previous event; only for auditors."))),
    }
    for key, info in record.model_fields.items():
        if key not in _HIDDEN_EVENT_FIELDS:
            fields[key] = (info.annotation, info)
    model: type[BaseModel] = create_model(
        f"{name}Event", __config__=ConfigDict(extra="forbid"),
        __doc__=(record.__doc__ or name).strip().splitlines()[0], **fields)
    return model


if TYPE_CHECKING:
    Event = Any
else:
    Event = Annotated[
        Union[tuple(event_model(name) for name in sorted(EVENT_TYPES))],  # noqa: UP007
        Field(discriminator="type"),
    ]
    """One event of a command's answer."""


def nullable_cards(node: Any) -> Any:
    """The OpenAPI document with every card schema written "a card, or null when hidden"."""
    if isinstance(node, dict):
        if node.get("pattern") == CARD_PATTERN and node.get("type") == "string":
            return {"anyOf": [dict(node), {"type": "null"}],
                    "description": "A card (`As`), or null for a card this reader may not see."}
        return {k: nullable_cards(v) for k, v in node.items()}
    if isinstance(node, list):
        return [nullable_cards(v) for v in node]
    return node
