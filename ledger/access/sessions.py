"""The console's sessions, kept in the ledger's database beside the tokens.

A browser holds a random session id (256 bits) in a cookie, never an API token. The store holds
only the SHA-256 of that id (someone who reads the table cannot take over a session), with the
token it was opened with (by its public ``token_id``), when it was made, until when it lasts,
and whether it is a pre-session (the sign-in page's, see below) or a session. Being in the
database, a session survives a restart of the service and is valid on every instance of it.

- A **pre-session** is made when the sign-in page is shown: its id goes in a cookie and its
  CSRF value (an HMAC of the id) in the form. Signing in takes a pre-session the server made,
  not expired (:data:`PRE_SECONDS`), used once: a value planted in a browser is worth nothing.
- A **session** is made at sign-in, for :data:`SESSION_SECONDS` at most; signing out deletes
  it; a session whose token is revoked (or unknown) is deleted by the next request that shows
  it (:meth:`SessionStore.open`), and by :meth:`SessionStore.end_for_token`.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

from eventsourcing.persistence import Recorder
from eventsourcing.sqlite import SQLiteApplicationRecorder

SESSIONS_TABLE = "ledger_console_sessions"
SESSION_SECONDS = 12 * 3600
PRE_SECONDS = 15 * 60
Kind = Literal["pre", "session"]
_ID_LENGTH = 43  # secrets.token_urlsafe(32)


@dataclass(frozen=True)
class Session:
    kind: str
    token_id: str | None
    expires_at: str


def id_digest(session_id: str) -> str:
    return hashlib.sha256(b"ledger-console-session\x00" + session_id.encode()).hexdigest()


def csrf_for(session_id: str) -> str:
    """The CSRF value of a (pre-)session: an HMAC keyed by its secret id (one per session;
    only who holds the cookie, or the page the server drew for it, knows it)."""
    return hmac.new(session_id.encode(), b"ledger-console-csrf", hashlib.sha256).hexdigest()


class SessionStore:
    """Sessions in the ledger's database, through the application's recorder."""

    def __init__(self, recorder: Recorder) -> None:
        self._recorder: Any = recorder
        if isinstance(recorder, SQLiteApplicationRecorder):
            self._table, self._p = SESSIONS_TABLE, "?"
        else:
            schema = recorder.datastore.schema  # type: ignore[attr-defined]
            self._table, self._p = f'"{schema}"."{SESSIONS_TABLE}"', "%s"
        self._ready = False
        self._guard = threading.Lock()

    def _setup(self) -> None:
        if self._ready:
            return
        with self._guard:
            if not self._ready:
                self._execute(
                    f"CREATE TABLE IF NOT EXISTS {self._table} (id_sha256 TEXT PRIMARY KEY, "
                    "kind TEXT NOT NULL, token_id TEXT, created_at TEXT NOT NULL, "
                    "expires_at TEXT NOT NULL)", ())
                self._ready = True

    def create(self, kind: Kind, token_id: str | None = None) -> str:
        """A new (pre-)session; its id (for the cookie, shown nowhere else)."""
        self._setup()
        session_id = secrets.token_urlsafe(32)
        now = datetime.now(UTC)
        lasts = SESSION_SECONDS if kind == "session" else PRE_SECONDS
        p = self._p
        self._execute(f"DELETE FROM {self._table} WHERE expires_at < {p}", (_iso(now),))
        self._execute(
            f"INSERT INTO {self._table} (id_sha256, kind, token_id, created_at, expires_at) "
            f"VALUES ({p}, {p}, {p}, {p}, {p})",
            (id_digest(session_id), kind, token_id, _iso(now),
             _iso(now + timedelta(seconds=lasts))))
        return session_id

    def find(self, session_id: str | None, kind: Kind) -> Session | None:
        """The unexpired (pre-)session of this id, or None."""
        if not session_id or len(session_id) != _ID_LENGTH:
            return None
        self._setup()
        rows = self._query(f"SELECT kind, token_id, expires_at FROM {self._table} "
                           f"WHERE id_sha256 = {self._p}", (id_digest(session_id),))
        if not rows:
            return None
        values = tuple(rows[0]) if not isinstance(rows[0], dict) else tuple(rows[0].values())
        found = Session(str(values[0]), values[1], str(values[2]))
        if found.kind != kind or found.expires_at < _iso(datetime.now(UTC)):
            return None
        return found

    def take(self, session_id: str | None, kind: Kind) -> Session | None:
        """:meth:`find`, and the (pre-)session ended: it serves once."""
        found = self.find(session_id, kind)
        if found is not None and session_id is not None:
            self.end(session_id)
        return found

    def end(self, session_id: str) -> None:
        self._setup()
        self._execute(f"DELETE FROM {self._table} WHERE id_sha256 = {self._p}",
                      (id_digest(session_id),))

    def end_for_token(self, token_id: str) -> None:
        """End every session opened with the token ``token_id`` (it was revoked)."""
        self._setup()
        self._execute(f"DELETE FROM {self._table} WHERE token_id = {self._p}", (token_id,))

    def _execute(self, sql: str, params: tuple[Any, ...]) -> None:
        with self._recorder.datastore.transaction(commit=True) as cursor:
            cursor.execute(sql, params)

    def _query(self, sql: str, params: tuple[Any, ...]) -> list[Any]:
        with self._recorder.datastore.transaction(commit=False) as cursor:
            cursor.execute(sql, params)
            return list(cursor.fetchall())


def _iso(moment: datetime) -> str:
    return moment.isoformat(timespec="microseconds")
