"""Drive a table through the application in a few lines (recorded cards, coded commands)."""

from __future__ import annotations

import itertools
from typing import Any

from ledger.access.keys import Keyring
from ledger.app.application import CommandResult, LedgerApp
from ledger.domain import accounts
from ledger.domain.cards import parse_cards
from ledger.domain.commands import (
    Act,
    BuyIn,
    Command,
    DealCards,
    OpenTable,
    SeatPlayer,
    Settle,
    StartHand,
)
from ledger.sim.principals import ensure_principals

_ids = itertools.count(1)


SUPERVISORS = {"sup-anna": "Anna (supervisor)", "sup-bram": "Bram (supervisor)"}
"""The principals the tests' approvals name (COM-4, COM-5, COR-4)."""


def with_supervisors(app: LedgerApp, extra: dict[str, tuple[str, str]] | None = None
                     ) -> Keyring:
    """The tests' supervisors (and ``extra``: id -> (name, role)) registered with keys the
    application holds: the commands that name them are signed in one step."""
    people = {p: (name, "supervisor") for p, name in SUPERVISORS.items()}
    return ensure_principals(app, {**people, **(extra or {})}, keyring=app.keyring)


def revoke(app: LedgerApp, principal_id: str) -> None:
    """Revoke a principal, signed by the tests' admin (whose key the application holds)."""
    from ledger.app.approvals import Approvals
    from ledger.sim.principals import ADMIN

    assert app.keyring is not None
    admin = app.keyring.get(ADMIN)
    assert admin is not None
    Approvals(app).change_register("revoke", {"id": principal_id}, admin, actor=app.actor)


class Driver:
    """One table of ``app``: open it (recorded cards unless told), seat and buy in players."""

    def __init__(self, app: LedgerApp, code: str, game: str, players: dict[int, int],
                 config: dict[str, Any] | None = None) -> None:
        self.app = app
        self.code = code
        with_supervisors(app)
        self.do(OpenTable, game=game, config={"card_source": "recorded", **(config or {})})
        for seat, chips in players.items():
            self.do(SeatPlayer, seat=seat, player=f"p{seat}")
            self.do(BuyIn, seat=seat, amount=chips)

    def do(self, cls: type[Command], **fields: Any) -> CommandResult:
        return self.app.execute(cls(command_id=f"c-{next(_ids)}", table=self.code, **fields))

    def deal(self, **cards: str) -> CommandResult:
        """``deal(**{"1": "As Kd ...", "dealer": "..."})``."""
        return self.do(DealCards, cards={k: parse_cards(v) for k, v in cards.items()})

    def balance(self, account: str) -> int:
        return self.app.load(self.code).state.balances.get(account, 0)

    def stack(self, seat: int) -> int:
        return self.balance(accounts.player(f"p{seat}"))

    @property
    def version(self) -> int:
        return self.app.load(self.code).version


def stud_hand(app: LedgerApp) -> Driver:
    """Seat 1 trips kings (the high); seats 2 and 3 tie for the low A-2-4-5-7 (STUD8-8)."""
    t = Driver(app, "STUD-C", "stud-hilo", {1: 20_000, 2: 20_000, 3: 20_000})
    t.do(StartHand)
    streets = [{"1": "Kc Kd Ks", "2": "Ah 2h 4d", "3": "As 2s 4h"},
               {"1": "9c", "2": "5c", "3": "5d"}, {"1": "9d", "2": "7s", "3": "7h"},
               {"1": "Tc", "2": "Qc", "3": "Qd"}, {"1": "Js", "2": "Jd", "3": "Jh"}]
    for cards in streets:
        t.deal(**cards)
        while (step := app.load("STUD-C").state.next_step()).kind == "act":
            actions = {o.action for o in step.options}
            choice = next(a for a in ("bring_in", "check", "call", "show") if a in actions)
            t.do(Act, seat=step.seats[0], action=choice)
    t.do(Settle)
    return t
