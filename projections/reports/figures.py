"""What the paytable reports share: exact rationals as fixed-point text, and how many hands the
simulated figures are worked out from."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction

SIMULATED_HANDS = {"caribbean-stud": 100_000, "high-card-flush": 20_000}
"""Hands played by the simulations behind the figures no enumeration gives (a strategy's
spread, the High Card Flush raise strategies)."""


def decimal(value: Fraction | float | int, places: int = 8) -> str:
    """An exact rational as fixed-point text, rounded half up."""
    fraction = Fraction(value)
    exact = Decimal(fraction.numerator) / Decimal(fraction.denominator)
    return format(exact.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP), "f")
