"""The HTTP API for tests: a real uvicorn server on loopback, tokens, and an executor that lets
the simulator's bots play a table over HTTP."""

from __future__ import annotations

import random
import re
import socket
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import httpx
import uvicorn
from fastapi import FastAPI

from ledger.api.commands import ENDPOINTS
from ledger.domain import accounts
from ledger.domain.commands import BuyIn, Command, OpenTable, SeatPlayer
from ledger.domain.errors import LedgerError
from ledger.games.base import Step, TableView
from ledger.games.registry import get_game
from ledger.sim.base import CommandIds, play_hand
from ledger.sim.profiles import profile_for

if TYPE_CHECKING:  # the API tests' client; no runtime import for the tests of a real server
    from fastapi.testclient import TestClient

CARD = re.compile(r"^[2-9TJQKA][cdhs]$")
PATHS: dict[type[Command], str] = {e.command: e.path for e in ENDPOINTS}


@dataclass
class Tokens:
    admin: str
    auditor: str
    accounting: str
    device: str
    """Bound to the tables the test names."""


def make_tokens(app: FastAPI, tables: list[str]) -> Tokens:
    store = app.state.tokens
    return Tokens(
        admin=store.create("admin", label="test admin")[0],
        auditor=store.create("auditor", label="test auditor")[0],
        accounting=store.create("accounting", label="test accounting")[0],
        device=store.create("device", tables=tables, label="test device")[0],
    )


def approver_token(client: Any, principal: str) -> str:
    """An approver token bound to ``principal`` (of the register), made in the client's store."""
    token, _ = client.app.state.tokens.create("approver", principal=principal,
                                              label=f"{principal}'s approvals")
    return str(token)


def app_of(client: TestClient) -> FastAPI:
    """The application behind a test client (which types it as any ASGI application)."""
    assert isinstance(client.app, FastAPI)
    return client.app


def events_stored(client: Any) -> int:
    """Events in the whole store (the last notification id)."""
    return int(client.app.state.ledger.recorder.max_notification_id() or 0)


def assert_error(response: Any, status: int, code: str) -> None:
    """An answer with the one error shape, ``status`` and ``code``."""
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"error"}
    assert set(body["error"]) == {"code", "message", "details"}
    assert body["error"]["code"] == code, body


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@contextmanager
def serve(app: FastAPI) -> Iterator[str]:
    """Run ``app`` under uvicorn in a thread on a free loopback port; yields the base URL."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    # Accepted connections inherit it: without it, keep-alive requests wait for delayed ACKs.
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="on")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the API server did not start")
        time.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()


class ApiRefused(LedgerError):
    """An error answer from the API, with its status."""

    def __init__(self, status: int, body: dict[str, Any]) -> None:
        error = body.get("error", {})
        details = error.get("details", {})
        super().__init__(error.get("code", "?"), error.get("message", ""), **details)
        self.status = status


def body_of(command: Command) -> dict[str, Any]:
    exclude = set() if isinstance(command, OpenTable) else {"table"}
    return command.model_dump(mode="json", exclude=exclude, exclude_none=True)


def send(client: httpx.Client, token: str, command: Command) -> dict[str, Any]:
    """POST one command; raises ApiRefused on an error answer."""
    path = PATHS[type(command)].replace("{code}", command.table)
    response = client.post(path, json=body_of(command), headers=bearer(token))
    data: dict[str, Any] = response.json()
    if response.status_code >= 400:
        raise ApiRefused(response.status_code, data)
    return data


class HttpExecutor:
    """Plays one table through the API: commands with a device token, observation with an
    auditor token (who sees the cards the bots need)."""

    def __init__(self, client: httpx.Client, code: str, device: str, observer: str) -> None:
        self.client = client
        self.code = code
        self.device = device
        self.observer = observer
        self.events = 0
        self.commands = 0
        self.check_device_view = False
        self.hidden_seen = 0
        self.shown_seen = 0
        """Cards the device view showed (face-up or revealed)."""
        """Cards the device view masked (counted when ``check_device_view`` is on)."""

    def execute(self, command: Command) -> dict[str, Any]:
        answer = send(self.client, self.device, command)
        self.commands += 1
        self.events += len(answer["events"])
        return answer

    def state(self) -> dict[str, Any]:
        response = self.client.get(f"/tables/{self.code}", headers=bearer(self.observer))
        data: dict[str, Any] = response.json()
        if response.status_code >= 400:
            raise ApiRefused(response.status_code, data)
        return data

    def observe(self) -> tuple[TableView, Any, Step]:
        full = self.state()
        if self.check_device_view and full["hand"] is not None:
            seen = self.client.get(f"/tables/{self.code}", headers=bearer(self.device)).json()
            self.hidden_seen += masked_like(seen["hand"], full["hand"])
            self.shown_seen += shown_cards(seen["hand"])
        return view_of(full)


def masked_like(masked: Any, full: Any) -> int:
    """Check that ``masked`` is ``full`` with some values replaced by None; count them."""
    if isinstance(full, dict):
        assert isinstance(masked, dict) and masked.keys() == full.keys()
        return sum(masked_like(masked[k], full[k]) for k in full)
    if isinstance(full, list):
        assert isinstance(masked, list) and len(masked) == len(full)
        return sum(masked_like(m, f) for m, f in zip(masked, full, strict=True))
    if masked is None and full is not None:
        return 1
    assert masked == full
    return 0


def shown_cards(data: Any) -> int:
    """Card texts in lists anywhere in ``data``."""
    if isinstance(data, dict):
        return sum(shown_cards(v) for v in data.values())
    if isinstance(data, list):
        return sum(1 if isinstance(v, str) and CARD.match(v) else shown_cards(v) for v in data)
    return 0


def view_of(data: dict[str, Any]) -> tuple[TableView, Any, Step]:
    """The simulator's view of a table from the API's table state."""
    game = get_game(data["game"])
    memo_type = game.memo_type
    view = TableView(
        code=data["code"],
        game=data["game"],
        currency=data["currency"],
        config=game.config_type.model_validate(data["config"]),
        config_version=data["config_version"],
        seats={int(k): v for k, v in data["seats"].items()},
        balances=data["balances"],
        button=data["button"],
        hand_no=data["hand_no"],
        memo=None if data["memo"] is None or memo_type is None
        else memo_type.model_validate(data["memo"]),
    )
    hand = None if data["hand"] is None else game.hand_type.model_validate(data["hand"])
    return view, hand, Step.model_validate(data["step"])


def play_table(
    client: httpx.Client, tokens: Tokens, game: str, code: str, hands: int, seed: int,
    *, check_device_view: bool = False, executor_type: type[HttpExecutor] | None = None,
) -> HttpExecutor:
    """Open ``code`` (admin), seat and buy in the profile's players, play ``hands`` hands."""
    profile = profile_for(game)
    rules = get_game(game)
    ids = CommandIds(code, f"http-{uuid.uuid4().hex[:10]}")
    executor = (executor_type or HttpExecutor)(client, code, tokens.device, tokens.auditor)
    executor.check_device_view = check_device_view
    send(client, tokens.admin, OpenTable(command_id=ids.next(), table=code, game=game,
                                         config=profile.config))
    executor.events += 1
    for seat in list(rules.seats)[: profile.players]:
        executor.execute(SeatPlayer(command_id=ids.next(), table=code, seat=seat,
                                    player=f"player-{seat:02d}"))
    rng = random.Random(seed)
    bot = profile.make_bot()
    for _ in range(hands):
        table, hand, _ = executor.observe()
        assert hand is None
        for seat in sorted(table.seats):
            top_up = profile.top_up(table, seat)
            if top_up is not None:
                executor.execute(BuyIn(command_id=ids.next(), table=code, seat=seat,
                                       amount=top_up.amount, kind=top_up.kind))
        play_hand(executor, bot, rng, ids)
    return executor


def conserved(state: dict[str, Any]) -> bool:
    """No chip appeared or vanished: the table's balances sum to zero, and between hands no
    chips are left on wager spots or in the bank."""
    balances: dict[str, int] = state["balances"]
    if sum(balances.values()) != 0:
        return False
    return state["hand"] is not None or not any(accounts.is_hand_scoped(a) for a in balances)


def csrf_of(html: str) -> str:
    """The CSRF token of a console form (its hidden ``csrf`` field)."""
    found = re.search(r'name="csrf" value="([^"]+)"', html)
    assert found
    return found.group(1)
