"""The games the ledger knows, by their stable name.

A game's module is imported when its game is first asked for (:func:`get_game`): a command
about one table loads the rules of its game only. :data:`GAMES` (every game, in this order)
imports them all."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ledger.domain.errors import NotFound

if TYPE_CHECKING:
    from ledger.games.base import Game

    GAMES: dict[str, Game[Any, Any]]

_WHERE: dict[str, tuple[str, str]] = {
    "caribbean-stud": ("ledger.games.caribbean", "CaribbeanStud"),
    "high-card-flush": ("ledger.games.hcf", "HighCardFlush"),
    "chinese-poker": ("ledger.games.chinese", "ChinesePoker"),
    "stud-hilo": ("ledger.games.stud8", "StudHiLo"),
}
"""Each game's name -> (its module, its class)."""

_LOADED: dict[str, Game[Any, Any]] = {}


def find_game(name: str) -> Game[Any, Any] | None:
    """The game named ``name`` (one instance per name), or None for a game this build lacks."""
    game = _LOADED.get(name)
    if game is None:
        where = _WHERE.get(name)
        if where is None:
            return None
        game = _LOADED.setdefault(name, getattr(importlib.import_module(where[0]), where[1])())
    return game


def get_game(name: str) -> Game[Any, Any]:
    game = find_game(name)
    if game is None:
        raise NotFound(
            "unknown_game", f"unknown game {name!r}; games: {', '.join(sorted(_WHERE))}",
            game=name
        )
    return game


def __getattr__(name: str) -> Any:
    if name == "GAMES":
        games = {game: get_game(game) for game in _WHERE}
        globals()["GAMES"] = games
        return games
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
