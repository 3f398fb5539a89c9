"""``ledger principals``, ``ledger approve`` and ``--actor`` as a user runs them: the register's
root of trust, changes signed by an admin's key (or proposed and approved), a misread card
corrected with two supervisors' own keys, and the command line's name shown unauthenticated."""

from __future__ import annotations

import itertools
import json
import os
from pathlib import Path

from ledger.app.application import LedgerApp
from ledger.settings import Settings
from tests.e2e.cli.test_cli import ledger
from tests.integration.access.test_signatures import _misread


def test_bootstrap_signed_changes_proposals_and_the_actor(tmp_path: Path) -> None:
    db, keys = tmp_path / "ledger.sqlite3", tmp_path / "keys"
    root = keys / "root.key"
    unsigned = ledger("principals", "add", "sup-1", "--name", "S. One", "--role", "supervisor",
                      "--key-out", str(keys / "sup-1.key"), "--json", db=db)
    assert unsigned.returncode == 0, unsigned.stderr  # no admin key: only proposed
    proposal = json.loads(unsigned.stdout)
    assert proposal["status"] == "pending" and proposal["needs"] == ["an admin principal"]
    first = ledger("principals", "bootstrap", "ada", "--name", "Ada (admin)", "--key-out",
                   str(root), "--json", db=db)
    assert first.returncode == 0, first.stderr
    boot = json.loads(first.stdout)
    assert oct(os.stat(root).st_mode & 0o777) == "0o600"
    twice = ledger("principals", "bootstrap", "root2", "--name", "x", "--key-out",
                   str(keys / "r2.key"), db=db)
    assert twice.returncode == 2 and "[register_bootstrapped]" in twice.stderr
    assert not (keys / "r2.key").exists()
    stale = ledger("approve", proposal["proposal_id"], "--key", str(root), db=db)
    assert stale.returncode == 2 and "[register_changed]" in stale.stderr  # moved past it
    again = ledger("principals", "add", "sup-1", "--name", "S. One", "--role", "supervisor",
                   "--public-key", json.loads((keys / "sup-1.key").read_text())["public_key"],
                   "--json", db=db)
    proposal = json.loads(again.stdout)
    approved = ledger("approve", proposal["proposal_id"], "--key", str(root), db=db)
    assert approved.returncode == 0, approved.stderr
    assert "ada signs" in approved.stdout and "carried out" in approved.stdout
    refused = ledger("principals", "add", "sup-1", "--name", "x", "--role", "floor",
                     "--public-key", "ed25519:" + "00" * 32, "--admin-key", str(root), db=db)
    assert refused.returncode == 2 and "[principal_exists]" in refused.stderr
    bad = ledger("principals", "add", "p-2", "--name", "x", "--role", "boss", "--key-out",
                 str(keys / "p-2.key"), "--admin-key", str(root), db=db)
    assert bad.returncode == 2 and "[invalid_principal_role]" in bad.stderr
    not_admin = ledger("principals", "revoke", "ada", "--admin-key", str(keys / "sup-1.key"),
                       db=db)
    assert not_admin.returncode == 2 and "[approver_not_allowed]" in not_admin.stderr
    revoked = ledger("principals", "revoke", "sup-1", "--admin-key", str(root), db=db)
    assert revoked.returncode == 0 and "signed by ada" in revoked.stdout, revoked.stderr
    listed = [json.loads(line) for line in
              ledger("principals", "list", "--json", db=db).stdout.splitlines()]
    assert [(p["principal_id"], p["key_id"] is not None, p["revoked_by"]) for p in listed] == [
        ("ada", True, None), ("sup-1", True, "principal:ada")]
    assert listed[0]["key_id"] == boot["key_id"]
    history = ledger("principals", "history", "--json", db=db).stdout.splitlines()
    rows = [json.loads(line) for line in history]
    assert [r["kind"] for r in rows] == ["epoch", "bootstrap", "add", "revoke"]
    assert all(b["prev_hash"] == a["row_hash"] for a, b in itertools.pairwise(rows))
    pinned = ledger("principals", "list", db=db, LEDGER_REGISTER_ROOT="0" * 16)
    assert pinned.returncode == 2 and "[register_broken]" in pinned.stderr

    played = ledger("--actor", "pit-7", "simulate", "--game", "caribbean-stud", "--hands", "1",
                    "--table", "CSP-3", db=db)
    assert played.returncode == 0, played.stderr
    replay = ledger("replay", "CSP-3", "1", db=db)
    assert replay.returncode == 0
    assert "by cli:pit-7 (unauthenticated command line)" in replay.stdout
    events = [json.loads(line) for line in
              ledger("replay", "CSP-3", "1", "--json", db=db).stdout.splitlines()]
    assert {e["actor"]["id"] for e in events} == {"cli:pit-7"}
    assert ledger("--actor", "no spaces", "principals", "list", db=db).returncode == 2


def test_a_misread_card_approved_at_the_command_line_by_two_supervisors(
        tmp_path: Path, store_settings: Settings) -> None:
    db, keys = tmp_path / "ledger.sqlite3", tmp_path / "keys"
    store = {"LEDGER_DATABASE_URL": store_settings.database_url,
             "LEDGER_POSTGRES_SCHEMA": store_settings.postgres_schema,
             "LEDGER_DECK_KEY_FILE": str(store_settings.deck_key_file)}
    app = LedgerApp(store_settings)
    try:
        from ledger.sim.principals import ensure_principals

        ensure_principals(app, {"sup-anna": ("Anna", "supervisor"),
                                "sup-bram": ("Bram", "supervisor")}, directory=keys)
        _misread(app)
    finally:
        app.close()
    args = ("correct", "hand", "CSP-C", "1", "--card", "dealer:Qs=Ah", "--approver", "sup-anna",
            "--approver", "sup-bram", "--reason", "shoe log: Ah")
    own = ledger(*args, db=db, **store, LEDGER_ACTOR="sup-anna")
    assert own.returncode == 2 and "[own_proposal]" in own.stderr
    proposed = ledger(*args, "--json", db=db, **store, LEDGER_ACTOR="ops-olga")
    assert proposed.returncode == 0, proposed.stderr
    proposal = json.loads(proposed.stdout)["proposal_id"]
    shown = ledger("proposals", "show", proposal, db=db, **store).stdout
    assert "needs:       sup-anna, sup-bram" in shown and '"kind":"correct_hand"' in shown
    wrong = ledger("approve", proposal, "--key", str(keys / "sim-admin.key"), db=db, **store)
    assert wrong.returncode == 2 and "[not_an_approver]" in wrong.stderr
    anna = ledger("approve", proposal, "--key", str(keys / "sup-anna.key"), db=db, **store)
    assert anna.returncode == 0 and "still needs sup-bram" in anna.stdout, anna.stderr
    bram = ledger("approve", proposal, "--key", str(keys / "sup-bram.key"), db=db, **store)
    assert bram.returncode == 0 and "carried out" in bram.stdout, bram.stderr
    closed = ledger("approve", proposal, "--key", str(keys / "sup-bram.key"), db=db, **store)
    assert closed.returncode == 2 and "[proposal_closed]" in closed.stderr
    audit = ledger("audit", "hand", "CSP-C", "1", db=db, **store)
    assert audit.returncode == 0, audit.stdout + audit.stderr
    assert "signed by sup-anna" in audit.stdout and "sup-bram" in audit.stdout
    verify = ledger("audit", "verify", "--json", db=db, **store)
    assert verify.returncode == 0 and json.loads(verify.stdout)["signatures_ok"] is True
