"""The console's pages over HTTP (no browser): security headers, the session cookie, CSRF,
refusals exactly as the API decides, bearer tokens, the hand replay's cards by role, and the new
read routes behind the pages (hand search by period and amount, hold by day, the workbook)."""

from __future__ import annotations

import io
import re
from collections.abc import Iterator
from typing import Any

import openpyxl
import pytest
from fastapi.testclient import TestClient

from ledger.api import create_app
from ledger.api.console import CSP
from ledger.settings import Settings
from tests.support.browser import hand_in_progress
from tests.support.http import bearer, csrf_of

LIVE = "CSP-5"


@pytest.fixture(scope="module")
def console(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[TestClient, dict[str, str],
                                                                         int]]:
    path = tmp_path_factory.mktemp("console-http")
    app = create_app(Settings(database_url=f"sqlite:///{path}/ledger.sqlite3",
                              deck_key_file=path / "deck.key"))
    live = hand_in_progress(app.state.ledger, "caribbean-stud", LIVE, seed=3)
    store = app.state.tokens
    tokens = {role: store.create(role, label=f"test {role}")[0]
              for role in ("auditor", "accounting", "admin")}
    tokens["device"] = store.create("device", tables=[LIVE], label="dealer")[0]
    tokens["other"] = store.create("device", tables=["ELSEWHERE"], label="other")[0]
    with TestClient(app, base_url="https://console.test") as client:
        yield client, tokens, live


def test_every_console_answer_carries_a_strict_policy(console: Any) -> None:
    client, tokens, _ = console
    for path in ("/console/sign-in", "/console/static/console.js", "/console/tables"):
        r = client.get(path, headers=bearer(tokens["auditor"]))
        assert r.status_code == 200, path
        policy = r.headers["content-security-policy"]
        assert policy == CSP and "unsafe-inline" not in policy and "unsafe-eval" not in policy
        assert "script-src 'self'" in policy and "frame-ancestors 'none'" in policy
        assert r.headers["x-frame-options"] == "DENY"
    page = client.get("/console/tables", headers=bearer(tokens["auditor"]))
    assert page.headers["cache-control"] == "no-store"
    assert "<script>" not in page.text and " style=" not in page.text  # nothing inline


def test_sign_in_keeps_the_token_in_a_strict_cookie_and_never_in_an_address(
        console: Any) -> None:
    client, tokens, _ = console
    client.cookies.clear()
    form = client.get("/console/sign-in?next=/console/tables")
    assert "__Host-ledger_signin" in form.headers["set-cookie"]
    r = client.post("/console/sign-in", data={"token": tokens["auditor"], "csrf": csrf_of(
        form.text), "next": "/console/tables"}, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/console/tables"
    cookie = r.headers["set-cookie"]
    assert "__Host-ledger_session=" in cookie and "HttpOnly" in cookie
    assert tokens["auditor"] not in cookie  # a random session id, never the token
    assert "SameSite=strict" in cookie or "SameSite=Strict" in cookie
    assert tokens["auditor"] not in r.headers["location"]
    page = client.get("/console/tables")
    assert page.status_code == 200 and tokens["auditor"] not in page.text
    # Sign-out needs the session's CSRF value; with it the cookie is cleared.
    assert client.post("/console/sign-out", data={"csrf": "nope"}).status_code == 403
    out = client.post("/console/sign-out", data={"csrf": csrf_of(page.text)},
                      follow_redirects=False)
    assert out.status_code == 303
    assert '__Host-ledger_session=""' in out.headers["set-cookie"]
    client.cookies.clear()


def test_forged_and_cross_site_forms_are_refused(console: Any) -> None:
    client, tokens, _ = console
    client.cookies.clear()
    form = client.get("/console/sign-in")
    value = csrf_of(form.text)
    r = client.post("/console/sign-in", data={"token": tokens["auditor"], "csrf": "x" * 43})
    assert r.status_code == 403 and "csrf_failed" in r.text
    r = client.post("/console/sign-in", data={"token": tokens["auditor"], "csrf": value},
                    headers={"origin": "https://evil.example"})
    assert r.status_code == 403
    r = client.post("/console/sign-in", data={"token": tokens["auditor"], "csrf": value},
                    headers={"sec-fetch-site": "cross-site"})
    assert r.status_code == 403
    r = client.post("/console/sign-in", data={"token": "ltk_x_y", "csrf": value})
    assert r.status_code == 401 and "unknown or revoked" in r.text
    # An open redirect is not possible: only console paths are followed.
    r = client.post("/console/sign-in", data={"token": tokens["auditor"], "csrf": value,
                                              "next": "https://evil.example/"},
                    follow_redirects=False)
    assert r.headers["location"] == "/console/"
    page = client.get("/console/audit")
    start = client.post("/console/audit", data={"csrf": "forged"}, follow_redirects=False)
    assert start.status_code == 403
    assert client.post("/console/audit", data={"csrf": csrf_of(page.text)},
                       follow_redirects=False).status_code == 303
    client.cookies.clear()


@pytest.mark.parametrize(("role", "path", "status"), [
    ("accounting", "/console/hands", 403),
    ("accounting", "/console/audit", 403),
    ("admin", "/console/accounting", 403),
    ("device", "/console/accounting", 403),
    ("device", "/console/jackpot", 403),
    ("other", f"/console/tables/{LIVE}", 403),
    ("accounting", "/console/accounting", 200),
    ("admin", "/console/tables", 200),
    ("device", f"/console/tables/{LIVE}", 200),
])
def test_pages_are_refused_exactly_as_the_api_refuses(console: Any, role: str, path: str,
                                                      status: int) -> None:
    client, tokens, _ = console
    r = client.get(path, headers=bearer(tokens[role]))
    assert r.status_code == status, r.text
    if status == 403:
        assert "forbidden" in r.text or "table_not_in_scope" in r.text


def test_without_a_token_a_page_asks_to_sign_in(console: Any) -> None:
    client, _, _ = console
    client.cookies.clear()
    r = client.get("/console/hands?table=CSP-5", follow_redirects=False)
    assert r.status_code == 303
    assert r.headers["location"] == "/console/sign-in?next=%2Fconsole%2Fhands%3Ftable%3DCSP-5"
    bad = client.get("/console/hands", headers=bearer("ltk_nope_nope"))
    assert bad.status_code == 401


def test_the_replay_page_shows_the_cards_to_an_auditor_and_no_face_down_card_to_the_device(
        console: Any) -> None:
    client, tokens, live = console
    full = client.get(f"/tables/{LIVE}", headers=bearer(tokens["auditor"])).json()
    masked = client.get(f"/tables/{LIVE}", headers=bearer(tokens["device"])).json()
    hidden = {c for s, m in zip(full["hand"]["seats"], masked["hand"]["seats"], strict=True)
              for c, n in zip(s["cards"], m["cards"], strict=True) if n is None}
    hidden |= set(full["hand"]["dealer_down"])
    assert len(hidden) >= 5
    path = f"/console/tables/{LIVE}/hands/{live}"
    auditor = client.get(path, headers=bearer(tokens["auditor"]))
    device = client.get(path, headers=bearer(tokens["device"]))
    assert auditor.status_code == device.status_code == 200
    texts = {card: re.compile(rf"(?<![A-Za-z0-9]){card}(?![A-Za-z0-9])") for card in hidden}
    assert all(pattern.search(auditor.text) for pattern in texts.values())
    assert not any(pattern.search(device.text) for pattern in texts.values())
    assert 'aria-label="face-down card"' in device.text
    up = full["hand"]["dealer_up"][0]
    assert up in masked["hand"]["dealer_up"]
    # The device's table overview and its live fragment hold no hidden card either.
    for page in ("/console/tables", "/console/tables/live", f"/console/tables/{LIVE}/live"):
        text = client.get(page, headers=bearer(tokens["device"])).text
        assert not any(pattern.search(text) for pattern in texts.values()), page


def test_the_read_routes_behind_the_pages(console: Any) -> None:
    client, tokens, live = console
    auditor = bearer(tokens["auditor"])
    every = client.get("/hands", params={"table": LIVE}, headers=auditor).json()["items"]
    assert [h["hand_no"] for h in every] == [1, live]
    day = every[0]["gaming_day"]
    ranged = client.get("/hands", params={"from": day, "to": day},
                        headers=auditor).json()["items"]
    assert [h["hand_no"] for h in ranged] == [1, live]
    big = client.get("/hands", params={"won_min": 10**12}, headers=auditor).json()
    assert big["items"] == [] and big["total"] == 0 and big["next"] is None
    bad = client.get("/hands", params={"won_min": -1}, headers=auditor)
    assert bad.status_code == 422
    public = client.get(f"/tables/{LIVE}", params={"public": "true"}, headers=auditor).json()
    assert all(c is None for c in public["hand"]["dealer_down"])
    book = client.get("/exports/workbook", params={"day": day},
                      headers=bearer(tokens["accounting"]))
    assert book.status_code == 200
    assert f'filename="accounting-{day}.xlsx"' in book.headers["content-disposition"]
    sheets = openpyxl.load_workbook(io.BytesIO(book.content)).sheetnames
    assert "accounting" in sheets and "hold" in sheets
    assert client.get("/exports/workbook", headers=bearer(tokens["accounting"])
                      ).json()["error"]["code"] == "invalid_period"
    replay = client.get(f"/tables/{LIVE}/hands/1/replay", headers=auditor).json()
    assert all("data" in s and "balances" in s for s in replay["steps"])
    assert not any("sealed_deck" in s["data"] for s in replay["steps"])
    settled = replay["steps"][-1]
    assert settled["event"] == "HandSettled" and settled["balances"]
    assert not any(k.startswith("spot:") for k in settled["balances"])


def test_the_consoles_pages_that_show_hole_cards_are_in_the_access_log(console: Any) -> None:
    """The console reads through the API under the session's token: the auditor's table with
    every card and the replay page of a hand in progress are recorded; the public table page
    and the device's pages (no hidden card) are not."""
    from ledger.access.accesslog import access_rows, verify_access_log
    from tests.support.http import app_of

    client, tokens, live = console
    ledger = app_of(client).state.ledger
    last = access_rows(ledger, last=True)
    start = last[0].seq if last else 0
    auditor, device = bearer(tokens["auditor"]), bearer(tokens["device"])
    for path, headers in ((f"/console/tables/{LIVE}", auditor),
                          (f"/console/tables/{LIVE}/live", auditor),
                          (f"/console/tables/{LIVE}/hands/{live}", device),
                          (f"/console/tables/{LIVE}", device)):
        assert client.get(path, headers=headers).status_code == 200, path
    assert access_rows(ledger, after=start) == []
    assert client.get(f"/console/tables/{LIVE}?cards=all", headers=auditor).status_code == 200
    assert client.get(f"/console/tables/{LIVE}/hands/{live}", headers=auditor).status_code == 200
    who = f"token:{tokens['auditor'].split('_')[1]}"
    assert [(r.who, r.what, r.table, r.hand, r.detail["path"])
            for r in access_rows(ledger, after=start)] == [
        (who, "table_state", LIVE, live, f"/tables/{LIVE}"),
        (who, "hand_replay", LIVE, live, f"/tables/{LIVE}/hands/{live}/replay"),
        (who, "hand", LIVE, live, f"/tables/{LIVE}/hands/{live}"),
    ]
    assert verify_access_log(ledger) == []
