"""The shard map: which store holds which table (``LEDGER_SHARDS``).

A fleet whose tables outgrow one database spreads them over several stores. The map names each
store (a shard), the table codes it holds, and its URL, one entry per shard, separated by ``;``
or new lines::

    LEDGER_SHARDS='east: LV-*, RENO-* = postgresql://ledger@db-east/ledger;
                   west: AC-*, ATL-7 = postgresql://ledger@db-west/ledger'

A pattern is a table code (``ATL-7``, that table only) or a code prefix ending in ``*``
(``LV-*``: every code starting ``LV-``; ``*`` alone: every code). Codes are case-insensitive,
as everywhere in the ledger. The map is checked as a whole before any store is opened, and any
fault ends the start with ``invalid_shards``: an entry without a name, patterns or URL; a shard
named twice; a malformed pattern; two patterns that a code could match both (``LV-*`` and
``LV-1*``, or ``*`` beside anything), since a table must have exactly one home; two shards on one
store; a URL the ledger cannot use.

Because no two patterns overlap, adding a shard for new codes never re-routes a table that
exists: a code matching no pattern could never have been opened (``no_shard``). Editing or
removing a pattern can; the fleet then refuses to serve the table from anywhere but the store
that holds it (``table_moved``, :mod:`ledger.store.fleet`), and ``ledger shards`` lists every
table whose store is not the one the map names.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ledger.domain.errors import InvalidInput, LedgerError
from ledger.settings import Settings
from ledger.store.persistence import store_env
from ledger.store.urls import redact_url

NAME = re.compile(r"^[a-z][a-z0-9_-]{0,39}$")
PATTERN = re.compile(r"^(\*|[A-Z0-9][A-Z0-9_.-]{0,39}\*?)$")


@dataclass(frozen=True)
class Pattern:
    """A table code, or a prefix of codes (``prefix*``), upper case."""

    text: str

    @property
    def prefix(self) -> str:
        return self.text[:-1] if self.is_prefix else self.text

    @property
    def is_prefix(self) -> bool:
        return self.text.endswith("*")

    def matches(self, code: str) -> bool:
        code = code.strip().upper()
        return code.startswith(self.prefix) if self.is_prefix else code == self.text

    def overlaps(self, other: Pattern) -> bool:
        """Whether some table code matches both."""
        if self.is_prefix and other.is_prefix:
            return self.prefix.startswith(other.prefix) or other.prefix.startswith(self.prefix)
        if self.is_prefix:
            return other.text.startswith(self.prefix)
        if other.is_prefix:
            return self.text.startswith(other.prefix)
        return self.text == other.text


@dataclass(frozen=True)
class Shard:
    """One store of the fleet and the table codes it holds."""

    name: str
    patterns: tuple[Pattern, ...]
    url: str

    def holds(self, code: str) -> bool:
        return any(p.matches(code) for p in self.patterns)

    def describe(self) -> str:
        return (f"{self.name} ({', '.join(p.text for p in self.patterns)} -> "
                f"{redact_url(self.url)})")


@dataclass(frozen=True)
class ShardMap:
    """The shards in the order written; the first is the fleet's home store (tokens, the
    register of principals and the other records that belong to no table)."""

    shards: tuple[Shard, ...]

    @property
    def names(self) -> list[str]:
        return [s.name for s in self.shards]

    def shard_of(self, code: str) -> Shard:
        """The shard whose pattern matches ``code``; ``no_shard`` when none does."""
        for shard in self.shards:
            if shard.holds(code):
                return shard
        raise InvalidInput(
            "no_shard",
            f"no shard holds table code {code!r}: LEDGER_SHARDS places "
            + "; ".join(f"{', '.join(p.text for p in s.patterns)} in {s.name}"
                        for s in self.shards)
            + " (add a pattern for it to the map, on the shard where it is to live)",
            table=code, shards=self.names)

    def settings_for(self, settings: Settings, shard: Shard) -> Settings:
        """The settings of one shard's store (the fleet's, with that store's URL)."""
        return settings.model_copy(update={"database_url": shard.url, "shards": ""})


def parse_shards(text: str, settings: Settings | None = None) -> ShardMap:
    """``LEDGER_SHARDS`` checked as a whole; any fault is ``invalid_shards`` (see the module)."""
    base = settings or Settings()
    entries = [e.strip() for e in re.split(r"[;\n]", text) if e.strip()]
    if not entries:
        raise _invalid("it names no shard: write NAME: PATTERN[, PATTERN] = URL entries "
                       "separated by ';'")
    shards: list[Shard] = []
    for entry in entries:
        shards.append(_entry(entry, base))
    _check_names(shards)
    _check_overlaps(shards)
    _check_stores(shards, base)
    return ShardMap(tuple(shards))


def _entry(entry: str, base: Settings) -> Shard:
    head, eq, url = entry.partition("=")
    name, colon, patterns_text = head.partition(":")
    name, url = name.strip(), url.strip()
    shown = redact_url(entry)
    if not eq or not colon:
        raise _invalid(f"entry {shown!r} is not NAME: PATTERN[, PATTERN] = URL")
    if not NAME.match(name):
        raise _invalid(f"shard name {name!r} in {shown!r} is not a name: lower-case letters, "
                       "digits, '-' and '_', starting with a letter", shard=name)
    texts = [p.strip().upper() for p in patterns_text.split(",") if p.strip()]
    if not texts:
        raise _invalid(f"shard {name!r} has no table-code pattern: every shard names the "
                       "tables it holds (a code such as ATL-7 or a prefix such as LV-*)",
                       shard=name)
    bad = [t for t in texts if not PATTERN.match(t)]
    if bad:
        raise _invalid(f"shard {name!r}: {bad[0]!r} is not a table-code pattern (a code of "
                       "letters, digits, '.', '_', '-', optionally ending in '*')", shard=name)
    if not url:
        raise _invalid(f"shard {name!r} has no store URL", shard=name)
    try:
        store_env(base.model_copy(update={"database_url": url}), check=False)
    except LedgerError as exc:
        raise _invalid(f"shard {name!r}: {exc.message}", shard=name) from None
    return Shard(name, tuple(Pattern(t) for t in texts), url)


def _check_names(shards: list[Shard]) -> None:
    seen: set[str] = set()
    for shard in shards:
        if shard.name in seen:
            raise _invalid(f"shard {shard.name!r} is named twice", shard=shard.name)
        seen.add(shard.name)


def _check_overlaps(shards: list[Shard]) -> None:
    placed = [(s, p) for s in shards for p in s.patterns]
    for i, (shard, pattern) in enumerate(placed):
        for other_shard, other in placed[i + 1:]:
            if pattern.overlaps(other):
                where = (f"shard {shard.name!r}" if shard is other_shard
                         else f"shards {shard.name!r} and {other_shard.name!r}")
                raise _invalid(f"patterns {pattern.text!r} and {other.text!r} ({where}) can "
                               "both match a table code: each table must have exactly one "
                               "home", patterns=[pattern.text, other.text])


def _check_stores(shards: list[Shard], base: Settings) -> None:
    seen: dict[tuple[str, ...], str] = {}
    for shard in shards:
        env = store_env(base.model_copy(update={"database_url": shard.url}), check=False)
        key = tuple(env.get(k, "") for k in ("SQLITE_DBNAME", "POSTGRES_HOST", "POSTGRES_PORT",
                                             "POSTGRES_DBNAME", "POSTGRES_SCHEMA"))
        if key in seen:
            raise _invalid(f"shards {seen[key]!r} and {shard.name!r} name the same store "
                           f"({redact_url(shard.url)}): each shard is its own database",
                           shards=[seen[key], shard.name])
        seen[key] = shard.name


def _invalid(problem: str, **details: object) -> LedgerError:
    return LedgerError("invalid_shards", f"LEDGER_SHARDS: {problem}", **details)
