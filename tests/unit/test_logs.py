"""Logging configured again in a process (each CLI command run in-process configures it, so
does ``create_app`` when nothing has) applies to every logger, those already used included:
their level, their processors (what ``structlog.testing.capture_logs`` replaces) and their
stream. A logger kept the configuration of its first use, so a test capturing the API's log
lines failed when an earlier test had used the API's logger and a later one had run the CLI."""

from __future__ import annotations

import io
import sys
from collections.abc import Iterator

import pytest
from structlog.testing import capture_logs

from ledger.logs import configure, get_logger


@pytest.fixture(autouse=True)
def _configured_as_the_tests_are() -> Iterator[None]:
    yield
    configure("WARNING")  # tests/conftest.py


def test_a_logger_used_before_logging_is_configured_again_follows_the_new_configuration(
) -> None:
    log = get_logger("ledger.test-logs")
    first, second = io.StringIO(), io.StringIO()
    configure("WARNING", file=first)
    log.warning("before")
    configure("ERROR", "json", file=second)
    log.warning("below the new level")
    log.error("after")
    assert "before" in first.getvalue() and "after" not in first.getvalue()
    assert '"event": "after"' in second.getvalue()
    assert "below the new level" not in first.getvalue() + second.getvalue()
    with capture_logs() as logs:
        log.error("captured")
    assert [e["event"] for e in logs] == ["captured"]
    assert "captured" not in first.getvalue() + second.getvalue()


def test_logs_go_to_the_standard_error_of_the_moment(monkeypatch: pytest.MonkeyPatch) -> None:
    """A CLI command run in-process (a test's runner) configures logging while the standard
    error is the runner's stream, closed afterwards: later lines go to the standard error in
    place when they are written, not to that stream."""
    log = get_logger("ledger.test-logs")
    runners = io.StringIO()
    monkeypatch.setattr(sys, "stderr", runners)
    configure("WARNING")
    log.warning("in the runner")
    monkeypatch.undo()
    runners.close()
    later = io.StringIO()
    monkeypatch.setattr(sys, "stderr", later)
    log.warning("afterwards")
    assert "afterwards" in later.getvalue()
