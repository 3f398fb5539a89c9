"""Four eyes that one person cannot fake (issue 25), on SQLite and PostgreSQL: approvals are the
approvers' own signatures, an admin token alone creates no approver, a signature is worthless
for any other proposal, and the audit names a forced or forged approval."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any
from unittest.mock import patch

import pytest
from fastapi.testclient import TestClient

from ledger.access.keys import PrincipalKey
from ledger.api import create_app
from ledger.app.application import LedgerApp
from ledger.app.approvals import Approvals
from ledger.domain.actors import Actor
from ledger.domain.approval import Approval, Signature
from ledger.domain.cards import parse_card
from ledger.domain.commands import (
    Act,
    BuyIn,
    CashOut,
    CorrectHand,
    CorrectMovement,
    OpenTable,
    PlaceWager,
    Reveal,
    SeatPlayer,
    Settle,
    StartHand,
    UnseatPlayer,
)
from ledger.domain.errors import LedgerError
from ledger.domain.records import CardFix
from ledger.settings import Settings
from ledger.table.events import table_id
from projections.audit import verify
from tests.support import tamper
from tests.support.driver import Driver, with_supervisors
from tests.support.http import Tokens, approver_token, assert_error, bearer, make_tokens

ANNA, BRAM = "sup-anna", "sup-bram"


@pytest.fixture
def api(store_settings: Settings) -> Iterator[tuple[TestClient, Tokens]]:
    app = create_app(store_settings)
    tokens = make_tokens(app, ["RT-1", "CSP-C"])
    with TestClient(app, raise_server_exceptions=False) as client:
        yield client, tokens


def ledger_of(client: TestClient) -> LedgerApp:
    found: LedgerApp = client.app.state.ledger  # type: ignore[attr-defined]
    return found


def alice_left_owed(app: LedgerApp) -> int:
    """RT-1: alice's buy-in keyed 50.00 (it was 1,000.00), then she cashed out and left: the
    version of the buy-in (correcting it moves 950.00 to owed:alice, COR-5)."""
    ids = iter(range(100))

    def do(cls: Any, **fields: Any) -> int:
        return app.execute(cls(command_id=f"rt-{next(ids)}", table="RT-1", **fields)
                           ).table_version

    do(OpenTable, game="caribbean-stud", config={"card_source": "recorded"})
    do(SeatPlayer, seat=1, player="alice")
    version = do(BuyIn, seat=1, amount=5_000)
    do(CashOut, seat=1)
    do(UnseatPlayer, seat=1)
    return version


def test_ghost_approvers_are_refused_and_a_forced_correction_is_named(
        api: tuple[TestClient, Tokens]) -> None:
    client, tokens = api
    ledger = ledger_of(client)
    with_supervisors(ledger)
    buy_in = alice_left_owed(ledger)
    for ghost in ("ghost-a", "ghost-b"):  # an admin token alone registers nobody
        body = {"principal_id": ghost, "name": ghost, "role": "supervisor",
                "public_key": PrincipalKey.generate(ghost).public}
        answer = client.post("/principals", json=body, headers=bearer(tokens.admin))
        assert answer.status_code == 202 and answer.json()["status"] == "pending"
        assert ledger.principals.find(ghost) is None
    correction = {"command_id": "ghost-1", "version": buy_in, "amount": 100_000,
                  "approvers": ["ghost-a", "ghost-b"], "reason": "alice's chips"}
    assert_error(client.post("/tables/RT-1/corrections/movements", json=correction,
                             headers=bearer(tokens.admin)), 422, "unknown_approver")
    before = ledger.load("RT-1").version
    assert before == buy_in + 2 and verify(ledger).ok
    # Forced into the store by an insider, unsigned: the audit names the event.
    command = CorrectMovement(command_id="ghost-2", table="RT-1", version=buy_in,
                              amount=100_000, approvers=("ghost-a", "ghost-b"),
                              reason="alice's chips")
    forced = tamper.force_command(ledger, command)
    assert ledger.load("RT-1").state.balances["owed:alice"] == 95_000
    report = verify(ledger)
    found = [d for d in report.discrepancies if d.kind == "approval_unsigned"]
    assert [(d.table, d.recorded["version"], d.rule) for d in found] == [
        ("RT-1", forced, "COR-4")], report.discrepancies
    assert not report.signatures_ok
    # ... or with signatures of its own making: a bad signature, naming the event and ghost.
    again = command.model_copy(update={"command_id": "ghost-3", "amount": 150_000})
    fake = Approval(kind="correct_movement", table="RT-1", fields=json.loads(
        again.model_dump_json()),
        applies_to={"version": forced}, proposal="p-000000000000", expires="2099-01-01T00:00:00Z",
        proposer="token:x", signatures=tuple(
            Signature(principal=g, key_id="0" * 16, signature="ab" * 64, register_version=1,
                      at="2026-01-01T00:00:00Z") for g in ("ghost-a", "ghost-b")))
    second = tamper.force_command(ledger, again, fake)
    bad = [d.recorded for d in verify(ledger).discrepancies if d.kind == "signature_invalid"]
    assert {"version": second, "problem": "no such principal at register version 1"} in bad


def _misread(app: LedgerApp) -> Driver:
    """CSP-C, hand 1: the dealer's Qs was really an Ah; seat 2 has left since (COR-5)."""
    t = Driver(app, "CSP-C", "caribbean-stud", {1: 100_000, 2: 100_000})
    t.do(StartHand)
    for seat in (1, 2):
        t.do(PlaceWager, seat=seat, kind="ante", amount=1_000)
    t.deal(**{"1": "As Ad Kc 7h 3d", "2": "9h Th Jh Qh Kh"}, dealer="Qs Kd 9c 5d 2h")
    for seat in (1, 2):
        t.do(Act, seat=seat, action="play")
    t.do(Reveal)
    t.do(Settle)
    return t


FIX = {"hand": 1, "fixes": [{"target": "dealer", "recorded": "Qs", "actual": "Ah"}],
       "approvers": [ANNA, BRAM], "reason": "shoe log: the dealer's Qs was an Ah"}


def test_a_misread_card_approved_over_http_by_two_supervisors(
        api: tuple[TestClient, Tokens]) -> None:
    client, tokens = api
    ledger = ledger_of(client)
    _misread(ledger)
    ring = ledger.keyring
    assert ring is not None
    keys = {p: ring.get(p) for p in (ANNA, BRAM)}
    own = {p: approver_token(client, p) for p in (ANNA, BRAM)}
    answer = client.post("/tables/CSP-C/corrections/hands", json={"command_id": "fix-1", **FIX},
                         headers=bearer(tokens.admin))
    assert answer.status_code == 202, answer.text
    proposal = answer.json()
    assert proposal["needs"] == [ANNA, BRAM] and ledger.load("CSP-C").version == 13
    signed = json.loads(proposal["payload"])
    assert signed["kind"] == "correct_hand" and signed["fields"]["fixes"] == FIX["fixes"]
    assert signed["applies_to"] == {"version": 13}
    path = f"/proposals/{proposal['proposal_id']}/approvals"

    def sign(who: str, message: str) -> dict[str, str]:
        key = keys[who]
        assert key is not None
        return {"signature": key.sign(message.encode())}

    # A token of one supervisor cannot give the other's signature, nor its own for the other.
    assert_error(client.post(path, json=sign(ANNA, proposal["message"]),
                             headers=bearer(own[BRAM])), 422, "signature_invalid")
    assert_error(client.post(path, json=sign(ANNA, proposal["message"]),
                             headers=bearer(tokens.admin)), 403, "forbidden")
    first = client.post(path, json=sign(ANNA, proposal["message"]), headers=bearer(own[ANNA]))
    assert first.status_code == 200 and first.json()["needs"] == [BRAM], first.text
    assert_error(client.post(path, json=sign(ANNA, proposal["message"]),
                             headers=bearer(own[ANNA])), 409, "already_approved")
    # Replayed onto another proposal of the very same correction: worthless.
    other = client.post("/tables/CSP-C/corrections/hands", json={"command_id": "fix-2", **FIX},
                        headers=bearer(tokens.admin)).json()
    assert_error(client.post(f"/proposals/{other['proposal_id']}/approvals",
                             json=sign(ANNA, proposal["message"]), headers=bearer(own[ANNA])),
                 422, "signature_invalid")
    done = client.post(path, json=sign(BRAM, proposal["message"]), headers=bearer(own[BRAM]))
    assert done.status_code == 200 and done.json()["status"] == "done", done.text
    event = json.loads(bytes(ledger.recorder.select_events(table_id("CSP-C"))[-1].state))
    assert event["approvers"] == [ANNA, BRAM]
    assert [(s["principal"], s["via"]) for s in event["approval"]["signatures"]] == [
        (ANNA, "http"), (BRAM, "http")]
    # The other proposal of the same correction is outdated now (a correction since).
    for who in (ANNA, BRAM):
        last = client.post(f"/proposals/{other['proposal_id']}/approvals",
                           json=sign(who, other["message"]), headers=bearer(own[who]))
    assert_error(last, 409, "proposal_outdated")
    report = verify(ledger)
    assert report.ok and report.signatures_ok, report.discrepancies


def test_proposer_expiry_and_the_register_checked_again(store_settings: Settings) -> None:
    app = LedgerApp(store_settings, actor=Actor.cli("ops-olga"))
    try:
        t = _misread(app)
        approvals = Approvals(app)
        fix = CorrectHand(command_id="f", table="CSP-C", hand=1, approvers=(ANNA, BRAM),
                          fixes=(CardFix(target="dealer", recorded=parse_card("Qs"),
                                         actual=parse_card("Ah")),), reason="shoe log")
        with pytest.raises(LedgerError) as err:
            approvals.propose(fix, actor=Actor.cli(ANNA), proposer_principal=ANNA)
        assert err.value.code == "own_proposal"
        proposal = approvals.propose(fix, actor=app.actor)
        key = app.keyring.get(ANNA)  # type: ignore[union-attr]
        assert key is not None
        later = "ledger.app.approvals.utc_now"
        from ledger.access.signatures import utc_now

        with patch(later, lambda: utc_now().replace(year=utc_now().year + 1)), \
                pytest.raises(LedgerError) as err:
            approvals.sign(proposal.proposal_id, key)
        assert err.value.code == "approval_expired"
        assert approvals.proposals.get(proposal.proposal_id).status == "expired"
        # The one-step path (the process holds the key) and the table's version it is bound to.
        assert t.do(CorrectHand, **{**fix.model_dump(exclude={"command_id", "table"})}
                    ).table_version == t.version
        assert verify(app).ok
    finally:
        app.close()


def test_a_register_change_needs_an_admin_principal_and_is_chained(
        store_settings: Settings) -> None:
    app = LedgerApp(store_settings)
    try:
        ring = with_supervisors(app)
        approvals = Approvals(app)
        root, anna = ring.get("sim-admin"), ring.get(ANNA)
        assert root is not None and anna is not None
        new = PrincipalKey.generate("floor-fay").public
        change = {"id": "floor-fay", "name": "Fay", "role": "floor", "public_key": new}
        with pytest.raises(LedgerError) as err:  # a supervisor's key signs no register change
            approvals.change_register("add", change, anna, actor=app.actor)
        assert err.value.code == "approver_not_allowed"
        head = app.principals.register.head()
        row = approvals.change_register("add", change, root, actor=app.actor)
        assert row.prev_hash == head["head"] and row.seq == head["version"] + 1
        assert app.principals.register.head() == {"version": row.seq, "head": row.row_hash}
        assert app.principals.get("floor-fay").key_id is not None
        # Forged rows: a ghost inserted by SQL, and an edit of who registered whom.
        body = row.body.replace("floor-fay", "ghost-z")
        app.principals.register.db.execute(
            f"INSERT INTO {app.principals.register.db.name} (seq, at, kind, principal_id, body, "
            f"prev_hash, row_hash) VALUES ({app.principals.register.db.marks(7)})",
            (row.seq + 1, row.at, "add", "ghost-z", body, row.row_hash, "f" * 64))
        fresh = LedgerApp(store_settings)
        try:
            with pytest.raises(LedgerError) as err:
                fresh.principals.state()
            assert err.value.code == "register_broken"
            found = [d for d in verify(fresh).discrepancies if d.kind == "register_broken"]
            assert found and found[0].expected["version"] == row.seq + 1, found
        finally:
            fresh.close()
    finally:
        app.close()


def test_approvals_from_before_signatures_stay_valid(store_settings: Settings) -> None:
    """A store from before signatures: its approved events carry no signatures and its
    principals no keys. Opened by this ledger, the register's epoch imports the principals;
    the audit shows those approvals as unsigned (before signatures), never as tampering, and
    the principals approve nothing new until an admin gives them a key."""
    from ledger.domain.commands import ChangeConfig
    from ledger.store.sidetables import SideTable

    app = LedgerApp(store_settings)
    try:
        t = _misread(app)
        t.do(ChangeConfig, config={"max_aggregate_payout": 500_000}, approver=ANNA,
             reason="new cap")
        tid = table_id("CSP-C")
        for row in app.recorder.select_events(tid):
            data = json.loads(bytes(row.state))
            if "approval" in data:
                text = json.dumps(data["approval"], separators=(",", ":"), ensure_ascii=False)
                tamper.replace_in_event(app, tid, row.originator_version,
                                        f',"approval":{text}', "")
        tamper.rechain(app, tid, 1)
        tamper.rewrite_command_log(app, tid)
        register = app.principals.register.db
        register.execute(f"DELETE FROM {register.name} WHERE seq > {register.p}", (0,))
        legacy = SideTable(app.recorder, "ledger_principals")
        for who in (ANNA, BRAM):
            legacy.execute(f"INSERT INTO {legacy.name} (principal_id, name, role, created_at, "
                           f"created_by) VALUES ({legacy.marks(5)})",
                           (who, who, "supervisor", "2026-01-01T00:00:00+00:00", "cli:ops"))
    finally:
        app.close()
    old = LedgerApp(store_settings)
    try:
        report = verify(old)
        assert report.ok, report.discrepancies
        assert [u["event"] for u in report.unsigned_before] == ["ConfigChanged"]
        assert old.principals.get(ANNA).public_key is None
        with pytest.raises(LedgerError) as err:
            Approvals(old).propose(ChangeConfig(command_id="c2", table="CSP-C", approver=ANNA,
                                                config={"max_aggregate_payout": 400_000}),
                                   actor=old.actor)
        assert err.value.code == "approver_without_key"
        assert [r.kind for r in old.principals.register.rows()] == ["epoch"]
    finally:
        old.close()


def test_a_device_proposes_a_fill_and_each_signer_approves_it(
        api: tuple[TestClient, Tokens]) -> None:
    """INV-2 over HTTP: the device names the two signers; nothing moves until each has signed
    with their own key, the second signature carries it out; the same command id again is the
    first answer."""
    client, tokens = api
    ledger = ledger_of(client)
    ring = with_supervisors(ledger, {"floor-fay": ("Fay", "floor"), "floor-gus": ("Gus", "floor")})
    client.post("/tables", json={"command_id": "o", "table": "RT-1", "game": "caribbean-stud"},
                headers=bearer(tokens.admin))
    fill = {"command_id": "fill-1", "chips": {"2500": 4}, "signers": ["floor-fay", "floor-gus"]}
    held = client.post("/tables/RT-1/fills", json=fill, headers=bearer(tokens.device))
    assert held.status_code == 202 and held.json()["needs"] == ["floor-fay", "floor-gus"]
    proposal = held.json()
    version = ledger.load("RT-1").version
    for who in ("floor-fay", "floor-gus"):
        key = ring.get(who)
        assert key is not None
        answer = client.post(f"/proposals/{proposal['proposal_id']}/approvals",
                             json={"signature": key.sign(proposal["message"].encode())},
                             headers=bearer(approver_token(client, who)))
        assert answer.status_code == 200, answer.text
    assert answer.json()["status"] == "done" and ledger.load("RT-1").version == version + 1
    again = client.post("/tables/RT-1/fills", json=fill, headers=bearer(tokens.device))
    assert again.status_code == 200 and again.json()["replayed"] is True
    [event] = again.json()["events"]
    assert event["type"] == "TableFilled" and event["approval"]["proposer"].startswith("token:")
    assert verify(ledger).signatures_ok
