"""A JSON object that names a key twice is refused (``duplicate_key``, 422), never read as
"last one wins": over HTTP for every body, and in the files and values the command line reads.
Nothing is appended by a refused request."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from ledger.api import create_app
from ledger.domain import jsontext
from ledger.domain.jsontext import DuplicateKey
from ledger.settings import Settings
from tests.support.cli import run_cli
from tests.support.http import bearer, make_tokens

TABLE = "DUP-1"


def test_the_parser_refuses_a_key_named_twice_at_any_depth() -> None:
    assert jsontext.loads('{"a": {"b": 1}, "c": [{"d": 2}]}') == {"a": {"b": 1},
                                                                  "c": [{"d": 2}]}
    with pytest.raises(DuplicateKey) as found:
        jsontext.loads('{"a": {"b": 1, "b": 2}}', "the body")
    assert found.value.code == "duplicate_key" and found.value.details == {"key": "b"}
    assert "the body" in found.value.message
    with pytest.raises(ValueError):  # still a ValueError for callers catching unreadable JSON
        jsontext.loads('[{"x": 1, "x": 1}]')


def test_a_seat_named_twice_is_refused_and_appends_nothing(store_settings: Settings) -> None:
    app = create_app(store_settings)
    made = make_tokens(app, [TABLE])
    recorder = app.state.ledger.recorder
    with TestClient(app) as client:
        opened = client.post("/tables", headers=bearer(made.admin), json={
            "command_id": "d-open", "table": TABLE, "game": "caribbean-stud"})
        assert opened.status_code == 201, opened.text
        before = recorder.max_notification_id()
        body = b'{"command_id": "d-s1", "seat": 1, "player": "ann", "seat": 2}'
        for content_type in ("application/json", "application/vnd.x+json; charset=utf-8", None):
            headers = {**bearer(made.device),
                       **({"Content-Type": content_type} if content_type else {})}
            answer = client.post(f"/tables/{TABLE}/seats", content=body, headers=headers)
            assert answer.status_code == 422, answer.text
            error = answer.json()["error"]
            assert error["code"] == "duplicate_key" and error["details"]["key"] == "seat"
        nested = {**bearer(made.admin), "Content-Type": "application/json"}
        answer = client.post("/tables", headers=nested, content=(
            b'{"command_id": "d-open2", "table": "DUP-2", "game": "caribbean-stud", '
            b'"config": {"limits": {"ante": {"min": 500, "min": 5}}}}'))
        assert answer.json()["error"]["code"] == "duplicate_key", answer.text
        assert recorder.max_notification_id() == before
        seats = client.get(f"/tables/{TABLE}", headers=bearer(made.auditor)).json()
        assert not any(s.get("player") for s in seats.get("seats", []) if isinstance(s, dict))
        # the same body once, with each key once, is taken
        fine = client.post(f"/tables/{TABLE}/seats", headers=bearer(made.device),
                           json={"command_id": "d-s1", "seat": 2, "player": "ann"})
        assert fine.status_code in (200, 201), fine.text


def test_the_cli_refuses_a_configuration_file_with_a_key_twice(
        sqlite_settings: Settings, tmp_path: Path) -> None:
    config = tmp_path / "table.json"
    config.write_text('{"limits": {"ante": {"min": 500, "max": 20000, "min": 5}}}')
    done = run_cli(sqlite_settings, "tables", "open", TABLE, "--game", "caribbean-stud",
                   "--config", str(config))
    assert done.returncode == 2 and "[duplicate_key]" in done.stderr, done.stderr
    assert "'min'" in done.stderr and str(config) in done.stderr
    done = run_cli(sqlite_settings, "tables", "open", TABLE, "--game", "caribbean-stud",
                   "--set", 'limits={"ante": {"max": 1, "max": 2}}')
    assert done.returncode == 2 and "[duplicate_key]" in done.stderr, done.stderr
    listed = run_cli(sqlite_settings, "tables", "list", "--json")
    assert listed.returncode == 0 and json.loads(listed.stdout) == [], listed.stdout
    done = run_cli(sqlite_settings, "report", "paytable", "--game", "caribbean-stud",
                   "--config", str(config))
    assert done.returncode == 2 and "[duplicate_key]" in done.stderr, done.stderr
