"""Who is looking at the console: a session cookie or a bearer header, and CSRF protection.

- **Session.** Signing in checks the token as the API does and keeps it in the ``ledger_session``
  cookie: ``HttpOnly`` (no script reads it), ``SameSite=Strict`` (no other site's page sends
  it), ``Secure`` over HTTPS, ``Path=/``, twelve hours at most. The token never appears in a URL,
  a page or a log line. A request with ``Authorization: Bearer`` is served the same pages (for
  scripts), and the header wins over the cookie.
- **CSRF.** Every form that changes anything (sign-in, sign-out, starting an audit) is a POST
  with a hidden ``csrf`` field. With a session it is an HMAC of the session's token (so it is
  different for every session and can be checked by any instance of the service without shared
  state); before sign-in it is the value of a random ``ledger_csrf`` cookie (double submit). A
  request whose ``Origin`` names another site is refused whatever it carries. A request
  authenticated by its bearer header needs no CSRF field (a browser never adds that header by
  itself).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass

from fastapi import Request
from fastapi.responses import Response

from ledger.access.tokens import TokenStore
from ledger.api.auth import Principal
from ledger.api.errors import ApiError

SESSION_COOKIE = "ledger_session"
CSRF_COOKIE = "ledger_csrf"
SESSION_SECONDS = 12 * 3600
MAX_TOKEN = 200


@dataclass(frozen=True)
class Reader:
    """The principal behind a console request, with the token its API calls carry."""

    principal: Principal
    token: str
    by_cookie: bool

    @property
    def csrf(self) -> str:
        return csrf_for(self.token)


def csrf_for(token: str) -> str:
    """The CSRF value of a session: an HMAC of its token (one per session, stateless)."""
    key = hashlib.sha256(b"ledger-console-csrf\x00" + token.encode()).digest()
    return hmac.new(key, b"csrf", hashlib.sha256).hexdigest()


def credentials(request: Request) -> tuple[str, bool] | None:
    """The token of this request and whether it came from the cookie, or None."""
    header = request.headers.get("authorization")
    if header is not None:
        scheme, _, value = header.partition(" ")
        if scheme.lower() == "bearer" and value.strip():
            return value.strip(), False
        return None
    cookie = request.cookies.get(SESSION_COOKIE)
    if cookie and len(cookie) <= MAX_TOKEN:
        return cookie, True
    return None


def authenticate(request: Request, token: str) -> Principal | None:
    """The principal of ``token`` exactly as the API's authentication finds it (None: unknown
    or revoked)."""
    if len(token) > MAX_TOKEN:
        return None
    store: TokenStore = request.app.state.tokens
    info = store.authenticate(token)
    if info is None or not info.active:
        return None
    return Principal(token_id=info.token_id, role=info.role,
                     tables=None if info.tables is None else frozenset(info.tables),
                     seat=info.seat, label=info.label, principal=info.principal)


def reader(request: Request) -> Reader | None:
    found = credentials(request)
    if found is None:
        return None
    token, by_cookie = found
    who = authenticate(request, token)
    if who is None:
        return None
    request.state.principal = who  # the refusal log names the token id, as the API's does
    return Reader(principal=who, token=token, by_cookie=by_cookie)


def same_origin(request: Request) -> bool:
    """False when the request says it comes from another site (``Origin``, else
    ``Sec-Fetch-Site``)."""
    site = request.headers.get("sec-fetch-site")
    if site is not None and site not in ("same-origin", "none"):
        return False
    origin = request.headers.get("origin")
    if origin is not None and origin != "null":
        return origin.split("://", 1)[-1] == request.headers.get("host", "")
    return True  # no Origin (or "null" from a private context): the CSRF token decides


def check_csrf(request: Request, who: Reader | None, submitted: str | None) -> None:
    """Refuse a state-changing form that this site's own page did not send (403
    ``csrf_failed``)."""
    if not same_origin(request):
        raise ApiError("csrf_failed", "the form was sent from another site")
    if who is not None and not who.by_cookie:
        return  # a bearer header: no ambient credential a forged form could use
    expected = who.csrf if who is not None else request.cookies.get(CSRF_COOKIE)
    if not expected or not submitted or not hmac.compare_digest(expected, submitted):
        raise ApiError("csrf_failed", "the form's CSRF token is missing or does not match "
                       "this session: reload the page and send it again")


def sign_in_csrf(request: Request) -> str:
    """The pre-session CSRF value: the browser's ``ledger_csrf`` cookie, or a new one."""
    value = request.cookies.get(CSRF_COOKIE)
    if not value or len(value) != 43:
        value = secrets.token_urlsafe(32)
    return value


def set_csrf_cookie(response: Response, request: Request, value: str) -> None:
    response.set_cookie(CSRF_COOKIE, value, httponly=True, samesite="strict",
                        secure=request.url.scheme == "https", path="/console")


def start_session(response: Response, request: Request, token: str) -> None:
    response.set_cookie(SESSION_COOKIE, token, max_age=SESSION_SECONDS, httponly=True,
                        samesite="strict", secure=request.url.scheme == "https", path="/")
    response.delete_cookie(CSRF_COOKIE, path="/console")


def end_session(response: Response) -> None:
    response.delete_cookie(SESSION_COOKIE, path="/", httponly=True, samesite="strict")
