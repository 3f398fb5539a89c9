"""Fuzzing the API from its own OpenAPI document (schemathesis): valid and invalid requests to
every operation, against a table with a hand in progress.

No answer is a 500, every answer matches the document (status, content type, body schema), and
a refused request appends no event. ``LEDGER_FUZZ_EXAMPLES`` sets the examples per operation
(default 20; e.g. 500 for a long run); ``LEDGER_FUZZ_RANDOM=1`` draws new examples each run
instead of the fixed ones.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
import schemathesis
from fastapi import FastAPI
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, settings

from ledger.api import create_app
from ledger.api.commands import ENDPOINTS
from ledger.settings import Settings
from projections.views.context import current_gaming_day
from tests.support import hostile
from tests.support.http import bearer, make_tokens

# The rules refuse many schema-valid commands (out of turn, above the limit ...) with a coded
# 422 or 409 by design: "schema-valid data must be accepted" does not hold for a ledger.
# Every case here is sent with a valid token of the right role (auth has its own tests), so the
# checks that probe missing or invalid credentials do not apply.
EXCLUDED = [
    schemathesis.checks.positive_data_acceptance,
    schemathesis.checks.ignored_auth,
    schemathesis.checks.missing_required_header,
]
EXAMPLES = int(os.environ.get("LEDGER_FUZZ_EXAMPLES", "20"))
CODES = ["FUZZ", "FUZZ-2"]


@dataclass
class FuzzEnv:
    app: FastAPI
    tokens: dict[str, str]
    """Token per operation path and method."""


@pytest.fixture
def fuzz_env(store_settings: Settings) -> Iterator[FuzzEnv]:
    app = create_app(store_settings)
    made = make_tokens(app, CODES)
    with TestClient(app) as client:
        client.post("/tables", json={"command_id": "f-open", "table": "FUZZ",
                                     "game": "caribbean-stud"}, headers=bearer(made.admin))
        for seat in (1, 2, 3):
            client.post("/tables/FUZZ/seats", headers=bearer(made.device),
                        json={"command_id": f"f-s{seat}", "seat": seat, "player": f"p{seat}"})
            client.post("/tables/FUZZ/buy-ins", headers=bearer(made.device),
                        json={"command_id": f"f-b{seat}", "seat": seat, "amount": 100_000})
        client.post("/tables/FUZZ/hands", headers=bearer(made.device), json={"command_id": "f-h"})
        tokens = {e.path: made.admin if "admin" in e.roles else made.device for e in ENDPOINTS}
        tokens["/tokens"] = tokens["/tokens/{token_id}"] = made.admin
        yield FuzzEnv(app, {**tokens, "*": made.auditor})


@pytest.fixture
def fuzz_schema(fuzz_env: FuzzEnv) -> Any:
    # The document itself needs a token, like every route but /health.
    return schemathesis.openapi.from_asgi(
        "/openapi.json", fuzz_env.app, headers=bearer(fuzz_env.tokens["*"])
    )


schema = schemathesis.pytest.from_fixture("fuzz_schema")


@schema.parametrize()
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    derandomize=os.environ.get("LEDGER_FUZZ_RANDOM", "") == "",
)
def test_no_500_and_no_event_from_a_refused_request(case: Any, fuzz_env: FuzzEnv) -> None:
    params = dict(case.path_parameters or {})
    if "code" in params and len(repr(case.body)) % 3:
        params["code"] = "FUZZ"  # most cases aim at the table with a hand in progress
        case.path_parameters = params
    token = fuzz_env.tokens.get(case.operation.path, fuzz_env.tokens["*"])
    # Assigned on the case (not only sent), so the checks judge the request actually made.
    case.headers = {**(case.headers or {}), **bearer(token)}
    recorder = fuzz_env.app.state.ledger.recorder
    before = recorder.max_notification_id() or 0
    response = case.call()
    assert response.status_code < 500, response.text
    excluded = list(EXCLUDED)
    if any(isinstance(v, list) and len(v) <= 1 for v in (case.query or {}).values()):
        # A one-element (or empty) list for a text parameter is the text (or nothing) on the
        # wire: the server cannot see that the generator meant a list.
        excluded.append(schemathesis.checks.negative_data_rejection)
    case.validate_response(response, excluded_checks=excluded)
    if response.status_code >= 400:
        assert (recorder.max_notification_id() or 0) == before, response.text


# --- hostile requests, written by hand (tests/support/hostile.py) -----------------------------


def test_hostile_requests_are_coded_4xx_append_nothing_and_break_no_read(
    store_settings: Settings,
) -> None:
    """Every field of every command and every query parameter with huge, negative, zero,
    fractional, string, boolean, null and unicode-edge values, oversized text and bodies, no
    token and a wrong one: a coded 4xx each (never a 500), nothing appended by a refused one;
    afterwards every read and export answers and ``projections rebuild`` works."""
    app = create_app(store_settings)
    made = make_tokens(app, [hostile.IDLE, hostile.HAND])
    tokens = {"admin": made.admin, "device": made.device, "auditor": made.auditor,
              "accounting": made.accounting, "wrong": made.device[:-4] + "AAAA"}
    recorder = app.state.ledger.recorder
    outcomes, appended = [], []
    with TestClient(app) as client:
        hostile.prepare(client, tokens)
        for case in hostile.hostile_cases():
            before = recorder.max_notification_id()
            outcome = hostile.send_case(client, case, tokens)
            outcomes.append(outcome)
            if outcome.kind == "accepted":
                hostile.restore(client, tokens, case)
            elif recorder.max_notification_id() != before:
                appended.append(case.name)
        wrong = hostile.refused_wrongly(outcomes)
        assert not wrong, [(o.case.name, o.status, o.detail[:80]) for o in wrong]
        assert not appended
        assert {o.status for o in outcomes if o.case.token in ("none", "wrong")} == {401}
        assert {o.code for o in outcomes if "oversized_body" in o.case.name
                and o.case.token not in ("none", "wrong")} == {"body_too_large"}
        day = current_gaming_day("Europe/Amsterdam", store_settings.gaming_day_start)
        reads = hostile.reads_after(client, tokens, day)
        assert set(reads.values()) == {200}, reads
        assert hostile.rebuild(app.state.ledger) == "ok"
