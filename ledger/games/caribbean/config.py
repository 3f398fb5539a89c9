"""Settings of a CyberCaribbean Stud table: Ante limits (COM-4), the Play paytable (CSP-4), the
jackpot (CSP-6) and the maximum aggregate payout (COM-7)."""

from __future__ import annotations

from typing import Final, Literal

from pydantic import Field, field_validator

from ledger.domain.bounds import Amount, AmountOrZero, BasisPoints, Odds
from ledger.domain.records import Record
from ledger.evaluation import caribbean as csp
from ledger.evaluation import high
from ledger.games.base import (
    ConfigBase,
    Limits,
)

GAME: Final = "caribbean-stud"
CATEGORY_LABELS = tuple(c.label for c in high.Category)


class JackpotConfig(Record):
    """The progressive side wager (CSP-6)."""

    enabled: bool = True
    """Whether the table offers the progressive side wager at all."""
    wager: Amount = 100
    """The side wager is exactly this amount (1.00)."""
    contribution_bps: BasisPoints = 7000
    """Share of each side wager that feeds the meter, rounded down; the rest goes to the house."""
    seed: AmountOrZero = 1_000_000
    """The meter at opening and after every 100% award (10,000.00)."""
    fixed_awards: dict[str, AmountOrZero] = Field(
        default_factory=lambda: {"flush": 5_000, "full_house": 10_000, "four_of_a_kind": 50_000}
    )
    """Awards the house pays, by line."""
    percent_awards_bps: dict[str, BasisPoints] = Field(
        default_factory=lambda: {"straight_flush": 1_000, "royal_flush": 10_000}
    )
    """Awards paid out of the meter, as basis points of the meter (rounded down)."""

    @field_validator("fixed_awards", "percent_awards_bps")
    @classmethod
    def _known_lines(cls, value: dict[str, int]) -> dict[str, int]:
        for line, amount in value.items():
            if line not in csp.JACKPOT_LINES:
                raise ValueError(f"unknown jackpot line {line!r}; lines: {csp.JACKPOT_LINES}")
            if amount < 0:
                raise ValueError(f"jackpot award for {line} is negative")
        return value


def _default_paytable() -> dict[str, int]:
    return {cat.label: odds for cat, odds in csp.DEFAULT_PLAY_PAYTABLE.items()}


class CaribbeanConfig(ConfigBase):
    game: Literal["caribbean-stud"] = GAME
    limits: dict[str, Limits] = Field(default_factory=lambda: {"ante": Limits(min=500, max=50_000)})
    """COM-4: the Ante's minimum and maximum (``ante`` is the only kind with limits; the Play is
    twice the Ante, CSP-2, and the jackpot wager is ``jackpot.wager``)."""
    play_paytable: dict[str, Odds] = Field(default_factory=_default_paytable)
    """Odds N (of N-1) paid on the Play wager by the player's hand category (CSP-4)."""
    jackpot: JackpotConfig = Field(default_factory=JackpotConfig)
    """CSP-6: the progressive side wager, its meter and its awards."""

    @field_validator("limits")
    @classmethod
    def _ante_limits(cls, value: dict[str, Limits]) -> dict[str, Limits]:
        if "ante" not in value:
            raise ValueError("the table must post Ante limits (COM-4)")
        unknown = set(value) - {"ante"}
        if unknown:
            raise ValueError(f"limits for unknown wagers {sorted(unknown)}; only 'ante' has limits")
        return value

    @field_validator("play_paytable")
    @classmethod
    def _complete_paytable(cls, value: dict[str, int]) -> dict[str, int]:
        unknown = set(value) - set(CATEGORY_LABELS)
        if unknown:
            raise ValueError(f"unknown hand categories {sorted(unknown)}")
        missing = set(CATEGORY_LABELS) - set(value)
        if missing:
            raise ValueError(f"paytable lacks {sorted(missing)}")
        if any(odds < 0 for odds in value.values()):
            raise ValueError("paytable odds must not be negative")
        return value
