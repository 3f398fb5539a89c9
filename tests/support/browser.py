"""Browser tests: Playwright for Python driving Debian's Chromium, and a store with a hand of
every game served by a real uvicorn server on loopback.

Chromium is ``/usr/bin/chromium`` (``LEDGER_CHROMIUM`` names another); the test tool's own
browser download is never used. Without Chromium or Playwright the tests skip, saying how to run
them; with ``LEDGER_REQUIRE_BROWSER=1`` or ``LEDGER_REQUIRE_POSTGRES=1`` (CI) they fail instead.
Screenshots go to ``LEDGER_SCREENSHOTS`` (default ``out/screenshots``).
"""

from __future__ import annotations

import os
import random
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from ledger.app.application import LedgerApp
from ledger.domain.commands import DealCards, StartHand
from ledger.sim.base import CommandIds
from ledger.sim.profiles import profile_for
from ledger.sim.runner import AppExecutor, RunStats, simulate

CHROMIUM = os.environ.get("LEDGER_CHROMIUM", "/usr/bin/chromium")
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage"]
REQUIRED = any(os.environ.get(v, "") not in ("", "0", "no")
               for v in ("LEDGER_REQUIRE_BROWSER", "LEDGER_REQUIRE_POSTGRES"))
SHOTS = Path(os.environ.get("LEDGER_SCREENSHOTS", "out/screenshots"))


def unavailable(reason: str) -> None:
    message = (f"{reason}; the console's browser tests need Playwright (pip install -e '.[dev]') "
               f"and Chromium at {CHROMIUM} (apt-get install -y chromium, or set "
               "LEDGER_CHROMIUM); .ci/run installs both")
    if REQUIRED:
        pytest.fail(message)
    pytest.skip(message)


@contextmanager
def chromium() -> Iterator[Any]:
    """A headless Chromium (Debian's), launched once."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        unavailable("Playwright is not installed")
    if not Path(CHROMIUM).exists():
        unavailable(f"no Chromium at {CHROMIUM}")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        try:
            yield browser
        finally:
            browser.close()


class Clock:
    """The application's clock, set by the test (gaming days of its choosing)."""

    moment = datetime(2026, 3, 12, 20, 0, tzinfo=UTC)

    @classmethod
    def now(cls, tz: object = None) -> datetime:
        return cls.moment


def at(day: str, hour: int = 20) -> datetime:
    return datetime.fromisoformat(f"{day}T{hour:02d}:00:00+00:00")


def hand_in_progress(app: LedgerApp, game: str, code: str, seed: int) -> int:
    """Play one hand of ``game`` at ``code``, then start another and stop once its cards are
    dealt and a player is to act: the hand number in progress."""
    simulate(app, game, code, 1, seed=seed)
    executor = AppExecutor(app, code, RunStats(game=game, table=code))
    bot = profile_for(game).make_bot()
    rng, ids = random.Random(seed), CommandIds(code, f"live-{seed}")
    executor.execute(StartHand(command_id=ids.next(), table=code))
    dealt = False
    for _ in range(100):
        table, hand, step = executor.observe()
        if step.kind == "deal":
            executor.execute(DealCards(command_id=ids.next(), table=code))
            dealt = True
        elif step.kind in ("wager", "offer", "act"):
            if step.kind == "act" and dealt:
                return int(table.hand_no)
            command = bot.choose(table, hand, step, rng, ids)
            if command is None:
                executor.execute(DealCards(command_id=ids.next(), table=code))
                dealt = True
            else:
                executor.execute(command)
        else:
            break
    raise AssertionError(f"no hand in progress at {code}")
