"""Throwaway PostgreSQL servers on one machine: a primary, a streaming standby made with
``pg_basebackup``, stop, SIGKILL, promote. Used by ``ops/ha/failover.py`` and by the tests of
store outages.

Each server lives in its own directory under a temporary folder, listens on 127.0.0.1 on its
own port and trusts local connections (user ``postgres``). Run as root, the server programs run
as the ``postgres`` user (PostgreSQL refuses to run as root).
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

PG_BIN = Path(os.environ.get("LEDGER_PG_BIN", "/usr/lib/postgresql/15/bin"))


def available() -> str | None:
    """None when servers can be made here; else why not."""
    if not (PG_BIN / "initdb").exists():
        return f"no PostgreSQL server programs in {PG_BIN} (set LEDGER_PG_BIN)"
    if os.geteuid() == 0:
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            return "running as root and there is no postgres user to run the servers as"
    return None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _as_owner(argv: list[str]) -> list[str]:
    return ["runuser", "-u", "postgres", "--", *argv] if os.geteuid() == 0 else argv


def _run(argv: list[str], *, timeout: float = 60) -> None:
    done = subprocess.run(_as_owner(argv), capture_output=True, text=True, timeout=timeout,
                          check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} failed ({done.returncode}): "
                           f"{done.stderr.strip() or done.stdout.strip()}")


def workspace(prefix: str = "ledger-pg-") -> Path:
    """A temporary folder the servers' user may write to."""
    root = Path(tempfile.mkdtemp(prefix=prefix, dir="/tmp"))
    if os.geteuid() == 0:
        owner = pwd.getpwnam("postgres")
        os.chown(root, owner.pw_uid, owner.pw_gid)
    return root


class Server:
    """One PostgreSQL server (data directory ``root/name``, port ``port``)."""

    def __init__(self, root: Path, name: str, port: int | None = None) -> None:
        self.root = root
        self.name = name
        self.data = root / name
        self.port = port or free_port()

    def url(self, dbname: str = "postgres") -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{dbname}"

    def initdb(self, **settings: str) -> Server:
        """A new cluster, configured for replication and with ``settings`` (postgresql.conf)."""
        _run([str(PG_BIN / "initdb"), "-D", str(self.data), "-U", "postgres", "--auth=trust",
              "--no-sync", "-E", "UTF8", "--locale=C"])
        self._configure({"wal_level": "replica", "max_wal_senders": "5",
                         "wal_keep_size": "256MB", "hot_standby": "on", **settings})
        with (self.data / "pg_hba.conf").open("a") as hba:
            hba.write("host replication all 127.0.0.1/32 trust\n")
        return self

    def standby_of(self, primary: Server, *, app_name: str) -> Server:
        """A streaming standby of ``primary`` (pg_basebackup -R), known to it as ``app_name``."""
        _run([str(PG_BIN / "pg_basebackup"), "-h", "127.0.0.1", "-p", str(primary.port),
              "-U", "postgres", "-D", str(self.data), "-R", "-X", "stream", "-c", "fast",
              "--no-sync"], timeout=120)
        conninfo = (f"host=127.0.0.1 port={primary.port} user=postgres "
                    f"application_name={app_name}")
        self._configure({"primary_conninfo": f"'{conninfo}'"})
        return self

    def _configure(self, settings: dict[str, str]) -> None:
        lines = [f"port = {self.port}", "listen_addresses = '127.0.0.1'",
                 f"unix_socket_directories = '{self.root}'", "fsync = on",
                 "max_connections = 100", "shared_buffers = 16MB", "logging_collector = off"]
        lines += [f"{k} = {v}" for k, v in settings.items()]
        with (self.data / "postgresql.auto.conf").open("a") as conf:
            conf.write("\n".join(lines) + "\n")

    def start(self) -> None:
        _run([str(PG_BIN / "pg_ctl"), "-D", str(self.data), "-l", str(self.root /
              f"{self.name}.log"), "-w", "-t", "60", "start"], timeout=90)

    def stop(self, mode: str = "fast") -> None:
        _run([str(PG_BIN / "pg_ctl"), "-D", str(self.data), "-m", mode, "-w", "stop"])

    def kill(self) -> None:
        """SIGKILL the postmaster and every backend (as a machine that dies would)."""
        pid = int((self.data / "postmaster.pid").read_text().splitlines()[0])
        children = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True,
                                  check=False).stdout.split()
        for victim in [pid, *map(int, children)]:
            with contextlib.suppress(ProcessLookupError):
                os.kill(victim, signal.SIGKILL)
        time.sleep(0.2)

    def promote(self) -> None:
        _run([str(PG_BIN / "pg_ctl"), "-D", str(self.data), "-w", "promote"])

    def running(self) -> bool:
        pid_file = self.data / "postmaster.pid"
        if not pid_file.exists():
            return False
        try:
            os.kill(int(pid_file.read_text().splitlines()[0]), 0)
        except (OSError, ValueError):
            return False
        return True


def remove(root: Path, *servers: Server) -> None:
    """Stop ``servers`` (immediately) and delete ``root``."""
    for server in servers:
        if server.running():
            try:
                server.stop("immediate")
            except (RuntimeError, subprocess.TimeoutExpired):
                server.kill()
    shutil.rmtree(root, ignore_errors=True)
