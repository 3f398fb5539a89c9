"""Principals' key files at the command line: opened with their passphrase, written new."""

from __future__ import annotations

import getpass
import sys
from pathlib import Path
from typing import Any

import typer

from ledger.access.keys import PrincipalKey, load_key, needs_passphrase
from ledger.domain.errors import InvalidInput

KEY_OPTION = typer.Option(None, "--key", metavar="FILE", help="Your key file (as `ledger "
                          "principals add` or `keygen` wrote it): signs as its principal.")
PASSPHRASE_FILE = typer.Option(None, "--passphrase-file", metavar="FILE",
                               help="A file whose first line is the key file's passphrase "
                               "(default: asked on the terminal when the key has one).")


def read_passphrase(path: Path | None, *, prompt: str, confirm: bool = False) -> str | None:
    """The passphrase from ``path`` (its first line), else asked on the terminal; None when
    neither is possible."""
    if path is not None:
        try:
            return path.read_text(encoding="utf-8").splitlines()[0] if path.stat().st_size \
                else ""
        except (OSError, IndexError, UnicodeDecodeError) as exc:
            raise InvalidInput("passphrase_unreadable", f"cannot read the passphrase file "
                               f"{path}: {getattr(exc, 'strerror', None) or exc}",
                               path=str(path)) from None
    if not sys.stdin.isatty():
        return None
    first = getpass.getpass(prompt)
    if confirm and getpass.getpass("again: ") != first:
        raise InvalidInput("passphrase_mismatch", "the two passphrases differ")
    return first


def open_key(path: Path, passphrase_file: Path | None = None) -> PrincipalKey:
    """The key in ``path``, opened (its passphrase from the file or the terminal)."""
    passphrase = None
    if needs_passphrase(path):
        passphrase = read_passphrase(passphrase_file, prompt=f"passphrase of {path}: ")
    return load_key(path, passphrase)


def new_key(principal_id: str, out: Path, passphrase_file: Path | None,
            ask: bool) -> PrincipalKey:
    """A new key pair for ``principal_id``, its private key written to ``out`` (mode 600),
    protected when a passphrase is given (``--passphrase-file`` or ``--ask-passphrase``)."""
    passphrase = None
    if passphrase_file is not None or ask:
        passphrase = read_passphrase(passphrase_file, prompt=f"passphrase for {out}: ",
                                     confirm=True)
        if not passphrase:
            raise InvalidInput("passphrase_required", "--ask-passphrase needs a terminal, "
                               "or give --passphrase-file")
    key = PrincipalKey.generate(principal_id)
    key.write(out, passphrase)
    return key


def cli_principal(ledger: Any) -> str | None:
    """The principal the command line's actor names (``cli:<name>``), when the register holds
    one by that name: they may not approve what they propose."""
    name = str(ledger.actor.id).removeprefix("cli:")
    return name if ledger.principals.find(name) is not None else None
