"""The tray of a simulated house-banked table (INV-1..3): counts that agree with the chips the
table's events moved, and fills from the cage.

The tray holds the house's chips at the table. Between two moments its content changes by the
fills, less the credits, less the chips handed to players for their buy-ins (the cash goes to
the drop box), plus what the house won on the hands (the house account's change through hand
events). :func:`tray_now` adds exactly that to the last opening count, from the table's stream.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from ledger.app.application import LedgerApp
from ledger.domain import accounts
from ledger.domain import records as r
from ledger.domain.commands import CountInventory, Fill
from ledger.store.history import stream

DENOMINATIONS = (10_000, 2_500, 500, 100, 25, 5, 1)
"""Chip values in minor units: 100.00, 25.00, 5.00, 1.00, 0.25, 0.05, 0.01."""
SIGNERS = {"count": ("dealer-ana", "floor-ben"), "fill": ("cage-cleo", "floor-ben")}
PEOPLE = {"dealer-ana": "Ana (dealer)", "floor-ben": "Ben (floor)", "cage-cleo": "Cleo (cage)"}
"""The signers' names, registered as floor principals (they sign for the tray, INV-1..3)."""


def register_signers(app: LedgerApp, directory: Path | None = None) -> None:
    """Register the simulation's signers as floor principals with keys, unless they already
    are (keys in ``directory`` when given: :func:`ledger.sim.principals.ensure_principals`);
    their counts and fills are then signed with those keys."""
    from ledger.sim.principals import ensure_principals

    ensure_principals(app, {p: (name, "floor") for p, name in PEOPLE.items()},
                      directory=directory, keyring=app.keyring)


def chips_for(amount: int) -> dict[int, int]:
    """``amount`` in as few chips as the denominations allow."""
    chips = {}
    left = amount
    for value in DENOMINATIONS:
        count, left = divmod(left, value)
        if count:
            chips[value] = count
    return chips


def tray_now(app: LedgerApp, code: str) -> int:
    """What the tray holds now: the last opening count plus what the events moved since."""
    tray: int | None = None
    for event in stream(app, code):
        if isinstance(event, r.InventoryCounted) and event.moment == "opening":
            tray = event.amount
            continue
        if tray is None:
            continue
        transfers: tuple[r.Transfer, ...] = getattr(event, "transfers", ())
        tray += accounts.net_flows(transfers).get(accounts.HOUSE, 0)
        if isinstance(event, r.ChipsBoughtIn):
            tray -= event.amount
    if tray is None:
        raise ValueError(f"table {code} has no opening count")
    return tray


def count(app: LedgerApp, code: str, moment: Literal["opening", "closing"], amount: int,
          command_id: str) -> None:
    app.execute(CountInventory(command_id=command_id, table=code, moment=moment,
                               chips=chips_for(amount), signers=SIGNERS["count"]))


def fill(app: LedgerApp, code: str, amount: int, command_id: str) -> None:
    app.execute(Fill(command_id=command_id, table=code, chips=chips_for(amount),
                     signers=SIGNERS["fill"]))
