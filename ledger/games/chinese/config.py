"""Chinese Poker table settings and the buy-in memory (CHP-4, CHP-8, CHP-11).

Settings (each change is an approved configuration change, COM-4):

- ``scoring``: ``mandarin`` (default) or ``basic`` (CHP-4).
- ``point_value``: minor units per point (CHP-8), default 100 (1.00 a point).
- ``fee``: the fixed fee per player per hand (CHP-11), default 0.

Fixed by the rule book, not settings: the buy-in of 20 points (CHP-8), the foul penalty of 6
(CHP-3), the bonuses (CHP-5) and the automatic-win points (CHP-7).

Decisions where the rule book is silent (CHP-8):

- A full buy-in (kind ``buy_in``) is exactly 20 points in chips. A player may buy in fully at
  any time between hands, also on top of chips already held.
- A *short buy* (kind ``short_buy``) is a buy of a whole number of points, at least one and
  fewer than the 20 of a full buy-in. A player may make one short buy after each full buy-in: a
  full buy-in opens one short buy, a short buy uses it, and a second short buy needs a new full
  buy-in in between. A player's first buy at the table must be a full one. The memory is kept per
  player (not per seat), so changing seats does not reset it.
- Buy-ins are whole points (a multiple of ``point_value``).
- There are no wagers in Chinese Poker, so the table posts no wager limits (COM-4), and the
  COM-7 cap, which only counts wagers the house or a designated player banks, does not apply:
  both settings are refused rather than silently ignored.
"""

from __future__ import annotations

from typing import Final, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from ledger.domain.bounds import Amount, AmountOrZero
from ledger.domain.errors import RuleViolation
from ledger.domain.frozen import replaced
from ledger.domain.records import ChipsBoughtIn, Record
from ledger.games.base import ConfigBase, Limits

GAME: Final = "chinese-poker"
BUY_IN_POINTS = 20
"""CHP-8: a full buy-in is 20 points in chips."""
BUY_IN = "buy_in"
SHORT_BUY = "short_buy"
BUY_IN_KINDS = (BUY_IN, SHORT_BUY)

Scoring = Literal["basic", "mandarin"]


class ChineseConfig(ConfigBase):
    """The settings of a Chinese Poker table (CHP-4, CHP-8, CHP-11)."""

    game: Literal["chinese-poker"] = GAME
    scoring: Scoring = "mandarin"
    """CHP-4: ``basic`` counts segments only; ``mandarin`` adds the scoop, CHP-5 and CHP-6."""
    point_value: Amount = 100
    """CHP-8: minor units per point."""
    fee: AmountOrZero = 0
    """CHP-11: fixed fee per player per hand, in minor units, taken before scoring."""

    @field_validator("limits")
    @classmethod
    def _no_limits(cls, value: dict[str, Limits]) -> dict[str, Limits]:
        if value:
            raise ValueError(
                "Chinese Poker has no wagers, so no wager limits (COM-4); the stake is the "
                "point value (CHP-8)"
            )
        return value

    @field_validator("max_aggregate_payout")
    @classmethod
    def _no_cap(cls, value: int | None) -> int | None:
        if value is not None:
            raise ValueError(
                "the COM-7 cap counts wagers the house or a designated player banks; in Chinese "
                "Poker players pay each other, table stakes cap the payments (CHP-8)"
            )
        return value

    @property
    def buy_in_amount(self) -> int:
        """CHP-8: the full buy-in, 20 points in chips."""
        return BUY_IN_POINTS * self.point_value


class BuyHistory(Record):
    """One player's buys at the table (CHP-8)."""

    full: int = 0
    short: int = 0
    short_buy_open: bool = False
    """True after a full buy-in until the short buy it allows is used."""


class ChineseMemo(BaseModel):
    """The table-level memory of the game: each player's buy history (CHP-8)."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    buys: dict[str, BuyHistory] = Field(default_factory=dict)


def evolve_memo(memo: ChineseMemo, record: Record) -> ChineseMemo:
    """Fold a buy-in into the history (CHP-8); every other record leaves the memo as it is."""
    if not isinstance(record, ChipsBoughtIn) or record.kind not in BUY_IN_KINDS:
        return memo
    before = memo.buys.get(record.player, BuyHistory())
    if record.kind == BUY_IN:
        after = replaced(before, full=before.full + 1, short_buy_open=True)
    else:
        after = replaced(before, short=before.short + 1, short_buy_open=False)
    return replaced(memo, buys={**memo.buys, record.player: after})


def check_whole_points(config: ChineseConfig, amount: int, kind: str) -> None:
    """COR-2 with CHP-8: a corrected buy-in or cash-out moves whole points."""
    if amount % config.point_value:
        raise RuleViolation(
            "amount_not_whole_points",
            f"a {kind.replace('_', '-')} moves whole points of {config.point_value}: {amount} "
            "is not (CHP-8, COR-2)", amount=amount, point_value=config.point_value,
            rule="CHP-8",
        )


def check_buy_in(config: ChineseConfig, memo: ChineseMemo, player: str, amount: int,
                 kind: str) -> None:
    """CHP-8: a full buy-in is exactly 20 points; one short buy (1 to 19 points) after each."""
    if kind not in BUY_IN_KINDS:
        raise RuleViolation(
            "unknown_buy_in_kind",
            f"Chinese Poker buy-ins are {' or '.join(BUY_IN_KINDS)}, not {kind!r} (CHP-8)",
            kind=kind, rule="CHP-8",
        )
    points, rest = divmod(amount, config.point_value)
    if rest:
        raise RuleViolation(
            "buy_in_not_whole_points",
            f"buy-ins are whole points of {config.point_value}; {amount} is not (CHP-8)",
            amount=amount, point_value=config.point_value, rule="CHP-8",
        )
    if kind == BUY_IN:
        if amount != config.buy_in_amount:
            raise RuleViolation(
                "wrong_buy_in_amount",
                f"the buy-in is {BUY_IN_POINTS} points, {config.buy_in_amount} in chips; "
                f"{amount} was offered (CHP-8)",
                amount=amount, required=config.buy_in_amount, rule="CHP-8",
            )
        return
    if not 1 <= points < BUY_IN_POINTS:
        raise RuleViolation(
            "wrong_short_buy_amount",
            f"a short buy is 1 to {BUY_IN_POINTS - 1} points; {points} were offered (CHP-8)",
            amount=amount, points=points, rule="CHP-8",
        )
    history = memo.buys.get(player, BuyHistory())
    if not history.short_buy_open:
        reason = "has not bought in fully" if not history.full else (
            "has used the short buy allowed since the last full buy-in")
        raise RuleViolation(
            "short_buy_not_allowed",
            f"{player} {reason}; one short buy is allowed after each full buy-in (CHP-8)",
            player=player, rule="CHP-8",
        )
