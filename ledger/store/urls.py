"""Store URLs: ``sqlite:///path`` and ``postgresql://user@h1,h2/db?...``, parsed without
importing a driver, and shown without their password."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

from ledger.domain.errors import InvalidInput

OPTIONS = frozenset({
    "target_session_attrs", "load_balance_hosts", "sslmode", "sslrootcert", "sslcert",
    "sslkey", "application_name",
})
"""Query parameters a ledger URL may carry (passed to libpq as they are)."""


@dataclass(frozen=True)
class PostgresURL:
    """A ``postgresql://`` URL, one or several hosts (the password only kept to connect)."""

    hosts: tuple[tuple[str, int], ...]
    dbname: str
    user: str
    password: str = field(repr=False)
    options: tuple[tuple[str, str], ...] = ()

    @classmethod
    def parse(cls, url: str, shown: str) -> PostgresURL:
        """``url`` parsed; ``shown`` is the URL as messages may show it (no password)."""
        parts = urlsplit(url.strip())
        dbname = unquote(parts.path.lstrip("/"))
        if not dbname:
            raise InvalidInput("invalid_database_url", f"{shown!r} names no database")
        userinfo, at, hostlist = parts.netloc.rpartition("@")
        user, _, password = userinfo.partition(":") if at else ("", "", "")
        hosts = []
        for item in hostlist.split(","):
            host, port = item, "5432"
            if item.startswith("["):  # [::1]:5432
                host, _, rest = item[1:].partition("]")
                port = rest.removeprefix(":") or "5432"
            elif ":" in item:
                host, port = item.rsplit(":", 1)
            if not port.isdigit() or not 0 < int(port) < 65536:
                raise InvalidInput(
                    "invalid_database_url",
                    f"{shown!r} has no valid port (a password with '/', '@' or ':' must be "
                    "percent-encoded, e.g. %2F)")
            hosts.append((unquote(host) or "localhost", int(port)))
        options = parse_qsl(parts.query, keep_blank_values=True)
        unknown = sorted({k for k, _ in options} - OPTIONS)
        if unknown:
            raise InvalidInput(
                "invalid_database_url",
                f"{shown!r}: unknown parameter {', '.join(unknown)} (allowed: "
                f"{', '.join(sorted(OPTIONS))})")
        return cls(tuple(hosts), dbname, unquote(user) or "postgres", unquote(password),
                   tuple(options))

    @property
    def host(self) -> str:
        """The hosts as libpq takes them: ``h1,h2``."""
        return ",".join(h for h, _ in self.hosts)

    @property
    def port(self) -> str:
        """The ports as libpq takes them: ``5432,5433``."""
        return ",".join(str(p) for _, p in self.hosts)

    @property
    def where(self) -> str:
        return ",".join(f"{h}:{p}" for h, p in self.hosts)

    def connect_kwargs(self, timeout_s: int) -> dict[str, Any]:
        """Keyword arguments for ``psycopg.connect`` (libpq waits ``timeout_s`` per host)."""
        return {"host": self.host, "port": self.port, "dbname": self.dbname, "user": self.user,
                "password": self.password, "connect_timeout": max(2, timeout_s),
                **dict(self.options)}


def redact_url(url: str) -> str:
    """``url`` with everything between ``://`` and the last ``@`` of its authority (user and
    password) but the user name replaced, so that no message ever shows a password."""
    head, sep, rest = url.partition("://")
    if not sep or "@" not in rest:
        return url
    credentials, _, host_and_path = rest.rpartition("@")  # a password may hold '/' or '@'
    if ":" not in credentials:
        return url
    user = credentials.split(":", 1)[0]
    return f"{head}://{user}:***@{host_and_path}"


def sqlite_path(url: str) -> str:
    """``sqlite:///var/x.db`` -> ``var/x.db``; ``sqlite:////tmp/x.db`` -> ``/tmp/x.db``."""
    rest = url[len("sqlite://") :]
    if rest in ("", "/", "/:memory:"):
        return ":memory:"
    return rest[1:] if rest.startswith("/") else rest
