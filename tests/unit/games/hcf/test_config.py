"""The table settings (COM-4) of High Card Flush and their validation."""

from __future__ import annotations

from typing import Any

import pytest

from ledger.domain.commands import ChangeConfig, OpenTable
from ledger.domain.errors import LedgerError
from ledger.domain.records import ConfigChanged
from ledger.evaluation import hcf as ev
from ledger.games.hcf import HcfConfig
from ledger.games.registry import get_game
from ledger.table.state import TableState

from .helpers import TABLE, Table


def test_hcf_defaults_follow_the_rule_book() -> None:
    config = get_game("high-card-flush").default_config()
    assert isinstance(config, HcfConfig)
    assert config.flush_bonus_paytable == {7: 200, 6: 50, 5: 10, 4: 2}  # HCF-11
    assert config.straight_flush_bonus_paytable == {7: 1000, 6: 500, 5: 100, 4: 60, 3: 8}
    assert config.flush_bonus_paytable == dict(ev.DEFAULT_FLUSH_BONUS_PAYTABLE)
    assert config.coverage_policy == "in-order"  # HCF-12
    assert config.max_aggregate_payout is None  # COM-7
    assert (config.rake.method, config.rake.fee) == ("i", 0)  # HCF-13
    assert set(config.limits) == {"ante", "flush_bonus", "straight_flush_bonus"}


def test_hcf_config_survives_the_json_round_trip_of_the_stream() -> None:
    config = HcfConfig(flush_bonus_paytable={5: 12, 4: 3}, rake={"method": "iii", "fee": 25})
    assert HcfConfig.model_validate(config.model_dump(mode="json")) == config


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"flush_bonus_paytable": {3: 1}}, "flush_bonus_paytable"),  # HCF-11: 3 cards lose
        ({"straight_flush_bonus_paytable": {2: 5}}, "straight_flush_bonus_paytable"),  # HCF-10
        ({"flush_bonus_paytable": {4: 0}}, "flush_bonus_paytable"),
        ({"limits": {"flush_bonus": {"min": 1, "max": 5}}}, "limits"),  # COM-4: no Ante
        ({"limits": {"ante": {"min": 1, "max": 5}, "play": {"min": 1, "max": 5}}}, "limits"),
        ({"limits": {"ante": {"min": 0, "max": 5}}}, "limits"),
        ({"dp_minimum_bank": 400}, ""),  # below the Ante minimum of 500
        ({"coverage_policy": "pro-rata"}, "coverage_policy"),  # HCF-12
        ({"rake": {"method": "iv", "fee": 100}}, "rake.method"),  # HCF-13
        ({"rake": {"method": "i", "fee": -1}}, "rake.fee"),
    ],
)
def test_hcf_invalid_settings_are_refused(change: dict[str, Any], field: str) -> None:
    with pytest.raises(LedgerError) as err:
        TableState.open(OpenTable(command_id="o", table=TABLE, game="high-card-flush",
                                  config=change))
    assert err.value.code == "invalid_config"
    assert field in [p["field"] for p in err.value.details["problems"]]


def test_com_4_settings_change_between_hands_only() -> None:
    t = Table({1: 50_000, 2: 20_000})
    t.start()
    change = ChangeConfig(command_id="cc", table=TABLE, approver="floor",
                          config={"rake": {"method": "ii", "fee": 50}})
    with pytest.raises(LedgerError) as err:
        t.run(change)
    assert err.value.code == "config_change_mid_hand"
    t.act(1, "accept")
    t.close()
    (changed,) = t.run(change)
    assert t.config.rake.fee == 50
    assert isinstance(changed, ConfigChanged)
    assert changed.approver == "floor"
