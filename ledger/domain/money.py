"""Money: chips as integer minor units (cents), never floats (COM-2).

Amounts are plain ``int`` minor units everywhere in the ledger (``amount_minor``); this module
parses and formats them, and holds the little arithmetic the rules need: ``N-1`` odds payouts,
basis-point percentages rounded down, and splits into whole chips.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from functools import cache

from ledger.domain.errors import InvalidInput

MINOR_PER_UNIT = 100
"""Minor units per unit of a two-decimal currency (EUR, USD, ...): the default."""
_AMOUNT = re.compile(r"^\s*(-)?(\d{1,15})(?:\.(\d{1,2}))?\s*$")


_MINOR_UNITS = {
    0: "BIF CLP DJF GNF ISK JPY KMF KRW PYG RWF UGX UYI VND VUV XAF XOF XPF",
    2: "AED AFN ALL AMD AOA ARS AUD AWG AZN BAM BBD BDT BMD BND BOB BOV BRL BSD BTN BWP BYN BZD "
       "CAD CDF CHE CHF CHW CNY COP COU CRC CUP CVE CZK DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP "
       "GEL GHS GIP GMD GTQ GYD HKD HNL HTG HUF IDR ILS INR IRR JMD KES KGS KHR KPW KYD KZT LAK "
       "LBP LKR LRD LSL MAD MDL MGA MKD MMK MNT MOP MRU MUR MVR MWK MXN MXV MYR MZN NAD NGN NIO "
       "NOK NPR NZD PAB PEN PGK PHP PKR PLN QAR RON RSD RUB SAR SBD SCR SDG SEK SGD SHP SLE SOS "
       "SRD SSP STN SVC SYP SZL THB TJS TMT TOP TRY TTD TWD TZS UAH USD USN UYU UZS VED VES WST "
       "XAD XCD XCG YER ZAR ZMW ZWG",
    3: "BHD IQD JOD KWD LYD OMR TND",
    4: "CLF UYW",
}
"""ISO 4217's currencies with minor units, by their number of decimals (funds and metals, which
have none, left out). Written out here rather than read from the ``iso4217`` package at each
start (its table is parsed from XML at import, a tenth of a short command's start); a test holds
it equal to that package's."""


@cache
def _exponents() -> dict[str, int]:
    return {code: places for places, codes in _MINOR_UNITS.items() for code in codes.split()}


def currencies() -> tuple[str, ...]:
    """Every ISO 4217 currency code with minor units (funds and metals left out)."""
    return tuple(sorted(_exponents()))


def minor_units(currency: str | None) -> int:
    """Decimal places of ``currency``'s minor unit (ISO 4217: EUR 2, JPY 0, KWD 3); two when
    no currency is named. An unknown code is ``unknown_currency``."""
    if currency is None:
        return 2
    try:
        return _exponents()[currency]
    except KeyError:
        raise InvalidInput(
            "unknown_currency",
            f"{currency!r} is not an ISO 4217 currency code with minor units (e.g. EUR, USD, "
            "JPY, KWD)", currency=currency,
        ) from None


def parse_amount(text: str | int) -> int:
    """``"12.50"`` -> 1250. At most two decimals; anything else is ``invalid_amount``."""
    if isinstance(text, int) and not isinstance(text, bool):
        return text * MINOR_PER_UNIT
    match = _AMOUNT.match(str(text).replace("_", "").replace(",", ""))
    if not match:
        raise InvalidInput(
            "invalid_amount",
            f"{text!r} is not an amount: write units with at most two decimals, e.g. 12.50",
            amount=str(text),
        )
    sign, units, cents = match.groups()
    value = int(units) * MINOR_PER_UNIT + int((cents or "0").ljust(2, "0"))
    return -value if sign else value


def to_decimal(amount_minor: int, currency: str | None = None) -> Decimal:
    """Minor units as an exact ``Decimal`` of currency units with the currency's decimals
    (ISO 4217; two when no currency is named), for exports."""
    places = minor_units(currency)
    return Decimal(amount_minor).scaleb(-places).quantize(Decimal(1).scaleb(-places))


def format_amount(amount_minor: int, currency: str | None = None, *,
                  code: bool = False) -> str:
    """1250 -> ``"12.50"``, in ``currency``'s decimals (JPY 1250 -> ``"1250"``, KWD 1250 ->
    ``"1.250"``); with ``code``, the currency follows (``"12.50 EUR"``). Thousands are not
    grouped (machine-friendly)."""
    text = str(to_decimal(amount_minor, currency))
    return f"{text} {currency}" if code and currency else text


def decimal_to_minor(value: Decimal | str) -> int:
    try:
        dec = Decimal(value)
    except InvalidOperation:
        raise InvalidInput("invalid_amount", f"{value!r} is not an amount") from None
    minor = dec * MINOR_PER_UNIT
    if minor != minor.to_integral_value():
        raise InvalidInput("invalid_amount", f"{value} has more than two decimals")
    return int(minor)


def odds_win(stake_minor: int, odds: int) -> int:
    """Winnings of a stake at ``odds``-1: N times the stake (COM-2); the stake is returned apart."""
    return stake_minor * odds


def bps(amount_minor: int, rate_bps: int) -> int:
    """``rate_bps`` basis points of an amount, rounded down to the minor unit."""
    return amount_minor * rate_bps // 10_000


def split_chips(amount_minor: int, ways: int, chip_unit: int) -> tuple[int, int]:
    """Split into ``ways`` equal shares of whole chips: (share each, odd chips left over).

    ``amount_minor`` need not be a multiple of ``chip_unit``; the remainder that is smaller than
    a chip is counted with the odd chips, so ``share * ways + odd == amount_minor``.
    """
    if ways <= 0:
        raise ValueError("ways must be positive")
    chips_each = amount_minor // chip_unit // ways
    share = chips_each * chip_unit
    return share, amount_minor - share * ways


_UNITS = re.compile(r"^(\d{1,18})(?:\.(\d+))?$")


def units_to_minor(text: str, currency: str | None = None) -> int:
    """An amount written in currency units, as minor units: ``"12.50"`` EUR -> 1250, ``"1250"``
    JPY -> 1250, ``"1.250"`` KWD -> 1250 (``,`` and ``_`` group thousands). At most the
    currency's decimals, never negative, at most 18 digits before the point; anything else is
    ``invalid_amount``, naming what is wrong."""
    places = minor_units(currency)
    shown = str(text).strip()
    match = _UNITS.match(shown.replace(",", "").replace("_", ""))
    if not match:
        raise InvalidInput("invalid_amount", f"{shown!r} is not an amount: write it in "
                           f"currency units, e.g. {'12.50' if places else '1250'}",
                           amount=shown)
    whole, fraction = match.group(1), (match.group(2) or "").rstrip("0")
    if len(fraction) > places:
        raise InvalidInput("invalid_amount", f"{shown}: {currency or 'the currency'} has "
                           f"{places} decimal{'' if places == 1 else 's'}", amount=shown,
                           currency=currency)
    scale: int = 10**places
    return int(whole) * scale + int(fraction.ljust(places, "0") or "0")
