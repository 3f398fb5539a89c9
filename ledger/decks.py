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
import os
import secrets
from collections.abc import Sequence
from pathlib import Path

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from ledger.cards import DECK_SIZE, new_salt, shuffled_deck
from ledger.errors import LedgerError
from ledger.settings import Settings

_AAD = b"table-ledger deck v1"
_PREFIX = "aesgcm1:"


class SealedDeckKeeper:
    """Shuffles, seals and unseals decks with one 256-bit key."""

    def __init__(self, key: bytes) -> None:
        if len(key) != 32:
            raise ValueError("the deck key must be 32 bytes")
        self._aead = AESGCM(key)

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


def deck_key(settings: Settings) -> bytes:
    """The configured key, or the key file's (created with a random key when missing)."""
    if settings.deck_key is not None:
        try:
            key = bytes.fromhex(settings.deck_key.get_secret_value())
        except ValueError:
            raise LedgerError("invalid_deck_key", "LEDGER_DECK_KEY must be 64 hex digits") from None
        if len(key) != 32:
            raise LedgerError("invalid_deck_key", "LEDGER_DECK_KEY must be 64 hex digits")
        return key
    path = Path(settings.deck_key_file)
    if not path.exists():
        _create_key_file(path)
    try:
        return bytes.fromhex(path.read_text().strip())
    except ValueError:
        raise LedgerError("invalid_deck_key", f"{path} does not hold 64 hex digits") from None


def _create_key_file(path: Path) -> None:
    """Write a new random key, readable by the owner only; another process may win the race."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as fh:
        fh.write(secrets.token_hex(32) + "\n")
    try:
        os.link(temp, path)  # atomic; fails if the file appeared meanwhile
    except FileExistsError:
        pass
    finally:
        os.unlink(temp)
