"""The audit's fast paths still find everything: records compared without serialising them,
each row's JSON parsed once for the chain and the decoding, tables audited in worker
processes (``--jobs``). Each kind of tampering gives the same report through every path."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from ledger.app.application import LedgerApp
from ledger.domain import records as r
from ledger.sim.runner import simulate
from ledger.table.events import table_id
from projections.audit import AuditReport, chain, parallel, verify
from projections.audit.chain import LogCopies, Versions
from projections.audit.compare import compare_one, same_values
from tests.support import tamper

CSP, HCF = "CSP-F", "HCF-F"


@pytest.fixture
def two_tables(app: LedgerApp) -> LedgerApp:
    simulate(app, "caribbean-stud", CSP, 5, seed=5)
    simulate(app, "high-card-flush", HCF, 4, seed=6)
    return app


def _settlement(app: LedgerApp, code: str) -> tuple[int, str, dict[str, Any]]:
    for row in app.recorder.select_events(table_id(code)):
        data = json.loads(row.state)
        for t in data.get("transfers", []) if row.topic.endswith(":HandSettled") else []:
            if t["dst"].startswith("player:"):
                return row.originator_version, json.dumps(t, separators=(",", ":")), t
    raise AssertionError(f"no settlement pays a player at {code}")


def _edit(app: LedgerApp) -> str:
    tamper.replace_in_event(app, table_id(CSP), 3, '"player":"', '"player":"x')
    return "event_edited"


def _delete(app: LedgerApp) -> str:
    tamper.delete_event(app, table_id(HCF), 9)
    return "event_deleted"


def _undecodable(app: LedgerApp) -> str:
    tamper.replace_in_event(app, table_id(HCF), 4, '"seat":', '"seat_no":')
    return "undecodable_event"


def _forged_payout(app: LedgerApp) -> str:
    """A payout raised, the chain and the command log recomputed: only the rules see it."""
    version, old, transfer = _settlement(app, CSP)
    new = old.replace(f'"amount":{transfer["amount"]}', f'"amount":{transfer["amount"] + 5}')
    tamper.replace_in_event(app, table_id(CSP), version, old, new)
    tamper.rechain(app, table_id(CSP), version)
    tamper.rewrite_command_log(app, table_id(CSP))
    return "transfer"


def _unbalanced(app: LedgerApp) -> str:
    """A wager whose stated amount is not what its transfer moves (conservation)."""
    for row in app.recorder.select_events(table_id(CSP)):
        if row.topic.endswith(":WagerPlaced"):
            amount = json.loads(row.state)["amount"]
            tamper.replace_in_event(app, table_id(CSP), row.originator_version,
                                    f'"amount":{amount},"transfers"',
                                    f'"amount":{amount + 1},"transfers"')
            return "amount_mismatch"
    raise AssertionError("no wager")


def _truncated(app: LedgerApp) -> str:
    tamper.delete_event(app, table_id(HCF), app.load(HCF).version)
    return "command_log_missing"


TAMPERS: dict[str, Callable[[LedgerApp], str]] = {
    "edited": _edit, "deleted": _delete, "undecodable": _undecodable,
    "forged payout": _forged_payout, "stated amount": _unbalanced,
    "truncated": _truncated,
}


def _summary(report: AuditReport) -> dict[str, Any]:
    data = report.as_dict()
    data["hands_open"] = report.hands_open
    return data


@pytest.mark.parametrize("name", sorted(TAMPERS))
def test_every_check_fires_in_one_process_and_in_workers(
    two_tables: LedgerApp, name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = two_tables
    assert verify(app).ok
    kind = TAMPERS[name](app)
    alone = verify(app)
    assert kind in {d.kind for d in alone.discrepancies}, alone.as_dict()
    monkeypatch.setattr(parallel, "MIN_EVENTS", 0)
    assert parallel.worth_it(app, 2, 2)
    spread = verify(app, jobs=2)
    assert _summary(spread) == _summary(alone)


def test_workers_are_handed_the_largest_tables_first_and_the_report_keeps_its_order(
    two_tables: LedgerApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    from projections.audit.reader import consistent_read

    app = two_tables
    simulate(app, "caribbean-stud", CSP, 12, seed=7)  # now the larger, and the later by id
    with consistent_read(app) as reader:
        sizes = reader.table_sizes()
        assert sizes == {tid: sum(1 for _ in reader.events(tid)) for tid in reader.table_ids()}
    handed: list[Any] = []
    from concurrent.futures import ProcessPoolExecutor

    submit = ProcessPoolExecutor.submit

    def record(pool: Any, fn: Any, tid: Any, *args: Any) -> Any:
        handed.append(tid)
        return submit(pool, fn, tid, *args)

    monkeypatch.setattr(ProcessPoolExecutor, "submit", record)
    monkeypatch.setattr(parallel, "MIN_EVENTS", 0)
    spread = verify(app, jobs=2)
    assert handed == sorted(sizes, key=lambda tid: -sizes[tid])
    assert handed != sorted(sizes)  # here the largest table is not the first by its id
    assert _summary(spread) == _summary(verify(app))
    assert spread.tables == verify(app).tables


def test_a_small_store_is_audited_in_this_process(two_tables: LedgerApp) -> None:
    assert not parallel.worth_it(two_tables, 2, 2)
    assert not parallel.worth_it(two_tables, 1, 2, min_events=0)
    assert not parallel.worth_it(two_tables, 2, 1, min_events=0)


def test_records_that_differ_anywhere_are_compared_field_by_field() -> None:
    move = r.Transfer(src="player:p1", dst="spot:1:ante", amount=10, rule="CSP-1")
    want = r.WagerPlaced(hand_no=1, seat=1, kind="ante", amount=10, transfers=(move,),
                         rule="CSP-1")
    same = r.WagerPlaced(hand_no=1, seat=1, kind="ante", amount=10, transfers=(move,),
                         rule="CSP-1")
    deeper = r.WagerPlaced(hand_no=1, seat=1, kind="ante", amount=10,
                           transfers=(move.model_copy(update={"amount": 11}),), rule="CSP-1")
    assert same_values(want, same)
    assert not same_values(want, deeper)
    found: list[tuple[str, Any, Any, str | None]] = []
    compare_one(want, same, lambda *item: found.append(item))
    assert found == []
    compare_one(want, deeper, lambda *item: found.append(item))
    assert [f[0] for f in found] == ["transfer"]


def test_the_command_log_is_read_only_as_far_as_the_stored_rows() -> None:
    read: list[int] = []

    def copies() -> Iterator[tuple[int, str]]:
        for version in (1, 2, 4, 3, 5, 9):  # 3 written late; 9 is not in the store
            read.append(version)
            yield version, f"d{version}"

    log = LogCopies(copies())
    assert log.take(1) == "d1" and read == [1]
    assert log.take(2) == "d2" and read == [1, 2]
    assert log.take(3) == "d3" and read == [1, 2, 4, 3]  # read ahead only to find it
    assert log.take(4) == "d4"
    assert log.take(6) is None  # no copy: command_log_unknown
    stored = Versions()
    for version in (1, 2, 3, 4, 6):
        stored.add(version)
    assert log.missing(stored) == [5, 9]
    assert [v for v in range(12) if v in stored] == [1, 2, 3, 4, 6]


def _log_check(rows: dict[int, str], result: str) -> list[tuple[str, Any, Any]]:
    """The command-log findings of ChainCheck over ``rows`` (version -> stored JSON) against
    one command-log row ``result``."""
    found: list[tuple[str, Any, Any]] = []

    def report(kind: str, hand: int | None, expected: Any, recorded: Any) -> None:
        if kind.startswith("command_log"):
            found.append((kind, expected, recorded))

    copies = dict(chain._copies(result))
    check = chain.ChainCheck(table_id(CSP), report, copies)
    for version, text in rows.items():
        check.feed(version, "ledger.domain.records:WagerPlaced", text.encode())
    check.finish()
    return found


def _written(rows: dict[int, str]) -> str:
    """A command-log row as the ledger writes it (CommandResult.to_json)."""
    parts = [f'{{"type":"WagerPlaced","version":{v},' + text[1:] for v, text in rows.items()]
    head = json.dumps({"command_id": "c", "command": "bet", "table": CSP, "table_version": 2})
    return head[:-1] + ',"events":[' + ",".join(parts) + "]}"


def test_the_command_log_is_compared_by_its_text_and_else_by_its_digest() -> None:
    rows = {1: '{"hand_no":1,"amount":10,"memo":"a \\"quoted\\" é"}',
            2: '{"hand_no":1,"amount":20,"rule":"CSP-1"}'}
    written = _written(rows)
    assert [v for v, c in chain._copies(written) if c.text is not None] == [1, 2]
    assert _log_check(rows, written) == []
    # the same content laid out otherwise (spaces, other key order): compared by digest, equal
    relaid = json.dumps({"command_id": "c", "events": [
        {"version": v, "type": "WagerPlaced", **dict(reversed(json.loads(t).items()))}
        for v, t in rows.items()]})
    assert [c.text for _, c in chain._copies(relaid)] == [None, None]
    assert _log_check(rows, relaid) == []
    # every change of content is a mismatch, on either path; 20 and 20.0 are not the same JSON
    for changed in (written.replace('"amount":20', '"amount":20.0'),
                    written.replace('"amount":20', '"amount":21'),
                    relaid.replace('"amount": 20', '"amount": 20.0'),
                    written.replace('"rule":"CSP-1"', '"rule":"CSP-1","x":true')):
        found = _log_check(rows, changed)
        assert [f[0] for f in found] == ["command_log_mismatch"], changed
        assert found[0][1]["content_sha256"] != found[0][2]["content_sha256"]
    # a copy nested in another object is not the row's events: its own events are read
    nested = _written(rows)[:-1] + ',"x":{"events":[]}}'
    assert _log_check(rows, nested) == []
    assert chain._events_of(nested) is None


def test_a_stored_event_with_its_own_version_key_is_compared_by_digest() -> None:
    rows = {1: '{"hand_no":1,"version":7}'}
    found = _log_check(rows, _written(rows))  # the row's own version wins in the log's JSON
    assert [f[0] for f in found] == ["command_log_unknown", "command_log_missing"]
    assert found[1][1]["versions"] == [7]
