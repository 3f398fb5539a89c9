"""A gaming day for game protection: every cheat of :mod:`ledger.sim.cheats` among honest
players, each at a table of its game, dealers signing in and out (DLR-1). For the demo, the
surveillance tests and the power study (``ops/bench/surveillance.py``).

Each cheat is named by the flag that should find it (its kind, table and players or dealer);
:func:`play_day` returns, per cheat, the hands in which it cheated, so that a test can check
that the hands a flag lists are among them. With ``cheats=False`` the same tables are played by
honest players only (the false-positive study).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ledger.app.application import LedgerApp
from ledger.sim.cheats import Cheat
from ledger.sim.runner import simulate


@dataclass(frozen=True)
class Planted:
    """A cheat and the flag that should find it."""

    table: str
    game: str
    cheat: Cheat
    flag_kinds: tuple[str, ...]
    """A flag of any of these kinds finds it (a pair's in either order)."""
    players: tuple[str, ...] = ()
    dealer: str | None = None
    ordered: bool = False
    """The pair's order matters (a player and the DP whose hand it reads)."""

    def found_by(self, flag: Mapping[str, Any]) -> bool:
        """Whether ``flag`` (a flag of the surveillance report) names this cheat."""
        players = (tuple(flag["players"]) == self.players if self.ordered
                   else set(flag["players"]) == set(self.players))
        return (flag["kind"] in self.flag_kinds and flag["table"] in (self.table, None)
                and players and flag["dealer"] == self.dealer)


STUD_KINDS = ("stud_soft_fold", "stud_bet_behind", "stud_chips_passed")
PLANTED: tuple[Planted, ...] = (
    Planted("CSP-P", "caribbean-stud", Cheat("csp-hole-carder", ("player-03",)),
            ("csp_hidden_cards",), players=("player-03",)),
    Planted("CSP-R", "caribbean-stud", Cheat("overpaying-dealer", ("dlr-dee",)),
            ("dealer_hold",), dealer="dlr-dee"),
    Planted("HCF-P", "high-card-flush", Cheat("hcf-dp-reader", ("player-02",)),
            ("hcf_hidden_hand",), players=("player-02",)),
    Planted("HCF-Q", "high-card-flush", Cheat("hcf-dp-reader", ("player-03", "player-01")),
            ("hcf_dp_pair",), players=("player-03", "player-01"), ordered=True),
    Planted("STUD-D", "stud-hilo", Cheat("stud-chip-dumpers", ("player-01", "player-02")),
            STUD_KINDS, players=("player-01", "player-02")),
    Planted("STUD-S", "stud-hilo", Cheat("stud-soft-players", ("player-01", "player-02")),
            STUD_KINDS, players=("player-01", "player-02")),
    Planted("CHP-P", "chinese-poker", Cheat("chinese-partners", ("player-01", "player-02")),
            ("chinese_points_passed",), players=("player-01", "player-02")),
)


@dataclass(frozen=True)
class Table:
    game: str
    players: int
    hands: int
    dealers: tuple[str, ...]
    """Who deals, in turn, a third of the hands each (a crooked dealer of the table's cheats
    takes the last turn)."""


TABLES: Mapping[str, Table] = {
    "CSP-P": Table("caribbean-stud", 5, 60, ("dlr-ann", "dlr-bo")),
    "CSP-R": Table("caribbean-stud", 5, 60, ("dlr-cy",)),
    "HCF-P": Table("high-card-flush", 5, 60, ("dlr-ann", "dlr-cy")),
    "HCF-Q": Table("high-card-flush", 4, 120, ("dlr-bo",)),
    "STUD-D": Table("stud-hilo", 4, 60, ("dlr-bo", "dlr-eve")),
    "STUD-S": Table("stud-hilo", 4, 80, ("dlr-eve",)),
    "CHP-P": Table("chinese-poker", 4, 60, ("dlr-eve",)),
}
"""The day's tables: enough hands for every cheat at rate 1 to be flagged on most seeds (the
power study, ``ops/bench/surveillance.py``, gives the numbers)."""


def key(planted: Planted) -> str:
    return f"{planted.cheat.kind}:{','.join(planted.cheat.who)}"


def play_day(app: LedgerApp, seed: int, *, hands: Mapping[str, int] | None = None,
             cheats: bool = True, rate: float = 1.0, only: set[str] | None = None,
             on_table: Callable[[str, int], None] | None = None) -> dict[str, list[int]]:
    """Play the day's tables (``only``: these tables; ``hands``: other numbers of hands per
    table) with seeded shuffles; each table's
    cheats cheat in a share ``rate`` of their hands (none with ``cheats=False``). Returns the
    hands each cheat cheated in, by :func:`key`."""
    cheated: dict[str, list[int]] = {}
    for n, (table, spec) in enumerate(sorted(TABLES.items())):
        if only is not None and table not in only:
            continue
        count = (hands or {}).get(table, spec.hands)
        mine = [p for p in PLANTED if p.table == table] if cheats else []
        crooked = [p.dealer for p in mine if p.dealer]
        turns = len(spec.dealers) + len(crooked)
        stats = simulate(app, spec.game, table, count, players=spec.players,
                         seed=seed * 100 + n, seeded=True,
                         cheats=[Cheat(p.cheat.kind, p.cheat.who, rate) for p in mine],
                         dealers=spec.dealers, dealer_shift=max(-(-count // turns), 1))
        for planted in mine:
            cheated[key(planted)] = stats.cheated.get(
                f"{planted.cheat.kind}:{','.join(planted.cheat.who)}", [])
        if on_table is not None:
            on_table(table, count)
    return cheated
