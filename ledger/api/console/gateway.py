"""The console reads through the API itself: each page asks the API's own routes, in process,
as the reader (with the reader's bearer token, or, for a console session, whose cookie holds
no token, with the principal the session's token gives, handed over in the request's state
where no HTTP client can put it).

A page never queries the store or checks a role of its own: it sends ``GET /tables/...``,
``GET /hands``, ``GET /audit/verify`` ... to the same application, through its whole stack
(authentication, role checks, masking of hidden cards, the access log, metrics), and draws what
comes back. So a page can never show more than the API would show the same token, and every
rule the API gains (a role, a log line, a bound) holds for the console at once.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from fastapi import Request
from starlette.types import ASGIApp, Message

from ledger.domain.errors import LedgerError

USER_AGENT = b"ledger-console"


@dataclass
class Answer:
    """What the API answered: status, headers (lower-case names) and body."""

    status: int
    headers: dict[str, str]
    body: bytes

    @property
    def ok(self) -> bool:
        return self.status < 400

    def json(self) -> Any:
        return json.loads(self.body)

    @property
    def error(self) -> dict[str, Any]:
        """The API's error (code, message, details), or an empty one."""
        try:
            found = self.json().get("error")
        except (ValueError, AttributeError):
            found = None
        return found if isinstance(found, dict) else {}


class Refused(LedgerError):
    """An API refusal carried to the page, with the API's own status."""

    def __init__(self, answer: Answer) -> None:
        error = answer.error
        super().__init__(str(error.get("code") or "refused"),
                         str(error.get("message") or f"the API answered {answer.status}"))
        self.status = answer.status


@dataclass
class Api:
    """The API as one reader sees it (one request's token)."""

    app: ASGIApp
    token: str | None
    principal: Any = None
    """The reader's principal (``ledger.api.auth.Principal``), for a session without token."""
    client: tuple[str, int] | None = None
    server: tuple[str, int | None] | None = None
    scheme: str = "http"
    calls: list[str] = field(default_factory=list)

    @classmethod
    def of(cls, request: Request, who: Any) -> Api:
        """The API as ``who`` (a console ``Reader``) sees it."""
        return cls(app=request.app, token=who.token, principal=who.principal,
                   client=request.scope.get("client"), server=request.scope.get("server"),
                   scheme=request.url.scheme)

    async def get(self, path: str, params: Mapping[str, Any] | None = None, *,
                  state: Mapping[str, Any] | None = None) -> Answer:
        """``GET path?params`` as this reader; the answer whatever its status."""
        query = urlencode({k: _text(v) for k, v in (params or {}).items() if v is not None})
        self.calls.append(path)
        return await call(self.app, "GET", path, query, self.token, client=self.client,
                          server=self.server, scheme=self.scheme,
                          state={**(state or {}), **self._as()})

    async def post(self, path: str, body: Mapping[str, Any], *,
                   headers: Mapping[str, str] | None = None) -> Answer:
        """``POST path`` with a JSON body as this reader; the answer whatever its status."""
        self.calls.append(path)
        return await call(self.app, "POST", path, "", self.token, client=self.client,
                          server=self.server, scheme=self.scheme, state=self._as(),
                          body=json.dumps(dict(body)).encode(), sent_headers=headers)

    def _as(self) -> dict[str, Any]:
        """The request state that makes a call without token this reader's."""
        return {} if self.token is not None else {"principal": self.principal}

    async def data(self, path: str, params: Mapping[str, Any] | None = None, *,
                   state: Mapping[str, Any] | None = None) -> Any:
        """The JSON of a successful answer; a refusal raises :class:`Refused`."""
        answer = await self.get(path, params, state=state)
        if not answer.ok:
            raise Refused(answer)
        return answer.json()

    async def maybe(self, path: str, params: Mapping[str, Any] | None = None) -> Any | None:
        """The JSON of a successful answer, or None when the API refuses this reader."""
        answer = await self.get(path, params)
        return answer.json() if answer.ok else None


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


async def call(app: ASGIApp, method: str, path: str, query: str, token: str | None, *,
               client: tuple[str, int] | None = None,
               server: tuple[str, int | None] | None = None, scheme: str = "http",
               state: Mapping[str, Any] | None = None, body: bytes = b"",
               sent_headers: Mapping[str, str] | None = None) -> Answer:
    """One request to ``app`` without a socket. ``state`` becomes the request's state (how the
    console hands a progress callback to a route: no HTTP client can set it); ``body``: a JSON
    body (a POST)."""
    extra = [(k.lower().encode("latin-1"), v.encode("latin-1"))
             for k, v in (sent_headers or {}).items()]
    if body:
        extra += [(b"content-type", b"application/json"),
                  (b"content-length", str(len(body)).encode())]
    scope: dict[str, Any] = {
        "type": "http", "asgi": {"version": "3.0", "spec_version": "2.3"},
        "http_version": "1.1", "method": method, "scheme": scheme, "path": path,
        "raw_path": path.encode(), "query_string": query.encode(), "root_path": "",
        "headers": [*([(b"authorization", b"Bearer " + token.encode())] if token else []),
                    (b"host", b"console"), (b"user-agent", USER_AGENT),
                    (b"accept", b"application/json"), *extra],
        "client": client, "server": server, "state": dict(state or {}),
    }
    sent = False
    status = 500
    headers: dict[str, str] = {}
    chunks: list[bytes] = []

    async def receive() -> Message:
        nonlocal sent
        if sent:
            return {"type": "http.disconnect"}
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message: Message) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = int(message["status"])
            for name, value in message.get("headers", ()):
                headers[name.decode("latin-1").lower()] = value.decode("latin-1")
        elif message["type"] == "http.response.body":
            chunks.append(bytes(message.get("body", b"")))

    await app(scope, receive, send)
    return Answer(status=status, headers=headers, body=b"".join(chunks))


Progress = Callable[[int], None]
