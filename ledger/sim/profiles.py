"""How the simulator plays each game: its bot, a table configuration and a top-up policy."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ledger.domain.errors import NotFound
from ledger.games.base import TableView
from ledger.sim import chinese, hcf, stud8
from ledger.sim.base import Bot
from ledger.sim.caribbean import CaribbeanBot


@dataclass(frozen=True)
class TopUp:
    amount: int
    kind: str = "buy_in"


@dataclass(frozen=True)
class Profile:
    game: str
    code: str
    """Short table code prefix used by the demo (``CSP`` -> table ``CSP-1``)."""
    make_bot: Callable[[], Bot]
    players: int
    """Players seated by default."""
    top_up: Callable[[TableView, int], TopUp | None]
    """Chips to buy for a seat before a hand (None: the stack is fine)."""
    config: dict[str, Any] = field(default_factory=dict)
    """Table configuration the simulator opens with (game defaults otherwise)."""


def _stack_at_least(minimum: int, buy: int) -> Callable[[TableView, int], TopUp | None]:
    def top_up(table: TableView, seat: int) -> TopUp | None:
        return TopUp(buy) if table.seat_stack(seat) < minimum else None

    return top_up


def _wrap(
    policy: Callable[[TableView, int], tuple[int, str] | None],
) -> Callable[[TableView, int], TopUp | None]:
    def top_up(table: TableView, seat: int) -> TopUp | None:
        wanted = policy(table, seat)
        return None if wanted is None else TopUp(amount=wanted[0], kind=wanted[1])

    return top_up


def _stud_top_up(table: TableView, seat: int) -> TopUp | None:
    """A seat that can no longer post an ante and two big bets buys a stack drawn by the stud
    bot's policy (short stacks one time in four, so all-ins and side pots happen)."""
    config = table.config
    if table.seat_stack(seat) >= config.ante + 2 * config.big_bet:
        return None
    rng = random.Random(table.hand_no * 31 + seat)
    return TopUp(amount=stud8.starting_stack(config, rng))


PROFILES: dict[str, Profile] = {
    "caribbean-stud": Profile(
        game="caribbean-stud",
        code="CSP",
        make_bot=CaribbeanBot,
        players=5,
        top_up=_stack_at_least(minimum=20_000, buy=100_000),
    ),
    "chinese-poker": Profile(
        game="chinese-poker",
        code="CHP",
        make_bot=chinese.ChineseBot,
        players=4,
        top_up=_wrap(chinese.top_up),
    ),
    "high-card-flush": Profile(
        game="high-card-flush",
        code="HCF",
        make_bot=hcf.HcfBot,
        players=6,
        top_up=_wrap(hcf.top_up),
        config={"rake": {"method": "i", "fee": 100}},
    ),
    "stud-hilo": Profile(
        game="stud-hilo",
        code="STUD8",
        make_bot=stud8.StudBot,
        players=8,
        top_up=_stud_top_up,
        config={"rake_bps": 500, "rake_cap": 300},
    ),
}


def profile_for(game: str) -> Profile:
    try:
        return PROFILES[game]
    except KeyError:
        raise NotFound(
            "unknown_game",
            f"no simulation for {game!r}; games: {', '.join(sorted(PROFILES))}",
            game=game,
        ) from None
