"""Who acts in the ledger: the actor every event names, and the roles of the people who approve.

Every event's envelope carries an :class:`Actor`, covered by the table's hash chain (it is part
of the stored JSON the chain digests): ``token:<token_id>`` with the token's role and label for
a command sent through the HTTP API, ``cli:<name>`` for the command line (``--actor``,
``LEDGER_ACTOR``, else the operating-system user). Events recorded before actors existed carry
none (``null``); their chain digests are of the bytes as stored, so old stores stay readable.
The command line's name is not authenticated: anyone who runs it with the store's URL types any
name (and could write the store directly). So its events and access-log rows are shown as
``cli:<name> (unauthenticated command line)``, and nothing that needs approval trusts it: an
approval is always a principal's signature with their own key (``ledger.domain.approval``).
The register of the principals who hold the approving roles is :mod:`ledger.access.register`.
"""

from __future__ import annotations

import getpass
import re
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict

from ledger.domain.commands import PLAYER_PATTERN
from ledger.domain.errors import InvalidInput

PrincipalRole = Literal["floor", "supervisor", "admin", "dealer"]
PRINCIPAL_ROLES: tuple[str, ...] = get_args(PrincipalRole)
APPROVERS: tuple[str, ...] = ("supervisor", "admin")
"""Who approves configuration changes and voids by default."""
SIGNERS: tuple[str, ...] = ("floor", "supervisor", "admin")
"""Who may sign for the tray's chips (INV-1..3)."""
DEALERS: tuple[str, ...] = ("dealer", "floor", "supervisor")
"""Who may sign in to deal at a table (DLR-1)."""
_ID = re.compile(PLAYER_PATTERN)


class Actor(BaseModel):
    """Who caused an event: ``token:<id>`` (API) or ``cli:<name>`` (command line)."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    id: str
    role: str | None = None
    """The token's role (``device``, ``admin``, ...), or ``cli``."""
    label: str | None = None
    """The token's label (who or what holds it)."""

    @classmethod
    def token(cls, token_id: str, role: str, label: str = "") -> Actor:
        return cls(id=f"token:{token_id}", role=role, label=label or None)

    @classmethod
    def cli(cls, name: str | None = None) -> Actor:
        """The command line's actor: ``name`` (``--actor``/``LEDGER_ACTOR``) or the OS user."""
        chosen = (name or "").strip() or _os_user()
        if not _ID.match(chosen):
            raise InvalidInput("invalid_actor", f"actor {chosen!r} is not a name (letters, "
                               "digits, _.@-, at most 64; set --actor or LEDGER_ACTOR)")
        return cls(id=f"cli:{chosen}", role="cli")

    def text(self) -> str:
        """``token:3f2a9c0d1e4b (device, CSP-1 shoe)``; ``cli:anna (unauthenticated command
        line)``: the command line's name is whatever its user typed."""
        if self.role == "cli":
            return f"{self.id} (unauthenticated command line)"
        extra = ", ".join(p for p in (self.role, self.label) if p)
        return f"{self.id} ({extra})" if extra else self.id


def actor_text(actor: Any) -> str:
    """An event's actor as text (``-`` for events recorded before actors existed)."""
    if isinstance(actor, Actor):
        return actor.text()
    if isinstance(actor, dict) and actor.get("id"):
        return Actor.model_validate(actor).text()
    return "-"


def _os_user() -> str:
    try:
        name = getpass.getuser()
    except (KeyError, OSError):
        return "unknown"
    return re.sub(r"[^A-Za-z0-9_.@-]", "_", name)[:64] or "unknown"
