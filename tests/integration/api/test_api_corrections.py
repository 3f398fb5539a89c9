"""Corrections over HTTP (COR-1..5): an admin corrects a settled hand; the answer, the hand,
its replay, the corrections list and the day's accounting line show the original settlement,
the correction, its approver and its reason; a malformed or refused correction is a coded
4xx and appends nothing."""

from __future__ import annotations

import csv
import io
import json
import tomllib
import warnings
import zipfile
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from httpx import Response
from pokerkit import HandHistory

from ledger.api.app import create_app
from ledger.settings import Settings
from tests.support.driver import stud_hand
from tests.support.http import (
    Tokens,
    approver_token,
    assert_error,
    bearer,
    events_stored,
    make_tokens,
)

BODY = {"command_id": "fix-1", "hand": 1, "approvers": ["sup-anna"],
        "fixes": [{"target": 3, "recorded": "7h", "actual": "6h"}],
        "reason": "dealer keyed 7h for 6h"}


@pytest.fixture
def api(store_settings: Settings) -> Iterator[tuple[TestClient, Tokens]]:
    app = create_app(store_settings)
    tokens = make_tokens(app, ["STUD-C"])
    with TestClient(app, raise_server_exceptions=False) as client:
        stud_hand(app.state.ledger)
        yield client, tokens


def test_an_admin_corrects_a_hand_and_every_read_shows_it(
        api: tuple[TestClient, Tokens]) -> None:
    client, tokens = api
    admin, auditor = bearer(tokens.admin), bearer(tokens.auditor)
    path = "/tables/STUD-C/corrections/hands"
    before = events_stored(client)
    assert_error(client.post(path, json={**BODY, "approvers": []}, headers=admin), 422,
                 "invalid_command")
    assert_error(client.post(path, json={**BODY, "hand": 9}, headers=admin), 404, "unknown_hand")
    assert_error(client.post(path, json={**BODY, "hand": 10**15}, headers=admin), 422,
                 "invalid_command")
    assert_error(client.post(path, json={**BODY, "reason": "x" * 501}, headers=admin), 422,
                 "invalid_command")
    assert_error(client.post(path, json={**BODY, "approvers": ["sup-nobody"]}, headers=admin),
                 422, "unknown_approver")  # COR-4: approvers are principals of the ledger
    assert_error(client.post(path, json=BODY, headers=bearer(tokens.device)), 403, "forbidden")
    assert events_stored(client) == before
    held = client.post(path, json=BODY, headers=admin)
    assert held.status_code == 202 and held.json()["needs"] == ["sup-anna"], held.text
    assert events_stored(client) == before  # proposed: nothing recorded until Anna signs
    key = client.app.state.ledger.keyring.get("sup-anna")  # type: ignore[attr-defined]
    proposal = held.json()
    signed = client.post(f"/proposals/{proposal['proposal_id']}/approvals",
                         json={"signature": key.sign(proposal["message"].encode())},
                         headers=bearer(approver_token(client, "sup-anna")))
    assert signed.status_code == 200 and signed.json()["status"] == "done", signed.text
    done = client.post(path, json=BODY, headers=admin)
    assert done.status_code == 200 and done.json()["replayed"] is True, done.text
    [event] = done.json()["events"]
    assert event["type"] == "HandCorrected" and event["approvers"] == ["sup-anna"]
    assert [s["principal"] for s in event["approval"]["signatures"]] == ["sup-anna"]

    hand = client.get("/tables/STUD-C/hands/1", headers=auditor).json()
    assert hand["status"] == "settled" and hand["result"]  # the original settlement stays
    [fix] = hand["corrections"]
    assert (fix["kind"], fix["approvers"], fix["reason"]) == (
        "hand", ["sup-anna"], "dealer keyed 7h for 6h")
    assert fix["detail"]["settlement"]["pots"][0]["low_winners"] == [3]
    replay = client.get("/tables/STUD-C/hands/1/replay", headers=auditor).json()
    assert replay["ok"] and replay["steps"][-1]["event"] == "HandCorrected"
    assert replay["steps"][-1]["agrees"] is True
    listed = client.get("/corrections", params={"table": "STUD-C"},
                        headers=bearer(tokens.accounting)).json()
    assert [c["version"] for c in listed] == [event["version"]]
    [day] = client.get("/accounting", headers=bearer(tokens.accounting)).json()
    assert day["corrections"] == 1 and day["corrections_house_minor"] == 0
    page = client.get("/console/tables/STUD-C/hands/1", headers=auditor)
    assert page.status_code == 200
    assert "CORRECTION of hand 1" in page.text and "approved by sup-anna" in page.text
    assert "dealer keyed 7h for 6h" in page.text
    money = client.get("/console/accounting", headers=bearer(tokens.accounting))
    assert money.status_code == 200 and "Win by corrections" in money.text

    # the exports: the hand with its original result and its correction, the day's line and
    # the day's corrections file
    day = listed[0]["gaming_day"]
    hands = _zipped(client.get(f"/exports/hands/{day}", headers=auditor))
    [exported] = [json.loads(line) for line in hands[f"hands-{day}.jsonl"].splitlines()]
    assert exported["result"] == hand["result"]
    [fix] = exported["corrections"]
    assert (fix["approvers"], fix["reason"]) == (["sup-anna"], "dealer keyed 7h for 6h")
    assert fix["detail"]["settlement"]["pots"][0]["low_winners"] == [3]
    files = _zipped(client.get(f"/exports/accounting/{day}",
                               headers=bearer(tokens.accounting)))
    [row] = csv.DictReader(io.StringIO(files[f"corrections-{day}.csv"].lstrip("\ufeff")))
    assert (row["table"], row["kind"], row["hand_no"], row["approvers"], row["reason"]) == (
        "STUD-C", "hand", "1", "sup-anna", "dealer keyed 7h for 6h")
    # every cell a plain value, amounts in the table's currency (no JSON, no minor units)
    assert row["detail"] == "seat 3: recorded 7h, was 6h; player:p2 -5.00 EUR, player:p3 +5.00 EUR"
    assert row["currency"] == "EUR" and not any(v.startswith(("[", "{")) for v in row.values())
    [line] = csv.DictReader(io.StringIO(files[f"accounting-{day}.csv"].lstrip("\ufeff")))
    assert line["corrections"] == "1"
    # the poker formats: the hand as recorded, the correction beside it
    note = ("COR-1 at version {v} ({at}): seat 3: recorded 7h, was 6h; player:p2 -5.00, "
            "player:p3 +5.00; approved by sup-anna: dealer keyed 7h for 6h").format(
                v=event["version"], at=listed[0]["at"])
    phh = _zipped(client.get(f"/exports/hands/{day}", params={"format": "phh"},
                             headers=auditor))
    text = phh[f"hands-{day}-phh/STUD-C-000001.phh"]
    assert tomllib.loads(text)["_corrections"] == [note]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert HandHistory.loads(text).hand == 1  # standard tools still read it
    ohh = _zipped(client.get(f"/exports/hands/{day}", params={"format": "ohh"},
                             headers=auditor))
    assert json.loads(ohh[f"hands-{day}.ohh"])["ohh"]["ledger_corrections"] == [note]


def _zipped(response: Response) -> dict[str, str]:
    assert response.status_code == 200, response.text
    with zipfile.ZipFile(io.BytesIO(response.content)) as archive:
        return {name: archive.read(name).decode("utf-8") for name in archive.namelist()}
