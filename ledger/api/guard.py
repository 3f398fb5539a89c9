"""What every HTTP request passes before a route sees it (pure ASGI, outermost but one).

- A **request id**: the client's ``X-Request-ID`` when it is a short plain token, else a new
  one; sent back in the same header and written in the 500's log line and answer.
- **Authentication before the body is read**: a request that carries a body (POST, PUT, PATCH,
  DELETE) to an API route is refused ``missing_token`` / ``invalid_token`` (401) before a
  byte of its body is read, so a client without a token cannot make the service parse
  anything. The console's forms (``/console``) sign in with their own cookie and are left to it.
- **A body size limit** (:data:`ledger.domain.bounds.MAX_BODY_BYTES`): a declared or streamed body
  above it is ``body_too_large`` (413), read no further; a JSON body nested deeper than
  :data:`MAX_JSON_DEPTH` is ``invalid_request`` (the parser would recurse until it fails).
- **One value per key**: a JSON body whose object names a key twice is ``duplicate_key`` (422)
  before any route sees it (:mod:`ledger.domain.jsontext`), so nothing is appended.
- **Every unexpected failure becomes one coded 500** (``internal_error``) here, logged in one
  line, instead of travelling on to the server, which would print its traceback.
"""

from __future__ import annotations

import re
import uuid
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ledger.api.errors import ApiError, error_response, internal_error_response
from ledger.domain import jsontext
from ledger.domain.bounds import MAX_BODY_BYTES
from ledger.domain.errors import InvalidInput, LedgerError
from ledger.domain.jsontext import DuplicateKey

REQUEST_ID = re.compile(r"^[A-Za-z0-9._:-]{1,64}$")
MAX_JSON_DEPTH = 64
LAST_RESORT = {"error": {"code": "internal_error", "message": "the ledger failed to answer",
                         "details": {}}}
BODY_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
OPEN_PREFIXES = ("/console",)
"""Routes that authenticate by other means than a bearer header."""


class Guard:
    def __init__(self, app: ASGIApp, max_body: int = MAX_BODY_BYTES) -> None:
        self.app = app
        self.max_body = max_body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        state = scope.setdefault("state", {})
        given = _header(scope, b"x-request-id")
        request_id = given if given and REQUEST_ID.match(given) else uuid.uuid4().hex[:16]
        state["request_id"] = request_id
        started = [False]

        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                started[0] = True
                message.setdefault("headers", [])
                message["headers"] = [*message["headers"],
                                      (b"x-request-id", request_id.encode())]
            await send(message)

        try:
            if scope["method"] in BODY_METHODS:
                refusal, receive = await self._admit(scope, receive)
                if refusal is not None:
                    await error_response(Request(scope), refusal)(scope, receive, sending)
                    return
            await self.app(scope, receive, sending)
        except Exception as exc:
            request = Request(scope)
            try:
                response = internal_error_response(request, exc)
            except Exception:  # even the log failed (a closed stderr ...): answer all the same
                response = JSONResponse(LAST_RESORT, status_code=500)
            if not started[0]:  # else the answer is half sent: the connection ends short
                await response(scope, receive, sending)

    async def _admit(self, scope: Scope, receive: Receive
                     ) -> tuple[LedgerError | None, Receive]:
        """The refusal of a request with a body (before reading it where it can), or None
        and a ``receive`` that replays the body read."""
        path: str = scope["path"]
        if not path.startswith(OPEN_PREFIXES):
            from ledger.api.auth import Principal, authenticated

            # a principal already in the state: the console's own call for a session
            # (ledger.api.console.gateway; no client can put an object there)
            if not isinstance(scope["state"].get("principal"), Principal):
                try:
                    scope["state"]["principal"] = await authenticated(Request(scope))
                except LedgerError as exc:
                    return exc, receive
        declared = _header(scope, b"content-length")
        if declared is not None:
            if not declared.isdigit():
                return InvalidInput("invalid_request", "Content-Length is not a number"), receive
            if int(declared) > self.max_body:
                return _too_large(self.max_body), receive
        chunks: list[bytes] = []
        size = 0
        more = True
        while more:
            message = await receive()
            if message["type"] == "http.disconnect":
                break
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_body:
                return _too_large(self.max_body), receive
            chunks.append(chunk)
            more = message.get("more_body", False)
        body = b"".join(chunks)
        if too_deep(body):
            return InvalidInput("invalid_request", f"the JSON body is nested more than "
                                f"{MAX_JSON_DEPTH} levels deep"), receive
        if body.strip() and _read_as_json(_header(scope, b"content-type")):
            try:
                jsontext.loads(body, "the request body")
            except DuplicateKey as exc:
                return exc, receive
            except ValueError:  # not JSON at all: the route's own parser says so
                pass
        sent = [False]

        async def replay() -> Message:
            if sent[0]:
                return await receive()
            sent[0] = True
            return {"type": "http.request", "body": body, "more_body": False}

        return None, replay


def _too_large(limit: int) -> LedgerError:
    return ApiError("body_too_large", f"the request body is larger than {limit} bytes",
                    limit=limit)


def _read_as_json(content_type: str | None) -> bool:
    """Whether the routes parse a body of ``content_type`` as JSON (as FastAPI does: no
    content type, ``application/json`` or any ``+json``)."""
    if not content_type:
        return True
    subtype = content_type.split(";", 1)[0].strip().lower().rpartition("/")[2]
    return subtype == "json" or subtype.endswith("+json")


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if key == name:
            return str(value.decode("latin-1"))
    return None


def too_deep(body: bytes, limit: int = MAX_JSON_DEPTH) -> bool:
    """Whether JSON ``body`` opens more than ``limit`` arrays or objects inside one another
    (strings skipped; the count is only made when the body holds that many brackets)."""
    if body.count(b"[") + body.count(b"{") <= limit:
        return False
    depth = 0
    in_string = escaped = False
    for byte in body:
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:  # backslash
                escaped = True
            elif byte == 0x22:
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte in (0x5B, 0x7B):
            depth += 1
            if depth > limit:
                return True
        elif byte in (0x5D, 0x7D):
            depth -= 1
    return False


def request_id(request: Any) -> str | None:
    state = getattr(request, "scope", {}).get("state", {})
    found = state.get("request_id") if isinstance(state, dict) else None
    return found if isinstance(found, str) else None
