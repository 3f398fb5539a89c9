"""Sealed decks (COM-8) and the store URL (LEDGER_DATABASE_URL)."""

from __future__ import annotations

import base64
import stat
from pathlib import Path

import pytest

from ledger.domain.cards import FULL_DECK, shuffled_deck
from ledger.domain.errors import LedgerError
from ledger.settings import Settings
from ledger.store.deckkeys import deck_key
from ledger.store.persistence import store_env
from ledger.store.urls import sqlite_path
from ledger.table.decks import SealedDeckKeeper


def test_com_8_a_sealed_deck_opens_only_with_its_key() -> None:
    keeper = SealedDeckKeeper(b"k" * 32)
    deck = shuffled_deck()
    salt = "a-salt-long-enough-that-chance-cannot-produce-it"
    sealed = keeper.seal(deck, salt)
    prefix, _, body = sealed.partition(":")
    blob = base64.b64decode(body, validate=True)
    # Neither the salt nor the deck order appears in the sealed text, encoded or not.
    assert prefix == "aesgcm1"
    assert salt not in sealed and salt.encode() not in blob
    assert bytes(deck) not in blob and bytes(deck[:16]) not in blob
    assert keeper.unseal(sealed) == (deck, salt)
    with pytest.raises(LedgerError) as err:
        SealedDeckKeeper(b"x" * 32).unseal(sealed)
    assert err.value.code == "deck_key_mismatch"


def test_com_8_two_seals_of_one_deck_differ() -> None:
    keeper = SealedDeckKeeper(b"k" * 32)
    assert keeper.seal(FULL_DECK, "s") != keeper.seal(FULL_DECK, "s")


def test_the_deck_key_file_is_created_once_and_private(tmp_path: Path) -> None:
    settings = Settings(deck_key_file=tmp_path / "keys" / "deck.key")
    first = deck_key(settings)
    assert len(first) == 32 and deck_key(settings) == first
    mode = stat.S_IMODE((tmp_path / "keys" / "deck.key").stat().st_mode)
    assert mode == 0o600


def test_a_configured_deck_key_must_be_64_hex_digits(tmp_path: Path) -> None:
    assert deck_key(Settings(deck_key="ab" * 32, deck_key_file=tmp_path / "k")) == b"\xab" * 32
    with pytest.raises(LedgerError) as err:
        deck_key(Settings(deck_key="abc", deck_key_file=tmp_path / "k"))
    assert err.value.code == "invalid_deck_key"


@pytest.mark.parametrize(
    ("url", "path"),
    [
        ("sqlite:///var/x.sqlite3", "var/x.sqlite3"),
        ("sqlite:////tmp/x.sqlite3", "/tmp/x.sqlite3"),
        ("sqlite://", ":memory:"),
    ],
)
def test_sqlite_urls(url: str, path: str) -> None:
    assert sqlite_path(url) == path


def test_postgres_url_maps_to_the_library_environment() -> None:
    env = store_env(Settings(database_url="postgresql://alice:s%40cret@db.example:6543/ledger"))
    assert env["POSTGRES_HOST"] == "db.example" and env["POSTGRES_PORT"] == "6543"
    assert env["POSTGRES_USER"] == "alice" and env["POSTGRES_PASSWORD"] == "s@cret"
    assert env["POSTGRES_DBNAME"] == "ledger"


@pytest.mark.parametrize("url", ["mysql://x/y", "postgresql://host", "nonsense"])
def test_unsupported_urls_are_coded_errors(url: str) -> None:
    with pytest.raises(LedgerError) as err:
        store_env(Settings(database_url=url))
    assert err.value.code == "invalid_database_url"


def test_store_failures_are_classified_and_never_show_the_password() -> None:
    import psycopg

    from ledger.store.errors import store_error
    from ledger.store.urls import redact_url

    settings = Settings(database_url="postgresql://ledger:s3cret-pw@db.example:5432/ledger")
    busy = store_error(psycopg.errors.LockNotAvailable("lock timeout"), settings)
    assert busy is not None and busy.code == "concurrent_updates"
    down = store_error(psycopg.OperationalError("connection refused"), settings)
    assert down is not None and down.code == "store_unavailable"
    assert "s3cret-pw" not in down.message and "db.example" in down.message
    assert store_error(ValueError("not the store"), settings) is None
    # The server short of connection slots, memory or disk: unavailable for now, not a fault.
    full = store_error(psycopg.errors.TooManyConnections("sorry, too many clients already"),
                       settings)
    assert full is not None and full.code == "store_unavailable"
    assert "CONNECTION LIMIT" in full.message and "s3cret-pw" not in full.message
    for short in (psycopg.errors.InsufficientResources, psycopg.errors.OutOfMemory,
                  psycopg.errors.DiskFull, psycopg.errors.ConfigurationLimitExceeded):
        found = store_error(short("out of something"), settings)
        assert found is not None and found.code == "store_unavailable", short
    assert redact_url("postgresql://u:a/b@c@h:5432/db") == "postgresql://u:***@h:5432/db"
    for url in ("postgresql://u:pa/ss@h:5432/db", "postgresql://u:secret@h:5432",
                "mysql://u:secret@h/db"):
        with pytest.raises(LedgerError) as err:
            store_env(Settings(database_url=url))
        assert err.value.code == "invalid_database_url" and "secret" not in err.value.message
        assert "pa/ss" not in err.value.message


def test_a_multi_host_url_names_every_server_for_libpq() -> None:
    url = ("postgresql://ledger:s%2Fcret@db1.example:5432,db2.example:5433/ledger"
           "?target_session_attrs=read-write")
    env = store_env(Settings(database_url=url))
    assert env["POSTGRES_HOST"] == "db1.example,db2.example"
    assert env["POSTGRES_PORT"] == "5432,5433" and env["POSTGRES_PASSWORD"] == "s/cret"
    assert env["LEDGER_PG_OPTIONS"] == "target_session_attrs=read-write"
    from ledger.store.errors import PostgresTarget

    target = PostgresTarget.of(Settings(database_url=url))
    assert "db1.example:5432,db2.example:5433" in str(target) and "cret" not in str(target)
    kwargs = target.url.connect_kwargs(5)
    assert kwargs["host"] == "db1.example,db2.example" and kwargs["port"] == "5432,5433"
    assert kwargs["target_session_attrs"] == "read-write"


@pytest.mark.parametrize("url", ["postgresql://h1:5432,h2:x/db", "postgresql://h/db?sneaky=1",
                                 "postgresql://h:99999/db"])
def test_bad_multi_host_urls_are_coded_errors(url: str) -> None:
    with pytest.raises(LedgerError) as err:
        store_env(Settings(database_url=url))
    assert err.value.code == "invalid_database_url"


def test_a_read_store_is_a_postgresql_url_or_none() -> None:
    from pydantic import ValidationError

    from ledger.store.readstore import read_settings

    primary = "postgresql://ledger@db1/ledger"
    assert read_settings(Settings(database_url=primary)) is None
    assert read_settings(Settings(database_url=primary, read_database_url="  ")) is None
    standby = "postgresql://ledger@db2,db1/ledger?target_session_attrs=prefer-standby"
    chosen = read_settings(Settings(database_url=primary, read_database_url=f" {standby} "))
    assert chosen is not None
    assert (chosen.database_url, chosen.read_database_url) == (standby, None)
    with pytest.raises(ValidationError, match="PostgreSQL standby"):
        Settings(database_url=primary, read_database_url="sqlite:///copy.sqlite3")


def test_a_read_store_beside_shards_is_refused() -> None:
    from ledger.store.readstore import open_reader

    settings = Settings(shards="east: E-* = postgresql://ledger@db-east/ledger",
                        read_database_url="postgresql://ledger@db-east-standby/ledger")
    with pytest.raises(LedgerError) as err:
        open_reader(settings)
    assert err.value.code == "not_across_shards"


def test_every_operational_failure_of_postgres_is_store_unavailable_never_internal() -> None:
    """The store failing of the operational kind where no finer code applies (the pool closed
    or over its queue, an object in use, the server's I/O or system error): store_unavailable,
    without the password; never an internal_error."""
    import psycopg
    from psycopg_pool import PoolClosed, TooManyRequests

    from ledger.store.errors import store_error

    settings = Settings(database_url="postgresql://ledger:s3cret-pw@db.example:5432/ledger")
    for failure in (PoolClosed("the pool 'ledger-x' is already closed"),
                    TooManyRequests("the pool 'ledger-x' has already 10 requests waiting"),
                    psycopg.errors.ObjectInUse("database is being accessed by other users"),
                    psycopg.errors.IoError("could not read block 7"),
                    psycopg.errors.SystemError("out of file descriptors")):
        found = store_error(failure, settings)
        assert found is not None and found.code == "store_unavailable", failure
        assert "s3cret-pw" not in found.message and "try again" in found.message
        assert found.details["error_class"] == type(failure).__name__
