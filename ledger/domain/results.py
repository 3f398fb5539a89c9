"""What each seat made or lost in a hand, from the hand's own transfers (pure).

``Outcome.amount`` tells how one wager ended, and its meaning varies by wager (a jackpot win
shows the award, a Chinese Poker pairing appears on both seats, a dead HCF hand shows what it
was denied). A seat's result does not: it is the seat's chips, counted once, over every
transfer of the hand from its start to its end:

- ``wagered``: chips the seat moved from its stack into the hand (antes, bets, plays, raises,
  side wagers, the chips put in play in Chinese Poker), fees excluded;
- ``fee``: what the seat itself paid the house for taking part (HCF-13, CHP-11); a rake taken
  from a shared pot (STUD8-11) is the table's ``rake`` line, not a seat's fee;
- ``returned``: its own chips that came back: pushed wagers, the stakes of winning wagers,
  dead hands (HCF-12), uncalled bets (STUD8-11), its own part of a pot it won back, the chips
  in play it did not lose (CHP-8), everything on a void (COM-5);
- ``won``: chips it received beyond its own: winnings paid by the house or the designated
  player, jackpot awards, points and pots won from the other players;
- ``withheld``: winnings a cap or a coverage test denied it (COM-7, HCF-12, CHP-8);
- ``net`` = ``won + returned - wagered - fee``: the change of its stack over the hand.

The table's lines are the ``house`` account's change, the ``designated_player``'s (HCF-14; that
seat is not among the seats), the ``rake`` account's and the ``jackpot`` meter's. Every chip of
the hand is on one of these lines, so the seats' nets and the table lines sum to zero.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ledger.domain import accounts
from ledger.domain import records as r


class SeatResult(BaseModel):
    """One seat's result over a hand (minor units; see the module for each field)."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    seat: int
    player: str
    wagered: int = Field(description="Chips moved from the stack into the hand, fees excluded.")
    fee: int = Field(description="What the seat paid the house for taking part (HCF-13, "
                     "CHP-11).")
    returned: int = Field(description="Its own chips that came back (pushes, stakes of winning "
                          "wagers, dead hands, uncalled bets, its part of a pot won, voids).")
    won: int = Field(description="Chips received beyond its own: winnings, jackpot awards, "
                     "points and pots won from others.")
    withheld: int = Field(description="Winnings a cap or the coverage denied it (COM-7, "
                          "HCF-12, CHP-8).")
    net: int = Field(description="won + returned - wagered - fee: the stack's change.")


class DesignatedPlayerResult(BaseModel):
    """The designated player's line (HCF-14): its stack's change over the hand."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    seat: int
    player: str
    net: int


class HandResults(BaseModel):
    """Every seat's result and the table's lines; ``sum(seat.net) + house +
    designated_player.net + rake + jackpot == 0``."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    hand_no: int
    status: str = Field(description="settled, voided or cancelled.")
    seats: tuple[SeatResult, ...]
    house: int = Field(description="The house account's change over the hand.")
    designated_player: DesignatedPlayerResult | None = None
    rake: int = Field(description="The rake account's change (every fee and pot rake).")
    jackpot: int = Field(description="The jackpot meter's change.")

    @property
    def total(self) -> int:
        dp = self.designated_player.net if self.designated_player is not None else 0
        return sum(s.net for s in self.seats) + self.house + dp + self.rake + self.jackpot


_ENDINGS = {r.HandSettled: "settled", r.HandVoided: "voided", r.HandCancelled: "cancelled"}
FEE_SPOT = "house_fee"
POOLED_SPOT = "pot"


@dataclass
class _Seat:
    seat: int
    player: str
    wagered: int = 0
    fee: int = 0
    own: int = 0
    """Received from its own wager spots."""
    pooled: int = 0
    """Received from the pooled spots (``spot:*:pot``) of a pooled game."""
    other: int = 0
    """Received from anything else (house, bank, jackpot, other seats' stakes)."""


@dataclass
class HandTally:
    """Folds a hand's records one at a time (the hands view keeps it between batches)."""

    hand_no: int = 0
    seats: dict[str, _Seat] = field(default_factory=dict)
    dp: str | None = None
    lines: dict[str, int] = field(default_factory=dict)

    def add(self, record: r.Record) -> None:
        if _special(record.__class__):
            self._special(record)
        for t in getattr(record, "transfers", ()):
            self._transfer(t)

    def _special(self, record: r.Record) -> None:
        if isinstance(record, r.HandStarted):
            self.hand_no = record.hand_no
            self.seats = {e.player: _Seat(e.seat, e.player) for e in record.seats}
        if isinstance(record, r.PlayerActed) and record.action == "accept":
            self.dp = next((p for p, s in self.seats.items() if s.seat == record.seat), None)

    def _transfer(self, t: r.Transfer) -> None:
        src, dst, amount = t.src, t.dst, t.amount
        lines = self.lines
        if src in _LINES:
            lines[src] = lines.get(src, 0) - amount
        if dst in _LINES:
            lines[dst] = lines.get(dst, 0) + amount
        payer = self._seat_of(src)
        if payer is not None:
            if dst == accounts.RAKE or dst == accounts.spot(payer.seat, FEE_SPOT):
                payer.fee += amount
            else:
                payer.wagered += amount
        payee = self._seat_of(dst)
        if payee is not None:
            if src == accounts.RAKE or src == accounts.spot(payee.seat, FEE_SPOT):
                payee.fee -= amount
            elif src.startswith(f"spot:{payee.seat}:") and not src.endswith(POOLED_SPOT):
                payee.own += amount
            elif src.startswith("spot:") and src.endswith(f":{POOLED_SPOT}"):
                payee.pooled += amount
            else:
                payee.other += amount

    def _seat_of(self, account: str) -> _Seat | None:
        if not account.startswith("player:"):
            return None
        return self.seats.get(account.split(":", 1)[1])

    def results(self, ending: r.HandRecord) -> HandResults:
        """The hand's results once ``ending`` (already added) closed it."""
        status = next(s for cls, s in _ENDINGS.items() if isinstance(ending, cls))
        outcomes = ending.outcomes if isinstance(ending, r.HandSettled) else ()
        rows: list[SeatResult] = []
        dp: DesignatedPlayerResult | None = None
        for player, s in self.seats.items():
            received = s.own + s.pooled + s.other
            net = received - s.wagered - s.fee
            if player == self.dp:
                dp = DesignatedPlayerResult(seat=s.seat, player=player, net=net)
                continue
            mine = [o for o in outcomes if o.seat == s.seat]
            if status != "settled":
                returned = received
            else:
                returned = s.own + min(s.pooled, _pooled_back(mine))
            rows.append(SeatResult(
                seat=s.seat, player=player, wagered=s.wagered, fee=s.fee, returned=returned,
                won=received - returned, net=net,
                withheld=sum(o.withheld for o in mine if o.result != "lose"),
            ))
        return HandResults(
            hand_no=self.hand_no, status=status, seats=tuple(sorted(rows, key=lambda x: x.seat)),
            house=self.lines.get(accounts.HOUSE, 0), designated_player=dp,
            rake=self.lines.get(accounts.RAKE, 0), jackpot=self.lines.get(accounts.JACKPOT, 0),
        )

    # --- keeping it between batches ------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        return {"hand_no": self.hand_no, "dp": self.dp, "lines": dict(self.lines),
                "seats": [[s.seat, s.player, s.wagered, s.fee, s.own, s.pooled, s.other]
                          for s in self.seats.values()]}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> HandTally:
        tally = cls(hand_no=int(data["hand_no"]), dp=data.get("dp"),
                    lines={str(k): int(v) for k, v in data["lines"].items()})
        for seat, player, *amounts in data["seats"]:
            tally.seats[player] = _Seat(int(seat), str(player), *(int(a) for a in amounts))
        return tally


_LINES = frozenset((accounts.HOUSE, accounts.RAKE, accounts.JACKPOT))


@cache
def _special(cls: type) -> bool:
    """Whether records of class ``cls`` change the tally other than by their transfers."""
    return issubclass(cls, (r.HandStarted, r.PlayerActed))


def _pooled_back(outcomes: Iterable[r.Outcome]) -> int:
    """Of what a seat received from a pooled game's pots, the part that was its own: the
    uncalled bet returned (STUD8-11) and, in each pot, its share up to what the pot paid it."""
    back = 0
    for o in outcomes:
        if o.wager == "uncalled":
            back += o.stake
        elif o.wager.startswith(POOLED_SPOT) and o.result not in ("lose", "forfeit"):
            back += min(o.stake, o.stake + o.amount)
    return back


def hand_results(records: Iterable[r.Record]) -> HandResults | None:
    """The results of a hand from its records in order (None while it has not ended)."""
    tally = HandTally()
    for record in records:
        tally.add(record)
        if isinstance(record, r.HAND_ENDINGS):
            return tally.results(record)
    return None
