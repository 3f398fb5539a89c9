"""COR-2, COR-3 and COR-5 in every game, on SQLite and PostgreSQL: a player's buy-in and
cash-out corrected by a linked movement (in whole chips or points where the game's stacks are
made of them), a player who has cashed out and left owing the difference, paid at the cage, a
seat's player corrected for ratings without moving a chip; the store's earlier rows unchanged
byte for byte after each correction, the audit clean, and a forged movement correction
reported."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from ledger.app.application import LedgerApp
from ledger.domain import accounts
from ledger.domain import records as r
from ledger.domain.commands import (
    BuyIn,
    CashOut,
    CorrectMovement,
    CorrectSeat,
    SettleOwed,
    StartHand,
    UnseatPlayer,
    VoidHand,
)
from ledger.domain.errors import LedgerError
from ledger.settings import Settings
from ledger.store.history import stream
from ledger.table.events import table_id
from projections.audit import verify
from projections.db import Store
from projections.read.queries import ReadModel
from projections.views.runner import Runner
from tests.integration.app.test_corrections import BOSS, stored
from tests.support import tamper
from tests.support.driver import Driver

GAMES = {
    # game: (each seat's first buy-in, the second buy-in's kind, an amount the game's stacks
    # cannot hold and the code refusing it, or None where any amount can be moved)
    "caribbean-stud": (50_000, "buy_in", None),
    "high-card-flush": (50_000, "buy_in", None),
    "stud-hilo": (20_000, "buy_in", (550, "amount_not_whole_chips")),  # STUD8-8
    "chinese-poker": (2_000, "short_buy", (550, "amount_not_whole_points")),  # CHP-8
}


@pytest.fixture
def app(store_settings: Settings) -> Iterator[LedgerApp]:
    ledger = LedgerApp(store_settings)
    yield ledger
    ledger.close()


@pytest.mark.parametrize("game", sorted(GAMES))
def test_movements_and_seats_corrected_in_every_game(app: LedgerApp, game: str) -> None:
    chips, second, odd = GAMES[game]
    code = f"COR-{game[:3].upper()}"
    t = Driver(app, code, game, {1: chips, 2: chips, 3: chips})
    t.do(StartHand)
    t.do(VoidHand, reason="shuffler fault")
    first_buys = {getattr(e, "seat"): e.originator_version  # noqa: B009
                  for e in stream(app, code) if isinstance(e, r.ChipsBoughtIn)}
    t.do(BuyIn, seat=1, amount=1_500, kind=second)
    buy_in = t.version
    t.do(CashOut, seat=2, amount=1_000)
    cash_out = t.version
    t.do(CashOut, seat=3)
    t.do(UnseatPlayer, seat=3)
    stacks = {s: t.stack(s) for s in (1, 2)}
    cage = t.balance(accounts.CAGE)
    rows = stored(app, code)

    def unchanged() -> None:
        assert stored(app, code)[: len(rows)] == rows

    if odd is not None:  # what really moved at the cage is chips the game's stacks hold
        amount, refusal = odd
        with pytest.raises(LedgerError) as err:
            t.do(CorrectMovement, version=buy_in, amount=amount, approvers=(BOSS,),
                 reason="keyed 15.00 for 5.50")
        assert err.value.code == refusal
        assert stored(app, code) == rows
    # COR-2: the second buy-in was 5.00 keyed as 15.00: 10.00 back to the cage
    t.do(CorrectMovement, version=buy_in, amount=500, approvers=(BOSS,),
         reason="keyed 15.00 for 5.00")
    unchanged()
    # the cage paid 15.00 for a cash-out keyed as 10.00: 5.00 from the stack
    t.do(CorrectMovement, version=cash_out, amount=1_500, approvers=(BOSS,),
         reason="cage paid 15.00")
    cash_fix = t.version
    unchanged()
    assert {s: t.stack(s) - stacks[s] for s in (1, 2)} == {1: -1_000, 2: -500}
    assert t.balance(accounts.CAGE) == cage + 1_500
    # COR-5: seat 3 has cashed out and left; its first buy-in brought 5.00 less than keyed
    t.do(CorrectMovement, version=first_buys[3], amount=chips - 500, approvers=(BOSS,),
         reason="5.00 short in the rack")
    unchanged()
    last = list(stream(app, code))[-1]
    assert isinstance(last, r.MovementCorrected)
    assert [(x.src, x.dst, x.amount, x.rule) for x in last.transfers] == [
        ("owed:p3", "cage", 500, "COR-5")]
    assert t.balance(accounts.owed("p3")) == -500
    t.do(SettleOwed, player="p3", approvers=(BOSS,), reason="paid back at the cage")
    assert t.balance(accounts.owed("p3")) == 0
    unchanged()
    # COR-3: seat 2 was carla in hand 1; no chip moves
    balances = dict(app.load(code).state.balances)
    t.do(CorrectSeat, seat=2, player="carla", from_hand=1, to_hand=1, approvers=(BOSS,),
         reason="carded under her husband's id")
    assert dict(app.load(code).state.balances) == balances
    unchanged()
    report = verify(app)
    assert report.ok, report.discrepancies

    Runner(app).catch_up()
    read = ReadModel(app)
    assert [(c["kind"], c["approvers"]) for c in read.corrections(table=code)] == [
        ("movement", [BOSS])] * 3 + [("owed", [BOSS]), ("seat", [BOSS])]
    seats = Store(app.recorder).fetchall(
        "SELECT seat, player FROM {proj_seat_hands} WHERE table_code = ? ORDER BY seat",
        (code,))
    assert [(x["seat"], x["player"]) for x in seats] == [(1, "p1"), (2, "carla"), (3, "p3")]

    # a forger sends the cash-out correction's 5.00 to the house instead of the cage
    tid = table_id(code)
    tamper.replace_in_event(app, tid, cash_fix, '"dst":"cage"', '"dst":"house"')
    tamper.rechain(app, tid, cash_fix)
    kinds = {(d.kind, d.rule) for d in verify(app).discrepancies}
    assert ("movement_correction", "COR-2") in kinds, kinds
