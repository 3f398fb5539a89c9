"""The console's pages over HTTP, as an attacker and as a reader would try them: free text from
the store, a token's label and the address drawn escaped; the session cookie is no credential
of the API; no token in a log line; no page of accounting or admin holds a face-down card; the
hand search's filters and paging against the API; an audit's progress, owned by the token that
started it; the jackpot, coverage and accounting pages against the API's answers; nothing
loaded from another origin."""

from __future__ import annotations

import logging
import re
import threading
import time
from collections.abc import Callable, Iterator
from datetime import date, timedelta
from html import unescape
from typing import Any

import pytest
import structlog
from fastapi.testclient import TestClient

from ledger.api import create_app
from ledger.api.console import HERE
from ledger.api.console.draw import Card
from ledger.domain.commands import StartHand, VoidHand
from ledger.settings import Settings
from ledger.sim.runner import simulate
from tests.support.browser import hand_in_progress
from tests.support.http import PATHS, app_of, bearer, csrf_of

LIVE, HCF, CSP = "CSP-7", "HCF-5", "CSP-6"
HOSTILE = '<script>alert("x")</script><img src=x onerror=alert(1)>'
ESCAPED = "&lt;script&gt;"


@pytest.fixture(scope="module")
def console(tmp_path_factory: pytest.TempPathFactory
            ) -> Iterator[tuple[TestClient, dict[str, str], int]]:
    path = tmp_path_factory.mktemp("console-pages")
    app = create_app(Settings(database_url=f"sqlite:///{path}/ledger.sqlite3",
                              deck_key_file=path / "deck.key"))
    ledger = app.state.ledger
    simulate(ledger, "high-card-flush", HCF, 6, seed=4)
    simulate(ledger, "caribbean-stud", CSP, 4, seed=4)
    # A hand voided (COM-5) with a reason that is markup: the replay shows the reason.
    ledger.execute(StartHand(command_id="hostile-start", table=CSP))
    ledger.execute(VoidHand(command_id="hostile-void", table=CSP, reason=HOSTILE))
    live = hand_in_progress(ledger, "caribbean-stud", LIVE, seed=3)
    store = app.state.tokens
    tokens = {role: store.create(role, label=f"{role} {HOSTILE}")[0]
              for role in ("auditor", "accounting", "admin")}
    tokens["other-auditor"] = store.create("auditor", label="another auditor")[0]
    tokens["device"] = store.create("device", tables=[LIVE], label="dealer")[0]
    with TestClient(app, base_url="https://console.test") as client:
        yield client, tokens, live


def sign_in(client: TestClient, token: str) -> str:
    """Sign in through the form as a browser does; the first page's HTML."""
    client.cookies.clear()
    form = client.get("/console/sign-in")
    r = client.post("/console/sign-in", data={"token": token, "csrf": csrf_of(form.text),
                                              "next": "/console/tables"})
    assert r.status_code == 200 and "__Host-ledger_session" in client.cookies
    page: str = r.text
    return page


# --- as an attacker -------------------------------------------------------------------------


def test_free_text_and_the_address_are_drawn_as_text_never_as_markup(console: Any) -> None:
    """A void's reason stored in an event, a token's label, a player typed in the search and a
    sign-in target are all drawn escaped (and the CSP would refuse an inline script anyway)."""
    client, tokens, _ = console
    auditor = bearer(tokens["auditor"])
    pages = {
        "the void's reason in the replay": (f"/console/tables/{CSP}/hands/5", auditor),
        "the token's label": ("/console/tables", auditor),
        "a player searched for": ("/console/hands?player=" + HOSTILE, auditor),
        "the sign-in target": ("/console/sign-in?next=/console/" + HOSTILE, {}),
        "an unknown table asked for": ("/console/accounting/chart?month=2026-01&table=x"
                                       + HOSTILE, auditor),
        "a malformed day, quoted by its refusal": ("/console/jackpot?day=" + HOSTILE, auditor),
    }
    for what, (path, headers) in pages.items():
        client.cookies.clear()
        r = client.get(path, headers=headers)
        assert "<script>alert" not in r.text and "<img src=x" not in r.text, what
        if what != "an unknown table asked for":  # refused by its pattern: not drawn at all
            assert ESCAPED in r.text, what
    replay = client.get(f"/console/tables/{CSP}/hands/5", headers=auditor).text
    assert f"VOID: {HOSTILE}" in unescape(replay)
    # A form that names an unknown table: the refusal quotes it, escaped.
    html = sign_in(client, tokens["auditor"])
    assert "<script>alert" not in html and ESCAPED in html  # the label in the header
    page = client.get("/console/audit")
    r = client.post("/console/audit", data={"csrf": csrf_of(page.text), "table": HOSTILE[:40]})
    assert r.status_code == 404 and "unknown_table" in r.text
    assert "<script>alert" not in r.text and ESCAPED in r.text
    client.cookies.clear()


def test_the_session_cookie_is_no_credential_of_the_api(console: Any) -> None:
    """The cookie is sent with every request to the site (``Path=/``): the API's routes take
    only a bearer header, so a forged request carrying the cookie alone does nothing."""
    client, tokens, _ = console
    sign_in(client, tokens["auditor"])
    assert client.get("/console/tables").status_code == 200
    assert client.get("/tables").status_code == 401
    command = PATHS[StartHand].replace("{code}", CSP)
    r = client.post(command, json={"command_id": "forged-by-cookie"})
    assert r.status_code == 401 and r.json()["error"]["code"] == "missing_token"
    client.cookies.clear()


def test_no_token_reaches_a_log_line(console: Any, caplog: pytest.LogCaptureFixture) -> None:
    client, tokens, _ = console
    caplog.set_level(logging.DEBUG)
    with structlog.testing.capture_logs() as logs:
        html = sign_in(client, tokens["auditor"])
        client.get("/console/hands?table=" + HCF)
        client.get("/console/audit/jobs/" + "x" * 16)  # refused: logged
        client.post("/console/audit", data={"csrf": "forged"})  # refused: logged
        client.post("/console/sign-out", data={"csrf": csrf_of(html)})
        client.cookies.clear()
        form = client.get("/console/sign-in")
        client.post("/console/sign-in", data={"token": tokens["auditor"] + "x",
                                              "csrf": csrf_of(form.text)})  # wrong: logged
        client.get("/console/tables", headers=bearer(tokens["device"] + "x"))
    assert any(e.get("code") == "csrf_failed" for e in logs)
    assert any(e.get("code") == "invalid_token" for e in logs)
    text = repr(logs) + caplog.text
    for token in tokens.values():
        secret = token.split("_", 2)[2]  # ltk_<id>_<secret>: the secret may hold "_" itself
        assert secret not in text
    client.cookies.clear()


ROLES_WITHOUT_HIDDEN_CARDS = ("accounting", "admin", "device")


@pytest.mark.parametrize("role", ROLES_WITHOUT_HIDDEN_CARDS)
def test_no_page_of_a_role_that_may_not_see_them_holds_a_face_down_card(
        console: Any, role: str) -> None:
    client, tokens, live = console
    full = client.get(f"/tables/{LIVE}", headers=bearer(tokens["auditor"])).json()
    masked = client.get(f"/tables/{LIVE}", headers=bearer(tokens["device"])).json()
    hidden = {c for s, m in zip(full["hand"]["seats"], masked["hand"]["seats"], strict=True)
              for c, n in zip(s["cards"], m["cards"], strict=True) if n is None}
    hidden |= set(full["hand"]["dealer_down"])
    assert len(hidden) >= 5
    # A card as text (``Ks``, in a replay's lines) and as drawn (``king of spades``).
    patterns = [re.compile(rf"(?<![A-Za-z0-9]){c}(?![A-Za-z0-9])|{Card(c).name}") for c in hidden]
    pages = ["/console/", "/console/tables", "/console/tables/live",
             f"/console/tables/{LIVE}", f"/console/tables/{LIVE}?cards=all",
             f"/console/tables/{LIVE}/live", f"/console/tables/{LIVE}/hands/{live}",
             "/console/hands", "/console/jackpot", "/console/coverage", "/console/accounting"]
    shown = 0
    for path in pages:
        r = client.get(path, headers=bearer(tokens[role]))
        assert r.status_code in (200, 403), (path, r.status_code)
        shown += r.status_code == 200
        assert not any(p.search(r.text) for p in patterns), (role, path)
    assert shown >= 4
    # The auditor's pages do hold them (the check above can see a card).
    auditor = client.get(f"/console/tables/{LIVE}?cards=all", headers=bearer(tokens["auditor"]))
    assert all(p.search(auditor.text) for p in patterns)


def test_the_pages_load_nothing_from_another_origin(console: Any) -> None:
    """No CDN: every script, stylesheet, image and link of a page is the service's own, and the
    package's assets name no other site."""
    client, tokens, _ = console
    auditor = bearer(tokens["auditor"])
    for path in ("/console/sign-in", "/console/tables", f"/console/tables/{CSP}/hands/1",
                 "/console/hands", "/console/accounting", "/console/audit"):
        html = client.get(path, headers=auditor).text
        for attr, value in re.findall(r'\s(src|href|action|data-[a-z]+)="([^"]*)"', html):
            if attr in ("src", "href", "action") or value.startswith(("/", "http", "//")):
                assert value.startswith(("/console", "/console/", "#")) and \
                    not value.startswith("//"), (path, attr, value)
        for src in re.findall(r'<(?:script|link)[^>]+(?:src|href)="([^"]+)"', html):
            assert src.startswith("/console/static/")
            assert client.get(src).status_code == 200
    for asset in (HERE / "static").iterdir():
        text = asset.read_text()
        assert not re.search(r"https?:|//[a-z0-9.-]+\.[a-z]{2,}", text, re.I), asset.name


# --- the hand search ------------------------------------------------------------------------


def _found(html: str) -> list[tuple[str, int]]:
    return [(t, int(n)) for t, n in re.findall(
        r'<a href="/console/tables/([^/"]+)/hands/(\d+)">[^<]+#\d+</a></th>', html)]


def test_every_filter_of_the_hand_search_answers_as_the_api(console: Any) -> None:
    client, tokens, _ = console
    auditor = bearer(tokens["auditor"])

    def api(**params: Any) -> list[tuple[str, int]]:
        rows = client.get("/hands", params=params, headers=auditor).json()["items"]
        return [(h["table_code"], h["hand_no"]) for h in rows]

    every = api()
    day = client.get("/hands", headers=auditor).json()["items"][0]["gaming_day"]
    record = client.get(f"/tables/{HCF}/hands/2", headers=auditor).json()
    player = record["seats"][0]["player"]
    cases: list[tuple[dict[str, str], dict[str, Any]]] = [
        ({"table": HCF}, {"table": HCF}),
        ({"day": day}, {"day": day}),
        ({"from": day, "to": day}, {"from": day, "to": day}),
        ({"game": "caribbean-stud"}, {"game": "caribbean-stud"}),
        ({"status": "voided"}, {"status": "voided"}),
        ({"status": "in_progress"}, {"status": "in_progress"}),
        ({"player": player}, {"player": player}),
        ({"won": "1", "table": HCF}, {"won_min": 100, "table": HCF}),
        ({"lost": "0.5"}, {"lost_min": 50}),
    ]
    for form, params in cases:
        wanted = api(**params)
        page = client.get("/console/hands", params=form, headers=auditor)
        assert page.status_code == 200, (form, page.text)
        assert _found(page.text) == wanted, form
        assert set(wanted) <= set(every)
    assert ("CSP-6", 5) in api(status="voided") and api(player=player)
    assert len(api(table=HCF)) == 6 and len(api(status="voided")) == 1


def test_the_hand_search_pages_through_every_hand_once(console: Any,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    from ledger.api.console import pages

    client, tokens, _ = console
    auditor = bearer(tokens["auditor"])
    monkeypatch.setattr(pages, "PAGE_SIZE", 4)
    wanted = [(h["table_code"], h["hand_no"])
              for h in client.get("/hands", headers=auditor).json()["items"]]
    assert len(wanted) > 8
    seen: list[tuple[str, int]] = []
    link: str | None = "/console/hands?game="
    number = 0
    while link is not None:
        number += 1
        html = client.get(unescape(link), headers=auditor).text
        rows = _found(html)
        assert 0 < len(rows) <= 4 and f"Page {number}" in html
        seen += rows
        assert ('rel="prev"' in html) == (number > 1)
        following = re.search(r'<a href="([^"]+)" rel="next">', html)
        link = following.group(1) if following else None
    assert seen == wanted and number == -(-len(wanted) // 4)
    # The filters travel with the pages.
    html = client.get("/console/hands", params={"table": HCF}, headers=auditor).text
    following = re.search(r'<a href="([^"]+)" rel="next">', html)
    assert following and f"table={HCF}" in unescape(following.group(1))
    second = client.get(unescape(following.group(1)), headers=auditor).text
    assert {t for t, _ in _found(second)} == {HCF}


# --- the audit ------------------------------------------------------------------------------


@pytest.fixture
def held_audit(monkeypatch: pytest.MonkeyPatch) -> Iterator[threading.Event]:
    """The audit route's verify, made to report some progress and wait until released."""
    import projections.audit as audit

    real: Callable[..., Any] = audit.verify
    release = threading.Event()

    def held(app: Any, **kwargs: Any) -> Any:
        progress = kwargs.get("progress")
        if progress is not None:
            progress(7)
        release.wait(30)
        return real(app, **kwargs)

    monkeypatch.setattr(audit, "verify", held)
    yield release
    release.set()


def _follow(client: TestClient, job: str, headers: dict[str, str]) -> dict[str, Any]:
    for _ in range(300):
        state: dict[str, Any] = client.get(f"/console/audit/jobs/{job}/progress",
                                           headers=headers).json()
        if state["done"]:
            return state
        time.sleep(0.1)
    raise AssertionError("the audit did not end")


def test_an_audit_shows_its_progress_and_belongs_to_its_token(
        console: Any, held_audit: threading.Event) -> None:
    client, tokens, _ = console
    html = sign_in(client, tokens["auditor"])
    r = client.post("/console/audit", data={"csrf": csrf_of(html), "table": HCF},
                    follow_redirects=False)
    assert r.status_code == 303
    job = r.headers["location"].rsplit("/", 1)[1]
    total = client.get("/tables", headers=bearer(tokens["auditor"])).json()
    events = next(t["last_version"] for t in total if t["table_code"] == HCF)
    for _ in range(100):  # the audit has started and reported its first events
        state = client.get(f"/console/audit/jobs/{job}/progress").json()
        if state["checked"]:
            break
        time.sleep(0.05)
    assert state["checked"] == 7 and state["total"] == events and state["done"] is False
    running = client.get(f"/console/audit/jobs/{job}").text
    assert f'<progress id="audit-progress" max="{events}" value="7">' in running
    assert f"/console/audit/jobs/{job}/progress" in running
    # Another auditor, the accountant and a device do not see it.
    for role in ("other-auditor", "accounting", "device"):
        for path in (f"/console/audit/jobs/{job}", f"/console/audit/jobs/{job}/progress"):
            other = client.get(path, headers=bearer(tokens[role]))
            assert other.status_code in (403, 404), (role, path)
    held_audit.set()
    done = _follow(client, job, {})
    assert done["checked"] == events and done["ok"] is True and done["error"] is None
    page = client.get(f"/console/audit/jobs/{job}").text
    assert "Everything holds" in page and "<progress" not in page
    client.cookies.clear()


def test_a_token_runs_one_audit_of_a_scope_and_two_at_most_at_once(
        console: Any, held_audit: threading.Event) -> None:
    """A form sent twice (a double click) follows the audit already running; an audit runs in
    the service's workers, so a token may not start more than two at once (each POST returns
    at once: without the limit, one client could fill the workers every request needs)."""
    client, tokens, _ = console
    auditor = bearer(tokens["auditor"])

    def start(**form: str) -> Any:
        return client.post("/console/audit", data=form, headers=auditor,
                           follow_redirects=False)

    first = start(table=HCF)
    assert first.status_code == 303
    again = start(table=HCF.lower())
    assert again.status_code == 303 and again.headers["location"] == first.headers["location"]
    second = start(table=CSP)
    assert second.status_code == 303 and second.headers["location"] != first.headers["location"]
    third = start(table=LIVE)
    assert third.status_code == 409 and "audits_running" in third.text
    assert first.headers["location"] in third.text  # the page names the running ones
    # Another token is not held back by this one's audits.
    other = client.post("/console/audit", data={"table": LIVE}, follow_redirects=False,
                        headers=bearer(tokens["other-auditor"]))
    assert other.status_code == 303
    held_audit.set()
    for response in (first, second, other):
        job = response.headers["location"].rsplit("/", 1)[1]
        owner = auditor if response is not other else bearer(tokens["other-auditor"])
        assert _follow(client, job, owner)["ok"] is True
    assert start(table=LIVE).status_code == 303  # once they have ended


def test_an_audit_of_a_gaming_day_and_who_may_start_one(console: Any) -> None:
    client, tokens, _ = console
    auditor = bearer(tokens["auditor"])
    day = client.get("/hands", headers=auditor).json()["items"][0]["gaming_day"]
    r = client.post("/console/audit", data={"day": day}, headers=auditor,
                    follow_redirects=False)
    assert r.status_code == 303
    job = r.headers["location"].rsplit("/", 1)[1]
    assert _follow(client, job, auditor)["ok"] is True
    page = client.get(f"/console/audit/jobs/{job}", headers=auditor).text
    assert f"gaming day {day}" in page and "Everything holds" in page
    assert re.search(r"3 tables, \d+ hands", page)
    for role in ("accounting", "admin", "device"):
        refused = client.post("/console/audit", data={"day": day}, headers=bearer(tokens[role]))
        assert refused.status_code == 403 and "forbidden" in refused.text


# --- money pages ----------------------------------------------------------------------------


def test_the_jackpot_and_coverage_pages_show_the_apis_answers(console: Any) -> None:
    client, tokens, _ = console
    accounting = bearer(tokens["accounting"])
    meters = client.get("/jackpot", headers=accounting).json()
    moves = client.get("/jackpot/moves", params={"limit": 500}, headers=accounting).json()
    assert meters and moves
    page = client.get("/console/jackpot", headers=accounting).text
    for meter in meters:
        whole, cents = divmod(meter["meter_minor"], 100)
        assert f"{whole:,}.{cents:02d}" in page
    body = page.split('id="jackpot-moves"', 1)[1]
    assert body.count("<tr><td>") == len(moves)
    covered = client.get("/coverage", headers=accounting).json()
    assert len(covered) == 6
    page = client.get("/console/coverage", params={"table": HCF}, headers=accounting).text
    assert _coverage_links(page) == [(HCF, c["hand_no"]) for c in covered]


def _coverage_links(html: str) -> list[tuple[str, int]]:
    return [(t, int(n)) for t, n in re.findall(
        r'<h2><a href="/console/tables/([^/"]+)/hands/(\d+)">', html)]


def test_the_accounting_page_of_a_day_adds_up_the_apis_rows(console: Any) -> None:
    client, tokens, _ = console
    accounting = bearer(tokens["accounting"])
    rows = client.get("/accounting", headers=accounting).json()
    day = rows[0]["gaming_day"]
    page = client.get("/console/accounting", params={"day": day}, headers=accounting).text
    for code in (HCF, CSP):
        mine = [r for r in rows if r["table_code"] == code and r["gaming_day"] == day]
        drop = sum(r["drop_minor"] or 0 for r in mine)
        row = re.search(rf'<th scope="row">{code}</th>(.*?)</tr>', page, re.S)
        assert row, code
        cells = re.findall(r'<td class="num">([^<]*)</td>', row.group(1))
        assert cells[2] == f"{drop / 100:,.2f}", (code, cells)


def test_the_accounting_page_of_any_period(console: Any, monkeypatch: pytest.MonkeyPatch
                                           ) -> None:
    """A day, a month, or a range of days (``from`` and ``to``): the totals per table, the hold
    report and the workbook of that same period."""
    from projections.reports import figures, paytable

    # The hold report needs the configuration's mathematics: simulated with fewer hands here
    # (this test is about the period, not the figures), in a memory of its own.
    monkeypatch.setattr(paytable, "_MEMORY", {})
    monkeypatch.setitem(figures.SIMULATED_HANDS, "high-card-flush", 1_000)
    client, tokens, _ = console
    accounting = bearer(tokens["accounting"])
    rows = client.get("/accounting", headers=accounting).json()
    day = rows[0]["gaming_day"]
    before = (date.fromisoformat(day) - timedelta(days=3)).isoformat()
    page = client.get("/console/accounting", params={"from": before, "to": day},
                      headers=accounting)
    assert page.status_code == 200, page.text
    html = unescape(page.text)
    assert f"{before} to {day}" in html
    drop = sum(r["drop_minor"] or 0 for r in rows if r["table_code"] == HCF)
    row = re.search(rf'<th scope="row">{HCF}</th>(.*?)</tr>', page.text, re.S)
    assert row and re.findall(r'<td class="num">([^<]*)</td>', row.group(1))[2] == \
        f"{drop / 100:,.2f}"
    assert f"/console/accounting/hold?from={before}&to={day}" in html
    workbook = f"/console/exports/workbook?from={before}&to={day}"
    assert workbook in html
    hold = client.get(f"/console/accounting/hold?from={before}&to={day}&table={HCF}",
                      headers=accounting)
    assert hold.status_code == 200 and HCF in hold.text and CSP not in hold.text
    # The workbook of the range (its figures are the API's, tested there): the console hands
    # the range on (the API's own words for a range the wrong way round prove it).
    backwards = client.get(f"/console/exports/workbook?from={day}&to={before}",
                           headers=accounting)
    assert backwards.status_code == 422 and f"{day} is after" in unescape(backwards.text)
    # The range's inputs keep what was chosen.
    assert f'name="from" value="{before}"' in page.text and f'name="to" value="{day}"' in page.text
    for wrong in ({"from": day}, {"from": day, "to": before}, {"day": day, "from": before,
                                                                  "to": day}):
        refused = client.get("/console/accounting", params=wrong, headers=accounting)
        assert refused.status_code == 422 and "invalid_period" in refused.text, wrong


# --- the filter forms -----------------------------------------------------------------------


def _get_forms(html: str) -> list[tuple[str, dict[str, str]]]:
    """Each GET form of a page, and what a browser sends when it is submitted as it stands:
    every named field, empty when nothing is typed or chosen."""
    out = []
    for action, body in re.findall(r'<form method="get" action="([^"]+)"[^>]*>(.*?)</form>',
                                   html, re.S):
        fields: dict[str, str] = {}
        for name in re.findall(r'<(?:input|select)[^>]*\sname="([^"]+)"', body):
            fields[name] = ""
        for name, value in re.findall(r'<input[^>]*\sname="([^"]+)"[^>]*\svalue="([^"]*)"',
                                      body):
            fields[name] = unescape(value)
        for name, options in re.findall(r'<select name="([^"]+)">(.*?)</select>', body, re.S):
            chosen = re.search(r'<option(?: value="([^"]*)")? selected>([^<]*)', options)
            if chosen:
                fields[name] = unescape(chosen.group(1) or chosen.group(2))
        out.append((action, fields))
    return out


@pytest.mark.parametrize(("role", "path"), [
    ("accounting", "/console/accounting"),
    ("accounting", f"/console/accounting?table={HCF}"),
    ("accounting", "/console/jackpot"),
    ("accounting", "/console/coverage"),
    ("auditor", "/console/hands"),
])
def test_a_filter_form_submitted_as_it_stands_is_answered(console: Any, role: str,
                                                          path: str) -> None:
    """A browser sends a GET form's empty fields too (``day=&month=&table=``): an empty field
    is a filter not chosen, never a malformed one."""
    client, tokens, _ = console
    headers = bearer(tokens[role])
    forms = _get_forms(client.get(path, headers=headers).text)
    assert forms and any("" in fields.values() for _, fields in forms), forms  # the case
    for action, fields in forms:
        r = client.get(action, params=fields, headers=headers)
        assert r.status_code == 200, (action, fields, r.text[:300])
        assert r.headers["content-type"].startswith("text/html")


def test_a_malformed_field_is_refused_as_a_page(console: Any) -> None:
    client, tokens, _ = console
    headers = bearer(tokens["accounting"])
    r = client.get("/console/accounting", params={"day": "2026-13-45x"}, headers=headers)
    assert r.status_code == 422 and r.headers["content-type"].startswith("text/html")
    assert "invalid_day" in r.text and "<nav" in r.text
    fragment = client.get("/console/accounting/hold", params={"month": "March"},
                          headers={**headers, "X-Console-Fragment": "1"})
    assert fragment.status_code == 422
    assert fragment.json()["error"]["code"] == "invalid_request"


def test_the_demos_token_files_sign_in_to_the_console(console: Any, tmp_path: Any) -> None:
    """The quick start: ``make demo`` writes an auditor's and an accountant's token (mode 600),
    and each signs in to the console with its role."""
    from ledger.cli.demo import _console_tokens

    client, _, _ = console
    files = _console_tokens(app_of(client).state.ledger, tmp_path)
    assert sorted(files) == ["accounting", "auditor"]
    for role, path in files.items():
        assert path.name == f"demo-{role}.token" and path.stat().st_mode & 0o777 == 0o600
        html = sign_in(client, path.read_text().strip())
        assert f'<span class="role">{role}</span>' in html
    client.cookies.clear()


def test_a_revoked_tokens_session_ends_at_its_next_page(console: Any) -> None:
    client = console[0]
    store = app_of(client).state.tokens
    token, info = store.create("auditor", label="to be revoked")
    sign_in(client, token)
    assert client.get("/console/hands").status_code == 200
    session = client.cookies["__Host-ledger_session"]
    store.revoke(info.token_id)
    page = client.get("/console/hands", follow_redirects=False)
    assert page.status_code == 303 and page.headers["location"].startswith("/console/sign-in")
    assert '__Host-ledger_session=""' in page.headers["set-cookie"]
    client.cookies.set("__Host-ledger_session", session)  # a copy of the cookie kept elsewhere
    fragment = client.get("/console/tables/live", headers={"X-Console-Fragment": "1"})
    assert fragment.status_code == 401 and fragment.json()["error"]["code"] == "missing_token"
    client.cookies.clear()


def test_every_form_that_changes_anything_needs_its_csrf_value(console: Any) -> None:
    """Every POST route under /console (whatever forms are added later): with the session's
    cookie but a forged or missing CSRF value, or sent from another site, it is refused."""
    from ledger.api.console.web import _routes

    client, tokens, _ = console
    posts = sorted(r.path for r in _routes(app_of(client).routes)
                   if r.path.startswith("/console") and "POST" in (r.methods or ()))
    assert posts == ["/console/approvals/{proposal_id}", "/console/audit", "/console/sign-in",
                     "/console/sign-out"]
    for path in (p.replace("{proposal_id}", "p-000000000000") for p in posts):
        html = sign_in(client, tokens["auditor"])
        good = csrf_of(html)
        for form, headers in (({}, {}), ({"csrf": "forged"}, {}),
                              ({"csrf": good}, {"origin": "https://evil.example"}),
                              ({"csrf": good}, {"sec-fetch-site": "cross-site"})):
            r = client.post(path, data={**form, "table": HCF, "token": tokens["auditor"]},
                            headers=headers, follow_redirects=False)
            assert r.status_code == 403 and "csrf_failed" in r.text, (path, form, headers)
    client.cookies.clear()


def test_each_page_is_refused_to_exactly_the_roles_its_api_route_refuses(console: Any) -> None:
    """Each page of the navigation, for each role: served when the role check of the API route
    it is drawn from admits the role, else 403 (and offered in the navigation likewise)."""
    from ledger.api.console.web import NAV, _roles, _routes

    client, tokens, _ = console
    declared = {r.path: _roles(r.dependant) for r in _routes(app_of(client).routes)
                if "GET" in (r.methods or ())}
    for role in ("auditor", "accounting", "admin", "device"):
        home = client.get("/console/", headers=bearer(tokens[role])).text
        for href, _label, api in NAV:
            admitted = role in declared[api]
            page = client.get(href, headers=bearer(tokens[role]))
            assert page.status_code == (200 if admitted else 403), (href, role)
            assert (f'<a href="{href}"' in home) == admitted, (href, role)


def test_the_cookies_are_host_only_secure_strict_and_hold_no_token(console: Any) -> None:
    """``__Host-`` cookies (Secure, Path=/, no Domain: no other host or plain-HTTP page sets
    them), HttpOnly and SameSite=Strict, over HTTPS and over plain HTTP alike (browsers take
    Secure cookies from http://127.0.0.1 and http://localhost)."""
    client, tokens, _ = console
    for base in ("https://console.test", "http://127.0.0.1"):
        browser = TestClient(app_of(client), base_url=base)  # no lifespan: the app stays open
        form = browser.get("/console/sign-in")
        pre = form.headers["set-cookie"]
        assert pre.startswith("__Host-ledger_signin=")
        r = browser.post("/console/sign-in", data={"token": tokens["auditor"],
                                                   "csrf": csrf_of(form.text)},
                         headers={"cookie": pre.split(";")[0]}, follow_redirects=False)
        assert r.status_code == 303, r.text
        cookie = next(c for c in r.headers.get_list("set-cookie")
                      if c.startswith("__Host-ledger_session="))
        low = cookie.lower()
        assert "; secure" in low and "; httponly" in low and "samesite=strict" in low
        assert "; path=/" in low and "domain=" not in low
        assert tokens["auditor"] not in cookie
        assert len(cookie.split(";")[0].split("=", 1)[1]) == 43


def test_a_session_is_kept_in_the_store_survives_a_restart_and_ends_at_sign_out(
        console: Any) -> None:
    client, tokens, _ = console
    sign_in(client, tokens["auditor"])
    session = client.cookies["__Host-ledger_session"]
    settings = app_of(client).state.settings
    again = create_app(settings)  # another instance of the service on the same store
    with TestClient(again, base_url="https://console.test",
                    cookies={"__Host-ledger_session": session}) as other:
        assert other.get("/console/hands", follow_redirects=False).status_code == 200
        page = client.get("/console/hands")
        out = client.post("/console/sign-out", data={"csrf": csrf_of(page.text)},
                          follow_redirects=False)
        assert out.status_code == 303
        # a copy of the cookie kept elsewhere is worth nothing once signed out
        assert other.get("/console/hands", follow_redirects=False).status_code == 303
    client.cookies.clear()


def test_revoking_a_token_over_the_api_ends_its_sessions(console: Any) -> None:
    client, tokens, _ = console
    token, info = app_of(client).state.tokens.create("auditor", label="revoked over http")
    sign_in(client, token)
    session = client.cookies["__Host-ledger_session"]
    gone = client.delete(f"/tokens/{info.token_id}", headers=bearer(tokens["admin"]))
    assert gone.status_code == 200, gone.text
    assert app_of(client).state.sessions.find(session, "session") is None
    client.cookies.clear()


def test_sign_in_needs_a_pre_session_the_server_made_and_uses_it_once(console: Any) -> None:
    """Login CSRF: a cookie and a form field planted together (any value of the attacker's
    choosing) sign nobody in; the server's pre-session serves one sign-in."""
    from ledger.access.sessions import csrf_for

    client, tokens, _ = console
    client.cookies.clear()
    planted = "A" * 43
    client.cookies.set("__Host-ledger_signin", planted)
    r = client.post("/console/sign-in", data={"token": tokens["auditor"],
                                              "csrf": csrf_for(planted)},
                    follow_redirects=False)
    assert r.status_code == 403 and "csrf_failed" in r.text
    client.cookies.clear()
    form = client.get("/console/sign-in")
    pre = client.cookies["__Host-ledger_signin"]
    value = csrf_of(form.text)
    assert value == csrf_for(pre)
    first = client.post("/console/sign-in", data={"token": tokens["auditor"], "csrf": value},
                        follow_redirects=False)
    assert first.status_code == 303
    client.cookies.clear()
    client.cookies.set("__Host-ledger_signin", pre)
    replayed = client.post("/console/sign-in", data={"token": tokens["admin"], "csrf": value},
                           follow_redirects=False)
    assert replayed.status_code == 403 and "csrf_failed" in replayed.text
    client.cookies.clear()
