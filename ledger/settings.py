"""Settings from ``LEDGER_*`` environment variables (and an optional ``.env`` file)."""

from __future__ import annotations

from datetime import time
from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

DEFAULT_SQLITE_URL = "sqlite:///var/ledger.sqlite3"


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="LEDGER_", env_file=".env", extra="ignore")

    database_url: str = DEFAULT_SQLITE_URL
    """``sqlite:///relative/path``, ``sqlite:////absolute/path`` or ``postgresql://user@host/db``."""
    postgres_pool_size: int = Field(default=5, ge=1)
    postgres_schema: str = "public"

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
    log_level: str = "WARNING"


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings()
