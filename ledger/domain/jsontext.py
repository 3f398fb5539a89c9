"""JSON read strictly: an object that names one key twice is refused, never "last one wins".

``{"seat": 1, "player": "ann", "seat": 2}`` is ambiguous: Python's parser keeps the last value,
another reader (a proxy, a log shipper, an auditor's tool) may keep the first, so two parties
would act on different commands from the same bytes. Every JSON the ledger takes from outside
(HTTP bodies, configuration and key files the command line reads) goes through :func:`loads`,
which raises :class:`DuplicateKey` (code ``duplicate_key``, naming the key and where it is).
"""

from __future__ import annotations

import json
from typing import Any

from ledger.domain.errors import InvalidInput


class DuplicateKey(InvalidInput, ValueError):
    """A JSON object names one key twice (code ``duplicate_key``)."""

    default_code = "duplicate_key"

    def __init__(self, key: str, where: str = "") -> None:
        shown = key if len(key) <= 80 else key[:77] + "..."
        place = f" in {where}" if where else ""
        super().__init__("duplicate_key", f"the JSON{place} names the key {shown!r} more than "
                         "once; send each key once", key=shown)


def _refuse_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for key, value in pairs:
        if key in found:
            raise DuplicateKey(key)
        found[key] = value
    return found


def loads(text: str | bytes, where: str = "") -> Any:
    """``json.loads(text)``, refusing an object with a key named twice (:class:`DuplicateKey`,
    a ``ValueError`` too, so callers that catch unreadable JSON catch it as well unless they
    catch it first). Other errors are ``json.JSONDecodeError`` as with ``json.loads``."""
    try:
        return json.loads(text, object_pairs_hook=_refuse_duplicates)
    except DuplicateKey as exc:
        if where:
            raise DuplicateKey(str(exc.details["key"]), where) from None
        raise
