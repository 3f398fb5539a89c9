"""Settings from ``LEDGER_*`` environment variables (and an optional ``.env`` file)."""

from __future__ import annotations

from datetime import time
from functools import lru_cache
from pathlib import Path
from typing import Literal, get_args

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

DEFAULT_SQLITE_URL = "sqlite:///var/ledger.sqlite3"
LogLevel = Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"]


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="LEDGER_", env_file=".env", extra="ignore")

    database_url: str = DEFAULT_SQLITE_URL
    """``sqlite:///relative/path``, ``sqlite:////absolute/path`` or ``postgresql://user@host/db``."""
    postgres_pool_size: int = Field(default=5, ge=1)
    postgres_schema: str = Field(
        default="public", pattern=r"^\s*[A-Za-z_][A-Za-z0-9_]{0,62}\s*$",
        description="PostgreSQL schema of the store: a plain identifier (letters, digits, _).",
    )
    connect_timeout: int = Field(default=5, ge=1, le=300)
    """Seconds to wait for the PostgreSQL server before giving up (``store_unavailable``)."""

    deck_key: SecretStr | None = None
    """Hex key (32 bytes) sealing rng decks while hands are in play; else ``deck_key_file``."""
    deck_key_file: Path = Path("var/deck.key")
    """Created with a random key on first use when no ``deck_key`` is given."""
    seal_key: SecretStr | None = None
    """HMAC key signing the daily audit seals (``ledger audit seal``)."""

    snapshot_interval: int = Field(default=500, ge=2)
    """Snapshot a table every N events, so a cold load replays at most N events."""
    cache_size: int = Field(default=1_000, ge=0)
    """Tables kept in memory between commands (0 turns the cache off)."""
    command_retries: int = Field(default=8, ge=1)
    """Attempts at a command that keeps meeting concurrent writers on its table."""

    gaming_day_start: time = time(6, 0)
    """Local time at which a table's gaming day begins (accounting)."""

    api_token_cache_seconds: float = Field(default=2.0, ge=0)
    """How long the API trusts a token lookup; a revocation by another process takes effect
    within this time (at once in the process that revoked)."""

    log_format: Literal["console", "json"] = "console"
    log_level: LogLevel = "WARNING"
    """DEBUG, INFO, WARNING, ERROR or CRITICAL, in any case (``info`` is ``INFO``)."""

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


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings()
