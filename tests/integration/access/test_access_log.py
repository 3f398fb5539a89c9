"""The access log (``ledger.access.accesslog``): every read of a hand in progress that shows its
face-down cards and every export of hole cards is recorded (who, when, what), the auditor and the
admin read it (``GET /access-log``, ``ledger access``), and an edited, deleted or inserted row
breaks its hash chain (``ledger access verify``, ``audit verify``: ``access_log_broken``)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from ledger.access.accesslog import access_rows, record_access, verify_access_log
from ledger.api import create_app
from ledger.app.application import LedgerApp
from ledger.domain.errors import InvalidInput
from ledger.settings import Settings
from ledger.store.sidetables import ACCESS_TABLE, SideTable
from projections.audit import verify
from tests.e2e.cli.test_cli import ledger as run_ledger
from tests.support.http import Tokens, assert_error, bearer, make_tokens

DAY = "2026-03-10"


@pytest.fixture
def api(store_settings: Settings) -> Iterator[tuple[TestClient, Tokens]]:
    app = create_app(store_settings)
    tokens = make_tokens(app, ["HCF1"])
    with TestClient(app) as client:
        yield client, tokens


def post(client: TestClient, token: str, path: str, **body: Any) -> Any:
    return client.post(path, json=body, headers=bearer(token))


def dealt(client: TestClient, tokens: Tokens) -> None:
    """A High Card Flush hand dealt and in progress at HCF1 (face-down cards at every seat)."""
    assert post(client, tokens.admin, "/tables", command_id="o", table="HCF1",
                game="high-card-flush").status_code == 201
    for seat, amount in {1: 50_000, 2: 20_000, 3: 20_000}.items():
        assert post(client, tokens.device, "/tables/HCF1/seats", command_id=f"s{seat}",
                    seat=seat, player=f"p{seat}").status_code == 201
        assert post(client, tokens.device, "/tables/HCF1/buy-ins", seat=seat, amount=amount,
                    command_id=f"b{seat}").status_code == 201
    assert post(client, tokens.device, "/tables/HCF1/hands", command_id="h").status_code == 201
    post(client, tokens.device, "/tables/HCF1/hands/current/actions", command_id="dp",
         seat=1, action="accept")
    for seat in (2, 3):
        post(client, tokens.device, "/tables/HCF1/hands/current/wagers", seat=seat,
             kind="ante", amount=1_000, command_id=f"a{seat}")
    assert post(client, tokens.device, "/tables/HCF1/hands/current/deal",
                command_id="d").status_code == 201


def token_id(token: str) -> str:
    return token.split("_")[1]


def log_of(client: TestClient, token: str, query: str = "") -> Any:
    found = client.get(f"/access-log{query}", headers=bearer(token))
    assert found.status_code == 200, found.text
    return found.json()


def test_hole_card_reads_through_the_api_are_in_the_access_log(
    api: tuple[TestClient, Tokens],
) -> None:
    client, tokens = api
    dealt(client, tokens)
    auditor = bearer(tokens.auditor)
    # No hole card shown: the device's reads, the public view, the admin's masked view.
    assert client.get("/tables/HCF1", headers=bearer(tokens.device)).status_code == 200
    assert client.get("/tables/HCF1?public=true", headers=auditor).status_code == 200
    assert client.get("/tables/HCF1", headers=bearer(tokens.admin)).status_code == 200
    assert log_of(client, tokens.auditor)["rows"] == []

    seen = client.get("/tables/HCF1", headers=auditor).json()
    assert all(c for s in seen["hand"]["seats"] for c in s["cards"])  # every card shown
    assert client.get("/tables/HCF1/hands/1", headers=auditor).status_code == 200
    assert client.get("/tables/HCF1/hands/1/replay", headers=auditor).status_code == 200
    exported = client.get(f"/exports/hands/{DAY}?table=HCF1", headers=auditor)
    assert exported.status_code == 200

    log = log_of(client, tokens.auditor)
    assert log["chain_ok"] and log["problems"] == []
    rows = log["rows"]
    assert [(r["seq"], r["who"], r["what"], r["table"], r["hand"]) for r in rows] == [
        (1, f"token:{token_id(tokens.auditor)}", "table_state", "HCF1", 1),
        (2, f"token:{token_id(tokens.auditor)}", "hand", "HCF1", 1),
        (3, f"token:{token_id(tokens.auditor)}", "hand_replay", "HCF1", 1),
        (4, f"token:{token_id(tokens.auditor)}", "hands_export", "HCF1", None),
    ]
    assert {r["detail"]["role"] for r in rows} == {"auditor"}
    assert {r["detail"]["label"] for r in rows} == {"test auditor"}
    assert [r["detail"]["path"] for r in rows] == [
        "/tables/HCF1", "/tables/HCF1/hands/1", "/tables/HCF1/hands/1/replay",
        f"/exports/hands/{DAY}"]
    assert rows[0]["detail"]["face_down_cards_shown"] == 21  # 7 cards x 3 seats
    assert all(r["at"] for r in rows) and rows[1]["prev_hash"] == rows[0]["row_hash"]
    shown = json.dumps([r["detail"] for r in rows])  # no card in the log (the digests are hex)
    assert not any(f'"{c}"' in shown for s in seen["hand"]["seats"] for c in s["cards"])

    # Filters; the admin reads it too; a device or accounting may not.
    assert [r["seq"] for r in log_of(client, tokens.admin, "?what=hand&table=hcf1")["rows"]] == [2]
    assert [r["seq"] for r in log_of(client, tokens.auditor, "?after=2&limit=1")["rows"]] == [3]
    for token in (tokens.device, tokens.accounting):
        assert_error(client.get("/access-log", headers=bearer(token)), 403, "forbidden")


def tamper_app(settings: Settings) -> Iterator[LedgerApp]:
    app = LedgerApp(settings)
    try:
        yield app
    finally:
        app.close()


@pytest.fixture
def app(store_settings: Settings) -> Iterator[LedgerApp]:
    yield from tamper_app(store_settings)


def logged(app: LedgerApp, n: int) -> None:
    for hand in range(1, n + 1):
        record_access(app, who="cli:anna", what="hand_replay", table="CSP-1", hand=hand,
                      detail={"command": "ledger replay"})


def test_an_edited_deleted_or_inserted_row_breaks_the_chain(app: LedgerApp) -> None:
    logged(app, 5)
    assert verify_access_log(app) == [] and verify(app).ok
    db = SideTable(app.recorder, ACCESS_TABLE)
    db.execute(f"UPDATE {db.name} SET who = {db.p} WHERE seq = 2", ("cli:nobody",))
    [edited] = verify_access_log(app)
    assert (edited["seq"], edited["kind"]) == (2, "row_edited")
    report = verify(app)
    assert [(d.table, d.kind, d.expected["row"], d.expected["problem"])
            for d in report.discrepancies] == [("access-log", "access_log_broken", 2,
                                                "row_edited")]
    assert not report.ok

    db.execute(f"UPDATE {db.name} SET who = {db.p} WHERE seq = 2", ("cli:anna",))
    assert verify_access_log(app) == []
    db.execute(f"DELETE FROM {db.name} WHERE seq = 4", ())
    assert [(p["seq"], p["kind"]) for p in verify_access_log(app)] == [
        (4, "row_missing"), (5, "row_unlinked")]

    # Rows renumbered after the deletion, each digest recomputed from its own fields: the link
    # to the row before still names the deleted row.
    row = access_rows(app, after=4)[0]
    db.execute(f"DELETE FROM {db.name} WHERE seq = 5", ())
    from ledger.access.accesslog import row_hash
    digest = row_hash(row.prev_hash, 4, row.at, row.who, row.what, row.table, row.hand,
                      json.dumps(row.detail, sort_keys=True, separators=(",", ":")))
    db.execute(f"INSERT INTO {db.name} VALUES ({db.marks(9)})",
               (4, row.at, row.who, row.what, row.table, row.hand,
                json.dumps(row.detail, sort_keys=True, separators=(",", ":")), row.prev_hash,
                digest))
    assert [(p["seq"], p["kind"]) for p in verify_access_log(app)] == [(4, "row_unlinked")]


def test_the_cli_records_replays_and_exports_and_verify_names_an_edited_row(
        sqlite_settings: Settings, tmp_path: Path) -> None:
    """ledger replay and audit hand of a hand in progress, ledger export hands: recorded under
    the CLI's actor; ledger access list / verify; exit 1 once a row is edited."""
    db = tmp_path / "ledger.sqlite3"
    api_app = create_app(sqlite_settings)
    tokens = make_tokens(api_app, ["HCF1"])
    with TestClient(api_app) as client:
        dealt(client, tokens)
    for args in (("replay", "HCF1", "1"), ("audit", "hand", "HCF1", "1"),
                 ("export", "hands", "--day", DAY, "--out", str(tmp_path / "out"))):
        done = run_ledger("--actor", "aud-eve", *args, db=db)
        assert done.returncode in (0, 1), done.stderr
    listed = run_ledger("access", "list", "--json", db=db)
    assert listed.returncode == 0, listed.stderr
    *rows, verdict = [json.loads(line) for line in listed.stdout.splitlines()]
    assert [(r["who"], r["what"], r["table"], r["hand"], r["detail"].get("command"))
            for r in rows] == [
        ("cli:aud-eve", "hand_replay", "HCF1", 1, "ledger replay"),
        ("cli:aud-eve", "hand_replay", "HCF1", 1, "ledger audit hand"),
        ("cli:aud-eve", "hands_export", None, None, None),
    ]
    assert rows[2]["detail"]["day"] == DAY and verdict == {"chain_ok": True, "problems": []}
    ok = run_ledger("access", "verify", db=db)
    assert ok.returncode == 0 and "access log chain intact: 3 rows" in ok.stdout

    for app in tamper_app(sqlite_settings):
        side = SideTable(app.recorder, ACCESS_TABLE)
        side.execute(f"UPDATE {side.name} SET at = {side.p} WHERE seq = 1",
                     ("2026-01-01T00:00:00.000000+00:00",))
    broken = run_ledger("access", "verify", db=db)
    assert broken.returncode == 1
    assert "ACCESS LOG BROKEN at row 1: row_edited" in broken.stdout
    audit = run_ledger("audit", "verify", "--json", db=db)
    assert audit.returncode == 1 and "access_log_broken" in audit.stdout


def test_writers_side_by_side_keep_one_chain(app: LedgerApp) -> None:
    from concurrent.futures import ThreadPoolExecutor

    def write(n: int) -> None:
        for hand in range(10):
            record_access(app, who=f"cli:w{n}", what="hand", table="CSP-1", hand=hand)

    with ThreadPoolExecutor(4) as pool:
        list(pool.map(write, range(4)))
    rows = access_rows(app)
    assert [r.seq for r in rows] == list(range(1, 41)) and verify_access_log(app) == []


def test_since_is_a_time_in_any_iso_form_and_nothing_else(
    app: LedgerApp, api: tuple[TestClient, Tokens],
) -> None:
    """``since`` compares as a time, not as text: a row later in the same second as a `Z` time
    is in, an offset is converted to UTC, a day alone is its midnight; a value that is not a
    time is ``invalid_time`` (422 over HTTP), never an empty answer."""
    logged(app, 3)
    second = access_rows(app)[1]
    whole = second.at[:19]                                  # e.g. 2026-12-01T07:25:57
    assert second.seq in [r.seq for r in access_rows(app, since=whole + "Z")]
    local = datetime.fromisoformat(second.at).astimezone(timezone(timedelta(hours=5)))
    assert [r.seq for r in access_rows(app, since=local.isoformat())] == [
        r.seq for r in access_rows(app) if r.seq >= second.seq]
    assert len(access_rows(app, since=second.at[:10])) == 3
    assert access_rows(app, since="2999-01-01T00:00:00Z") == []
    for bad in ("yesterday", "2026-13-01", ""):
        with pytest.raises(InvalidInput) as refused:
            access_rows(app, since=bad)
        assert refused.value.code == "invalid_time"
    client, tokens = api
    assert_error(client.get("/access-log?since=yesterday", headers=bearer(tokens.auditor)),
                 422, "invalid_time")
