"""Money in integer minor units (COM-2)."""

import pytest

from ledger.domain.errors import InvalidInput
from ledger.domain.money import bps, format_amount, odds_win, parse_amount, split_chips


def test_com_2_amounts_parse_to_minor_units_and_format_back() -> None:
    assert parse_amount("12.50") == 1250
    assert parse_amount("12.5") == 1250
    assert parse_amount("7") == 700
    assert parse_amount("1,000.00") == 100000
    assert format_amount(1250) == "12.50"
    assert format_amount(-5) == "-0.05"
    assert format_amount(100000, "EUR", code=True) == "1000.00 EUR"
    assert format_amount(1250, "JPY") == "1250" and format_amount(1250, "KWD") == "1.250"
    assert format_amount(-5, "KWD", code=True) == "-0.005 KWD"


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


def test_com_2_iso_4217_minor_units_and_unknown_codes() -> None:
    from ledger.domain.errors import LedgerError
    from ledger.domain.money import currencies, minor_units, to_decimal

    assert (minor_units("EUR"), minor_units("JPY"), minor_units("KWD")) == (2, 0, 3)
    assert "USD" in currencies() and "XAU" not in currencies()  # a metal has no minor unit
    assert str(to_decimal(123456, "KWD")) == "123.456" and str(to_decimal(7, "JPY")) == "7"
    for bad in ("ABC", "XAU", "eur"):
        with pytest.raises(LedgerError) as err:
            minor_units(bad)
        assert err.value.code == "unknown_currency"


def test_com_2_the_minor_units_are_iso_4217s() -> None:
    """The table written out in ``ledger.domain.money`` is the ``iso4217`` package's."""
    from iso4217 import Currency

    from ledger.domain.money import _exponents

    assert _exponents() == {c.code: c.exponent for c in Currency if c.exponent is not None}


def test_stud8_11_hcf_13_chp_11_rake_methods_in_one_form_in_currency_units() -> None:
    from projections.views.rake import method_text

    assert method_text("STUD8-11", "500 bps of the pot, cap 300, whole chips, main pot first",
                       "EUR") == "STUD8-11: 5.00% of the pot, at most 3.00 a hand, whole chips, " \
                                 "main pot first"
    assert method_text("STUD8-11", "250 bps of the pot, no cap, whole chips", "JPY") == \
        "STUD8-11: 2.50% of the pot, no cap, whole chips, main pot first"
    assert method_text("HCF-13", "ii", "EUR").startswith("HCF-13 (ii): every player pays")
    assert method_text("CHP-11", "fixed fee per player", "EUR") == \
        "CHP-11: a fixed fee per player per hand"


def test_com_2_amounts_typed_in_currency_units() -> None:
    """What the command line reads: units with at most the currency's decimals, never a
    negative or a malformed amount (``invalid_amount``)."""
    from ledger.domain.errors import InvalidInput
    from ledger.domain.money import units_to_minor

    assert units_to_minor("12.50", "EUR") == 1250
    assert units_to_minor("12.5", "EUR") == 1250 and units_to_minor("1,000", "EUR") == 100_000
    assert units_to_minor("1250", "JPY") == 1250 and units_to_minor("1.250", "KWD") == 1250
    assert units_to_minor("3.00", "JPY") == 3 and units_to_minor(" 7 ") == 700
    for text, currency in (("12.345", "EUR"), ("1.5", "JPY"), ("-5", "EUR"), ("1e3", "EUR"),
                           ("", "EUR"), ("abc", "EUR"), ("1" * 19, "EUR"), ("NaN", None)):
        with pytest.raises(InvalidInput) as found:
            units_to_minor(text, currency)
        assert found.value.code == "invalid_amount", text
