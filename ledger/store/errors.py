"""A store's failures as coded errors: ``store_unavailable`` (with what to check),
``store_permission_denied`` (with the GRANT that is missing), ``store_schema_missing``, and
``concurrent_updates`` for a store that was busy. The driver's error is found behind the
library's wrappers; psycopg is never imported to ask (a SQLite store never loads it)."""

from __future__ import annotations

import sqlite3
import sys
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import urlparse

from eventsourcing.persistence import PersistenceError

from ledger.domain.errors import ConcurrencyError, LedgerError
from ledger.settings import Settings
from ledger.store.urls import PostgresURL, redact_url, sqlite_path

if TYPE_CHECKING:  # imported where used: a SQLite store never loads psycopg
    import psycopg


def sqlite_failure(path: str, exc: BaseException) -> LedgerError | None:
    """A SQLite driver error about the file itself as a coded error, or None."""
    text = str(exc)
    lowered = text.lower()
    if "malformed" in lowered or "not a database" in lowered or "encrypted" in lowered \
            or "corrupt" in lowered:
        return StoreError("store_corrupt", f"the SQLite store {path} is damaged ({text}): "
                          "restore it from a backup (docs/operations/backup.md) and run "
                          "`ledger audit verify`", path=path)
    if "readonly" in lowered or "read-only" in lowered:
        return StoreError("store_permission_denied", f"the SQLite store {path} may only "
                          f"be read here ({text}): this command needs to write to it",
                          path=path)
    if "unable to open" in lowered or "disk i/o" in lowered:
        return StoreError("store_unavailable", f"cannot open the SQLite store {path}: "
                          f"{text}", path=path)
    return None


class StoreError(LedgerError):
    """The store cannot be reached or used: ``store_unavailable``, ``store_permission_denied``,
    ``store_schema_missing``."""


@dataclass(frozen=True)
class PostgresTarget:
    """Where a ``postgresql://`` URL points (the password is kept only to connect); ``host``
    and ``port`` are lists (``h1,h2``, ``5432,5433``) when the URL names several servers."""

    host: str
    port: str
    dbname: str
    user: str
    password: str = field(repr=False)
    schema: str
    url: PostgresURL = field(repr=False)

    @classmethod
    def of(cls, settings: Settings) -> PostgresTarget:
        url = settings.database_url.strip()
        where = PostgresURL.parse(url, redact_url(url))
        return cls(where.host, where.port, where.dbname, where.user, where.password,
                   settings.postgres_schema.strip() or "public", where)

    def __str__(self) -> str:
        return (f"PostgreSQL at {self.url.where}, database {self.dbname!r}, "
                f"user {self.user!r}")

    def scrub(self, text: str) -> str:
        """``text`` without the password, should a driver ever quote it (a password of one
        or two characters is left alone: replacing it would garble the message)."""
        return text.replace(self.password, "***") if len(self.password) > 2 else text


#: What a server says while every connection slot is taken (by all clients, or under a role's
#: or a database's limit), as when a whole fleet starts at once.
SLOTS_TAKEN = ("too many clients", "too many connections for",
               "remaining connection slots are reserved")


#: What a server says while it is starting, stopping, or a standby is being promoted.
NOT_READY = ("the database system is starting up", "the database system is shutting down",
             "the database system is in recovery mode",
             "the database system is not yet accepting connections")


BUSY_SERVER = SLOTS_TAKEN + NOT_READY
"""Refusals that pass: worth asking again until the wait runs out."""


def _denied(target: PostgresTarget, problem: str, remedy: str) -> StoreError:
    return StoreError("store_permission_denied",
                      f"{problem} ({target}): {remedy}",
                      database=target.dbname, user=target.user, schema=target.schema)


def unavailable(target: PostgresTarget, exc: BaseException, timeout: int) -> StoreError:
    """``store_unavailable`` for a failed connection, with what to check."""
    reason = _reason(target.scrub(str(exc)))
    lowered = reason.lower()
    if "does not exist" in lowered and "database" in lowered:
        hint = (f"create it (createdb -h {target.host} -p {target.port} -U {target.user} "
                f"{target.dbname}) or fix the database name in LEDGER_DATABASE_URL")
    elif any(words in lowered for words in SLOTS_TAKEN):
        hint = (f"the server still refused after {timeout} s (LEDGER_CONNECT_TIMEOUT): raise its "
                "max_connections or the role's or database's CONNECTION LIMIT, run fewer "
                "processes at once, or put a connection pooler (PgBouncer) in front of it")
    elif any(words in lowered for words in NOT_READY):
        hint = (f"the server was still starting, stopping or recovering after {timeout} s "
                "(LEDGER_CONNECT_TIMEOUT): wait for it, or raise LEDGER_CONNECT_TIMEOUT")
    elif "authentication" in lowered or "password" in lowered or "role" in lowered:
        hint = "check the user and password in LEDGER_DATABASE_URL"
    elif "timeout" in lowered or "timed out" in lowered:
        hint = (f"no answer within {timeout} s (LEDGER_CONNECT_TIMEOUT): is the server up and "
                "reachable from here?")
    else:
        hint = "is the server running and accepting TCP/IP connections on that host and port?"
    return StoreError("store_unavailable", f"cannot connect to {target}: {reason}; {hint}",
                      host=target.host, port=target.port, database=target.dbname,
                      user=target.user)


def _reason(text: str) -> str:
    """The server's or the socket's own words, without libpq's framing."""
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    first = lines[0] if lines else text
    reason = first.rsplit(" failed: ", 1)[-1]
    for prefix in ("FATAL:", "ERROR:"):
        if reason.startswith(prefix):
            reason = reason[len(prefix):].strip()
    return reason or text


def loaded_classes(module: str, *names: str) -> tuple[type[Any], ...]:
    """The classes ``names`` of ``module`` if it was imported already, else none, for
    ``isinstance`` and ``except``: nothing can be an instance of a class never loaded, so asking
    never imports the module (commands on SQLite never load psycopg or the library's PostgreSQL
    recorders)."""
    found = sys.modules.get(module)
    return () if found is None else tuple(getattr(found, name) for name in names)


def _driver_error(exc: BaseException) -> BaseException | None:
    """The driver's own error behind ``exc`` (the library wraps them), if any."""
    cause: BaseException | None = exc
    for _ in range(6):
        if cause is None or isinstance(cause, (sqlite3.Error, *loaded_classes("psycopg", "Error"))):
            return cause
        cause = cause.__cause__ or cause.__context__
    return None


def permission_denied(exc: BaseException) -> bool:
    """Whether ``exc`` is the store refusing this user something (not a missing table)."""
    cause = _driver_error(exc)
    if isinstance(cause, loaded_classes("psycopg.errors", "InsufficientPrivilege",
                                        "ReadOnlySqlTransaction")):
        return True
    return isinstance(cause, sqlite3.Error) and "readonly" in str(cause).lower()


def store_error(exc: BaseException, settings: Settings) -> LedgerError | None:
    """A store failure as a coded error, or None when ``exc`` is not one this knows.

    Looks through the library's wrappers (``PersistenceError``) to the driver's error.
    """
    cause = _driver_error(exc)
    if isinstance(cause, loaded_classes("psycopg", "Error")):
        return _postgres_error(cause, settings)
    if isinstance(cause, sqlite3.Error) or (
            isinstance(exc, PersistenceError)
            and urlparse(settings.database_url.strip()).scheme == "sqlite"):
        return sqlite_failure(sqlite_path(settings.database_url.strip()),
                              cause if cause is not None else exc)
    return None


def _postgres_error(cause: psycopg.Error, settings: Settings) -> LedgerError | None:
    """psycopg's error ``cause`` as a coded error, or None when this does not know it."""
    import psycopg
    from psycopg_pool import PoolTimeout

    target = PostgresTarget.of(settings)
    message = target.scrub(str(cause)).strip().splitlines()[0] if str(cause).strip() \
        else type(cause).__name__
    if isinstance(cause, psycopg.errors.InsufficientPrivilege):
        return _denied(target, f"user {target.user!r} lacks a privilege this needs: "
                       f"{message}",
                       f"grant it (e.g. GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES "
                       f"IN SCHEMA {target.schema} TO {target.user}) or use a role that "
                       "has it")
    if isinstance(cause, psycopg.errors.ReadOnlySqlTransaction):
        return _denied(target, f"the store may only be read by this session: {message} (a "
                       f"standby, or a role with default_transaction_read_only on)",
                       "point LEDGER_DATABASE_URL at the primary, with a role that may write "
                       f"(ALTER ROLE {target.user} SET default_transaction_read_only = off)")
    if isinstance(cause, psycopg.errors.InvalidSchemaName):
        return StoreError("store_schema_missing", f"{message} ({target}): set "
                          "LEDGER_POSTGRES_SCHEMA to an existing schema",
                          schema=target.schema)
    if isinstance(cause, psycopg.errors.UndefinedTable):
        # Tables are created on first use on the primary, so a missing one is a read
        # store that has not replayed them yet, or views read before any were built.
        return StoreError("store_unavailable", f"{message} ({target}): the store does not "
                          "hold that table yet. A read store (LEDGER_READ_DATABASE_URL) "
                          "has not replayed the views' tables: keep `ledger projections "
                          "update --follow` running on the primary and try again; on the "
                          "primary, run `ledger projections update` once as a user who "
                          "may create tables", database=target.dbname,
                          schema=target.schema)
    if isinstance(cause, psycopg.errors.LockNotAvailable | psycopg.errors.QueryCanceled
                  | psycopg.errors.TransactionRollback):
        # The server answered: the table was busy (lock timeout, deadlock, serialisation).
        return ConcurrencyError("concurrent_updates", f"the store was busy and gave up: "
                                f"{message}; try again")
    if type(cause) is psycopg.OperationalError or isinstance(
            cause, PoolTimeout | psycopg.errors.ConnectionException
            | psycopg.errors.AdminShutdown | psycopg.errors.CannotConnectNow
            | psycopg.errors.CrashShutdown
            # class 53, the server short of something: connection slots, memory, disk
            | psycopg.errors.InsufficientResources | psycopg.errors.TooManyConnections
            | psycopg.errors.ConfigurationLimitExceeded | psycopg.errors.OutOfMemory
            | psycopg.errors.DiskFull):
        return unavailable(target, cause, settings.connect_timeout)
    if isinstance(cause, psycopg.OperationalError):
        # Any other failure of the operational kind: the pool closed or its queue full, an
        # object in use, the server's own I/O or system error. The store could not do it now;
        # it is not a fault of the ledger's code (never internal_error).
        return StoreError("store_unavailable", f"the store could not do this now ({target}): "
                          f"{message}; try again", database=target.dbname,
                          error_class=type(cause).__name__)
    return None
