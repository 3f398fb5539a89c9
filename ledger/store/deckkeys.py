"""The deck key: where the key that seals ``rng`` decks (and signs the table snapshots) comes
from (COM-8).

``LEDGER_DECK_KEY`` (64 hex digits), else the file ``LEDGER_DECK_KEY_FILE``, else ``deck.key``
beside a SQLite store's file, created with a random key while the store holds no sealed deck.
The sealing itself is :class:`ledger.table.decks.SealedDeckKeeper`.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlparse

from ledger.domain.errors import LedgerError
from ledger.settings import Settings

_EPHEMERAL: list[bytes] = []
"""The key of in-memory SQLite stores: they live and die with the process."""


def deck_key_file(settings: Settings) -> Path | None:
    """Where the deck key is kept when ``LEDGER_DECK_KEY`` is not set: ``LEDGER_DECK_KEY_FILE``,
    else ``deck.key`` in the directory of a SQLite store's file (so the key follows the store,
    whatever the working directory). None for a PostgreSQL store without the setting (there is
    no "beside the store" on a server that several hosts share: the key must be named) and for
    an in-memory store."""
    if settings.deck_key_file is not None:
        return Path(settings.deck_key_file).expanduser()
    url = settings.database_url.strip()
    if urlparse(url).scheme == "sqlite":
        from ledger.store.urls import sqlite_path

        path = sqlite_path(url)
        if path != ":memory:":
            return Path(path).expanduser().resolve().parent / "deck.key"
    return None


def deck_key(settings: Settings, holds_sealed_decks: Callable[[], bool] | None = None) -> bytes:
    """The configured key, or the key file's.

    A missing file is created with a random key only while the store holds no sealed deck
    (``holds_sealed_decks``, asked only then): otherwise ``deck_key_missing``, naming the file
    and ``LEDGER_DECK_KEY_FILE``, for a new key would open none of the decks sealed (and no
    snapshot signed) with the old one."""
    if settings.deck_key is not None:
        try:
            key = bytes.fromhex(settings.deck_key.get_secret_value())
        except ValueError:
            raise LedgerError("invalid_deck_key", "LEDGER_DECK_KEY must be 64 hex digits") from None
        if len(key) != 32:
            raise LedgerError("invalid_deck_key", "LEDGER_DECK_KEY must be 64 hex digits")
        return key
    path = deck_key_file(settings)
    if path is None:
        if urlparse(settings.database_url.strip()).scheme == "sqlite":
            if not _EPHEMERAL:
                _EPHEMERAL.append(secrets.token_bytes(32))
            return _EPHEMERAL[0]
        raise LedgerError(
            "deck_key_missing",
            "a PostgreSQL store needs its deck key named: set LEDGER_DECK_KEY_FILE (a file every "
            "instance of the service reads; created on first use while the store holds no "
            "sealed deck) or LEDGER_DECK_KEY (64 hex digits)", setting="LEDGER_DECK_KEY_FILE")
    under = next((p for p in path.parents if p.exists() and not p.is_dir()), None)
    if under is not None:
        raise LedgerError("invalid_path", f"the deck key file {path} (LEDGER_DECK_KEY_FILE) "
                          f"lies under {under}, which is a file, not a directory",
                          path=str(path))
    if not path.exists() and holds_sealed_decks is not None and holds_sealed_decks():
        raise LedgerError(
            "deck_key_missing",
            f"the deck key file {path} is missing and the store holds decks sealed with a "
            "deck key: restore that key file (or point LEDGER_DECK_KEY_FILE at it, or set "
            "LEDGER_DECK_KEY); a new key would open none of them", path=str(path),
            setting="LEDGER_DECK_KEY_FILE")
    try:
        if not path.exists():
            _create_key_file(path)
        key = bytes.fromhex(path.read_text().strip())
    except ValueError:
        raise LedgerError("invalid_deck_key", f"{path} does not hold 64 hex digits") from None
    except OSError as exc:  # under a regular file, a directory, unreadable
        code = "permission_denied" if isinstance(exc, PermissionError) else "invalid_path"
        raise LedgerError(code, f"cannot use the deck key file {path} "
                          f"(LEDGER_DECK_KEY_FILE): {exc.strerror or exc}"
                          + (f" ({exc.filename})" if exc.filename and str(exc.filename)
                             != str(path) else ""), path=str(path)) from None
    return key


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
