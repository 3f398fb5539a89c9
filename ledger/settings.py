"""Settings from ``LEDGER_*`` environment variables (and an optional ``.env`` file).

They are read as pydantic-settings reads them (``BaseSettings`` with the prefix ``LEDGER_``,
names in any case, the ``.env`` file of the working directory below the environment, what the
code passes above both), and a test holds the two equal; but without importing pydantic-settings
where there is no ``.env`` file: that package and what it imports (asyncio, the parsers of its
other sources) take some 40 ms of every command's start. Only a ``.env`` file is read through it.
"""

from __future__ import annotations

import os
from datetime import time
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator

DEFAULT_SQLITE_URL = "sqlite:///var/ledger.sqlite3"
LogLevel = Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"]
ENV_PREFIX = "LEDGER_"
ENV_FILE = ".env"


class SettingsFields(BaseModel):
    """The settings' fields and their checks (:class:`Settings` reads them)."""

    # As pydantic-settings' BaseSettings: defaults are validated too; other names are ignored.
    model_config = ConfigDict(extra="ignore", validate_default=True)

    database_url: str = DEFAULT_SQLITE_URL
    """``sqlite:///relative/path``, ``sqlite:////absolute/path`` or ``postgresql://user@host/db``."""
    read_database_url: str | None = None
    """A standby of the same store (``postgresql://...``) for the read routes and the reading
    commands (views, audit, exports); commands and the projections' catch-up use the primary.
    Empty: none (everything reads the primary)."""
    postgres_pool_size: int = Field(default=5, ge=1)
    postgres_schema: str = Field(
        default="public", pattern=r"^\s*[A-Za-z_][A-Za-z0-9_]{0,62}\s*$",
        description="PostgreSQL schema of the store: a plain identifier (letters, digits, _).",
    )
    shards: str = ""
    """The shard map (``ledger.store.shards``): ``NAME: PATTERN[, PATTERN] = URL`` entries separated
    by ``;``; empty: every table in the one store of ``database_url``."""
    connect_timeout: int = Field(default=5, ge=1, le=300)
    """Seconds to wait for the PostgreSQL server before giving up (``store_unavailable``)."""

    deck_key: SecretStr | None = None
    """Hex key (32 bytes) sealing rng decks while hands are in play; else ``deck_key_file``."""
    deck_key_file: Path | None = None
    """File of the deck key when no ``deck_key`` is given; default ``deck.key`` beside a SQLite
    store (never the working directory); a PostgreSQL store needs one of the two named
    (``ledger.store.deckkeys.deck_key``). Created on first use only while the store holds no sealed
    deck."""
    seal_key: SecretStr | None = None
    """HMAC key of the first seal format: only to check seals made before Ed25519 seals."""
    signing_key: SecretStr | None = None
    """Ed25519 private key (64 hex digits) signing the daily seals; else ``signing_key_file``."""
    signing_key_file: Path | None = None
    """File of the signing key (``ledger keys create``); default ``signing.key`` beside a SQLite
    store, ``var/signing.key`` otherwise."""

    register_root: str | None = None
    """The key id (16 hex digits) of the register's root admin, as ``ledger principals
    bootstrap`` prints it. Set, a register whose bootstrap admin holds another key is refused
    (``register_broken``): a database insider cannot replace the register with one of their
    own. Keep it outside the database (the service's environment, the auditor's notes)."""
    checkpoint_minutes: float = Field(default=5, ge=0, le=24 * 60)
    """Every N minutes the service (``ledger serve``) signs a checkpoint of every chain head
    (tables, register, tokens, access log) with the signing key (``ledger checkpoint`` makes
    one, for cron); ``ledger audit verify`` holds the store against the latest. 0: none."""
    checkpoint_sink: Path | None = None
    """A file each checkpoint is also appended to, one JSON line (a file on another host, a
    write-once bucket's mount), so that a database insider cannot rewrite them too."""
    approval_minutes: int = Field(default=60, ge=1, le=7 * 24 * 60)
    """How long a proposal waits for its approvals before it expires (minutes)."""

    actor: str | None = None
    """Who the command line acts as (``--actor`` overrides it; default: the OS user). Events
    recorded by the command line name ``cli:<actor>``."""

    snapshot_interval: int = Field(default=500, ge=2)
    """Snapshot a table every N events, so a cold load replays at most N events."""
    chain_anchor_interval: int = Field(default=2_000, ge=0)
    """Every N events of a table, its first snapshot after the multiple of N is a chain anchor:
    a load (once per process) and a hand's replay walk the hash chain from the nearest anchor
    instead of the first event (``ledger.store.trust``); 0: always from the first event."""
    cache_size: int = Field(default=1_000, ge=0)
    """Tables kept in memory between commands (0 turns the cache off)."""
    command_retries: int = Field(default=8, ge=1)
    """Attempts at a command that keeps meeting concurrent writers on its table."""

    gaming_day_start: time = time(6, 0)
    """Local time at which a table's gaming day begins (accounting)."""
    venue: str = Field(default="table-ledger", min_length=1, max_length=200)
    """The casino's name, written in the hand histories (PHH ``venue``, OHH ``site_name``)."""

    api_token_cache_seconds: float = Field(default=2.0, ge=0)
    """How long the API trusts a token lookup; a revocation by another process takes effect
    within this time (at once in the process that revoked)."""

    log_format: Literal["console", "json"] = "console"
    log_level: LogLevel = "WARNING"
    """DEBUG, INFO, WARNING, ERROR or CRITICAL, in any case (``info`` is ``INFO``)."""

    @field_validator("read_database_url", mode="before")
    @classmethod
    def _standby_url(cls, value: object) -> object:
        if not isinstance(value, str):
            return value
        url = value.strip()
        if not url:
            return None
        if url.split("://", 1)[0] not in ("postgresql", "postgres", "postgresql+psycopg"):
            raise ValueError("a read store is a PostgreSQL standby: postgresql://user@host/db "
                             "(leave it unset to read the event store itself)")
        return url

    @field_validator("log_level", mode="before")
    @classmethod
    def _level_upper(cls, value: object) -> object:
        if not isinstance(value, str):
            return value
        level = value.strip().upper()
        level = "WARNING" if level == "WARN" else level
        if level not in get_args(LogLevel):
            raise ValueError(f"not a log level: use one of {', '.join(get_args(LogLevel))}")
        return level


class Settings(SettingsFields):
    """The settings: what the code passes, else ``LEDGER_<NAME>`` from the environment (the name
    in any case), else from the ``.env`` file of the working directory, else the default.
    ``_env_file``: another file than ``.env``, or None for none."""

    def __init__(self, _env_file: str | Path | None = ENV_FILE, **values: Any) -> None:
        super().__init__(**sourced(type(self), values, _env_file))


def sourced(cls: type[BaseModel], given: dict[str, Any],
            env_file: str | Path | None) -> dict[str, Any]:
    """The values of ``cls``'s fields from their sources, highest last (as pydantic-settings
    merges them): the ``.env`` file, the environment, then ``given`` (a name in any case)."""
    fields = cls.model_fields
    found: dict[str, Any] = {}
    if env_file is not None:
        path = Path(env_file).expanduser()
        if path.is_file() or path.is_fifo():
            found.update(_env_file_values(cls, env_file))
    environ = {key.lower(): value for key, value in os.environ.items()}
    prefix = ENV_PREFIX.lower()
    for name in fields:
        value = environ.get(prefix + name)
        if value is not None:
            found[name] = value
    passed: dict[str, Any] = {}
    for key, value in given.items():
        name = key.lower()
        if name in fields:
            passed.setdefault(name, value)  # the first of the names that match one field
    return {**found, **passed}


def _env_file_values(cls: type[BaseModel], env_file: str | Path) -> dict[str, Any]:
    """What pydantic-settings reads from ``env_file`` for ``cls`` (names it does not know
    included: validation ignores them)."""
    from pydantic_settings import DotEnvSettingsSource

    return DotEnvSettingsSource(cls, env_file=env_file, env_prefix=ENV_PREFIX,  # type: ignore[arg-type]
                                case_sensitive=False)()


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings()
