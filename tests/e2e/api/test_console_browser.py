"""The console in a real browser (Debian's Chromium through Playwright) against a real server.

One store, prepared once for the module: a Caribbean Stud, High Card Flush and Stud Hi/Lo table
with a few hands each, a Chinese Poker table played over three gaming days (the hold chart), a
Caribbean table whose settlement was edited behind the ledger's back (the audit), and a
Caribbean table with a hand in progress whose device signs in (no hidden card may reach it).
Screenshots of the main pages are written to ``LEDGER_SCREENSHOTS`` (default
``out/screenshots``); ``docs/console/`` holds a committed set.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from ledger.api import create_app
from ledger.app.application import LedgerApp
from ledger.settings import Settings
from ledger.sim.runner import simulate
from ledger.table.events import table_id
from tests.support import tamper
from tests.support.browser import SHOTS, Clock, at, chromium, hand_in_progress
from tests.support.http import bearer, serve

GAME_TABLES = {"caribbean-stud": "CSP-1", "high-card-flush": "HCF-1",
               "chinese-poker": "CHP-1", "stud-hilo": "STUD8-1"}
LIVE, TAMPERED = "CSP-9", "CSP-T"
DAYS = ("2026-03-10", "2026-03-11", "2026-03-12")
CARD = re.compile(r"^[2-9TJQKA][cdhs]$")
RANKS = {"2": "two", "3": "three", "4": "four", "5": "five", "6": "six", "7": "seven",
         "8": "eight", "9": "nine", "T": "ten", "J": "jack", "Q": "queen", "K": "king",
         "A": "ace"}
SUITS = {"c": "clubs", "d": "diamonds", "h": "hearts", "s": "spades"}


def name(card: str) -> str:
    return f"{RANKS[card[0]]} of {SUITS[card[1]]}"


class Served:
    def __init__(self, url: str, app: LedgerApp, tokens: dict[str, str], live_hand: int,
                 tampered: dict[str, Any]) -> None:
        self.url, self.app, self.tokens = url, app, tokens
        self.live_hand, self.tampered = live_hand, tampered
        self.api = httpx.Client(base_url=url, timeout=60)

    def get(self, role: str, path: str, **params: Any) -> Any:
        response = self.api.get(path, params=params, headers=bearer(self.tokens[role]))
        assert response.status_code == 200, response.text
        return response.json()


def _prepare(app: LedgerApp) -> tuple[int, dict[str, Any]]:
    for n, (game, code) in enumerate(sorted(GAME_TABLES.items())):
        if game == "chinese-poker":
            for day in DAYS:
                Clock.moment = at(day)
                simulate(app, game, code, 2, seed=10 + n)
        else:
            Clock.moment = at(DAYS[-1])
            simulate(app, game, code, 2, seed=10 + n)
    Clock.moment = at(DAYS[-1], 21)
    simulate(app, "caribbean-stud", TAMPERED, 3, seed=5)
    tampered = _pay_more(app, TAMPERED)
    for extra in range(5):  # the deals are random: until a hand before the last pays a player
        if tampered is not None:
            break
        simulate(app, "caribbean-stud", TAMPERED, 1, seed=50 + extra)
        tampered = _pay_more(app, TAMPERED)
    assert tampered is not None, "no settlement before the last event pays a player"
    live = hand_in_progress(app, "caribbean-stud", LIVE, seed=7)
    return live, tampered


def _pay_more(app: LedgerApp, code: str) -> dict[str, Any] | None:
    """Edit a stored settlement so that it pays a player 1.00 more than the rules do; one
    before the table's last event, which the next event's link names as edited (an edit of
    the last event is seen by its command-log copy only). None when there is no such one."""
    for row in list(app.recorder.select_events(table_id(code)))[:-1]:
        if not row.topic.endswith(":HandSettled"):
            continue
        data = json.loads(row.state)
        for t in data["transfers"]:
            if t["dst"].startswith("player:") and t.get("rule"):
                old = json.dumps(t, separators=(",", ":"))
                new = old.replace(f'"amount":{t["amount"]}', f'"amount":{t["amount"] + 100}')
                tamper.replace_in_event(app, table_id(code), row.originator_version, old, new)
                return {"version": row.originator_version, "hand": data["hand_no"],
                        "transfer": t}
    return None


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    path = tmp_path_factory.mktemp("console")
    settings = Settings(database_url=f"sqlite:///{path}/ledger.sqlite3",
                        deck_key_file=path / "deck.key", snapshot_interval=50)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("ledger.app.application.datetime", Clock)
        app = create_app(settings)
        ledger = app.state.ledger
        live, tampered = _prepare(ledger)
    store = app.state.tokens
    tokens = {
        "auditor": store.create("auditor", label="Ada Auditor")[0],
        "accounting": store.create("accounting", label="Cy Accounts")[0],
        "admin": store.create("admin", label="Floor admin")[0],
        "device": store.create("device", tables=[LIVE], label=f"{LIVE} dealer terminal")[0],
    }
    with serve(app) as url:
        yield Served(url, ledger, tokens, live, tampered)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as found:
        yield found


def sign_in(browser: Any, served: Served, role: str, path: str = "/console/") -> Any:
    context = browser.new_context(viewport={"width": 1280, "height": 800},
                                  accept_downloads=True)
    page = context.new_page()
    page.set_default_timeout(30_000)
    page.goto(served.url + path)
    assert "/console/sign-in" in page.url
    page.fill("#token", served.tokens[role])
    page.click("form.stack-form button[type=submit]")
    page.wait_for_url(re.compile(re.escape(served.url + path.split("#")[0]) + r"(#.*)?$"))
    return page


def shot(page: Any, name: str, *, full: bool = False) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=full)


NAV = {
    "auditor": ["Tables", "Hands", "Audit", "Accounting", "Jackpot", "Coverage", "Approvals",
                "Surveillance"],
    "accounting": ["Tables", "Accounting", "Jackpot", "Coverage"],
    "admin": ["Tables", "Approvals"],
    "device": ["Tables"],
}


@pytest.mark.parametrize("role", sorted(NAV))
def test_each_role_signs_in_sees_its_pages_and_signs_out(browser: Any, served: Served,
                                                          role: str) -> None:
    page = sign_in(browser, served, role)
    links = page.locator("header nav a").all_inner_texts()
    assert links == NAV[role]
    assert page.locator(".role").inner_text() == role
    cookies = {c["name"]: c for c in page.context.cookies()}
    session = cookies["__Host-ledger_session"]  # a random id: the token stays on the server
    assert session["httpOnly"] and session["sameSite"] == "Strict" and session["secure"]
    assert session["path"] == "/" and session["value"] != served.tokens[role]
    assert served.tokens[role] not in page.url and served.tokens[role] not in page.content()
    if role == "auditor":
        shot(page, "home")
    # A page the API would refuse this role is refused, with the API's code.
    response = page.goto(served.url + "/console/hands")
    assert response is not None
    if role == "auditor":
        assert response.status == 200
    else:
        assert response.status == 403
        assert "forbidden" in page.locator("main").inner_text()
    page.click("header button:has-text('Sign out')")
    page.wait_for_url(re.compile(r".*/console/sign-in$"))
    assert "__Host-ledger_session" not in {c["name"] for c in page.context.cookies()}
    if role == "auditor":
        shot(page, "sign-in")
    page.context.close()


def test_a_wrong_token_and_a_forged_form_are_refused(browser: Any, served: Served) -> None:
    context = browser.new_context()
    page = context.new_page()
    page.goto(served.url + "/console/sign-in")
    page.fill("#token", "ltk_nobody_" + "x" * 40)
    page.click("form.stack-form button[type=submit]")
    assert "unknown or revoked" in page.locator(".problem").inner_text()
    page.evaluate("document.querySelector('input[name=csrf]').value = 'forged'")
    page.fill("#token", served.tokens["auditor"])
    page.click("form.stack-form button[type=submit]")
    assert "csrf_failed" in page.locator("main").inner_text()
    assert "__Host-ledger_session" not in {c["name"] for c in context.cookies()}
    context.close()


def test_search_and_open_a_hand_of_each_game(browser: Any, served: Served) -> None:
    page = sign_in(browser, served, "auditor", "/console/hands")
    for game, code in sorted(GAME_TABLES.items()):
        page.select_option("select[name=game]", game)
        page.select_option("select[name=table]", "")
        page.click("form.filters button[type=submit]")
        rows = page.locator("#hand-results tbody tr")
        tables = {t.strip() for t in rows.locator("td:first-child").all_inner_texts()}
        games = {t: g for g, t in GAME_TABLES.items()} | {LIVE: "caribbean-stud",
                                                          TAMPERED: "caribbean-stud"}
        assert code in tables and {games[t] for t in tables} == {game}, (game, tables)
        if game == "caribbean-stud":
            shot(page, "hands")
        page.locator("#hand-results tbody th a", has_text=f"{code} #1").click()
        page.wait_for_selector("article.replay")
        assert page.locator("h1").inner_text().startswith(f"{code} hand 1")
        page.go_back()
    # Amount won: only hands in which some player won at least 100.00.
    page.goto(served.url + "/console/hands?table=CHP-1&won=100")
    found = page.locator("#hand-results tbody th a").all_inner_texts()
    expected = served.get("auditor", "/hands", table="CHP-1", won_min=10_000)
    assert found == [f"CHP-1 #{h['hand_no']}" for h in expected["items"]]
    page.goto(served.url + "/console/hands?won=abc")
    assert "is not an amount" in page.locator(".problem").inner_text()
    page.context.close()


def _seat_cards(page: Any) -> dict[str, list[str]]:
    """The card names drawn in the current step, by spot heading."""
    out = {}
    step = page.locator(".step.current")
    for spot in step.locator(".felt .spot").all():
        heading = spot.get_attribute("aria-label") or ""
        out[heading] = [c.get_attribute("aria-label") or ""
                        for c in spot.locator(".card").all()]
    return out


@pytest.mark.parametrize("game", sorted(GAME_TABLES))
def test_stepping_through_a_replay_shows_the_hands_cards_and_amounts(
        browser: Any, served: Served, game: str) -> None:
    code = GAME_TABLES[game]
    record = served.get("auditor", f"/tables/{code}/hands/2")
    replay = served.get("auditor", f"/tables/{code}/hands/2/replay")
    page = sign_in(browser, served, "auditor", f"/console/tables/{code}/hands/2")
    count = len(replay["steps"])
    assert page.locator("[data-position]").inner_text().startswith(f"Step 1 of {count}")
    for k in range(1, count):  # forwards with the keyboard, one event at a time
        page.keyboard.press("ArrowRight")
        assert page.locator("[data-position]").inner_text().startswith(f"Step {k + 1} of")
        version = replay["steps"][k]["version"]
        assert page.url.endswith(f"#v{version}")
        if game == "caribbean-stud" and replay["steps"][k]["event"] == "CardsDealt":
            shot(page, "replay")
    # The last step: every dealt card of the record, at its seat, as a named card face.
    drawn = _seat_cards(page)
    for rnd in record["cards"]:
        for dealt in rnd["dealt"]:
            target = dealt["target"]
            label = f"seat {target}" if isinstance(target, int) else target
            spot = next(v for k, v in drawn.items() if k.split(" (")[0] == label)
            names = " ".join(spot)
            for card in [*dealt["down"], *dealt["up"]]:
                assert name(card) in names, (game, label, card, spot)
    # The settlement's transfers, amount by amount, as the record has them.
    last = page.locator(".step.current")
    assert "HandSettled (settle)" in last.locator("h2").inner_text()
    shown = [(r.locator("td").nth(0).inner_text(), r.locator("td").nth(1).inner_text(),
              r.locator("td").nth(2).inner_text().replace(",", ""))
             for r in last.locator("table.transfers tbody tr").all()]
    wanted = [(t["src"], t["dst"], f"{t['amount'] / 100:.2f}")
              for t in record["result"]["transfers"]]
    assert shown == wanted
    assert "agrees" in last.locator(".verdict").inner_text()
    # Backwards, and a permanent link to a step opens that step.
    page.keyboard.press("ArrowLeft")
    assert page.locator("[data-position]").inner_text().startswith(f"Step {count - 1} of")
    page.keyboard.press("Home")
    assert page.locator("[data-position]").inner_text().startswith("Step 1 of")
    middle = replay["steps"][count // 2]["version"]
    page.goto(served.url + f"/console/tables/{code}/hands/2#v{middle}")
    page.reload()
    assert page.locator(".step.current").get_attribute("id") == f"v{middle}"
    if replay["commitment"]:
        assert "the revealed deck matches" in page.locator("#commitment").inner_text()
    rule = page.locator("details.rule summary").first
    assert rule.get_attribute("title")
    page.context.close()


def _hidden(served: Served) -> set[str]:
    """The cards of the hand in progress that the table's device may not see."""
    full = served.get("auditor", f"/tables/{LIVE}")
    seen = served.get("device", f"/tables/{LIVE}")
    hidden: set[str] = set()

    def walk(a: Any, b: Any) -> None:
        if isinstance(a, dict):
            for k in a:
                walk(a[k], b.get(k) if isinstance(b, dict) else None)
        elif isinstance(a, list):
            for i, v in enumerate(a):
                walk(v, b[i] if isinstance(b, list) and i < len(b) else None)
        elif isinstance(a, str) and CARD.match(a) and b is None:
            hidden.add(a)

    walk(full["hand"], seen["hand"])
    return hidden


def test_a_devices_pages_never_hold_a_hidden_card(browser: Any, served: Served) -> None:
    hidden = _hidden(served)
    assert len(hidden) >= 5  # every player's cards and the dealer's down cards
    bodies: list[str] = []
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()

    def keep(response: Any) -> None:
        with contextlib.suppress(Exception):  # a redirect has no body
            bodies.append(response.text())

    page.on("response", keep)
    page.goto(served.url + "/console/sign-in")
    page.fill("#token", served.tokens["device"])
    page.click("form.stack-form button[type=submit]")
    pages = ["/console/", "/console/tables", f"/console/tables/{LIVE}",
             f"/console/tables/{LIVE}/hands/{served.live_hand}"]
    dom = []
    for path in pages:
        page.goto(served.url + path)
        page.wait_for_load_state("networkidle")
        dom.append(page.content())
        if path.endswith(f"/hands/{served.live_hand}"):
            shot(page, "device-hand")
            backs = page.locator(".card.back").count()
            assert backs >= len(hidden), page.locator("main").inner_text()
    page.wait_for_timeout(3_500)  # a refresh of the table's state went over the network too
    dom.append(page.content())
    text = "\n".join(dom + bodies)
    for card in sorted(hidden):
        assert not re.search(rf"(?<![A-Za-z0-9]){card}(?![A-Za-z0-9])", text), card
        assert name(card) not in text, card
    # The replay of the hand is the auditor's: the device is refused, as the API refuses it.
    refused = page.goto(served.url + f"/console/tables/{LIVE}/hands/1")
    assert refused is not None and refused.status == 403
    context.close()
    # With bearer headers: the auditor's page has the hand's cards, the device's none of the
    # face-down ones.
    path = f"/console/tables/{LIVE}/hands/{served.live_hand}"
    auditor = served.api.get(path, headers=bearer(served.tokens["auditor"])).text
    device = served.api.get(path, headers=bearer(served.tokens["device"])).text
    assert all(name(c) in auditor for c in hidden)
    assert not any(name(c) in device for c in hidden)


def test_an_audit_of_a_tampered_store_leads_to_the_step(browser: Any, served: Served) -> None:
    page = sign_in(browser, served, "auditor", "/console/audit")
    page.select_option("select[name=table]", TAMPERED)
    page.click("form.filters button[type=submit]")
    page.wait_for_selector("#audit-summary", timeout=60_000)
    assert "discrepanc" in page.locator("#audit-summary").inner_text()
    kinds = page.locator("#discrepancies tbody td:nth-child(3)").all_inner_texts()
    assert "transfer" in kinds and "event_edited" in kinds, kinds
    shot(page, "audit", full=True)
    row = page.locator("#discrepancies tbody tr", has_text="transfer").first
    row.locator("a").click()
    page.wait_for_selector("article.replay")
    current = page.locator(".step.current")
    assert current.get_attribute("id") == f"v{served.tampered['version']}"
    assert "DIFFERS" in current.locator(".verdict").inner_text()
    assert "disagrees" in (current.get_attribute("class") or "")
    shot(page, "replay-discrepancy")
    page.context.close()


def test_the_hold_chart_of_a_month(browser: Any, served: Served) -> None:
    page = sign_in(browser, served, "accounting", "/console/accounting?table=CHP-1")
    # The month's form, as the reader fills it (the table chosen travels with it).
    page.fill("input[name=month]", "2026-03")
    page.click("button:has-text('Show the month')")
    page.wait_for_url(re.compile(r".*/console/accounting\?(table=CHP-1&month=2026-03|"
                                 r"month=2026-03&table=CHP-1)$"))
    page.wait_for_selector("#hold-chart[data-loaded='1']", timeout=60_000)
    page.wait_for_selector("#hold-report[data-loaded='1']", timeout=60_000)
    assert "CHP-1" in page.locator("#hold").inner_text()
    assert page.locator("#hold-figure svg circle").count() == len(DAYS)
    days = page.locator("#chart-table tbody th").all_inner_texts()
    assert days == list(DAYS)
    report = served.get("accounting", "/reports/hold/days", table="CHP-1", month="2026-03")
    charted = {d["from"]: d for d in report["days"] if d["hands"]}
    assert sorted(charted) == list(DAYS)
    shot(page, "accounting", full=True)
    page.context.close()


def test_downloading_the_days_exports(browser: Any, served: Served) -> None:
    day = DAYS[-1]
    page = sign_in(browser, served, "accounting", f"/console/accounting?day={day}&table=CHP-1")
    # The archive and the workbook are built when asked for: on a loaded CI machine that takes
    # longer than a click's default wait.
    with page.expect_download(timeout=120_000) as caught:
        page.click(f"a[href='/console/exports/accounting/{day}']")
    download = caught.value
    assert download.suggested_filename == f"accounting-{day}.zip"
    with zipfile.ZipFile(io.BytesIO(Path(download.path()).read_bytes())) as archive:
        assert f"accounting-{day}.csv" in archive.namelist()
    with page.expect_download(timeout=120_000) as caught:
        page.click("#workbook-link")
    assert caught.value.suggested_filename == f"accounting-{day}.xlsx"
    page.context.close()


def test_the_tables_refresh_by_themselves(browser: Any, served: Served) -> None:
    from ledger.domain.commands import StartHand

    page = sign_in(browser, served, "auditor", "/console/tables")
    shot(page, "tables")
    before = page.locator("#tables-live").inner_text()
    assert "STUD8-1" in before and "hand 3 in progress" not in before
    served.app.execute(StartHand(command_id="console-refresh", table="STUD8-1"))
    # (the page's CSP forbids evaluated script, so the test polls the DOM through locators)
    page.locator("#tables-live a", has_text="hand 3").wait_for(timeout=15_000)
    page.context.close()


def test_the_replay_by_its_buttons_with_the_rules_text_printed_and_on_a_tablet(
        browser: Any, served: Served) -> None:
    code = GAME_TABLES["caribbean-stud"]
    replay = served.get("auditor", f"/tables/{code}/hands/2/replay")
    count = len(replay["steps"])
    page = sign_in(browser, served, "auditor", f"/console/tables/{code}/hands/2")
    position = page.locator("[data-position]")
    page.click("button[data-step=next]")
    page.click("button[data-step=next]")
    assert position.inner_text().startswith(f"Step 3 of {count}")
    page.click("button[data-step=prev]")
    assert position.inner_text().startswith(f"Step 2 of {count}")
    assert page.url.endswith(f"#v{replay['steps'][1]['version']}")
    page.click("button[data-step=last]")
    assert position.inner_text().startswith(f"Step {count} of {count}")
    page.keyboard.press("Home")
    page.keyboard.press("End")
    assert position.inner_text().startswith(f"Step {count} of")
    # A rule's text: on hover (the title) and on a click, the rule book's own words.
    rule = page.locator(".step.current details.rule").first
    rule_id = rule.locator("summary").inner_text()
    text = replay["rule_texts"][rule_id]
    assert rule.locator("summary").get_attribute("title") == text
    assert not rule.locator("p").is_visible()
    rule.locator("summary").click()
    assert rule.locator("p").inner_text() == text
    # Printed, every step follows the other and the buttons are gone.
    assert page.locator(".steps > .step:visible").count() == 1
    page.emulate_media(media="print")
    assert page.locator(".steps > .step:visible").count() == count
    assert not page.locator("[data-stepper]").is_visible()
    page.emulate_media(media="screen")
    page.context.close()
    # On a tablet (768 x 1024, portrait), the main pages fit the width (nothing to scroll
    # sideways), the replay's controls included.
    context = browser.new_context(viewport={"width": 768, "height": 1024})
    page = context.new_page()
    page.goto(served.url + "/console/sign-in")
    page.fill("#token", served.tokens["auditor"])
    page.click("form.stack-form button[type=submit]")
    for path in (f"/console/tables/{code}/hands/2", "/console/tables", "/console/hands",
                 f"/console/tables/{code}", "/console/audit", "/console/jackpot",
                 "/console/accounting?month=2026-03&table=CHP-1"):
        page.goto(served.url + path)
        if "accounting" in path:
            page.wait_for_selector("#hold-chart[data-loaded='1']", timeout=60_000)
        wide = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
        assert wide[0] <= wide[1], (path, wide)
    page.goto(served.url + f"/console/tables/{code}/hands/2")
    assert page.locator("button[data-step=next]").is_visible()
    shot(page, "replay-tablet", full=True)
    context.close()


def test_an_audit_shows_its_progress_while_it_runs(browser: Any, served: Served,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """The audit's page follows it: held after its first events, the bar and the count show
    them; released, the page shows the result by itself."""
    import threading

    import projections.audit as audit

    real, release = audit.verify, threading.Event()

    def held(app: Any, **kwargs: Any) -> Any:
        kwargs["progress"](7)
        release.wait(60)
        return real(app, **kwargs)

    monkeypatch.setattr(audit, "verify", held)
    code = GAME_TABLES["high-card-flush"]
    events = next(t["last_version"] for t in served.get("auditor", "/tables")
                  if t["table_code"] == code)
    page = sign_in(browser, served, "auditor", "/console/audit")
    try:
        page.select_option("select[name=table]", code)
        page.click("form.filters button[type=submit]")
        page.wait_for_url(re.compile(r".*/console/audit/jobs/[A-Za-z0-9_-]+$"))
        page.locator("[data-progress-text]", has_text=f"7 of {events} events,").wait_for()
        bar = page.locator("#audit-progress")
        assert bar.evaluate("e => [e.value, e.max]") == [7, events]
        shot(page, "audit-running")
    finally:
        release.set()
    page.wait_for_selector("#audit-summary", timeout=60_000)
    assert "Everything holds" in page.locator("#audit-summary").inner_text()
    page.context.close()
