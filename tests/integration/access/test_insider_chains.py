"""Nothing beside the events goes unchained, and checkpoints catch a consistent rewrite (issue 25):
the tokens' chain (a token's role edited or its revocation undone in the database is refused by
the service and reported by the audit), the access log held against the latest checkpoint (a
wiped log is named by `access verify` and `audit verify`), principals kept only in the register
stream (a rewritten `created_by` breaks it), and a table rewritten consistently after the latest
signed checkpoint named without any daily seal; every snapshot's keyed signature held against
the chain. On both stores."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from fastapi.testclient import TestClient

from ledger.access.accesslog import record_access, verify_access_log
from ledger.access.tokenchain import row_hash
from ledger.api import create_app
from ledger.app.application import LedgerApp
from ledger.settings import Settings
from ledger.sim.runner import simulate
from ledger.table.events import table_id
from projections.audit import AuditReport, verify
from projections.audit.checkpoint import make_checkpoint, stored_checkpoints
from tests.e2e.cli.test_cli import ledger as run_ledger
from tests.support import tamper
from tests.support.driver import with_supervisors
from tests.support.http import Tokens, assert_error, bearer, make_tokens

KEY = Ed25519PrivateKey.generate()
PUBLIC = KEY.public_key()


def kinds(report: AuditReport) -> list[tuple[str, str]]:
    return [(d.table, d.kind) for d in report.discrepancies]


@pytest.fixture
def settings(store_settings: Settings) -> Settings:
    return store_settings.model_copy(update={"api_token_cache_seconds": 0.0})


@pytest.fixture
def api(settings: Settings) -> Iterator[tuple[TestClient, Tokens]]:
    app = create_app(settings)
    tokens = make_tokens(app, ["HCF1"])
    with TestClient(app) as client:
        yield client, tokens


@pytest.fixture
def app(settings: Settings) -> Iterator[LedgerApp]:
    ledger = LedgerApp(settings)
    yield ledger
    ledger.close()


def token_id(token: str) -> str:
    return token.split("_")[1]


def ledger_of(client: TestClient) -> LedgerApp:
    found: LedgerApp = client.app.state.ledger  # type: ignore[attr-defined]
    return found


def tokens_problems(report: AuditReport) -> list[dict[str, Any]]:
    return [{**d.expected, "found": d.recorded} for d in report.discrepancies
            if d.kind == "tokens_broken"]


def test_a_device_token_made_admin_in_the_database_is_refused_and_reported(
        api: tuple[TestClient, Tokens]) -> None:
    client, tokens = api
    ledger = ledger_of(client)
    assert client.get("/tokens", headers=bearer(tokens.device)).status_code == 403
    assert verify(ledger).ok
    device = token_id(tokens.device)
    tamper.execute_sql(ledger, f"UPDATE {tamper.side_table(ledger, 'ledger_tokens')} "
                       "SET role = 'admin', tables = NULL WHERE token_id = %s", (device,))
    assert_error(client.get("/tokens", headers=bearer(tokens.device)), 401,
                 "token_chain_broken")
    assert client.get("/tokens", headers=bearer(tokens.admin)).status_code == 200  # others: fine
    problems = tokens_problems(verify(ledger))
    assert problems == [{"token": device, "problem": "token_edited",
                         "value": {"role": "device", "tables": '["HCF1"]'},
                         "found": {"role": "admin", "tables": None}}]


def test_an_undone_revocation_is_refused_and_reported(api: tuple[TestClient, Tokens]) -> None:
    client, tokens = api
    ledger = ledger_of(client)
    auditor = token_id(tokens.auditor)
    assert client.delete(f"/tokens/{auditor}", headers=bearer(tokens.admin)).status_code == 200
    assert_error(client.get("/access-log", headers=bearer(tokens.auditor)), 401, "invalid_token")
    tamper.execute_sql(ledger, f"UPDATE {tamper.side_table(ledger, 'ledger_tokens')} "
                       "SET revoked_at = NULL WHERE token_id = %s", (auditor,))
    assert_error(client.get("/access-log", headers=bearer(tokens.auditor)), 401,
                 "token_chain_broken")
    (problem,) = tokens_problems(verify(ledger))
    assert problem["token"] == auditor and problem["problem"] == "token_edited"
    assert problem["found"] == {"revoked_at": None} and problem["value"]["revoked_at"]


def test_a_token_forged_into_table_and_chain_without_the_key_is_refused(
        api: tuple[TestClient, Tokens]) -> None:
    """An insider who writes a token row and a chain row with the right hashes still lacks the
    service's key: the MAC gives the row away (``row_forged``), and every token is refused
    until the chain is repaired."""
    client, tokens = api
    ledger = ledger_of(client)
    chain = tamper.side_table(ledger, "ledger_token_chain")
    secret = "ltk_0123456789ab_" + "A" * 43
    digest = hashlib.sha256(secret.encode()).hexdigest()
    record = {"token_id": "0123456789ab", "secret_sha256": digest, "role": "admin",
              "tables": None, "seat": None, "label": "", "created_at": "2026-01-01T00:00:00",
              "revoked_at": None, "principal_id": None}
    tamper.execute_sql(ledger, f"INSERT INTO {tamper.side_table(ledger, 'ledger_tokens')} "
                       "(token_id, secret_sha256, role, tables, seat, label, created_at, "
                       "revoked_at, principal_id) VALUES (%s,%s,%s,%s,%s,%s,%s,%s,%s)",
                       tuple(record.values()))
    seq, prev = tamper.query_sql(ledger, f"SELECT seq, row_hash FROM {chain} ORDER BY seq DESC "
                                 "LIMIT 1")[0]
    body = json.dumps(record, sort_keys=True, separators=(",", ":"))
    mine = row_hash(prev, int(seq) + 1, "2026-01-01T00:00:00", "create", "0123456789ab", body)
    tamper.execute_sql(ledger, f"INSERT INTO {chain} (seq, at, kind, token_id, body, prev_hash, "
                       "row_hash, mac) VALUES (%s,%s,%s,%s,%s,%s,%s,%s)",
                       (int(seq) + 1, "2026-01-01T00:00:00", "create", "0123456789ab", body,
                        prev, mine, "0" * 64))
    assert_error(client.get("/tokens", headers=bearer(secret)), 401, "token_chain_broken")
    assert_error(client.get("/tokens", headers=bearer(tokens.admin)), 401, "token_chain_broken")
    problems = tokens_problems(verify(ledger))
    assert [(p.get("row"), p["problem"]) for p in problems] == [(int(seq) + 1, "row_forged")]


def test_a_wiped_access_log_is_named_against_the_latest_checkpoint(
        app: LedgerApp, tmp_path: Path) -> None:
    for n in range(3):
        record_access(app, who="token:abc", what="table_state", table="HCF1", hand=n + 1)
    sink = tmp_path / "elsewhere" / "checkpoints.jsonl"
    made = make_checkpoint(app, KEY, sink=sink)
    assert made["heads"]["access_log"]["rows"] == 3
    assert verify_access_log(app) == [] and verify(app, public_key=PUBLIC).ok
    tamper.execute_sql(app, f"DELETE FROM {tamper.side_table(app, 'ledger_access_log')}")
    assert verify_access_log(app) == [{"seq": 3, "kind": "rows_cut",
                                       "expected": made["heads"]["access_log"]["head"],
                                       "found": "missing"}]
    report = verify(app, public_key=PUBLIC)
    assert kinds(report) == [("access-log", "checkpoint_mismatch")] and not report.chain_ok
    # The checkpoints wiped too: the sink, on another host, still holds the last one.
    tamper.execute_sql(app, f"DELETE FROM {tamper.side_table(app, 'ledger_checkpoints')}")
    sunk = app.settings.model_copy(update={"checkpoint_sink": sink})
    app.settings = sunk
    found = kinds(verify(app, public_key=PUBLIC))
    assert ("checkpoints", "checkpoint_missing") in found
    assert ("access-log", "checkpoint_mismatch") in found


def test_a_consistent_rewrite_after_a_checkpoint_is_named_without_a_seal(
        app: LedgerApp) -> None:
    """Rename a player in every event of a table, recompute the chain and the command log:
    the chains hold, the latest checkpoint does not (and the snapshots' keyed signatures
    name the rewrite too)."""
    simulate(app, "caribbean-stud", "CSP-S", 2, seed=3)
    first = make_checkpoint(app, KEY)
    second = make_checkpoint(app, KEY)
    assert second["previous"]["seq"] == first["seq"] and second["seq"] == first["seq"] + 1
    assert verify(app, public_key=PUBLIC).ok
    tid = table_id("CSP-S")
    player = next(json.loads(bytes(e.state))["player"] for e in app.recorder.select_events(tid)
                  if "player" in json.loads(bytes(e.state)))
    tamper.rename_everywhere(app, tid, player, "player-99")  # every mention
    report = verify(app, public_key=PUBLIC)
    found = kinds(report)
    assert ("CSP-S", "checkpoint_mismatch") in found
    assert {k for _, k in found} <= {"checkpoint_mismatch", "snapshot_mismatch"}
    mismatch = next(d for d in report.discrepancies if d.kind == "checkpoint_mismatch")
    assert mismatch.expected["checkpoint"] == second["seq"]
    assert mismatch.recorded["digest"] != mismatch.expected["digest"]


def test_a_checkpoint_edited_or_signed_by_another_key_is_named(app: LedgerApp) -> None:
    simulate(app, "high-card-flush", "HCF-S", 1, seed=5)
    make_checkpoint(app, KEY)
    other = make_checkpoint(app, Ed25519PrivateKey.generate())
    found = kinds(verify(app, public_key=PUBLIC))
    assert found == [("checkpoints", "checkpoint_signature")]
    assert stored_checkpoints(app, last=True)[0]["seq"] == other["seq"]


def test_an_edited_snapshot_is_named_by_the_audit(app: LedgerApp) -> None:
    simulate(app, "caribbean-stud", "CSP-S", 4, seed=3)  # past a snapshot (every 50 events)
    tid = table_id("CSP-S")
    assert app.snapshots is not None and list(app.snapshots.get(tid))
    version = tamper.edit_snapshot(app, tid, '"currency":"EUR"', '"currency":"USD"')
    assert ("CSP-S", "snapshot_mismatch") in kinds(verify(app))
    assert next(d for d in verify(app).discrepancies
                if d.kind == "snapshot_mismatch").expected["version"] == version


def test_principals_live_only_in_the_register_stream(app: LedgerApp) -> None:
    """A principal's ``created_by`` is read from the register's chained rows alone: rewriting
    it in the old ``ledger_principals`` table changes nothing, rewriting it in the register
    breaks the chain (``register_broken``)."""
    with_supervisors(app, {"floor-1": ("F. One", "floor")})
    assert app.principals.get("floor-1").created_by == "principal:sim-admin"
    tamper.execute_sql(app, f"UPDATE {tamper.side_table(app, 'ledger_principals')} "
                       "SET created_by = 'principal:ghost'")
    assert app.principals.get("floor-1").created_by == "principal:sim-admin"
    assert verify(app).ok
    register = tamper.side_table(app, "ledger_register")
    tamper.execute_sql(app, f"UPDATE {register} SET body = replace(body, '\"sim-admin\"', "
                       "'\"ghost\"') WHERE principal_id = 'floor-1'")
    found = [d for d in verify(app).discrepancies if d.kind == "register_broken"]
    assert found and found[0].expected["problem"] == "row_edited"


def test_the_command_line_checkpoints_and_access_verify_names_a_wiped_log(
        tmp_path: Path) -> None:
    """``ledger checkpoint`` (for cron) signs with the signing key; ``ledger access verify``
    then names the access log wiped after it (exit 1), ``audit verify`` too."""
    db = tmp_path / "ledger.sqlite3"
    assert run_ledger("keys", "create", db=db).returncode == 0
    settings = Settings(database_url=f"sqlite:///{db}", deck_key_file=tmp_path / "deck.key")
    ledger = LedgerApp(settings)
    for n in range(2):
        record_access(ledger, who="cli:anna", what="hand", table="HCF1", hand=n + 1)
    made = run_ledger("checkpoint", "--json", db=db)
    assert made.returncode == 0, made.stderr
    checkpoint = json.loads(made.stdout)
    assert checkpoint["seq"] == 1 and checkpoint["heads"]["access_log"]["rows"] == 2
    assert run_ledger("access", "verify", db=db).returncode == 0
    tamper.execute_sql(ledger, "DELETE FROM ledger_access_log")
    ledger.close()
    wiped = run_ledger("access", "verify", "--json", db=db)
    assert wiped.returncode == 1
    assert json.loads(wiped.stdout)["problems"][0]["kind"] == "rows_cut"
    audit = run_ledger("audit", "verify", "--json", db=db)
    assert audit.returncode == 1
    assert [d["kind"] for d in json.loads(audit.stdout)["discrepancies"]] == [
        "checkpoint_mismatch"]


def test_the_service_signs_a_checkpoint_every_interval(app: LedgerApp, tmp_path: Path) -> None:
    import time

    from projections.audit import keys
    from projections.audit.checkpoint import Checkpointer

    key_file = tmp_path / "signing.key"
    keys.create_key(key_file)
    settings = app.settings.model_copy(update={"checkpoint_minutes": 0.002,  # 0.12 s
                                               "signing_key_file": key_file,
                                               "checkpoint_sink": tmp_path / "sink.jsonl"})
    checkpoints = Checkpointer(app, settings)
    checkpoints.start()
    deadline = time.monotonic() + 20
    while len(stored_checkpoints(app)) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    checkpoints.stop()
    made = stored_checkpoints(app)
    assert len(made) >= 2 and made[1]["previous"]["seq"] == made[0]["seq"]
    lines = (tmp_path / "sink.jsonl").read_text().splitlines()
    assert [json.loads(line)["seq"] for line in lines][:2] == [1, 2]
    assert verify(app, public_key=keys.signing_key(settings).public_key()).ok


def test_tokens_from_before_the_chain_are_chained_once_and_a_wiped_chain_is_not_remade(
        app: LedgerApp) -> None:
    """A store from before the tokens' chain: its tokens are chained as they stand (one epoch
    row) when first opened. A chain wiped after a checkpoint recorded it is not made again
    from the table: every token is refused and the audit names it."""
    from ledger.access.tokens import TokenStore
    from ledger.domain.errors import LedgerError

    token, _ = TokenStore.of(app).create("auditor", label="from before")
    chain = tamper.side_table(app, "ledger_token_chain")
    tamper.execute_sql(app, f"DELETE FROM {chain}")  # as a store made before the chain
    tokens = TokenStore.of(app)
    assert [r[2] for r in tamper.query_sql(app, f"SELECT seq, at, kind FROM {chain}")] == [
        "epoch"]
    assert tokens.authenticate(token) is not None
    assert verify(app).ok
    make_checkpoint(app, KEY)
    tamper.execute_sql(app, f"DELETE FROM {chain}")
    tokens = TokenStore.of(app)
    assert tamper.query_sql(app, f"SELECT seq FROM {chain}") == []
    with pytest.raises(LedgerError) as err:
        tokens.authenticate(token)
    assert err.value.code == "token_chain_broken"
    found = {k for _, k in kinds(verify(app, public_key=PUBLIC))}
    assert found == {"tokens_broken", "checkpoint_mismatch"}
