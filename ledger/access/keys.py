"""A principal's own key: the Ed25519 key pair every floor person, supervisor and admin holds.

The private key goes to the person as a file only its owner may read (mode 600; never
overwritten), optionally protected by a passphrase; the public key goes to the register of
principals (:mod:`ledger.access.register`). The file is one JSON object::

    {"format": "table-ledger principal key 1", "principal": "sup-anna",
     "public_key": "ed25519:<64 hex>", "key_id": "<16 hex>",
     "private_key": "ed25519-private:<64 hex>"}

or, with a passphrase, ``"encrypted"`` instead of ``"private_key"``: the 32-byte seed sealed
with AES-256-GCM under a key derived from the passphrase by PBKDF2-HMAC-SHA256 (600,000
iterations, a random 16-byte salt; the public key text is the associated data). Both are
available in a browser's WebCrypto, so the console can open the same file and sign there
without the key ever leaving the browser (``ledger/api/console/static/approve.js``).

A public key is written ``ed25519:<64 hex digits>``; its key id is the first 16 hex digits of
the SHA-256 of its 32 bytes.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ledger.domain import jsontext
from ledger.domain.errors import InvalidInput, StateConflict

if TYPE_CHECKING:  # imported where used: replaying a hand needs no cryptography
    from cryptography.hazmat.primitives.asymmetric.ed25519 import (
        Ed25519PrivateKey,
        Ed25519PublicKey,
    )

FORMAT = "table-ledger principal key 1"
PUBLIC_PREFIX = "ed25519:"
PRIVATE_PREFIX = "ed25519-private:"
ITERATIONS = 600_000
"""PBKDF2 iterations for a passphrase-protected key file."""
MAX_KEY_FILE = 4_096


def public_text(key: Ed25519PublicKey) -> str:
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

    return PUBLIC_PREFIX + key.public_bytes(Encoding.Raw, PublicFormat.Raw).hex()


def key_id_of(public: str) -> str:
    """The key id of a public key text."""
    return hashlib.sha256(bytes.fromhex(public.removeprefix(PUBLIC_PREFIX))).hexdigest()[:16]


def parse_public(text: str) -> Ed25519PublicKey:
    """A public key from ``ed25519:<64 hex>``; ``invalid_public_key`` otherwise."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    value = str(text).strip()
    try:
        raw = bytes.fromhex(value.removeprefix(PUBLIC_PREFIX))
        if not value.startswith(PUBLIC_PREFIX) or len(raw) != 32:
            raise ValueError(value)
        return Ed25519PublicKey.from_public_bytes(raw)
    except ValueError:
        raise InvalidInput("invalid_public_key", "not an Ed25519 public key: write "
                           f"{PUBLIC_PREFIX}<64 hex digits>") from None


def verify(public: str, body: bytes, signature: str) -> bool:
    """Whether ``signature`` (hex) is ``public``'s over ``body``."""
    from cryptography.exceptions import InvalidSignature

    try:
        parse_public(public).verify(bytes.fromhex(signature), body)
    except (InvalidSignature, ValueError, InvalidInput):
        return False
    return True


@dataclass(frozen=True)
class PrincipalKey:
    """A principal's private key, opened: signs in their name."""

    principal: str
    private: Ed25519PrivateKey

    @property
    def public(self) -> str:
        return public_text(self.private.public_key())

    @property
    def key_id(self) -> str:
        return key_id_of(self.public)

    def sign(self, body: bytes) -> str:
        return self.private.sign(body).hex()

    @classmethod
    def generate(cls, principal: str) -> PrincipalKey:
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

        return cls(principal, Ed25519PrivateKey.generate())

    def file_text(self, passphrase: str | None = None, *,
                  iterations: int = ITERATIONS) -> str:
        """The key file's content (see the module)."""
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM

        data: dict[str, Any] = {"format": FORMAT, "principal": self.principal,
                                "public_key": self.public, "key_id": self.key_id}
        seed = self.private.private_bytes_raw()
        if passphrase:
            salt, nonce = secrets.token_bytes(16), secrets.token_bytes(12)
            sealed = AESGCM(_derive(passphrase, salt, iterations)).encrypt(
                nonce, seed, self.public.encode())
            data["encrypted"] = {"kdf": "pbkdf2-sha256", "iterations": iterations,
                                 "salt": salt.hex(), "cipher": "aes-256-gcm",
                                 "nonce": nonce.hex(), "ciphertext": sealed.hex()}
        else:
            data["private_key"] = PRIVATE_PREFIX + seed.hex()
        return json.dumps(data, indent=1) + "\n"

    def write(self, path: Path, passphrase: str | None = None) -> Path:
        """Write the key file (mode 600); ``key_exists`` when ``path`` exists."""
        write_private(path, self.file_text(passphrase))
        return path


def write_private(path: Path, text: str) -> None:
    """``text`` to a new file only its owner may read (an existing file is never replaced)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        raise StateConflict("key_exists", f"{path} exists already: a key file is never "
                            "overwritten; choose another file", path=str(path)) from None
    except OSError as exc:
        raise InvalidInput("output_not_writable", f"cannot write {path}: "
                           f"{exc.strerror or exc}", path=str(path)) from None
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(text)


def _derive(passphrase: str, salt: bytes, iterations: int) -> bytes:
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.kdf.pbkdf2 import PBKDF2HMAC

    kdf = PBKDF2HMAC(algorithm=hashes.SHA256(), length=32, salt=salt, iterations=iterations)
    return kdf.derive(passphrase.encode())


def key_file_data(path: Path) -> dict[str, Any]:
    """The JSON of a key file; ``key_file_unreadable`` / ``invalid_key_file``."""
    try:
        with open(path, "rb") as handle:
            raw = handle.read(MAX_KEY_FILE + 1)
    except OSError as exc:
        raise InvalidInput("key_file_unreadable", f"cannot read the key file {path}: "
                           f"{exc.strerror or exc}", path=str(path)) from None
    try:
        if len(raw) > MAX_KEY_FILE:
            raise ValueError("too long")
        data = jsontext.loads(raw)
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise ValueError("format")
        parse_public(str(data["public_key"]))
        str(data["principal"])
    except (ValueError, KeyError, TypeError, InvalidInput):
        raise InvalidInput("invalid_key_file", f"{path} is not a principal's key file (as "
                           "`ledger principals add` or `ledger principals keygen` writes)",
                           path=str(path)) from None
    return data


def needs_passphrase(path: Path) -> bool:
    return "encrypted" in key_file_data(path)


def load_key(path: Path, passphrase: str | None = None) -> PrincipalKey:
    """The key in ``path`` (``passphrase`` when it is protected): ``passphrase_required``,
    ``wrong_passphrase``, ``invalid_key_file``."""
    from cryptography.exceptions import InvalidTag
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    data = key_file_data(path)
    principal, public = str(data["principal"]), str(data["public_key"])
    try:
        if "encrypted" in data:
            sealed = data["encrypted"]
            if not passphrase:
                raise InvalidInput("passphrase_required", f"the key file {path} is protected "
                                   "by a passphrase: give it (--passphrase-file, or type it "
                                   "when asked)", path=str(path))
            key = _derive(passphrase, bytes.fromhex(sealed["salt"]), int(sealed["iterations"]))
            try:
                seed = AESGCM(key).decrypt(bytes.fromhex(sealed["nonce"]),
                                           bytes.fromhex(sealed["ciphertext"]), public.encode())
            except InvalidTag:
                raise InvalidInput("wrong_passphrase", f"the passphrase does not open {path}",
                                   path=str(path)) from None
        else:
            seed = bytes.fromhex(str(data["private_key"]).removeprefix(PRIVATE_PREFIX))
        found = PrincipalKey(principal, Ed25519PrivateKey.from_private_bytes(seed))
    except (ValueError, KeyError, TypeError):
        raise InvalidInput("invalid_key_file", f"{path} holds no readable private key",
                           path=str(path)) from None
    if found.public != public:
        raise InvalidInput("invalid_key_file", f"{path}: its private key is not the public "
                           "key it names", path=str(path))
    return found


class Keyring:
    """The private keys a process holds (the command line's ``--key`` files, a simulation's
    own principals, a test's): signs for the principals it holds a key of."""

    def __init__(self, keys: list[PrincipalKey] | None = None) -> None:
        self._keys: dict[str, PrincipalKey] = {}
        for key in keys or ():
            self.add(key)

    def add(self, key: PrincipalKey) -> None:
        self._keys[key.principal] = key

    def get(self, principal: str) -> PrincipalKey | None:
        return self._keys.get(principal)

    def __contains__(self, principal: object) -> bool:
        return principal in self._keys

    def principals(self) -> list[str]:
        return list(self._keys)
