"""Hostile requests to the HTTP API, as a careless client or an attacker holding a device token
would send them: every field of every command and every query parameter with huge, negative,
zero, fractional, string, boolean, null and unicode-edge values, oversized text and bodies,
and requests without a token or with a wrong one.

:func:`hostile_cases` lists them; :func:`run_cases` sends them and sorts every answer into
coded 4xx / uncoded 4xx / accepted / 500 / crash. The HTTP suite
(``tests/integration/api/test_api_fuzz.py``) asserts on the sort; ``python -m ops.hostile_tally``
prints the table for a closing note.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

INT64_PAST = 2**63
"""One past the largest signed 64-bit integer: what PostgreSQL's BIGINT and SQLite hold."""
NUMBERS: dict[str, Any] = {
    "int64_past": INT64_PAST,
    "huge": 10**30,
    "negative": -1,
    "zero": 0,
    "fraction": 1.5,
    "float_whole": 1e3,
    "string": "500",
    "bool": True,
    "null": None,
    "object": {},
}
TEXTS: dict[str, Any] = {
    "number": 5,
    "bool": True,
    "null": None,
    "list": ["a"],
    "lone_surrogate": "a\udfffb",
    "control": "a\x07b",
    "nul": "a\x00b",
    "bidi_override": "a\u202eb",
    "oversized": "x" * 10_000,
}
IDLE, HAND = "HOST-IDLE", "HOST-HAND"
SIGNERS = ["floor-1", "floor-2"]


@dataclass(frozen=True)
class Case:
    name: str
    method: str
    path: str
    body: Any = None
    """JSON value, or raw bytes sent as they are."""
    token: str = "device"
    """Which token: admin, device, auditor, accounting, none or wrong."""
    query: dict[str, Any] | None = None
    extra_headers: dict[str, str] = field(default_factory=dict)


def _command_cases(name: str, path: str, base: dict[str, Any], numbers: list[str],
                   texts: list[str], optional: tuple[str, ...] = (), token: str = "device",
                   others: dict[str, list[Any]] | None = None) -> Iterator[Case]:
    def body(key: str, value: Any, n: int) -> dict[str, Any]:
        fields = {**base, "command_id": f"{name}-{key}-{n}"}
        if "table" in base:  # a new table each time: a table made by one case refuses no other
            fields["table"] = f"{base['table']}-{n}"
        parts = key.split(".")
        node = fields
        for part in parts[:-1]:
            node[part] = dict(node.get(part) or {})
            node = node[part]
        node[parts[-1]] = value
        return fields

    n = 0
    for key in numbers:
        for label, value in NUMBERS.items():
            if label == "null" and key in optional:
                continue
            n += 1
            yield Case(f"{name}.{key}={label}", "POST", path, body(key, value, n), token)
    for key in ["command_id", *texts]:
        for label, value in TEXTS.items():
            if label == "null" and key in optional:
                continue
            n += 1
            case_body = body(key, value, n)
            yield Case(f"{name}.{key}={label}", "POST", path, case_body, token)
    for key, values in (others or {}).items():
        for i, value in enumerate(values):
            n += 1
            yield Case(f"{name}.{key}=other{i}", "POST", path, body(key, value, n), token)


def hostile_cases() -> list[Case]:
    """Every hostile case, in the order sent (commands on an idle table, then on a table with
    a hand in progress, then whole-request cases and query parameters)."""
    idle, hand = f"/tables/{IDLE}", f"/tables/{HAND}"
    tray = {"chips": {"500": 10}, "signers": SIGNERS}
    cases: list[Case] = []
    add = cases.extend
    add(_command_cases("open_table", "/tables", {"table": "HN", "game": "caribbean-stud"},
                       ["config.jackpot.seed", "config.jackpot.wager",
                        "config.limits.ante.max", "config.max_aggregate_payout"],
                       ["table", "game", "currency", "timezone", "opened_by"], token="admin"))
    add(_command_cases("change_config", f"{idle}/config",
                       {"config": {}, "approver": "floor-1", "reason": "r"},
                       ["config.jackpot.seed", "config.limits.ante.min"],
                       ["approver", "reason"], token="admin"))
    add(_command_cases("seat_player", f"{idle}/seats", {"seat": 5, "player": "p5"},
                       ["seat"], ["player"]))
    add(_command_cases("unseat_player", f"{idle}/departures", {"seat": 3, "reason": "left"},
                       ["seat"], ["reason"]))
    add(_command_cases("buy_in", f"{idle}/buy-ins", {"seat": 1, "amount": 1_000},
                       ["seat", "amount"], ["kind"]))
    add(_command_cases("cash_out", f"{idle}/cash-outs", {"seat": 1, "amount": 100},
                       ["seat", "amount"], [], optional=("amount",)))
    for tray_name, tray_path in (("fill", "fills"), ("credit", "credits")):
        add(_command_cases(tray_name, f"{idle}/{tray_path}", tray, ["chips.500"], [],
                           others={"signers": [["floor-1"], "floor-1", ["a\udfff", "b"],
                                               ["x" * 10_000, "y"]],
                                   "chips": [{"x": 1}, {"-5": 1}, {str(INT64_PAST): 1}, []]}))
    add(_command_cases("count_inventory", f"{idle}/inventory-counts",
                       {**tray, "moment": "opening"}, [], ["moment"]))
    add(_command_cases("start_hand", f"{hand}/hands", {}, [], []))
    add(_command_cases("place_wager", f"{hand}/hands/current/wagers",
                       {"seat": 1, "kind": "ante", "amount": 1_000},
                       ["seat", "amount"], ["kind"]))
    add(_command_cases("deal", f"{hand}/hands/current/deal", {}, [], [],
                       others={"cards": [{"1": ["As"] * 3}, {"1": ["Zz"]}, {"1": "As"},
                                         {"\udfff": ["As"]}, {"1": [5]}, {"x" * 10_000: []},
                                         {"1": ["As"] * 10_000}]}))
    add(_command_cases("act", f"{hand}/hands/current/actions",
                       {"seat": 1, "action": "play", "amount": 1_000},
                       ["seat", "amount"], ["action", "declaration"],
                       optional=("amount", "declaration"),
                       others={"front": [["As"] * 5, "As", [1], ["\udfff"]]}))
    add(_command_cases("reveal", f"{hand}/hands/current/reveal", {}, [], []))
    add(_command_cases("settle", f"{hand}/hands/current/settle", {}, [], []))
    add(_command_cases("void_hand", f"{hand}/hands/current/void", {"reason": "r"}, [],
                       ["reason", "approved_by"], optional=("approved_by",)))
    for token in ("none", "wrong"):
        cases.append(Case(f"buy_in.token={token}", "POST", f"{idle}/buy-ins",
                          {"command_id": f"t-{token}", "seat": 1, "amount": 100}, token))
        cases.append(Case(f"buy_in.token={token}+oversized_body", "POST", f"{idle}/buy-ins",
                          b'{"command_id": "' + b"x" * 2_000_000 + b'"}', token))
        cases.append(Case(f"buy_in.token={token}+not_json", "POST", f"{idle}/buy-ins",
                          b"{not json", token))
        cases.append(Case(f"tables.token={token}", "GET", "/tables", token=token))
    cases.append(Case("buy_in.oversized_body", "POST", f"{idle}/buy-ins",
                      b'{"command_id": "big", "seat": 1, "amount": 1, "kind": "'
                      + b"x" * 5_000_000 + b'"}'))
    cases.append(Case("buy_in.deep_json", "POST", f"{idle}/buy-ins",
                      b"[" * 50_000 + b"]" * 50_000))
    cases.append(Case("buy_in.bad_utf8", "POST", f"{idle}/buy-ins",
                      b'{"command_id": "\xff\xfe", "seat": 1, "amount": 1}'))
    cases.append(Case("buy_in.bad_content_length", "POST", f"{idle}/buy-ins", b"{}",
                      extra_headers={"Content-Length": "99999999999"}))
    cases.extend(_query_cases())
    return cases


QUERY_ROUTES: dict[str, list[str]] = {
    "/hands": ["table", "day", "game", "status", "player", "from", "to", "month", "rule",
               "cites", "won_min", "lost_min", "limit", "offset"],
    "/bankrolls": ["table", "prefix", "nonzero"],
    f"/tables/{HAND}/accounts/player:1/movements": ["limit", "offset", "after_version"],
    "/coverage": ["table", "day", "limit", "offset"],
    "/jackpot/moves": ["table", "day", "kind", "limit", "offset"],
    "/accounting": ["table", "day"],
    "/reports/hold": ["table", "day", "from", "to", "month"],
    "/reports/players": ["player", "day", "month"],
    "/reports/surveillance": ["table", "day", "from", "to", "month", "rate", "all"],
    "/audit/verify": ["table", "day"],
    f"/exports/hands/{'2026-01-01'}": ["format", "table"],
    f"/tables/{HAND}": ["public"],
}
QUERY_VALUES: dict[str, str] = {
    "int64_past": str(INT64_PAST),
    "negative": "-1",
    "fraction": "1.5",
    "text": "abc",
    "lone_surrogate": "%ED%BF%BF",
    "bad_percent": "%ff%fe",
    "control": "%07",
    "oversized": "x" * 5_000,
}


def _query_cases() -> Iterator[Case]:
    for route, params in QUERY_ROUTES.items():
        for param in params:
            for label, value in QUERY_VALUES.items():
                yield Case(f"GET {route}?{param}={label}", "GET", route, token="auditor",
                           query={param: value})
    paths = {
        "surrogate_code": "/tables/%ED%BF%BF",
        "huge_hand": f"/tables/{HAND}/hands/{INT64_PAST}",
        "negative_hand": f"/tables/{HAND}/hands/-1/replay",
        "bad_day": "/bankrolls/days/9999-99-99",
        "long_account": f"/tables/{HAND}/accounts/{'a' * 5_000}/movements",
        "bad_rule": "/rules/%00",
        "long_token": f"/tokens/{'x' * 5_000}",
    }
    for label, path in paths.items():
        yield Case(f"GET path {label}", "DELETE" if "tokens" in path else "GET", path,
                   token="admin" if "tokens" in path else "auditor")


# --- sending -------------------------------------------------------------------------------


FREE_TEXT_QUERY = frozenset({"game", "status", "player", "prefix", "kind"})
"""Query parameters that filter by any text: an unknown value finds nothing (200, empty)."""
PLAIN_TEXTS = frozenset({"int64_past", "negative", "fraction", "text", "bad_percent",
                         "lone_surrogate"})
"""Query values that are plain text once decoded (undecodable bytes become U+FFFD)."""


def acceptable(name: str) -> bool:
    """Whether case ``name`` is not hostile after all, so a 2xx answer is right: a zero where
    zero is a setting's value, null for an optional setting, plain text for a text filter."""
    if name.endswith(("jackpot.seed=zero", "max_aggregate_payout=null")):
        return True
    if name.startswith("GET /") and "?" in name:
        param, _, value = name.split("?", 1)[1].partition("=")
        return param in FREE_TEXT_QUERY and value in PLAIN_TEXTS
    return False


@dataclass
class Outcome:
    case: Case
    kind: str
    """coded_4xx, uncoded_4xx, accepted, 500 or crash."""
    status: int | None
    code: str | None
    seconds: float
    detail: str = ""


def classify(status: int, text: str) -> tuple[str, str | None]:
    try:
        code = json.loads(text)["error"]["code"]
    except (ValueError, KeyError, TypeError):
        code = None
    if status >= 500:
        return "500", code
    if status >= 400:
        return ("coded_4xx" if isinstance(code, str) and code else "uncoded_4xx"), code
    return "accepted", None


def send_case(client: Any, case: Case, tokens: dict[str, str]) -> Outcome:
    """Send one case through ``client`` (an httpx-like client, e.g. FastAPI's TestClient)."""
    headers = dict(case.extra_headers)
    if case.token != "none":
        headers["Authorization"] = f"Bearer {tokens.get(case.token, 'ltk_nope_wrong')}"
    kwargs: dict[str, Any] = {"headers": headers}
    if case.query is not None:
        # pre-encoded query: values such as a lone surrogate's bytes go on the wire as written
        path = case.path + "?" + "&".join(f"{k}={v}" for k, v in case.query.items())
    else:
        path = case.path
    if isinstance(case.body, bytes):
        kwargs["content"] = case.body
        headers.setdefault("Content-Type", "application/json")
    elif case.method == "POST":
        kwargs["content"] = json.dumps(case.body).encode()
        headers["Content-Type"] = "application/json"
    start = time.perf_counter()
    try:
        response = client.request(case.method, path, **kwargs)
    except Exception as exc:  # the server or the client broke: a crash
        return Outcome(case, "crash", None, None, time.perf_counter() - start,
                       f"{type(exc).__name__}: {str(exc)[:200]}")
    seconds = time.perf_counter() - start
    kind, code = classify(response.status_code, response.text)
    return Outcome(case, kind, response.status_code, code, seconds, response.text[:200])


def run_cases(client: Any, cases: list[Case], tokens: dict[str, str],
              after_accepted: Callable[[Case], None] | None = None) -> list[Outcome]:
    outcomes = []
    for case in cases:
        outcome = send_case(client, case, tokens)
        outcomes.append(outcome)
        if outcome.kind == "accepted" and after_accepted is not None:
            after_accepted(case)
    return outcomes


def tally(outcomes: list[Outcome]) -> Counter[str]:
    return Counter(o.kind for o in outcomes)




def refused_wrongly(outcomes: list[Outcome]) -> list[Outcome]:
    """Every outcome that is not a coded 4xx, for an assertion's message."""
    return [o for o in outcomes
            if o.kind != "coded_4xx" and not (o.kind == "accepted" and acceptable(o.case.name))]


# --- the tables the cases aim at, and the reads that must work afterwards ---------------------


def _post(client: Any, token: str, path: str, body: dict[str, Any]) -> Any:
    return client.post(path, json=body, headers={"Authorization": f"Bearer {token}"})


def prepare(client: Any, tokens: dict[str, str]) -> None:
    """Two Caribbean Stud tables: IDLE (three players with chips, no hand) and HAND (the same,
    with a hand started)."""
    for code in (IDLE, HAND):
        _post(client, tokens["admin"], "/tables",
              {"command_id": f"{code}-open", "table": code, "game": "caribbean-stud"})
        for seat in (1, 2, 3):
            _post(client, tokens["device"], f"/tables/{code}/seats",
                  {"command_id": f"{code}-s{seat}", "seat": seat, "player": f"p{seat}"})
            _post(client, tokens["device"], f"/tables/{code}/buy-ins",
                  {"command_id": f"{code}-b{seat}", "seat": seat, "amount": 1_000_000})
    restore(client, tokens)


def restore(client: Any, tokens: dict[str, str], _case: Case | None = None) -> None:
    """After a command was accepted: seats 1 to 3 seated again (with chips), and a hand in
    progress on HAND (so that a later case meets the check it aims at, not an empty seat)."""
    auditor = {"Authorization": f"Bearer {tokens['auditor']}"}
    for code in (IDLE, HAND):
        state = client.get(f"/tables/{code}", headers=auditor).json()
        seats = state.get("seats", {"1": "", "2": "", "3": ""})
        for seat in (1, 2, 3):
            if str(seat) not in seats:
                _post(client, tokens["device"], f"/tables/{code}/seats",
                      {"command_id": f"{code}-re{time.monotonic_ns()}", "seat": seat,
                       "player": f"p{seat}"})
                if seat != 3:
                    _post(client, tokens["device"], f"/tables/{code}/buy-ins",
                          {"command_id": f"{code}-rb{time.monotonic_ns()}", "seat": seat,
                           "amount": 1_000_000})
        if code == HAND and state.get("hand", 0) is None:
            _post(client, tokens["device"], f"/tables/{HAND}/hands",
                  {"command_id": f"{HAND}-h{time.monotonic_ns()}"})


READS = ("/tables", f"/tables/{HAND}", "/bankrolls", "/accounting", "/accounting/days",
         "/hands", "/coverage", "/jackpot", "/jackpot/moves", "/reports/hold?day={day}",
         "/audit/verify", "/exports/accounting/{day}", "/exports/hands/{day}",
         "/exports/workbook?day={day}")


def reads_after(client: Any, tokens: dict[str, str], day: str) -> dict[str, int]:
    """The status of every read and export of the day (as the auditor)."""
    auditor = {"Authorization": f"Bearer {tokens['auditor']}"}
    found = {}
    for path in READS:
        try:
            found[path] = client.get(path.format(day=day), headers=auditor).status_code
        except Exception:
            found[path] = -1
    return found


def rebuild(ledger: Any) -> str:
    """``ledger projections rebuild``, in process: "ok" or the failure's class and message."""
    from projections.views.runner import Runner

    try:
        runner = Runner(ledger)
        runner.reset()
        runner.catch_up()
    except Exception as exc:
        return f"{type(exc).__name__}: {str(exc)[:120]}"
    return "ok"
