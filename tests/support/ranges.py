"""A table whose balance passes what the views' columns hold (a signed 64-bit integer)."""

from __future__ import annotations

from ledger.app.application import LedgerApp
from ledger.domain.commands import BuyIn, OpenTable, SeatPlayer


def balance_past_the_range(app: LedgerApp) -> int:
    """Open table ``T2`` and buy in 2**62 twice (each within the range, their sum past it),
    then 500; the version of the second large buy-in, the event the views must leave out."""
    app.execute(OpenTable(command_id="o", table="T2", game="caribbean-stud"))
    app.execute(SeatPlayer(command_id="s", table="T2", seat=1, player="p1"))
    for n in (1, 2):
        app.execute(BuyIn.model_construct(command_id=f"big{n}", table="T2", seat=1,
                                          amount=2**62, kind="buy_in"))
    app.execute(BuyIn(command_id="b3", table="T2", seat=1, amount=500))
    with app.reading("T2") as table:
        return int(table.version) - 1
