"""Errors that cost nothing and say nothing.

- Under ``LEDGER_LOG_LEVEL=DEBUG`` and JSON logs, a full hand of every game and a forced 500
  leave in the log no face-down card of a hand in progress and no token secret, and the 500 is
  one line (class, where, route, request id, token id).
- A request that fails with a 500 holds up nobody: ``/health`` and other requests are answered
  while it is in flight (its latency is measured by ``ops/bench/health_under_500.py``, not here).
"""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import httpx
import pytest
import structlog

from ledger.api import create_app
from ledger.settings import Settings
from tests.support.http import bearer, make_tokens, serve

ROOT = Path(__file__).resolve().parents[3]


def test_debug_json_logs_of_every_game_and_a_500_hold_no_hidden_card_and_no_secret(
    tmp_path: Path,
) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LEDGER_")}
    env.update({"LEDGER_DATABASE_URL": f"sqlite:///{tmp_path}/ledger.sqlite3",
                "LEDGER_DECK_KEY_FILE": str(tmp_path / "deck.key"),
                "LEDGER_LOG_LEVEL": "DEBUG", "LEDGER_LOG_FORMAT": "json"})
    done = subprocess.run([sys.executable, "-W", "ignore", "-m", "tests.support.log_scenario"],
                          cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found["forced_status"] == 500
    assert len(found["hidden"]) >= 20  # every game dealt cards face down
    lines = [json.loads(line) for line in done.stderr.splitlines() if line.startswith("{")]
    assert len(lines) == len(done.stderr.splitlines())  # every line is one JSON object
    assert {line["level"] for line in lines} >= {"info", "warning", "error"}
    text = done.stderr
    for secret in found["secrets"]:
        # ltk_<token id>_<secret>: the secret (43 characters that may hold "_") is all of
        # what follows the id, not what follows its last "_"
        assert secret not in text and secret.split("_", 2)[2] not in text
    for card in found["hidden"]:
        assert not re.search(rf"(?<![A-Za-z0-9]){card}(?![A-Za-z0-9])", text), card
    (failure,) = [line for line in lines if line["event"] == "internal_error"]
    assert failure["error_class"] == "RuntimeError"
    assert failure["route"] == "/tables/{code}/hands" and failure["request_id"]
    assert failure["token_id"] and "forced failure" not in text


def test_health_and_other_requests_are_answered_while_a_500_is_in_flight(
    sqlite_settings: Settings,
) -> None:
    app = create_app(sqlite_settings)
    tokens = make_tokens(app, ["T1"])
    entered, release = threading.Event(), threading.Event()

    def stuck(*args: Any, **kwargs: Any) -> None:
        entered.set()
        release.wait(30)
        raise RuntimeError("failing slowly")

    app.state.ledger.execute = stuck
    answers: dict[str, int] = {}
    with serve(app) as url, httpx.Client(base_url=url, timeout=30) as client:
        def failing() -> None:
            r = client.post("/tables", json={"command_id": "x", "table": "T1",
                                             "game": "caribbean-stud"},
                            headers=bearer(tokens.admin))
            answers["failing"] = r.status_code

        worker = threading.Thread(target=failing)
        worker.start()
        try:
            assert entered.wait(10)
            with httpx.Client(base_url=url, timeout=5) as other:
                assert other.get("/health").status_code == 200
                assert other.get("/tables", headers=bearer(tokens.auditor)).status_code == 200
            assert "failing" not in answers  # both answered while the failing one waited
        finally:
            release.set()
            worker.join(30)
    assert answers["failing"] == 500


@pytest.mark.parametrize("fmt", ["console", "json"])
def test_a_logged_exception_is_one_line_without_its_message(fmt: str) -> None:
    """Whatever logs an exception gets its class and place, never a traceback or locals."""
    from ledger.logs import configure, get_logger

    out = io.StringIO()
    was_configured, saved = structlog.is_configured(), structlog.get_config()
    configure("INFO", fmt, file=out)
    secret = "ltk_0123456789ab_" + "s" * 43
    try:
        hole = ["As", "Kd"]  # noqa: F841 - a local a traceback with locals would print
        raise ValueError(f"boom {secret}")
    except ValueError as exc:
        get_logger(f"test-{fmt}").error("failed", exc_info=exc, token=secret, cards=["As", "Kd"])
    finally:  # the configuration as it was, for the tests that capture logs after this one
        structlog.reset_defaults()
        if was_configured:
            structlog.configure(**saved)
    err = out.getvalue()
    assert len(err.strip().splitlines()) == 1, err
    assert "ValueError" in err and "boom" not in err and "Traceback" not in err
    assert "s" * 43 not in err and "ltk_0123456789ab_***" in err
    assert "As" not in err and "[hidden]" in err
