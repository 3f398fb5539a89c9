"""``ledger principals`` and ``--actor`` as a user runs them."""

from __future__ import annotations

import json
from pathlib import Path

from tests.e2e.cli.test_cli import ledger


def test_principals_add_list_revoke_and_the_actor_in_events(tmp_path: Path) -> None:
    db = tmp_path / "ledger.sqlite3"
    added = ledger("--actor", "ops-anna", "principals", "add", "sup-1", "--name", "S. One",
                   "--role", "supervisor", "--json", db=db)
    assert added.returncode == 0, added.stderr
    assert json.loads(added.stdout)["created_by"] == "cli:ops-anna"
    refused = ledger("principals", "add", "sup-1", "--name", "x", "--role", "floor", db=db)
    assert refused.returncode == 2 and "[principal_exists]" in refused.stderr
    bad = ledger("principals", "add", "p-2", "--name", "x", "--role", "boss", db=db)
    assert bad.returncode == 2 and "[invalid_principal_role]" in bad.stderr
    revoked = ledger("principals", "revoke", "sup-1", db=db, LEDGER_ACTOR="ops-bert")
    assert revoked.returncode == 0 and "revoked at" in revoked.stdout
    listed = [json.loads(line) for line in
              ledger("principals", "list", "--json", db=db).stdout.splitlines()]
    assert [(p["principal_id"], p["revoked_by"]) for p in listed] == [("sup-1", "cli:ops-bert")]
    assert ledger("--actor", "no spaces", "principals", "list", db=db).returncode == 2

    played = ledger("--actor", "pit-7", "simulate", "--game", "caribbean-stud", "--hands", "1",
                    "--table", "CSP-3", db=db)
    assert played.returncode == 0, played.stderr
    replay = ledger("replay", "CSP-3", "1", db=db)
    assert replay.returncode == 0 and "by cli:pit-7 (cli)" in replay.stdout
    events = [json.loads(line) for line in
              ledger("replay", "CSP-3", "1", "--json", db=db).stdout.splitlines()]
    assert {e["actor"]["id"] for e in events} == {"cli:pit-7"}
