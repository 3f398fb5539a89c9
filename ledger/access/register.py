"""The register of principals as a stream of its own, with a hash chain and a root of trust.

Every change of the register is one row of ``ledger_register``: a sequence number (the
register's version), when, the kind, the principal it is about, the change as canonical JSON
(``body``), the previous row's digest and its own (over all of these), so an edited, deleted or
inserted row breaks the chain where it happened. The rows are the history of keys and roles: a
signature is checked against the key the principal held at the register version it names.

- **epoch** (version 1, written when a store is first opened by a ledger with signatures):
  the principals registered before signatures (imported from ``ledger_principals``, without
  keys: they approve nothing until an admin gives them one). Approvals recorded before it stay
  valid and are shown as "unsigned (before signatures)".
- **bootstrap**: the first admin principal, the root of trust, signed with its own new key;
  once per register, never again (``ledger principals bootstrap``). Its key id may be pinned
  outside the database (``LEDGER_REGISTER_ROOT``): a register whose root is another key is
  refused, so a database insider cannot replace the register by one of their own.
- **add**, **role**, **revoke**, **key** (rotation, or a key for a principal from before
  signatures): each carries an approval signed by an active admin principal over exactly that
  change and the register version it applies to (:mod:`ledger.domain.approval`); an API admin
  token alone makes none of them.

:func:`fold` replays the rows and says what is wrong with each (the audit reports them,
``register_broken``); :class:`Register` appends and keeps the verified state, and
:meth:`Register.head` gives the chain head (for checkpoints that cover it).
"""

from __future__ import annotations

import hashlib
import json
import threading
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

from ledger.access import keys
from ledger.domain.actors import PRINCIPAL_ROLES
from ledger.domain.approval import REGISTER, Approval
from ledger.domain.errors import LedgerError, StateConflict
from ledger.store.sidetables import PRINCIPALS_TABLE, REGISTER_TABLE, SideTable

GENESIS = "0" * 64
COLUMNS = "seq, at, kind, principal_id, body, prev_hash, row_hash"
CHANGES = ("add", "role", "revoke", "key")
"""The register changes an admin principal signs."""


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")


def row_hash(prev: str, seq: int, at: str, kind: str, principal: str, body: str) -> str:
    text = json.dumps([prev, seq, at, kind, principal, body], separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


@dataclass(frozen=True)
class Entry:
    """A principal as the register holds them at one version."""

    principal_id: str
    name: str
    role: str
    public_key: str | None
    created_at: str
    created_by: str
    revoked_at: str | None = None
    revoked_by: str | None = None
    since: int = 1
    """The register version this entry holds from."""

    @property
    def active(self) -> bool:
        return self.revoked_at is None

    @property
    def key_id(self) -> str | None:
        return None if self.public_key is None else keys.key_id_of(self.public_key)

    def as_dict(self) -> dict[str, Any]:
        return {"principal_id": self.principal_id, "name": self.name, "role": self.role,
                "public_key": self.public_key, "key_id": self.key_id,
                "created_at": self.created_at, "created_by": self.created_by,
                "revoked_at": self.revoked_at, "revoked_by": self.revoked_by}


@dataclass(frozen=True)
class Row:
    seq: int
    at: str
    kind: str
    principal_id: str
    body: str
    prev_hash: str
    row_hash: str

    def data(self) -> dict[str, Any]:
        found: dict[str, Any] = json.loads(self.body)
        return found

    def as_dict(self) -> dict[str, Any]:
        return {"version": self.seq, "at": self.at, "kind": self.kind,
                "principal_id": self.principal_id, "change": self.data(),
                "prev_hash": self.prev_hash, "row_hash": self.row_hash}


@dataclass
class State:
    """The register folded up to :attr:`version`, with every earlier entry of each principal."""

    version: int = 0
    head: str = GENESIS
    epoch_at: str | None = None
    root: str | None = None
    """The key id of the bootstrap admin (None before the bootstrap)."""
    current: dict[str, Entry] = field(default_factory=dict)
    history: dict[str, list[Entry]] = field(default_factory=dict)
    problems: list[dict[str, Any]] = field(default_factory=list)

    def find(self, principal_id: str) -> Entry | None:
        return self.current.get(principal_id)

    def at(self, principal_id: str, version: int) -> Entry | None:
        """The principal as the register held them at ``version`` (None: not yet)."""
        found = None
        for entry in self.history.get(principal_id, ()):
            if entry.since <= version:
                found = entry
        return found

    def admins(self) -> list[Entry]:
        return [e for e in self.current.values()
                if e.role == "admin" and e.active and e.public_key]

    def _put(self, entry: Entry) -> None:
        self.current[entry.principal_id] = entry
        self.history.setdefault(entry.principal_id, []).append(entry)


def fold(rows: list[Row], root_pin: str | None = None) -> State:
    """The register the rows make; ``state.problems`` names every row that does not hold
    (``kind``: ``row_missing``, ``row_unlinked``, ``row_edited``, ``unreadable``, ``epoch``,
    ``bootstrap``, ``signature``, ``change``, ``root``)."""
    state = State()
    for row in rows:
        _fold_row(state, row)
    if root_pin and state.root is not None and state.root != root_pin:
        state.problems.append({"version": 0, "kind": "root", "expected": root_pin,
                               "found": state.root})
    return state


def _problem(state: State, row: Row, kind: str, expected: Any, found: Any) -> None:
    state.problems.append({"version": row.seq, "kind": kind, "expected": expected,
                           "found": found})


def _fold_row(state: State, row: Row) -> None:
    if row.seq != state.version + 1:
        _problem(state, row, "row_missing", state.version + 1, row.seq)
    if row.prev_hash != state.head:
        _problem(state, row, "row_unlinked", state.head, row.prev_hash)
    again = row_hash(row.prev_hash, row.seq, row.at, row.kind, row.principal_id, row.body)
    if again != row.row_hash:
        _problem(state, row, "row_edited", again, row.row_hash)
    state.version, state.head = row.seq, row.row_hash
    try:
        data = row.data()
    except ValueError:
        _problem(state, row, "unreadable", "a change as JSON", row.body[:80])
        return
    if row.kind == "epoch":
        if row.seq != 1:
            _problem(state, row, "epoch", "the epoch as the register's first row", row.seq)
            return
        state.epoch_at = row.at
        for p in data.get("imported", ()):
            state._put(Entry(str(p["principal_id"]), str(p["name"]), str(p["role"]), None,
                             str(p["created_at"]), str(p["created_by"]), p.get("revoked_at"),
                             p.get("revoked_by"), since=row.seq))
        return
    if row.seq == 1:
        _problem(state, row, "epoch", "the epoch as the register's first row", row.kind)
    why = _change_problem(state, row, data)
    if why is not None:
        _problem(state, row, why[0], why[1], why[2])
        return
    _apply(state, row, data)


def _change_problem(state: State, row: Row, data: dict[str, Any]
                    ) -> tuple[str, Any, Any] | None:
    """What is wrong with a change row (None: it holds)."""
    try:
        approval = Approval.model_validate(data["approval"])
        subject = data["principal"]
    except (KeyError, ValueError, TypeError):
        return "unreadable", "a change with its approval", row.body[:80]
    if approval.table != REGISTER or approval.kind != f"register_{row.kind}" or \
            approval.fields != subject or subject.get("id") != row.principal_id:
        return "change", "an approval of exactly this change", approval.kind
    if approval.applies_to != {"register_version": row.seq - 1}:
        return "change", {"register_version": row.seq - 1}, approval.applies_to
    message = approval.message()
    if row.kind == "bootstrap":
        if state.root is not None:
            return "bootstrap", "one bootstrap per register", f"another at version {row.seq}"
        if state.find(row.principal_id) is not None:
            return "bootstrap", "a new principal id", row.principal_id
        signers = [s for s in approval.signatures if s.principal == row.principal_id
                   and keys.verify(str(subject.get("public_key")), message, s.signature)]
        if not signers:
            return "signature", "signed with the new admin's own key", row.principal_id
        return None
    valid = []
    for signature in approval.signatures:
        admin = state.find(signature.principal)
        if admin is None or admin.role != "admin" or not admin.active or not admin.public_key:
            return "signature", "signed by an active admin principal", signature.principal
        if not keys.verify(admin.public_key, message, signature.signature):
            return "signature", f"a valid signature of {signature.principal}", "invalid"
        valid.append(signature)
    if not valid:
        return "signature", "signed by an admin principal", "unsigned"
    return _subject_problem(state, row, subject)


def _subject_problem(state: State, row: Row, subject: dict[str, Any]
                     ) -> tuple[str, Any, Any] | None:
    found = state.find(row.principal_id)
    if row.kind == "add":
        if found is not None:
            return "change", "a new principal id", row.principal_id
        if subject.get("role") not in PRINCIPAL_ROLES:
            return "change", "a role", subject.get("role")
        return None
    if found is None or not found.active:
        return "change", "an active principal", row.principal_id
    if row.kind == "role" and subject.get("role") not in PRINCIPAL_ROLES:
        return "change", "a role", subject.get("role")
    return None


def _apply(state: State, row: Row, data: dict[str, Any]) -> None:
    subject, approval = data["principal"], Approval.model_validate(data["approval"])
    by = ", ".join(f"principal:{s.principal}" for s in approval.signatures)
    found = state.find(row.principal_id)
    if row.kind in ("bootstrap", "add"):
        entry = Entry(row.principal_id, str(subject["name"]), str(subject["role"]),
                      str(subject["public_key"]), row.at, by, since=row.seq)
        if row.kind == "bootstrap":
            state.root = entry.key_id
    else:
        assert found is not None
        if row.kind == "role":
            entry = replace(found, role=str(subject["role"]), since=row.seq)
        elif row.kind == "key":
            entry = replace(found, public_key=str(subject["public_key"]), since=row.seq)
        else:
            entry = replace(found, revoked_at=row.at, revoked_by=by, since=row.seq)
    state._put(entry)


class RegisterBroken(LedgerError):
    """The register's chain or a signature in it does not hold: nothing is approved."""


class Register:
    """The register stream in a store (a fleet's: its home store's)."""

    def __init__(self, recorder: Any, root_pin: str | None = None) -> None:
        self.db = SideTable(recorder, REGISTER_TABLE)
        self.root_pin = (root_pin or "").strip() or None
        self._state: State | None = None
        self._guard = threading.Lock()

    # --- reading ---------------------------------------------------------------------------

    def rows(self, after: int = 0) -> list[Row]:
        found = self.db.query(f"SELECT {COLUMNS} FROM {self.db.name} WHERE seq > {self.db.p} "
                              "ORDER BY seq", (after,))
        return [Row(int(r[0]), *(str(v) for v in r[1:])) for r in found]

    def verified(self) -> State:
        """The register now, every row verified (the rows added since the last call only);
        ``register_broken`` when a row does not hold."""
        with self._guard:
            known = self._state
        rows = self.rows(known.version - 1 if known is not None and known.version else 0)
        if known is not None and known.version and (not rows or rows[0].seq != known.version
                                                     or rows[0].row_hash != known.head):
            known = None  # rewritten under us: read it all again
            rows = self.rows()
        if known is None or not known.version:
            state = fold(rows, self.root_pin)
        else:
            state = _extend(known, rows[1:], self.root_pin)
        if state.problems:
            first = state.problems[0]
            raise RegisterBroken(
                "register_broken", f"the register of principals does not hold at version "
                f"{first['version']} ({first['kind']}): no approval is accepted until it is "
                "repaired (see `ledger audit verify`)", **first)
        with self._guard:
            self._state = state
        return state

    def head(self) -> dict[str, Any]:
        """The register's chain head: ``{"version": seq, "head": row_hash}`` (0 and the
        genesis digest when it is empty), for a checkpoint or seal that covers it."""
        found = self.db.query(f"SELECT seq, row_hash FROM {self.db.name} ORDER BY seq DESC "
                              "LIMIT 1")
        if not found:
            return {"version": 0, "head": GENESIS}
        return {"version": int(found[0][0]), "head": str(found[0][1])}

    # --- writing ---------------------------------------------------------------------------

    def ensure_epoch(self) -> None:
        """Write the epoch row when the register has none (principals registered before
        signatures imported without keys). Two processes at once: one row."""
        if self.db.query(f"SELECT 1 FROM {self.db.name} WHERE seq = 1"):
            return
        legacy = self.db.query(
            "SELECT principal_id, name, role, created_at, created_by, revoked_at, revoked_by "
            f"FROM {_legacy_name(self.db)} ORDER BY created_at, principal_id")
        names = ("principal_id", "name", "role", "created_at", "created_by", "revoked_at",
                 "revoked_by")
        body = _canonical({"imported": [dict(zip(names, r, strict=True)) for r in legacy]})
        self._insert(1, "epoch", "", body, GENESIS, conflict_ok=True)

    def append(self, kind: str, principal_id: str, change: dict[str, Any],
               approval: Approval) -> Row:
        """Append a signed change at the version after the one it applies to; refused when the
        register has moved past it (``register_changed``) or the change does not hold."""
        state = self.verified()
        version = int(approval.applies_to.get("register_version", -1))
        if version != state.version:
            raise StateConflict("register_changed", f"the change was signed for register "
                                f"version {version}; the register is at {state.version} "
                                "now: propose it again", applies_to=version,
                                register_version=state.version)
        body = _canonical({"principal": change, "approval": approval.model_dump(mode="json")})
        at = now()
        row = Row(state.version + 1, at, kind, principal_id, body, state.head,
                  row_hash(state.head, state.version + 1, at, kind, principal_id, body))
        trial = _extend(state, [row], self.root_pin)
        if trial.problems:
            problem = trial.problems[-1]
            raise RegisterBroken("register_change_refused", f"the register refuses this "
                                 f"change ({problem['kind']}): expected {problem['expected']}, "
                                 f"got {problem['found']}", **problem)
        self._insert(row.seq, kind, principal_id, body, state.head, at=at)
        with self._guard:
            self._state = trial
        return row

    def _insert(self, seq: int, kind: str, principal_id: str, body: str, prev: str, *,
                at: str | None = None, conflict_ok: bool = False) -> None:
        at = at or now()
        digest = row_hash(prev, seq, at, kind, principal_id, body)
        conflict = " ON CONFLICT (seq) DO NOTHING" if conflict_ok else ""
        try:
            self.db.execute(f"INSERT INTO {self.db.name} ({COLUMNS}) VALUES "
                            f"({self.db.marks(7)}){conflict}",
                            (seq, at, kind, principal_id, body, prev, digest))
        except Exception as exc:
            if type(exc).__name__ not in ("IntegrityError", "UniqueViolation"):
                raise
            raise StateConflict("register_changed", "another change of the register was "
                                "recorded at the same time: propose it again") from None


def _extend(state: State, rows: list[Row], root_pin: str | None) -> State:
    """``state`` with ``rows`` folded in (a copy: ``state`` is left as it was)."""
    copy = State(state.version, state.head, state.epoch_at, state.root, dict(state.current),
                 {k: list(v) for k, v in state.history.items()}, list(state.problems))
    for row in rows:
        _fold_row(copy, row)
    if root_pin and copy.root is not None and copy.root != root_pin and not any(
            p["kind"] == "root" for p in copy.problems):
        copy.problems.append({"version": 0, "kind": "root", "expected": root_pin,
                              "found": copy.root})
    return copy


def _legacy_name(db: SideTable) -> str:
    return PRINCIPALS_TABLE if db.sqlite else db.name.rsplit(".", 1)[0] + f'."{PRINCIPALS_TABLE}"'


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
