"""Ed25519 signing keys for the daily seals.

The private key signs (``ledger audit seal``); the public key is all anyone needs to check a
seal (``ledger audit verify --seal FILE --public-key KEY``), so whoever verifies cannot forge.

- ``ledger keys create`` writes a new private key to a file only its owner may read (mode
  600; an existing file is never overwritten) and prints the public key and its key id;
- the private key is taken from ``LEDGER_SIGNING_KEY`` (the 64 hex digits of its seed) or
  from the file ``LEDGER_SIGNING_KEY_FILE`` (default: ``signing.key`` beside a SQLite store,
  ``var/signing.key`` otherwise);
- a public key is written ``ed25519:<64 hex digits>``; its key id is the first 16 hex digits
  of the SHA-256 of its 32 bytes, and every seal names the key id it was signed with.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from ledger.domain.errors import InvalidInput, LedgerError, StateConflict

PREFIX = "ed25519:"
PRIVATE_PREFIX = "ed25519-private:"


def default_key_file(settings: Any) -> Path:
    """Where the signing key lives when ``LEDGER_SIGNING_KEY_FILE`` is not set."""
    configured = getattr(settings, "signing_key_file", None)
    if configured is not None:
        return Path(configured)
    url = str(settings.database_url).strip()
    if urlparse(url).scheme == "sqlite":
        from ledger.store.urls import sqlite_path

        path = sqlite_path(url)
        if path != ":memory:":
            return Path(path).parent / "signing.key"
    return Path("var/signing.key")


def public_text(key: Ed25519PublicKey) -> str:
    return PREFIX + public_bytes(key).hex()


def public_bytes(key: Ed25519PublicKey) -> bytes:
    return key.public_bytes(Encoding.Raw, PublicFormat.Raw)


def key_id(key: Ed25519PublicKey) -> str:
    return hashlib.sha256(public_bytes(key)).hexdigest()[:16]


def create_key(path: Path) -> Ed25519PrivateKey:
    """A new private key written to ``path`` (mode 600); ``key_exists`` if the file exists."""
    key = Ed25519PrivateKey.generate()
    seed = key.private_bytes_raw().hex()
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        raise StateConflict("key_exists", f"{path} exists already: a signing key is never "
                            "overwritten (the seals it signed name its key id); choose "
                            "another file", path=str(path)) from None
    except OSError as exc:
        raise InvalidInput("output_not_writable", f"cannot write {path}: "
                           f"{exc.strerror or exc}", path=str(path)) from None
    with os.fdopen(fd, "w", encoding="ascii") as out:
        out.write(PRIVATE_PREFIX + seed + "\n")
    return key


def signing_key(settings: Any) -> Ed25519PrivateKey:
    """The private key from ``LEDGER_SIGNING_KEY`` or its file; ``signing_key_missing``."""
    secret = getattr(settings, "signing_key", None)
    if secret is not None and secret.get_secret_value().strip():
        return _private(secret.get_secret_value(), "LEDGER_SIGNING_KEY")
    path = default_key_file(settings)
    try:
        text = path.read_text(encoding="ascii")
    except FileNotFoundError:
        raise LedgerError("signing_key_missing", f"no signing key: set LEDGER_SIGNING_KEY or "
                          f"LEDGER_SIGNING_KEY_FILE (looked for {path}); make one with "
                          "`ledger keys create`", path=str(path)) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise LedgerError("signing_key_unreadable", f"cannot read the signing key {path}: "
                          f"{getattr(exc, 'strerror', None) or exc}", path=str(path)) from None
    return _private(text, str(path))


def _private(text: str, source: str) -> Ed25519PrivateKey:
    value = text.strip().removeprefix(PRIVATE_PREFIX)
    try:
        raw = bytes.fromhex(value)
        if len(raw) != 32:
            raise ValueError(len(raw))
        return Ed25519PrivateKey.from_private_bytes(raw)
    except ValueError:
        raise LedgerError("invalid_signing_key", f"{source} is not an Ed25519 private key "
                          "(64 hex digits, as `ledger keys create` writes)") from None


def public_key(value: str) -> Ed25519PublicKey:
    """A public key from its text (``ed25519:<hex>``) or from a file holding that text."""
    text = value.strip()
    if not text.startswith(PREFIX) and len(text) != 64:
        path = Path(text)
        try:
            text = path.read_text(encoding="ascii").strip()
        except (OSError, UnicodeDecodeError):
            raise InvalidInput("invalid_public_key", f"{value!r} is neither a public key "
                               f"({PREFIX}<64 hex digits>) nor a readable file holding one"
                               ) from None
    try:
        raw = bytes.fromhex(text.removeprefix(PREFIX))
        if len(raw) != 32:
            raise ValueError(len(raw))
        return Ed25519PublicKey.from_public_bytes(raw)
    except ValueError:
        raise InvalidInput("invalid_public_key", f"not an Ed25519 public key: write "
                           f"{PREFIX}<64 hex digits> (as `ledger keys create` prints)"
                           ) from None


def sign(key: Ed25519PrivateKey, body: bytes) -> str:
    return key.sign(body).hex()


def valid(key: Ed25519PublicKey, body: bytes, signature: str) -> bool:
    try:
        key.verify(bytes.fromhex(signature), body)
    except (InvalidSignature, ValueError):
        return False
    return True
