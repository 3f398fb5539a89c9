"""The settings are read as pydantic-settings reads them: the environment (names in any case), a
``.env`` file below it, what the code passes above both, the same values and the same errors."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError
from pydantic_settings import BaseSettings, SettingsConfigDict

from ledger.settings import Settings, SettingsFields


class Library(BaseSettings, SettingsFields):
    """The same fields and checks, read by pydantic-settings itself."""

    model_config = SettingsConfigDict(env_prefix="LEDGER_", env_file=".env", extra="ignore")


def outcome(cls: type[Any], **given: Any) -> Any:
    try:
        return cls(**given).model_dump()
    except ValidationError as exc:  # the error of a check, compared by its text
        return [{**e, "ctx": {k: str(v) for k, v in e.get("ctx", {}).items()}}
                for e in exc.errors(include_url=False)]


ENVIRONMENTS: list[dict[str, str]] = [
    {},
    {"LEDGER_DATABASE_URL": "sqlite:////tmp/x.sqlite3", "LEDGER_CACHE_SIZE": "7",
     "LEDGER_LOG_LEVEL": "info", "LEDGER_GAMING_DAY_START": "05:30",
     "LEDGER_DECK_KEY": "ab" * 32, "LEDGER_DECK_KEY_FILE": "/tmp/deck.key",
     "LEDGER_API_TOKEN_CACHE_SECONDS": "0.5", "LEDGER_LOG_FORMAT": "json",
     "LEDGER_READ_DATABASE_URL": " postgresql://a@b/c ", "LEDGER_SHARDS": "",
     "LEDGER_POSTGRES_SCHEMA": " ledger ", "LEDGER_ACTOR": "eve"},
    {"ledger_cache_size": "3", "Ledger_Snapshot_Interval": "40", "LEDGER_log_level": "warn"},
    {"LEDGER_CACHE_SIZE": "many", "LEDGER_CONNECT_TIMEOUT": "0", "LEDGER_LOG_LEVEL": "loud",
     "LEDGER_READ_DATABASE_URL": "sqlite:///copy.sqlite3", "LEDGER_GAMING_DAY_START": "25:00",
     "LEDGER_POSTGRES_SCHEMA": "1bad", "LEDGER_LOG_FORMAT": "xml"},
    {"LEDGER_DECK_KEY_FILE": "", "LEDGER_SIGNING_KEY": "", "LEDGER_READ_DATABASE_URL": "",
     "LEDGER_CHAIN_ANCHOR_INTERVAL": "", "LEDGER_ACTOR": ""},
    {"LEDGER_NO_SUCH_SETTING": "1", "DATABASE_URL": "sqlite:///unprefixed.sqlite3",
     "LEDGER_": "x", "LEDGER_MODEL_CONFIG": "{}"},
]

ENV_FILES = [
    None,
    "LEDGER_CACHE_SIZE=11\nledger_log_level=error\n",
    "# a comment\nexport LEDGER_DATABASE_URL='sqlite:///from-file.sqlite3'\n"
    'LEDGER_ACTOR="quoted name"  # trailing\nLEDGER_SHARDS\nOTHER=1\nLEDGER_UNKNOWN=2\n'
    "DATABASE_URL=sqlite:///unprefixed.sqlite3\nLEDGER_SNAPSHOT_INTERVAL=1\n",
    "LEDGER_GAMING_DAY_START=${HOME}\nLEDGER_DECK_KEY_FILE=~/deck.key\nLEDGER_CACHE_SIZE=\n",
]

PASSED: list[dict[str, Any]] = [
    {},
    {"database_url": "sqlite:///passed.sqlite3", "cache_size": 5},
    {"CACHE_SIZE": "8", "cache_size": 9, "not_a_field": 1},
    {"log_level": "debug", "deck_key_file": Path("/tmp/k"), "gaming_day_start": "07:00"},
    {"connect_timeout": 500},
]


@pytest.mark.parametrize("environment", ENVIRONMENTS)
@pytest.mark.parametrize("env_file", ENV_FILES)
def test_the_settings_are_read_as_pydantic_settings_reads_them(
        environment: dict[str, str], env_file: str | None, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    for name in [n for n in __import__("os").environ if n.upper().startswith("LEDGER_")]:
        monkeypatch.delenv(name)
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    monkeypatch.chdir(tmp_path)
    if env_file is not None:
        (tmp_path / ".env").write_text(env_file)
    for given in PASSED:
        assert outcome(Settings, **given) == outcome(Library, **given), given
        assert outcome(Settings, _env_file=None, **given) == \
            outcome(Library, _env_file=None, **given), given
    (tmp_path / "other.env").write_text("LEDGER_CACHE_SIZE=12\n")
    assert outcome(Settings, _env_file="other.env") == outcome(Library, _env_file="other.env")


def test_the_settings_error_names_the_settings() -> None:
    with pytest.raises(ValidationError) as err:
        Settings(cache_size=-1)
    assert err.value.title == "Settings"
