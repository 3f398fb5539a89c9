"""The console's sessions in the store (``ledger.access.sessions``), on SQLite and PostgreSQL:
only the digest of a session id is stored; a pre-session serves one sign-in; a session ends at
sign-out and with its token; another instance over the same store finds it."""

from __future__ import annotations

from typing import Any

from ledger.access.sessions import SESSIONS_TABLE, SessionStore, csrf_for, id_digest
from ledger.app.application import LedgerApp
from ledger.settings import Settings


def test_sessions_live_in_the_store_as_digests_and_end(store_settings: Settings) -> None:
    app = LedgerApp(store_settings)
    try:
        store = SessionStore(app.recorder)
        pre = store.create("pre")
        assert store.find(pre, "pre") is not None and store.find(pre, "session") is None
        assert store.take(pre, "pre") is not None and store.take(pre, "pre") is None
        sid = store.create("session", "abc123abc123")
        other = SessionStore(app.recorder)  # another instance of the service
        found = other.find(sid, "session")
        assert found is not None and found.token_id == "abc123abc123"
        assert other.find("x" * 43, "session") is None and other.find("", "session") is None
        recorder: Any = app.recorder
        with recorder.datastore.transaction(commit=False) as cursor:
            cursor.execute(f"SELECT * FROM {_table(store_settings)}")
            stored = repr([tuple(r) if not isinstance(r, dict) else tuple(r.values())
                           for r in cursor.fetchall()])
        assert sid not in stored and id_digest(sid) in stored
        assert csrf_for(sid) != csrf_for(pre)
        other.end(sid)
        assert store.find(sid, "session") is None
        kept = store.create("session", "def456def456")
        store.end_for_token("def456def456")
        assert store.find(kept, "session") is None
    finally:
        app.close()


def _table(settings: Settings) -> str:
    schema = settings.postgres_schema
    return f'"{schema}"."{SESSIONS_TABLE}"' if settings.database_url.startswith(
        "postgresql") else SESSIONS_TABLE


def test_revoking_a_token_from_the_command_line_ends_its_sessions(
        store_settings: Settings) -> None:
    from ledger.access.tokens import TokenStore
    from tests.support.cli import run_cli

    app = LedgerApp(store_settings)
    try:
        _, info = TokenStore(app.recorder).create("auditor", label="console reader")
        store = SessionStore(app.recorder)
        sid = store.create("session", info.token_id)
        done = run_cli(store_settings, "tokens", "revoke", info.token_id)
        assert done.returncode == 0, done.stderr
        assert store.find(sid, "session") is None
    finally:
        app.close()


def test_a_session_acts_as_its_token_held_against_the_chain(store_settings: Settings) -> None:
    """A session's token made admin in the database (not through its chain) gives the session
    nothing: the console holds the token against its chain as the API does."""
    from ledger.access.tokens import TokenStore
    from ledger.domain.errors import LedgerError
    from tests.support import tamper

    app = LedgerApp(store_settings)
    try:
        tokens = TokenStore(app.recorder)
        _, info = tokens.create("auditor", label="console reader")
        verified = tokens.verified(info.token_id)
        assert verified is not None and verified.role == "auditor"
        assert tokens.verified("nosuchtoken0") is None
        tamper.execute_sql(app, f"UPDATE {tamper.side_table(app, 'ledger_tokens')} "
                           "SET role = 'admin' WHERE token_id = %s", (info.token_id,))
        try:
            tokens.verified(info.token_id)
        except LedgerError as refused:
            assert refused.code == "token_chain_broken"
        else:
            raise AssertionError("an edited token row was taken as it stands")
    finally:
        app.close()
