"""The surveillance page in a real browser (Chromium through Playwright): a Caribbean Stud
hole-carder among honest players is flagged with its statistic, and a link opens the replay of
a hand where it played with the dealer's cards in view."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from ledger.api import create_app
from ledger.settings import Settings
from ledger.sim.cheats import Cheat
from ledger.sim.runner import simulate
from tests.support.browser import SHOTS, Clock, at, chromium
from tests.support.http import serve

DAY = "2026-04-02"
CHEAT = "player-03"


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    path = tmp_path_factory.mktemp("surveillance")
    settings = Settings(database_url=f"sqlite:///{path}/ledger.sqlite3",
                        deck_key_file=path / "deck.key", snapshot_interval=50)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("ledger.app.application.datetime", Clock)
        Clock.moment = at(DAY)
        app = create_app(settings)
        simulate(app.state.ledger, "caribbean-stud", "CSP-S", 60, seed=21,
                 cheats=[Cheat("csp-hole-carder", (CHEAT,))])
    token = app.state.tokens.create("auditor", label="Ada Auditor")[0]
    with serve(app) as url:
        yield url, token


def test_a_flagged_hole_carder_links_to_a_hand_it_cheated(served: tuple[str, str]) -> None:
    url, token = served
    with chromium() as browser:
        page: Any = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
        page.set_default_timeout(30_000)
        page.goto(f"{url}/console/surveillance?day={DAY}")
        page.fill("#token", token)
        page.click("form.stack-form button[type=submit]")
        page.wait_for_url(re.compile(r".*/console/surveillance\?day=.*"))
        assert "Surveillance" in page.locator("header nav").inner_text()
        row = page.locator("tr.flag", has_text="csp_hidden_cards")
        assert row.count() == 1
        assert row.locator(".who").inner_text() == CHEAT
        assert float(row.locator(".statistic").inner_text()) > 3
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / "surveillance.png"), full_page=True)
        link = row.locator("a.hand").first
        hand_no = int(link.inner_text().split("#")[1])
        link.click()
        page.wait_for_url(re.compile(rf".*/console/tables/CSP-S/hands/{hand_no}$"))
        text = page.locator("main").inner_text()
        assert CHEAT in text and f"hand {hand_no}" in text.lower()
        page.context.close()
