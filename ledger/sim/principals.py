"""A simulation's own principals, with keys: the people who sign its tray counts and approve its
changes, registered by a root admin of its own.

:func:`ensure_principals` makes (or finds) each principal's key, bootstraps the register with
the simulation's admin when it has no root yet, registers the people it lacks (each change
signed by that admin), and hands the application a keyring of their keys, so the simulation's
commands that need approval are signed in one step with exactly the checks any other approval
meets. With ``directory``, the key files live there (mode 600) and a later run on the same
store signs with the same keys; without, the keys live in memory only (tests).
"""

from __future__ import annotations

from pathlib import Path

from ledger.access.keys import Keyring, PrincipalKey, load_key
from ledger.app.approvals import Approvals
from ledger.app.fleet import apps_of
from ledger.domain.errors import StateConflict

ADMIN = "sim-admin"
ADMIN_NAME = "Simulation admin"


def ensure_principals(ledger: object, people: dict[str, tuple[str, str]], *,
                      directory: Path | None = None, keyring: Keyring | None = None) -> Keyring:
    """Every principal of ``people`` (id -> (name, role)) registered with a key the returned
    keyring holds, which every application of ``ledger`` signs with from now on."""
    ring = keyring or Keyring()
    approvals = Approvals(ledger)
    admin = _key(ring, ADMIN, directory)
    state = approvals.state()
    if state.root is None:
        approvals.bootstrap(ADMIN, ADMIN_NAME, admin, actor=approvals.home.actor)
    elif (found := state.find(ADMIN)) is None or found.public_key != admin.public:
        raise StateConflict("register_bootstrapped", "the register has a root admin of its "
                            f"own: the simulation cannot register its principals (it signs as "
                            f"{ADMIN}, whose key it does not hold)")
    for principal_id, (name, role) in people.items():
        key = _key(ring, principal_id, directory)
        found = approvals.state().find(principal_id)
        if found is None:
            approvals.change_register("add", {"id": principal_id, "name": name, "role": role,
                                              "public_key": key.public}, admin,
                                      actor=approvals.home.actor)
        elif found.public_key != key.public:
            approvals.change_register("key", {"id": principal_id, "public_key": key.public},
                                      admin, actor=approvals.home.actor)
    for app in apps_of(ledger):
        app.keyring = ring
    return ring


def _key(ring: Keyring, principal_id: str, directory: Path | None) -> PrincipalKey:
    key = ring.get(principal_id)
    if key is not None:
        return key
    path = None if directory is None else directory / f"{principal_id}.key"
    if path is not None and path.exists():
        key = load_key(path)
    else:
        key = PrincipalKey.generate(principal_id)
        if path is not None:
            key.write(path)
    ring.add(key)
    return key
