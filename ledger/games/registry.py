"""The games the ledger knows, by their stable name."""

from __future__ import annotations

from typing import Any

from ledger.errors import NotFound
from ledger.games.base import Game
from ledger.games.caribbean import CaribbeanStud
from ledger.games.chinese import ChinesePoker
from ledger.games.hcf import HighCardFlush
from ledger.games.stud8 import StudHiLo

GAMES: dict[str, Game[Any, Any]] = {
    game.name: game
    for game in (
        CaribbeanStud(),
        HighCardFlush(),
        ChinesePoker(),
        StudHiLo(),
    )
}


def get_game(name: str) -> Game[Any, Any]:
    try:
        return GAMES[name]
    except KeyError:
        raise NotFound(
            "unknown_game", f"unknown game {name!r}; games: {', '.join(sorted(GAMES))}", game=name
        ) from None
