"""Corrections (COR-1): what one correction costs as a table's history grows.

A recorded Caribbean Stud table plays N hands (one seat, fixed cards); then the dealer card of
the last hand and of the first is corrected. Printed per size: each correction command (the
application finds the hand by a binary search, starts the state before it from the latest
snapshot, and looks for earlier corrections of the hand among the events since, decoding only
corrections), the audit of the table without the corrections and with them (the audit trusts
no snapshot: it starts from its own checkpoints), and the ratio.
Run: ``.venv/bin/python -O ops/bench/corrections.py``.
"""

from __future__ import annotations

import argparse
import itertools
import time

from _common import fresh_store, optimised

from ledger.app.application import LedgerApp
from ledger.domain.cards import parse_card, parse_cards
from ledger.domain.commands import (
    Act,
    BuyIn,
    Command,
    CorrectHand,
    DealCards,
    OpenTable,
    PlaceWager,
    Reveal,
    SeatPlayer,
    Settle,
    StartHand,
)
from ledger.domain.records import CardFix
from ledger.sim.principals import ensure_principals
from projections.audit import verify

_ids = itertools.count()


def run(app: LedgerApp, cls: type[Command], **fields: object) -> None:
    app.execute(cls(command_id=f"b{next(_ids)}", table="BENCH", **fields))


def play(app: LedgerApp, hands: int) -> None:
    ensure_principals(app, {"sup-1": ("Supervisor One", "supervisor")})
    run(app, OpenTable, game="caribbean-stud", config={"card_source": "recorded"})
    run(app, SeatPlayer, seat=1, player="p1")
    run(app, BuyIn, seat=1, amount=10**9)
    cards = {"1": parse_cards("As Ad Kc 7h 3d"), "dealer": parse_cards("Qs Kd 9c 5d 2h")}
    for _ in range(hands):
        run(app, StartHand)
        run(app, PlaceWager, seat=1, kind="ante", amount=1_000)
        run(app, DealCards, cards=cards)
        run(app, Act, seat=1, action="play")
        run(app, Reveal)
        run(app, Settle)


def measure(hands: int) -> str:
    """One size: play, audit, correct the last hand, audit again."""
    with fresh_store("sqlite") as settings:
        app = LedgerApp(settings)
        try:
            play(app, hands)
            started = time.perf_counter()
            verify(app, table="BENCH")
            before = time.perf_counter() - started
            fix = CardFix(target="dealer", recorded=parse_card("Qs"), actual=parse_card("Ah"))
            started = time.perf_counter()
            run(app, CorrectHand, hand=hands, fixes=(fix,), approvers=("sup-1",),
                reason="benchmark")
            correct = time.perf_counter() - started
            started = time.perf_counter()
            run(app, CorrectHand, hand=1, fixes=(fix,), approvers=("sup-1",),
                reason="benchmark")
            oldest = time.perf_counter() - started
            started = time.perf_counter()
            report = verify(app, table="BENCH")
            after = time.perf_counter() - started
            assert report.ok, report.discrepancies
            events = app.load("BENCH").version
        finally:
            app.close()
    return (f"  {hands:>6} hands {events:>7} events: correcting the last hand "
            f"{correct * 1000:6.1f} ms, the first {oldest * 1000:6.1f} ms; audit "
            f"{before:6.2f} s without, {after:6.2f} s with the two (x{after / before:.2f})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, nargs="+", default=[100, 400])
    args = parser.parse_args()
    print(f"corrections benchmark ({optimised()}), SQLite")
    for hands in args.hands:
        print(measure(hands))


if __name__ == "__main__":
    main()
