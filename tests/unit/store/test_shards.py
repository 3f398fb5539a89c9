"""The shard map (``LEDGER_SHARDS``): parsed and checked as a whole, every fault a coded error."""

from __future__ import annotations

from pathlib import Path

import pytest

from ledger.domain.errors import LedgerError
from ledger.settings import Settings
from ledger.store.shards import Pattern, parse_shards

PG = "postgresql://ledger@db-east:5432/ledger"


def _fault(text: str) -> LedgerError:
    with pytest.raises(LedgerError) as caught:
        parse_shards(text)
    assert caught.value.code == "invalid_shards"
    assert caught.value.message.startswith("LEDGER_SHARDS: ")
    return caught.value


def test_a_map_places_each_code_by_pattern_case_insensitively(tmp_path: Path) -> None:
    shards = parse_shards(f"east: LV-*, atl-7 = {PG};\n"
                          f"west: AC-* = sqlite:///{tmp_path}/west.sqlite3")
    assert shards.names == ["east", "west"]
    assert shards.shard_of("lv-12").name == "east"
    assert shards.shard_of("ATL-7").name == "east"
    assert shards.shard_of("ac-1").name == "west"
    with pytest.raises(LedgerError) as caught:
        shards.shard_of("ATL-70")  # ATL-7 is one table, not a prefix
    assert caught.value.code == "no_shard"
    assert "east" in caught.value.message and "LV-*" in caught.value.message


def test_the_shard_settings_are_the_fleets_with_the_shards_url(tmp_path: Path) -> None:
    base = Settings(shards=f"a: X* = {PG}", snapshot_interval=77)
    shards = parse_shards(base.shards, base)
    own = shards.settings_for(base, shards.shards[0])
    assert own.database_url == PG and own.snapshot_interval == 77 and own.shards == ""


@pytest.mark.parametrize(("text", "words"), [
    ("", "names no shard"),
    (" ; ", "names no shard"),
    (f"east = {PG}", "is not NAME: PATTERN"),
    (f"east: LV-* {PG}", "is not NAME: PATTERN"),
    (f"East!: LV-* = {PG}", "is not a name"),
    (f"east: = {PG}", "has no table-code pattern"),
    (f"east: LV-*?, AC-1 = {PG}", "is not a table-code pattern"),
    (f"east: L*V = {PG}", "is not a table-code pattern"),
    ("east: LV-* = ", "has no store URL"),
    ("east: LV-* = mysql://db/ledger", "unsupported database URL"),
    ("east: LV-* = postgresql://db:port/ledger", "no valid port"),
    ("east: LV-* = postgresql://db:5432", "names no database"),
    (f"east: LV-* = {PG}; east: AC-* = {PG}2", "named twice"),
    (f"east: LV-* = {PG}; west: LV-1* = {PG}2", "can both match"),
    (f"east: LV-1 = {PG}; west: LV-* = {PG}2", "can both match"),
    (f"east: LV-1, lv-1 = {PG}", "can both match"),
    (f"east: * = {PG}; west: AC-* = {PG}2", "can both match"),
    (f"east: LV-* = {PG}; west: AC-* = postgresql://ledger@db-east/ledger", "the same store"),
])
def test_a_faulty_map_is_refused_with_what_is_wrong(text: str, words: str) -> None:
    assert words in _fault(text).message


def test_a_password_in_a_shard_url_is_never_repeated() -> None:
    error = _fault("east: LV-* = postgresql://u:s3cret@db:notaport/ledger")
    assert "s3cret" not in error.message and "***" in error.message


@pytest.mark.parametrize(("one", "other", "overlap"), [
    ("LV-*", "LV-1*", True), ("LV-*", "LVX*", False), ("*", "A1", True),
    ("LV-1", "LV-1", True), ("LV-1", "LV-10", False), ("LV-1", "LV-*", True),
    ("AC-*", "LV-1", False),
])
def test_two_patterns_overlap_when_some_code_matches_both(one: str, other: str,
                                                          overlap: bool) -> None:
    assert Pattern(one).overlaps(Pattern(other)) is overlap
    assert Pattern(other).overlaps(Pattern(one)) is overlap
