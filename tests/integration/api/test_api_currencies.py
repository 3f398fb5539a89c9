"""Money is never a bare number (both stores): the same players at a EUR and a JPY table, and a
house-banked table that played without counting its tray. Every report, export and HTTP answer
gives each amount with its currency, sums none across currencies, and lists the table without
tray counts as incomplete with the reason (INV-4)."""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from ledger.api import create_app
from ledger.domain.commands import OpenTable
from ledger.settings import Settings
from ledger.sim.runner import simulate
from projections.exports.accounting import export_accounting
from projections.read.queries import ReadModel
from projections.reports.hold import hold_report
from projections.reports.inventory import inventory_report
from projections.reports.periods import period
from projections.reports.players import player_report
from projections.views.runner import Runner
from tests.support.http import Tokens, app_of, bearer, make_tokens

TABLES = {"EUR-1": "EUR", "JPY-1": "JPY", "CSP-1": "EUR", "HCF-1": "JPY"}


@pytest.fixture
def api(store_settings: Settings) -> Iterator[tuple[TestClient, Tokens, str]]:
    app = create_app(store_settings)
    tokens = make_tokens(app, list(TABLES))
    with TestClient(app, raise_server_exceptions=False) as client:
        ledger = app_of(client).state.ledger
        ledger.execute(OpenTable(command_id="open-jpy", table="JPY-1", game="stud-hilo",
                                 currency="JPY", config={}))
        ledger.execute(OpenTable(command_id="open-hcf", table="HCF-1", game="high-card-flush",
                                 currency="JPY", config={}))
        simulate(ledger, "stud-hilo", "JPY-1", 4, players=3, seed=3)
        simulate(ledger, "stud-hilo", "EUR-1", 3, players=3, seed=4)
        simulate(ledger, "caribbean-stud", "CSP-1", 3, players=2, seed=5)
        simulate(ledger, "high-card-flush", "HCF-1", 3, players=3, seed=6)
        Runner(ledger).catch_up()
        day = ReadModel(ledger).accounting()[0]["gaming_day"]
        yield client, tokens, day


def _amounts_have_currency(value: Any, currency: str | None = None) -> int:
    """How many ``*_minor`` amounts ``value`` holds; each must sit in an object that names its
    currency, or under one that does."""
    found = 0
    if isinstance(value, dict):
        currency = value.get("currency", currency)
        for key, item in value.items():
            if key.endswith("_minor") and item is not None and not isinstance(item, list | dict):
                assert currency, f"{key} without a currency in {value}"
                found += 1
            found += _amounts_have_currency(item, currency)
    elif isinstance(value, list):
        found += sum(_amounts_have_currency(item, currency) for item in value)
    return found


def test_every_amount_names_its_currency_and_none_is_summed_across_them(
        api: tuple[TestClient, Tokens, str], tmp_path: Path) -> None:
    client, tokens, day = api
    auth = bearer(tokens.accounting)
    players = client.get(f"/reports/players?day={day}", headers=auth).json()
    assert _amounts_have_currency(players) > 0
    alice = next(p for p in players["players"] if p["player"] == "player-01")
    assert sorted(t["currency"] for t in alice["by_currency"]) == ["EUR", "JPY"]
    assert "handle_minor" not in alice and "result_minor" not in alice  # no mixed sum
    for total in alice["by_currency"]:
        mine = [t for t in alice["by_table"] if t["currency"] == total["currency"]]
        assert total["handle_minor"] == sum(t["handle_minor"] for t in mine)
        assert total["result_minor"] == sum(t["result_minor"] for t in mine)
    for column in alice["columns"]:
        assert sorted(t["currency"] for t in column["by_currency"]) == ["EUR", "JPY"]
        assert "handle_minor" not in column

    for path in ("/reports/hold", "/reports/inventory"):
        body = client.get(f"{path}?day={day}", headers=auth).json()
        assert _amounts_have_currency(body) > 0, path
    inventory = client.get(f"/reports/inventory?day={day}", headers=auth).json()
    (csp,) = [r for r in inventory["rows"] if r["table"] == "CSP-1"]
    assert csp["status"] == "incomplete" and "no opening and no closing count" in csp["reason"]
    assert csp["currency"] == "EUR" and csp["drop_minor"] > 0
    assert inventory["totals"][0]["currency"] == "EUR"
    dp = client.get(f"/accounting/dp-results?day={day}", headers=auth).json()
    assert dp and all(r["currency"] == "JPY" for r in dp)

    written = export_accounting(ReadModel(app_of(client).state.ledger), day, tmp_path)
    for w in written:
        if w.path.suffix == ".jsonl":
            rows = [json.loads(line) for line in w.path.read_text().splitlines()]
        else:
            with w.path.open(encoding="utf-8-sig") as handle:
                rows = list(csv.DictReader(handle))
        assert all(r["currency"] in ("EUR", "JPY") for r in rows), w.path


def test_the_reports_themselves_group_per_currency(api: tuple[TestClient, Tokens, str]
                                                   ) -> None:
    """The same through the report functions (what the CLI's --json prints)."""
    client, _, day = api
    model = ReadModel(app_of(client).state.ledger)
    chosen = period(day=day)
    for report in (player_report(model, chosen), hold_report(model, chosen),
                   inventory_report(model, chosen)):
        assert _amounts_have_currency(report) > 0
    hold = {t["table"]: t for t in hold_report(model, chosen)["tables"]}
    assert {code: t["currency"] for code, t in hold.items()} == TABLES
