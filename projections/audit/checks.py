"""Chip conservation, checked event by event while a table is replayed.

- every transfer moves a positive amount between two different, well-formed accounts, and the
  transfers of an event sum to zero;
- the amount an event states (a buy-in, a cash-out, a wager) is what its transfers move;
- no player stack, wager spot, bank, rake or jackpot account ever goes below zero;
- between hands every wager spot and the designated player's bank are empty;
- the sum of every account but the cage equals the net cage movements (buy-ins and fills less
  cash-outs and credits, INV-2/3, as the events state them), and the cage holds the opposite;
- a settled hand's rake lines add up to the rake account's change over the hand.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import lru_cache
from typing import Any, cast

from pydantic import BaseModel

from ledger.domain import accounts
from ledger.domain import records as r
from ledger.domain.accounts import net_flows
from projections.views.base import ancestry, field_of

_ACCOUNT = re.compile(r"^(cage|house|rake|jackpot|bank|player:.+|owed:.+|spot:\d+:.+)$")
NON_NEGATIVE = ("player:", "spot:", "bank", "rake", "jackpot")


@lru_cache(maxsize=8192)
def _well_formed(account: str) -> bool:
    """Whether ``account`` names an account of the ledger (a table has a few dozen: each is
    matched once)."""
    return _ACCOUNT.match(account) is not None

Report = Callable[[str, int | None, Any, Any, str | None], None]
"""``report(kind, hand, expected, recorded, rule)``."""


class Conservation:
    def __init__(self, report: Report) -> None:
        self.report = report
        self.bought = 0
        self.cashed = 0
        self._open: set[str] = set()
        """Problems already reported and not yet cleared (reported once, not at every event)."""

    def event(self, event: BaseModel, version: int) -> None:
        """Checks on one event by itself (before it is applied)."""
        isa = ancestry(event.__class__)  # isinstance by a set lookup (projections.views.base.Item)
        hand = field_of(event, "hand_no")
        transfers: tuple[r.Transfer, ...] = field_of(event, "transfers", ())
        if transfers:  # none: nothing to check, and they sum to zero
            for t in transfers:
                if t.amount <= 0 or t.src == t.dst or not (_well_formed(t.src)
                                                            and _well_formed(t.dst)):
                    self.report("transfer_invalid", hand, "a positive amount between two "
                                "different accounts", {"version": version, **t.model_dump()},
                                t.rule)
            unbalanced = sum(net_flows(transfers).values())
            if unbalanced != 0:
                self.report("transfers_unbalanced", hand, 0, unbalanced, None)
        if r.ChipsBoughtIn in isa or r.TableFilled in isa:  # chips from the cage
            amount = cast(r.ChipsBoughtIn | r.TableFilled, event).amount
            self.bought += amount
            self._stated(amount, transfers, accounts.CAGE, "out", version, None)
        elif r.ChipsCashedOut in isa or r.TableCredited in isa:  # chips back to the cage
            amount = cast(r.ChipsCashedOut | r.TableCredited, event).amount
            self.cashed += amount
            self._stated(amount, transfers, accounts.CAGE, "in", version, None)
        elif r.MovementCorrected in isa or r.OwedSettled in isa:  # COR-2/5: the cage moves
            self.bought += sum(t.amount for t in transfers if t.src == accounts.CAGE)
            self.cashed += sum(t.amount for t in transfers if t.dst == accounts.CAGE)
        elif r.WagerPlaced in isa:
            wager = cast(r.WagerPlaced, event)
            moved = sum(t.amount for t in transfers if accounts.is_spot(t.dst))
            if moved != wager.amount:
                self.report("amount_mismatch", hand, {"version": version, "amount": moved},
                            {"version": version, "amount": wager.amount}, wager.rule)

    def _stated(self, amount: int, transfers: Sequence[r.Transfer], account: str, way: str,
                version: int, hand: int | None) -> None:
        moved = sum(t.amount for t in transfers
                    if (t.src if way == "out" else t.dst) == account)
        if moved != amount:
            self.report("amount_mismatch", hand, {"version": version, "amount": moved},
                        {"version": version, "amount": amount}, "COM-3")

    def balances(self, balances: Mapping[str, int], version: int, hand: int | None,
                 between_hands: bool, touched: Iterable[str] = ()) -> None:
        """Checks on the balances just after an event was applied (``touched``: the accounts
        the event moved; the others cannot have changed)."""
        negative = {a for a in self._open if not a.startswith("hand:")
                    and balances.get(a, 0) < 0}
        negative.update(a for a in touched if balances.get(a, 0) < 0
                        and a.startswith(NON_NEGATIVE))
        for account in sorted(negative - self._open):
            self.report("negative_balance", hand, {"account": account, "balance": ">= 0"},
                        {"account": account, "balance": balances[account], "version": version},
                        "COM-3")
        left = {a: b for a, b in balances.items() if accounts.is_hand_scoped(a) and b} if (
            between_hands) else {}
        still = {"hand:" + a for a in left}
        if left and not still <= self._open:
            self.report("hand_accounts_not_empty", hand, {}, {"version": version, **left},
                        "COM-3")
        self._open = negative | still

    def finish(self, balances: Mapping[str, int], hand: int | None) -> None:
        """At the end of the stream: every account but the cage sums to the net cage flow."""
        outside = sum(b for a, b in balances.items() if a != accounts.CAGE)
        net = self.bought - self.cashed
        if outside != net or balances.get(accounts.CAGE, 0) != -net:
            self.report("cage_mismatch", hand,
                        {"accounts_minor": net, "cage_minor": -net},
                        {"accounts_minor": outside,
                         "cage_minor": balances.get(accounts.CAGE, 0)}, "COM-3")


def rake_check(hand_events: Sequence[BaseModel], report: Report) -> None:
    """A settled hand's rake lines equal the rake account's change over the hand."""
    settled = next((e for e in hand_events if isinstance(e, r.HandSettled)), None)
    if settled is None:
        return
    flow = 0
    for event in hand_events:
        transfers: tuple[r.Transfer, ...] = field_of(event, "transfers", ())
        if transfers:
            flow += net_flows(transfers).get(accounts.RAKE, 0)
    lines = sum(line.amount for line in settled.rake)
    if lines != flow:
        rule = settled.rake[0].rule if settled.rake else None
        report("rake_mismatch", settled.hand_no, {"rake_lines_minor": lines},
               {"rake_account_change_minor": flow}, rule)
