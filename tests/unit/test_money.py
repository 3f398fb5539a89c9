"""Money in integer minor units (COM-2)."""

import pytest

from ledger.errors import InvalidInput
from ledger.money import bps, format_amount, odds_win, parse_amount, split_chips


def test_com_2_amounts_parse_to_minor_units_and_format_back() -> None:
    assert parse_amount("12.50") == 1250
    assert parse_amount("12.5") == 1250
    assert parse_amount("7") == 700
    assert parse_amount("1,000.00") == 100000
    assert format_amount(1250) == "12.50"
    assert format_amount(-5) == "-0.05"
    assert format_amount(100000, "EUR") == "1000.00 EUR"


@pytest.mark.parametrize("bad", ["1.234", "abc", "", "1e5", "0.1.2"])
def test_com_2_bad_amounts_are_rejected(bad: str) -> None:
    with pytest.raises(InvalidInput) as err:
        parse_amount(bad)
    assert err.value.code == "invalid_amount"


def test_com_2_odds_pay_n_times_the_stake() -> None:
    assert odds_win(1000, 5) == 5000
    assert odds_win(1000, 1) == 1000


def test_bps_rounds_down() -> None:
    assert bps(999, 500) == 49
    assert bps(1000, 7000) == 700


def test_split_chips_keeps_every_minor_unit() -> None:
    share, odd = split_chips(1050, 2, 100)
    assert (share, odd) == (500, 50)
    share, odd = split_chips(700, 3, 100)
    assert share * 3 + odd == 700 and share == 200
