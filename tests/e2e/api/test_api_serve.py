"""``ledger serve`` and ``ledger tokens`` as an operator runs them: a server process on loopback
and tokens made, listed and revoked from the command line."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

from tests.e2e.cli.test_cli import ledger


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_serve_with_tokens_from_the_cli(tmp_path: Path) -> None:
    db = tmp_path / "ledger.sqlite3"
    made = ledger("tokens", "create", "--role", "admin", "--label", "floor", "--json", db=db)
    assert made.returncode == 0, made.stderr
    admin = json.loads(made.stdout)
    device = ledger("tokens", "create", "--role", "device", "--table", "CLI-1", db=db)
    assert device.returncode == 0 and device.stdout.startswith("ltk_")
    device_token = device.stdout.strip()
    port = free_port()
    env = {**os.environ, "LEDGER_DATABASE_URL": f"sqlite:///{db}",
           "LEDGER_DECK_KEY_FILE": str(tmp_path / "deck.key"), "LEDGER_LOG_LEVEL": "WARNING",
           "LEDGER_API_TOKEN_CACHE_SECONDS": "0.2"}
    server = subprocess.Popen(
        [sys.executable, "-m", "ledger", "serve", "--host", "127.0.0.1", "--port", str(port)],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        url = f"http://127.0.0.1:{port}"
        for _ in range(200):
            try:
                if httpx.get(f"{url}/health").status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.05)
        with httpx.Client(base_url=url) as client:
            assert client.get("/openapi.json").status_code == 401
            auth = {"Authorization": f"Bearer {admin['token']}"}
            r = client.post("/tables", json={"command_id": "cli-open", "table": "CLI-1",
                                             "game": "caribbean-stud"}, headers=auth)
            assert r.status_code == 201, r.text
            seat = client.post("/tables/CLI-1/seats", headers={
                "Authorization": f"Bearer {device_token}"},
                json={"command_id": "cli-seat", "seat": 1, "player": "p1"})
            assert seat.status_code == 201, seat.text
            listed = ledger("tokens", "list", "--json", db=db).stdout.splitlines()
            assert {json.loads(line)["role"] for line in listed} == {"admin", "device"}
            revoked = ledger("tokens", "revoke", admin["token_id"], db=db)
            assert revoked.returncode == 0, revoked.stderr
            time.sleep(0.3)  # LEDGER_API_TOKEN_CACHE_SECONDS: another process revoked it
            assert client.get("/metrics", headers=auth).status_code == 401
    finally:
        server.send_signal(signal.SIGINT)
        server.wait(timeout=20)
    assert server.returncode == 0, server.stderr


def test_serve_says_where_it_listens_even_on_port_zero(tmp_path: Path) -> None:
    env = {**os.environ, "LEDGER_DATABASE_URL": f"sqlite:///{tmp_path / 'ledger.sqlite3'}",
           "LEDGER_DECK_KEY_FILE": str(tmp_path / "deck.key"), "LEDGER_LOG_LEVEL": "WARNING"}
    server = subprocess.Popen(
        [sys.executable, "-m", "ledger", "serve", "--port", "0"],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        assert server.stdout is not None
        line = server.stdout.readline()  # printed once it accepts connections
        match = re.fullmatch(r"serving on (http://127\.0\.0\.1:(\d+)) \(Ctrl-C to stop\)\n", line)
        assert server.stderr is not None
        assert match, line + (server.stderr.read() if server.poll() is not None else "")
        assert int(match.group(2)) > 0
        answer = httpx.get(f"{match.group(1)}/health", timeout=10)
        assert answer.status_code == 200 and answer.json()["status"] == "ok"
        # The port is taken now: a second server says so, with a code.
        taken = ledger("serve", "--port", match.group(2), db=tmp_path / "ledger.sqlite3")
        assert taken.returncode == 2 and taken.stderr.startswith("error [cannot_listen] ")
    finally:
        server.send_signal(signal.SIGINT)
        server.wait(timeout=20)
    assert server.returncode == 0, server.stderr.read() if server.stderr else ""
