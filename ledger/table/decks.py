"""Sealed decks for the ``rng`` card source (COM-8).

At the start of a hand the ledger shuffles with the operating system's secure generator and
records two things in the HandStarted event: the SHA-256 commitment to the deck order (anyone
may read it) and the deck sealed with AES-GCM under the table service's deck key (nobody
without the key can read it, so no read interface can expose undealt cards). When the hand
ends, the deck and its salt are revealed in the closing event and the audit recomputes the
commitment and checks every card dealt against the deck order.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
from collections.abc import Sequence
from functools import cached_property
from typing import TYPE_CHECKING

from ledger.domain.cards import DECK_SIZE, new_salt, shuffled_deck
from ledger.domain.errors import LedgerError

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM


_AAD = b"table-ledger deck v1"
_PREFIX = "aesgcm1:"


class SealedDeckKeeper:
    """Shuffles, seals and unseals decks with one 256-bit key."""

    def __init__(self, key: bytes) -> None:
        if len(key) != 32:
            raise ValueError("the deck key must be 32 bytes")
        self._key = key

    @cached_property
    def _aead(self) -> AESGCM:
        """The cipher, made when a deck is first sealed or opened (cryptography is not imported
        by a command that does neither)."""
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM

        return AESGCM(self._key)

    def derived_key(self, purpose: bytes) -> bytes:
        """A key for another purpose (signing the table snapshots), derived from the deck key:
        like it, never in the database."""
        return hmac.new(self._key, b"table-ledger " + purpose, hashlib.sha256).digest()

    def new_deck(self) -> tuple[tuple[int, ...], str]:
        return shuffled_deck(), new_salt()

    def seal(self, deck: Sequence[int], salt: str) -> str:
        nonce = os.urandom(12)
        plain = salt.encode() + b":" + bytes(deck)
        sealed = self._aead.encrypt(nonce, plain, _AAD)
        return _PREFIX + base64.b64encode(nonce + sealed).decode()

    def unseal(self, sealed: str) -> tuple[tuple[int, ...], str]:
        if not sealed.startswith(_PREFIX):
            raise LedgerError("deck_unreadable", "the sealed deck is not in a known format")
        blob = base64.b64decode(sealed[len(_PREFIX) :])
        from cryptography.exceptions import InvalidTag

        try:
            plain = self._aead.decrypt(blob[:12], blob[12:], _AAD)
        except InvalidTag:
            raise LedgerError(
                "deck_key_mismatch",
                "the sealed deck cannot be opened with this deck key (LEDGER_DECK_KEY)",
            ) from None
        salt, _, body = plain.partition(b":")
        deck = tuple(body)
        if len(deck) != DECK_SIZE:
            raise LedgerError("deck_unreadable", "the sealed deck does not hold 52 cards")
        return deck, salt.decode()


UNSEALABLE = frozenset({"deck_key_mismatch", "deck_unreadable"})
"""Codes of a sealed deck the key in use cannot open (a hand so stuck is voided with approval,
COM-5: :meth:`ledger.table.state.TableState._void`)."""
