"""Who is looking at the console: a server-side session or a bearer header, and CSRF
protection (sign-in included).

- **Session.** Signing in checks the token as the API does and opens a session in the store
  (:mod:`ledger.access.sessions`): the browser gets only the session's random id, in the
  ``__Host-ledger_session`` cookie (``Secure``, ``HttpOnly``, ``SameSite=Strict``,
  ``Path=/``, no ``Domain``: no other host, subdomain or plain-HTTP page can set or read it),
  twelve hours at most. The API token is never in a cookie, a URL, a page or a log line. The
  session is kept in the ledger's database (it survives a restart and holds on every instance
  of the service), ended by signing out, and ended as soon as its token is revoked: every
  request reads the token's state, so a revoked token's session serves nothing more. A request
  with ``Authorization: Bearer`` is served the same pages (for scripts); the header wins over
  the cookie.
- **CSRF.** Every form that changes anything (sign-in, sign-out, starting an audit, approving)
  is a POST with a hidden ``csrf`` field: an HMAC keyed by the session's secret id. Before
  sign-in, the sign-in page opens a *pre-session* in the store (its id in the
  ``__Host-ledger_signin`` cookie, its HMAC in the form); signing in needs a pre-session the
  server made, unexpired (15 minutes) and used once, so a cookie and field planted together in
  a browser (login CSRF) sign nobody in. A request whose ``Origin`` (or ``Sec-Fetch-Site``)
  names another site is refused whatever it carries. A request authenticated by its bearer
  header needs no CSRF field (a browser never adds that header by itself).
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass

from fastapi import Request
from fastapi.responses import Response

from ledger.access.sessions import PRE_SECONDS, SESSION_SECONDS, SessionStore, csrf_for
from ledger.access.tokens import TokenInfo, TokenStore
from ledger.api.auth import Principal
from ledger.api.errors import ApiError
from ledger.domain.errors import LedgerError

SESSION_COOKIE = "__Host-ledger_session"
PRE_COOKIE = "__Host-ledger_signin"
MAX_TOKEN = 200
MAX_COOKIE = 64


@dataclass(frozen=True)
class Reader:
    """The principal behind a console request: by its bearer header (``token``) or by a
    session (``session_id``, the cookie's)."""

    principal: Principal
    token: str | None
    session_id: str | None

    @property
    def by_cookie(self) -> bool:
        return self.session_id is not None

    @property
    def csrf(self) -> str:
        return csrf_for(self.session_id) if self.session_id is not None else ""


def sessions(request: Request) -> SessionStore:
    found: SessionStore = request.app.state.sessions
    return found


def bearer(request: Request) -> str | None:
    """The bearer token of this request: "" when the header is not a bearer one, None when
    there is no header."""
    header = request.headers.get("authorization")
    if header is None:
        return None
    scheme, _, value = header.partition(" ")
    return value.strip() if scheme.lower() == "bearer" else ""


def authenticate(request: Request, token: str) -> Principal | None:
    """The principal of ``token`` exactly as the API's authentication finds it (None: unknown
    or revoked)."""
    if len(token) > MAX_TOKEN:
        return None
    store: TokenStore = request.app.state.tokens
    info = store.authenticate(token)
    return _principal(info)


def _principal(info: TokenInfo | None) -> Principal | None:
    if info is None or not info.active:
        return None
    return Principal(token_id=info.token_id, role=info.role,
                     tables=None if info.tables is None else frozenset(info.tables),
                     seat=info.seat, label=info.label, principal=info.principal)


def session_id(request: Request) -> str | None:
    value = request.cookies.get(SESSION_COOKIE)
    return value if value and len(value) <= MAX_COOKIE else None


def reader(request: Request) -> Reader | None:
    token = bearer(request)
    if token is not None:
        who = authenticate(request, token) if token else None
        if who is None:
            return None
        request.state.principal = who  # the refusal log names the token id, as the API's does
        return Reader(principal=who, token=token, session_id=None)
    sid = session_id(request)
    found = sessions(request).find(sid, "session") if sid else None
    if found is None or found.token_id is None or sid is None:
        return None
    store: TokenStore = request.app.state.tokens
    try:  # the token held against its chain: an edited row gives the session nothing
        token_info = store.verified(found.token_id)
        who = None if token_info is None else _principal(token_info)
    except LedgerError:
        who = None
    if who is None:  # its token was revoked (or removed): the session ends with it
        sessions(request).end(sid)
        return None
    request.state.principal = who
    return Reader(principal=who, token=None, session_id=sid)


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
    ``csrf_failed``). Without a reader (signing in), the form must carry the CSRF value of a
    pre-session the server made for this browser."""
    if not same_origin(request):
        raise ApiError("csrf_failed", "the form was sent from another site")
    if who is not None and not who.by_cookie:
        return  # a bearer header: no ambient credential a forged form could use
    if who is not None:
        expected = who.csrf
    else:
        pre = request.cookies.get(PRE_COOKIE)
        known = sessions(request).find(pre, "pre") if pre and len(pre) <= MAX_COOKIE else None
        expected = csrf_for(pre) if known is not None and pre else ""
    if not expected or not submitted or not hmac.compare_digest(expected, submitted):
        raise ApiError("csrf_failed", "the form's CSRF token is missing or does not match "
                       "this session: reload the page and send it again")


def sign_in_csrf(request: Request) -> tuple[str, str]:
    """The pre-session of the sign-in page: the browser's own when the store still holds it,
    else a new one; (its id, its CSRF value)."""
    pre = request.cookies.get(PRE_COOKIE)
    store = sessions(request)
    if not pre or len(pre) > MAX_COOKIE or store.find(pre, "pre") is None:
        pre = store.create("pre")
    return pre, csrf_for(pre)


def _cookie(response: Response, name: str, value: str, seconds: int) -> None:
    response.set_cookie(name, value, max_age=seconds, httponly=True, samesite="strict",
                        secure=True, path="/")


def _forget(response: Response, name: str) -> None:
    response.delete_cookie(name, path="/", secure=True, httponly=True, samesite="strict")


def set_csrf_cookie(response: Response, pre: str) -> None:
    _cookie(response, PRE_COOKIE, pre, PRE_SECONDS)


def start_session(response: Response, request: Request, who: Principal) -> None:
    """Open a session for ``who`` (the pre-session of the sign-in is used up)."""
    pre = request.cookies.get(PRE_COOKIE)
    if pre and len(pre) <= MAX_COOKIE:
        sessions(request).end(pre)
    _cookie(response, SESSION_COOKIE, sessions(request).create("session", who.token_id),
            SESSION_SECONDS)
    _forget(response, PRE_COOKIE)


def end_session(response: Response, request: Request) -> None:
    """End the session of this request's cookie (in the store) and forget the cookie."""
    sid = session_id(request)
    if sid:
        sessions(request).end(sid)
    _forget(response, SESSION_COOKIE)
