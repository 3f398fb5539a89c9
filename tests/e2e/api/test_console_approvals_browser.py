"""The console's approvals page in a real browser (Debian's Chromium through Playwright): a
misread card's correction, proposed over the API, approved by two supervisors each signed in
with their own approver token and signing with their own key file in the browser (WebCrypto
Ed25519; one key file protected by a passphrase). The page shows exactly what they sign; a
screenshot of it is written to ``LEDGER_SCREENSHOTS``."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from ledger.api import create_app
from ledger.app.application import LedgerApp
from ledger.settings import Settings
from ledger.table.events import table_id
from projections.audit import verify
from tests.integration.access.test_signatures import FIX, _misread
from tests.support.browser import SHOTS, chromium
from tests.support.http import bearer, serve

ANNA, BRAM = "sup-anna", "sup-bram"
PASSPHRASE = "a long passphrase only Anna knows"


@dataclass
class Served:
    url: str
    app: LedgerApp
    tokens: dict[str, str]
    keys: dict[str, Path]


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    path = tmp_path_factory.mktemp("approvals")
    settings = Settings(database_url=f"sqlite:///{path}/ledger.sqlite3",
                        deck_key_file=path / "deck.key")
    app = create_app(settings)
    ledger: LedgerApp = app.state.ledger
    _misread(ledger)
    ring = ledger.keyring
    assert ring is not None
    anna, bram = ring.get(ANNA), ring.get(BRAM)
    assert anna is not None and bram is not None
    keys = {ANNA: anna.write(path / "anna.key", PASSPHRASE), BRAM: bram.write(path / "bram.key")}
    ledger.keyring = None  # the service holds nobody's key
    store = app.state.tokens
    tokens = {"admin": store.create("admin", label="Floor admin")[0],
              ANNA: store.create("approver", principal=ANNA, label="Anna")[0],
              BRAM: store.create("approver", principal=BRAM, label="Bram")[0]}
    with serve(app) as url:
        yield Served(url, ledger, tokens, keys)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as found:
        yield found


def sign_in(browser: Any, served: Served, who: str, path: str) -> Any:
    page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    page.set_default_timeout(30_000)
    page.goto(served.url + path)
    page.fill("#token", served.tokens[who])
    page.click("form.stack-form button[type=submit]")
    page.wait_for_url(re.compile(re.escape(served.url + path) + "$"))
    return page


def test_two_supervisors_approve_a_correction_in_the_browser(browser: Any,
                                                              served: Served) -> None:
    api = httpx.Client(base_url=served.url, timeout=60)
    answer = api.post("/tables/CSP-C/corrections/hands", json={"command_id": "fix-b", **FIX},
                      headers=bearer(served.tokens["admin"]))
    assert answer.status_code == 202, answer.text
    proposal = answer.json()
    pid = proposal["proposal_id"]

    page = sign_in(browser, served, ANNA, "/console/approvals")
    assert "Approvals" in page.locator("header nav a").all_inner_texts()
    page.click(f"a[href='/console/approvals/{pid}']")
    page.wait_for_url(f"{served.url}/console/approvals/{pid}")
    assert page.locator("#payload").inner_text() == proposal["payload"]
    assert "dealer" in page.locator("dl.signed").inner_text()
    assert "correct_hand" in page.locator("h1").inner_text()
    # Bram's key on Anna's page: refused in the browser, nothing sent.
    page.set_input_files("#key-file", str(served.keys[BRAM]))
    page.click("#sign")
    page.locator("#sign-status.problem").wait_for()
    assert "sup-bram's, not sup-anna's" in page.locator("#sign-status").inner_text()
    # Her own key, without its passphrase, then with a wrong one, then with it.
    page.set_input_files("#key-file", str(served.keys[ANNA]))
    page.fill("#passphrase", "not it")
    page.click("#sign")
    page.locator("#sign-status", has_text="does not open").wait_for()
    page.fill("#passphrase", PASSPHRASE)
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "approval.png"), full_page=True)
    page.click("#sign")
    page.locator("h2", has_text="Signed so far").wait_for(timeout=60_000)
    assert page.locator("#proposal-status").inner_text() == "pending"
    assert "sup-anna (key" in page.locator("main").inner_text()
    assert served.app.load("CSP-C").version == 13  # one signature of two: nothing recorded

    other = sign_in(browser, served, BRAM, f"/console/approvals/{pid}")
    other.set_input_files("#key-file", str(served.keys[BRAM]))
    other.click("#sign")
    other.locator("#proposal-status", has_text="done").wait_for(timeout=60_000)
    event = json.loads(bytes(served.app.recorder.select_events(table_id("CSP-C"))[-1].state))
    assert event["approvers"] == [ANNA, BRAM]
    assert [(s["principal"], s["via"]) for s in event["approval"]["signatures"]] == [
        (ANNA, "console"), (BRAM, "console")]
    report = verify(served.app)
    assert report.ok and report.signatures_ok, report.discrepancies
