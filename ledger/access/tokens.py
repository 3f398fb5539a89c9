"""Bearer tokens of the HTTP API: roles, scopes, hashed storage.

A token is ``ltk_<token_id>_<secret>``: the ``token_id`` is public (it names the token in lists,
logs and revocations), the secret is 256 random bits. Only the SHA-256 of the whole token is
stored, in the ``ledger_tokens`` table of the ledger's own database (SQLite or PostgreSQL);
checking a token looks it up by id and compares the digests in constant time. The token itself
is shown once, when it is created.

Roles (the API decides what each may do):

``device``      commands for its own table codes; reads its tables' state without undealt or
                hidden cards. Bound to one seat (``seat``), it sees that seat's cards and may only
                wager and act for that seat.
``auditor``     reads everything, hole cards included; never writes.
``accounting``  accounting views and exports.
``admin``       opens tables, proposes configuration changes, corrections and register changes,
                manages tokens.
``approver``    bound to one principal of the register (``principal``): lists the proposals
                and approves those that name its principal, each approval signed with that
                principal's own key (``ledger.domain.approval``); signs in to the console's
                approvals page. The token alone approves nothing: it says who is asking, the
                signature says what they approve.

Every change of the table (a token made, a token revoked) is also a row of the tokens' chain
(:mod:`ledger.access.tokenchain`), written in the same transaction; a token whose stored row is
not what its chain says (its role, tables, seat, principal or revocation edited in the database)
is refused (``token_chain_broken``).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import secrets
import sqlite3
import threading
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal, get_args

from eventsourcing.persistence import IntegrityError, OperationalError, Recorder
from eventsourcing.sqlite import SQLiteApplicationRecorder

from ledger.access.tokenchain import OPEN_KEY, TokenChain, token_record, tokens_key
from ledger.domain.commands import TABLE_CODE_PATTERN
from ledger.domain.errors import InvalidInput, NotFound
from ledger.store.schema import TOKENS_TABLE

Role = Literal["device", "auditor", "accounting", "admin", "approver"]
ROLES: tuple[str, ...] = get_args(Role)
PREFIX = "ltk_"
_TOKEN = re.compile(r"^ltk_([0-9a-f]{12})_([A-Za-z0-9_-]{43})$")
_COLUMNS = ("token_id, secret_sha256, role, tables, seat, label, created_at, revoked_at, "
            "principal_id")


@dataclass(frozen=True)
class TokenInfo:
    """A stored token, without its secret."""

    token_id: str
    role: str
    tables: tuple[str, ...] | None
    """Table codes a device token may use (upper case); None for the other roles."""
    seat: int | None
    label: str
    created_at: str
    revoked_at: str | None
    principal: str | None = None
    """The principal an ``approver`` token is bound to (None for the other roles)."""

    @property
    def active(self) -> bool:
        return self.revoked_at is None

    def as_dict(self) -> dict[str, Any]:
        return {
            "token_id": self.token_id,
            "role": self.role,
            "tables": None if self.tables is None else list(self.tables),
            "seat": self.seat,
            "label": self.label,
            "created_at": self.created_at,
            "revoked_at": self.revoked_at,
            "principal": self.principal,
        }


def digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def check_scope(role: str, tables: list[str] | None, seat: int | None,
                principal: str | None = None) -> tuple[str, ...] | None:
    """Validate a token's role and scope; returns the normalised table codes."""
    if role not in ROLES:
        raise InvalidInput("invalid_role", f"unknown role {role!r}; roles: {', '.join(ROLES)}")
    if (role == "approver") != (principal is not None):
        raise InvalidInput("invalid_token_scope", "an approver token names the principal it "
                           "is bound to (--principal); no other role is bound to one")
    if role != "device":
        if tables or seat is not None:
            raise InvalidInput(
                "invalid_token_scope", "only device tokens are bound to tables or a seat"
            )
        return None
    codes = tuple(dict.fromkeys(t.strip().upper() for t in tables or ()))
    if not codes:
        raise InvalidInput("invalid_token_scope", "a device token names its table codes")
    bad = [c for c in codes if not re.match(TABLE_CODE_PATTERN, c)]
    if bad:
        raise InvalidInput("invalid_token_scope", f"not table codes: {', '.join(bad)}")
    if seat is not None and (len(codes) != 1 or not 1 <= seat <= 10):
        raise InvalidInput(
            "invalid_token_scope", "a seat-bound device token names one table and a seat 1-10"
        )
    return codes


class TokenStore:
    """Tokens in the ledger's database, through the application's recorder.

    Lookups are cached for ``cache_seconds`` (a revocation made by this process takes effect at
    once; one made by another process within that time).
    """

    def __init__(self, recorder: Recorder, cache_seconds: float = 0.0, *,
                 key: bytes = OPEN_KEY) -> None:
        self._recorder: Any = recorder
        self._sqlite = isinstance(recorder, SQLiteApplicationRecorder)
        if self._sqlite:
            self._table, self._p = TOKENS_TABLE, "?"
        else:
            schema = recorder.datastore.schema  # type: ignore[attr-defined]
            self._table, self._p = f'"{schema}"."{TOKENS_TABLE}"', "%s"
        self._cache_seconds = cache_seconds
        self._cache: dict[str, tuple[float, TokenInfo | None, str]] = {}
        self._guard = threading.Lock()
        self.chain = TokenChain(recorder, key, self._table)
        self.chain.ensure_epoch()

    @classmethod
    def of(cls, store: Any, cache_seconds: float = 0.0) -> TokenStore:
        """The tokens of ``store`` (a :class:`ledger.store.base.LedgerStore`; a fleet's home
        store), their chain's MACs keyed by its deck keeper."""
        return cls(store.recorder, cache_seconds, key=tokens_key(store.keeper))

    # --- managing -----------------------------------------------------------------------

    def create(
        self, role: str, *, tables: list[str] | None = None, seat: int | None = None,
        label: str = "", principal: str | None = None,
    ) -> tuple[str, TokenInfo]:
        """A new token: returns the token text (shown once) and what is stored. An approver
        token is bound to ``principal`` (the caller checks it is registered)."""
        codes = check_scope(role, tables, seat, principal)
        if "\x00" in label:
            raise InvalidInput("invalid_label", "a token label must not contain NUL characters")
        token_id = secrets.token_hex(6)
        token = f"{PREFIX}{token_id}_{secrets.token_urlsafe(32)}"
        info = TokenInfo(token_id, role, codes, seat, label.strip()[:200], _now(), None,
                         principal)
        values = (token_id, digest(token), role, None if codes is None else json.dumps(codes),
                  seat, info.label, info.created_at, None, principal)
        self._chained(
            f"INSERT INTO {self._table} ({_COLUMNS}) VALUES ({','.join([self._p] * 9)})",
            values, "create", token_record(values))
        return token, info

    def all(self, *, include_revoked: bool = True) -> list[TokenInfo]:
        where = "" if include_revoked else " WHERE revoked_at IS NULL"
        rows = self._query(f"SELECT {_COLUMNS} FROM {self._table}{where} ORDER BY created_at", ())
        return [self._info(row)[0] for row in rows]

    def get(self, token_id: str) -> TokenInfo:
        rows = self._query(f"SELECT {_COLUMNS} FROM {self._table} WHERE token_id = {self._p}",
                           (token_id,))
        if not rows:
            raise NotFound("unknown_token", f"no token {token_id!r}", token_id=token_id)
        return self._info(rows[0])[0]

    def revoke(self, token_id: str) -> TokenInfo:
        """Revoke a token (revoking it again changes nothing)."""
        info = self.get(token_id)
        if info.active:
            when = _now()
            self._chained(
                f"UPDATE {self._table} SET revoked_at = {self._p} WHERE token_id = {self._p} "
                "AND revoked_at IS NULL",
                (when, token_id), "revoke",
                token_record((info.token_id, self._secret(token_id), info.role,
                              None if info.tables is None else json.dumps(info.tables),
                              info.seat, info.label, info.created_at, when, info.principal)))
        with self._guard:
            self._cache = {k: v for k, v in self._cache.items() if v[2] != token_id}
        return self.get(token_id)

    # --- checking -----------------------------------------------------------------------

    def cached(self, token: str) -> tuple[bool, TokenInfo | None]:
        """(True, what :meth:`authenticate` answers) when it answers without the store."""
        if self._cache_seconds > 0:
            with self._guard:
                hit = self._cache.get(token)
            if hit is not None and hit[0] > time.monotonic():
                return True, hit[1]
        return False, None

    def authenticate(self, token: str) -> TokenInfo | None:
        """The stored token for ``token`` (revoked ones included), or None if unknown."""
        now = time.monotonic()
        known, info = self.cached(token)
        if known:
            return info
        found = self._lookup(token)
        if self._cache_seconds > 0:
            with self._guard:
                if len(self._cache) > 10_000:
                    self._cache.clear()
                tid = found.token_id if found is not None else ""
                self._cache[token] = (now + self._cache_seconds, found, tid)
        return found

    def _lookup(self, token: str) -> TokenInfo | None:
        match = _TOKEN.match(token)
        if match is None:
            return None
        found = self._checked(match.group(1))
        if found is None:
            return None
        info, stored = found
        if not hmac.compare_digest(stored, digest(token)):
            return None
        return info

    def verified(self, token_id: str) -> TokenInfo | None:
        """The stored token ``token_id`` held against its chain (as :meth:`authenticate` holds
        it), or None if unknown: what a console session acts as, never the row alone."""
        found = self._checked(token_id)
        return None if found is None else found[0]

    def _checked(self, token_id: str) -> tuple[TokenInfo, str] | None:
        with self._recorder.datastore.transaction(commit=False) as cursor:
            cursor.execute(f"SELECT {_COLUMNS} FROM {self._table} WHERE token_id = {self._p}",
                           (token_id,))
            rows = list(cursor.fetchall())
            # the chain's head, read in the same transaction: when it is the one already
            # verified, checking the token against its chain costs no further query
            cursor.execute(f"SELECT seq, row_hash FROM {self.chain.db.name} ORDER BY seq DESC "
                           "LIMIT 1", ())
            head = cursor.fetchone()
        if not rows:
            return None
        values = tuple(rows[0]) if self._sqlite else tuple(rows[0].values())
        tip = None if head is None else tuple(head) if self._sqlite else tuple(head.values())
        # token_chain_broken: the row was edited behind the service's back
        self.chain.check(token_record(values), None if tip is None else (int(tip[0]), tip[1]))
        return self._info(rows[0])

    # --- plumbing -----------------------------------------------------------------------

    def _info(self, row: Any) -> tuple[TokenInfo, str]:
        values = tuple(row) if self._sqlite else tuple(row.values())
        token_id, secret, role, tables, seat, label, created, revoked, principal = values
        codes = None if tables is None else tuple(json.loads(tables))
        return TokenInfo(token_id, role, codes, seat, label, created, revoked,
                         principal), secret

    def _chained(self, sql: str, params: tuple[Any, ...], kind: str,
                 record: dict[str, Any]) -> None:
        """The change and its chain row in one transaction (another writer's chain row at
        the same sequence number: tried again)."""
        clashes: tuple[type[BaseException], ...] = (
            IntegrityError, OperationalError, sqlite3.IntegrityError, sqlite3.OperationalError,
            *_psycopg_clashes())
        for attempt in range(10):
            try:
                with self._recorder.datastore.transaction(commit=True) as cursor:
                    cursor.execute(sql, params)
                    self.chain.append(cursor, kind, record)
                return
            except clashes:
                if attempt == 9:
                    raise
                time.sleep(0.01 * (attempt + 1))

    def _secret(self, token_id: str) -> str:
        rows = self._query(f"SELECT secret_sha256 FROM {self._table} WHERE token_id = "
                           f"{self._p}", (token_id,))
        values = tuple(rows[0]) if self._sqlite else tuple(rows[0].values())
        return str(values[0])

    def _query(self, sql: str, params: tuple[Any, ...]) -> list[Any]:
        with self._recorder.datastore.transaction(commit=False) as cursor:
            cursor.execute(sql, params)
            return list(cursor.fetchall())


def chain_of(store: Any) -> TokenChain:
    """The tokens' chain of ``store`` (a fleet's home store), read as it stands (no epoch is
    written: the audit reads, it never writes)."""
    recorder: Any = store.recorder
    table = TOKENS_TABLE if isinstance(recorder, SQLiteApplicationRecorder) else \
        f'"{recorder.datastore.schema}"."{TOKENS_TABLE}"'
    return TokenChain(recorder, tokens_key(store.keeper), table)


def _psycopg_clashes() -> tuple[type[BaseException], ...]:
    from ledger.store.errors import loaded_classes

    return loaded_classes("psycopg.errors", "IntegrityError")


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")
