"""Corrections (COR-1..5) through the application, on SQLite and PostgreSQL: a settled hand
settled again with the cards it really held, cash movements and seats corrected, the audit
recomputing each correction, and the stored events before a correction left exactly as they
were."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any
from unittest.mock import patch

import pytest

from ledger.app.application import LedgerApp
from ledger.domain import accounts
from ledger.domain import records as r
from ledger.domain.cards import parse_card, parse_cards
from ledger.domain.commands import (
    Act,
    BuyIn,
    CashOut,
    ChangeConfig,
    CorrectHand,
    CorrectMovement,
    CorrectSeat,
    CountInventory,
    Credit,
    DealCards,
    Fill,
    PlaceWager,
    Reveal,
    SeatPlayer,
    Settle,
    SettleOwed,
    StartHand,
    UnseatPlayer,
    VoidHand,
)
from ledger.domain.errors import LedgerError
from ledger.settings import Settings
from ledger.store.history import StorePast, stream
from ledger.table.events import table_id
from projections.audit import AuditReport, verify
from projections.db import Store
from projections.read.queries import ReadModel
from projections.views.runner import Runner
from tests.support.driver import Driver, revoke, stud_hand, with_supervisors

BOSS, DEPUTY = "sup-anna", "sup-bram"


@pytest.fixture
def app(store_settings: Settings) -> Iterator[LedgerApp]:
    ledger = LedgerApp(store_settings)
    yield ledger
    ledger.close()


def stored(app: LedgerApp, code: str) -> list[tuple[int, str, bytes]]:
    """Every stored row of the table, as the store holds it."""
    return [(s.originator_version, s.topic, bytes(s.state))
            for s in app.recorder.select_events(table_id(code))]


def fix(target: Any, recorded: str, actual: str) -> r.CardFix:
    return r.CardFix(target=target, recorded=parse_card(recorded), actual=parse_card(actual))


def caribbean_hand(t: Driver, dealer: str, seats: tuple[int, ...] = (1, 2)) -> None:
    """Seat 1: a pair of aces; seat 2: a king-high straight flush in hearts; both with the
    jackpot wager; the dealer's five cards as recorded."""
    t.do(StartHand)
    for seat in seats:
        t.do(PlaceWager, seat=seat, kind="ante", amount=1_000)
        t.do(PlaceWager, seat=seat, kind="jackpot", amount=100)
    cards = {"1": "As Ad Kc 7h 3d", "2": "9h Th Jh Qh Kh"}
    t.deal(**{str(s): cards[str(s)] for s in seats}, dealer=dealer)
    for seat in seats:
        t.do(Act, seat=seat, action="play")
    t.do(Reveal)
    t.do(Settle)


def test_caribbean_misread_dealer_card_corrected_with_the_jackpot_meter(app: LedgerApp) -> None:
    """CSP-3/4 with CSP-6: the dealer's Qs was an Ah (the shoe's log): the dealer qualifies
    after all, both Play wagers win instead of pushing; the straight flush's meter award is
    the one the meter paid then, though the meter has moved since, and the Play wager is paid
    at the paytable of the hand, though it has changed since; seat 2 has cashed out, so
    the house owes its player (COR-5); above 1,000.00 a second approver is needed (COR-4)."""
    t = Driver(app, "CSP-C", "caribbean-stud", {1: 100_000, 2: 100_000})
    caribbean_hand(t, dealer="Qs Kd 9c 5d 2h")
    first = next(e for e in stream(app, "CSP-C") if isinstance(e, r.HandSettled))
    assert isinstance(first, r.HandSettled)
    award = first.jackpot[0]
    assert award.line == "straight_flush" and award.source == "meter"
    plays = {o.seat: o.result for o in first.outcomes if o.wager == "play"}
    assert plays == {1: "push", 2: "push"}  # CSP-3: K-high dealer does not qualify
    t.do(CashOut, seat=2)
    t.do(UnseatPlayer, seat=2)
    paytable = {**app.load("CSP-C").state.config.play_paytable, "straight_flush": 40}
    t.do(ChangeConfig, config={"play_paytable": paytable}, approver=BOSS, reason="new sheet")
    caribbean_hand(t, dealer="2c 3c 4s 6d 8s", seats=(1,))  # the meter moves on
    meter_now = t.balance(accounts.JACKPOT)
    before = stored(app, "CSP-C")
    stack1 = t.stack(1)

    fixes = (fix("dealer", "Qs", "Ah"),)
    with pytest.raises(LedgerError) as refused:
        t.do(CorrectHand, hand=1, fixes=fixes, approvers=(BOSS,), reason="shoe log: Ah")
    assert refused.value.code == "second_approver_required"
    assert stored(app, "CSP-C") == before

    t.do(CorrectHand, hand=1, fixes=fixes, approvers=(BOSS, DEPUTY), reason="shoe log: Ah")
    corrected = list(stream(app, "CSP-C"))[-1]
    assert isinstance(corrected, r.HandCorrected)
    plays = {o.seat: (o.result, o.amount) for o in corrected.settlement.outcomes
             if o.wager == "play"}
    # pair 1-1, straight flush 50-1: the paytable in force when the hand was played, not the
    # 40-1 of the configuration changed since (COR-1)
    assert plays == {1: ("win", 2_000), 2: ("win", 100_000)}
    assert corrected.settlement.jackpot == first.jackpot
    assert {d.account: d.amount for d in corrected.differences} == {
        "player:p1": 2_000, "player:p2": 100_000, "house": -102_000}
    assert t.stack(1) == stack1 + 2_000
    assert t.balance(accounts.owed("p2")) == 100_000  # seat 2 cashed out: the house owes it
    assert t.balance(accounts.JACKPOT) == meter_now
    assert stored(app, "CSP-C")[: len(before)] == before
    report = verify(app)
    assert report.ok, report.discrepancies
    Runner(app).catch_up()
    [day] = ReadModel(app).accounting(table="CSP-C")  # the day's own correction line
    house_by_hands = sum(v for k, v in _house_flows(app, "CSP-C").items() if k != "correction")
    assert (day["house_win_minor"], day["corrections"], day["corrections_house_minor"],
            day["corrections_owed_minor"]) == (house_by_hands, 1, -102_000, 100_000)
    hand = ReadModel(app).hand("CSP-C", 1)
    assert hand["result"]["jackpot"] == [j.model_dump(mode="json") for j in first.jackpot]
    assert [c["approvers"] for c in hand["corrections"]] == [[BOSS, DEPUTY]]
    # COR-5: the player who left comes back to the cage and is paid what the house owes
    t.do(SettleOwed, player="p2", approvers=(BOSS, DEPUTY), reason="paid at the cage")
    assert t.balance(accounts.owed("p2")) == 0 and verify(app).ok
    Runner(app).catch_up()
    [day] = ReadModel(app).accounting(table="CSP-C")
    assert (day["corrections"], day["corrections_owed_minor"],
            day["corrections_cage_minor"]) == (2, 0, 100_000)


@pytest.mark.parametrize("recorded", ["straight_flush", "royal_flush"])
def test_caribbean_misread_player_card_changes_the_meter_award(app: LedgerApp,
                                                               recorded: str) -> None:
    """CSP-6/7 with COR-1/5: seat 2's first card was misread. Recorded as a straight flush
    (10% of the meter) it was a royal flush (all of the meter as it stood in the hand, reset
    to the seed by the house), or the other way round. The meter has taken another hand's
    contribution since: after the correction it holds what it would had the hand been read
    right (the seed and what came in since, or the meter less the 10%). The difference is far
    above 1,000.00: two approvers (COR-4). In the second case seat 2 has cashed out and left,
    so it owes the house what it was overpaid (COR-5)."""
    code = f"CSP-{recorded[:2].upper()}"
    t = Driver(app, code, "caribbean-stud", {1: 100_000, 2: 100_000})
    misread, actual = ("9h", "Ah") if recorded == "straight_flush" else ("Ah", "9h")
    t.do(StartHand)
    for seat in (1, 2):
        t.do(PlaceWager, seat=seat, kind="ante", amount=1_000)
        t.do(PlaceWager, seat=seat, kind="jackpot", amount=100)
    t.deal(**{"1": "As Ad Kc 7h 3d", "2": f"{misread} Th Jh Qh Kh",
              "dealer": "Qs Kd 9c 5d 2h"})
    for seat in (1, 2):
        t.do(Act, seat=seat, action="play")
    t.do(Reveal)
    t.do(Settle)
    first = next(e for e in stream(app, code) if isinstance(e, r.HandSettled))
    assert isinstance(first, r.HandSettled)
    [award] = first.jackpot
    seed, in_hand = 1_000_000, 1_000_000 + 140  # two contributions of 70 (CSP-6)
    assert (award.line, award.meter_before) == (recorded, in_hand)
    if recorded == "royal_flush":
        t.do(CashOut, seat=2)
        t.do(UnseatPlayer, seat=2)
    caribbean_hand(t, dealer="2c 3c 4s 6d 8s", seats=(1,))  # the meter moves on: +70
    stack2 = t.stack(2)
    before = stored(app, code)
    fixes = (fix(2, misread, actual),)
    with pytest.raises(LedgerError) as refused:
        t.do(CorrectHand, hand=1, fixes=fixes, approvers=(BOSS,), reason="shoe log")
    assert refused.value.code == "second_approver_required"

    t.do(CorrectHand, hand=1, fixes=fixes, approvers=(BOSS, DEPUTY), reason="shoe log")
    corrected = list(stream(app, code))[-1]
    assert isinstance(corrected, r.HandCorrected)
    [line] = corrected.settlement.jackpot
    tenth = in_hand // 10
    # the Play wager pushes either way: the dealer's king high does not qualify (CSP-3)
    if recorded == "straight_flush":
        assert (line.line, line.amount, line.meter_before, line.reset_to_seed) == (
            "royal_flush", in_hand, in_hand, True)
        gain = in_hand - tenth
        # the meter pays all it held instead of a tenth and the house puts the seed back: it
        # ends with the seed and the next hand's 70, as if the royal had been read right
        assert {d.account: d.amount for d in corrected.differences} == {
            "player:p2": gain, "jackpot": tenth - 140, "house": -seed}
        assert t.stack(2) == stack2 + gain
        assert t.balance(accounts.JACKPOT) == seed + 70
    else:
        assert (line.line, line.amount, line.reset_to_seed) == ("straight_flush", tenth, False)
        loss = in_hand - tenth
        assert {d.account: d.amount for d in corrected.differences} == {
            "player:p2": -loss, "jackpot": 140 - tenth, "house": seed}
        assert t.balance(accounts.owed("p2")) == -loss
        assert t.balance(accounts.JACKPOT) == in_hand - tenth + 70
    assert stored(app, code)[: len(before)] == before
    report = verify(app)
    assert report.ok, report.discrepancies


def _house_flows(app: LedgerApp, code: str) -> dict[str, int]:
    """The house account's change through hand events, and through corrections."""
    flows = {"hands": 0, "correction": 0}
    for event in stream(app, code):
        change = accounts.net_flows(getattr(event, "transfers", ())).get(accounts.HOUSE, 0)
        if isinstance(event, r.HandRecord):
            flows["hands"] += change
        elif isinstance(event, r.HandCorrected):
            flows["correction"] += change
    return flows


def test_com_6_a_player_who_left_during_the_hand_stays_left_in_its_correction(
        app: LedgerApp) -> None:
    """COM-6 with COR-1: seat 2 left after the deal (its Ante folded, its jackpot wager still
    collected); the hand is settled again with everything that happened at the table during
    it, the departure included, and the audit agrees."""
    t = Driver(app, "CSP-L", "caribbean-stud", {1: 100_000, 2: 100_000})
    t.do(StartHand)
    for seat in (1, 2):
        t.do(PlaceWager, seat=seat, kind="ante", amount=1_000)
    t.do(PlaceWager, seat=2, kind="jackpot", amount=100)
    t.deal(**{"1": "As Ad Kc 7h 3d", "2": "9h Th Jh Qh Kh", "dealer": "Qs Kd 9c 5d 2h"})
    t.do(UnseatPlayer, seat=2)
    t.do(Act, seat=1, action="play")
    t.do(Reveal)
    t.do(Settle)
    t.do(CorrectHand, hand=1, fixes=(fix("dealer", "Qs", "Ah"),), approvers=(BOSS,),
         reason="shoe log: Ah")
    corrected = list(stream(app, "CSP-L"))[-1]
    assert isinstance(corrected, r.HandCorrected)
    assert {(o.seat, o.wager): o.result for o in corrected.settlement.outcomes} == {
        (1, "ante"): "win", (1, "play"): "win", (2, "ante"): "lose", (2, "jackpot"): "forfeit"}
    assert {d.account: d.amount for d in corrected.differences} == {
        "player:p1": 2_000, "house": -2_000}
    assert verify(app).ok


def test_inventory_reconciles_with_the_days_corrections(app: LedgerApp) -> None:
    """INV-4 with COR-1/2: the tray paid the corrected Play win and really got half the fill
    keyed; the win by inventory matches the ledger's house win once the day's corrections
    count as what really happened."""
    from projections.reports.inventory import inventory_report
    from projections.reports.periods import period
    from projections.views.context import gaming_day

    t = Driver(app, "INV-C", "caribbean-stud", {})
    t.do(CountInventory, moment="opening", chips={10_000: 100}, signers=(BOSS, DEPUTY))
    t.do(SeatPlayer, seat=1, player="p1")
    t.do(BuyIn, seat=1, amount=100_000)
    caribbean_hand(t, dealer="Qs Kd 9c 5d 2h", seats=(1,))
    t.do(CorrectHand, hand=1, fixes=(fix("dealer", "Qs", "Ah"),), approvers=(BOSS,),
         reason="shoe log: Ah")
    t.do(Fill, chips={10_000: 10}, signers=(BOSS, DEPUTY))
    t.do(CorrectMovement, version=t.version, amount=50_000, approvers=(BOSS,),
         reason="half a rack")
    # 1,000,000 + 50,000 filled - 100,000 of chips for the buy-in - 970 the hand - 2,000 the
    # correction paid from the tray (the jackpot wager's 70 went to the meter)
    t.do(CountInventory, moment="closing", chips={10_000: 94, 100: 70, 10: 3},
         signers=(BOSS, DEPUTY))
    Runner(app).catch_up()
    day = next(e for e in stream(app, "INV-C")).timestamp
    [row] = inventory_report(ReadModel(app), period(
        day=gaming_day(day, "Europe/Amsterdam", app.settings.gaming_day_start)))["rows"]
    assert (row["drop_minor"], row["fills_minor"], row["inventory_win_minor"],
            row["ledger_win_minor"], row["corrections"], row["status"]) == (
        100_000, 50_000, -2_970, -2_970, 2, "reconciled")


def hcf_dp_hand(app: LedgerApp, code: str, antes: dict[int, int], seat3: str) -> Driver:
    """A High Card Flush hand with seat 1 as the DP (10,000), seats 2 and 3 (20,000 each)
    placing ``antes`` and raising the same again, seat 3 recorded with ``seat3``; settled."""
    t = Driver(app, code, "high-card-flush", {1: 10_000, 2: 20_000, 3: 20_000})
    t.do(StartHand)
    while app.load(code).state.hand.offered_to != 1:
        t.do(Act, seat=app.load(code).state.hand.offered_to, action="decline")
    t.do(Act, seat=1, action="accept")
    for seat in (3, 2):
        t.do(PlaceWager, seat=seat, kind="ante", amount=antes[seat])
    t.deal(**{"1": "Kh 9h 5h 2h 3c 4d 7s", "2": "Ac Kc Qc Jc 9c 2d 3h", "3": seat3})
    for _ in range(2):
        seat = app.load(code).state.hand.to_act.seat
        t.do(Act, seat=seat, action="raise", amount=antes[seat])
    t.do(Reveal)
    t.do(Settle)
    return t


def test_hcf_correction_makes_a_seat_dead_under_coverage(app: LedgerApp) -> None:
    """HCF-12: seat 3 was recorded with three clubs and lost 120.00 into the DP's funds; its
    shoe log shows five clubs: it wins 120.00, more than the 100.00 the DP had in action
    before seat 2 paid in, so its hand is dead and gets every wager back. The DP, who has
    since cashed out all but 50.00, pays that from the stack and owes the rest (COR-5)."""
    t = hcf_dp_hand(app, "HCF-C", {2: 2_000, 3: 6_000}, "Tc 8c 6c Jh Qs 9d 5d")
    settled = list(stream(app, "HCF-C"))[-1]
    assert isinstance(settled, r.HandSettled) and settled.coverage is not None
    assert [(x.seat, x.covered) for x in settled.coverage.lines] == [(3, True), (2, True)]
    dp_stack = t.stack(1)
    assert dp_stack == 10_000 + 12_000 - 4_000
    t.do(CashOut, seat=1, amount=dp_stack - 5_000)
    before = stored(app, "HCF-C")

    t.do(CorrectHand, hand=1, fixes=(fix(3, "Jh", "4c"), fix(3, "Qs", "7c")),
         approvers=(BOSS,), reason="reader misread seat 3")
    corrected = list(stream(app, "HCF-C"))[-1]
    assert isinstance(corrected, r.HandCorrected)
    coverage = corrected.settlement.coverage
    assert coverage is not None
    assert [(x.seat, x.covered) for x in coverage.lines] == [(3, False), (2, True)]
    assert {o.wager: o.result for o in corrected.settlement.outcomes if o.seat == 3} == {
        "ante": "dead", "raise": "dead"}
    assert {d.account: d.amount for d in corrected.differences} == {
        "player:p1": -12_000, "player:p3": 12_000}
    assert t.stack(1) == 0 and t.balance(accounts.owed("p1")) == -7_000
    assert stored(app, "HCF-C")[: len(before)] == before
    assert verify(app).ok
    # COR-5: the DP pays what it owes at the cage, in two goes; then nothing is owed
    t.do(SettleOwed, player="p1", amount=2_000, approvers=(BOSS,), reason="paid in cash")
    with pytest.raises(LedgerError) as more:
        t.do(SettleOwed, player="p1", amount=6_000, approvers=(BOSS,), reason="paid in cash")
    assert more.value.code == "more_than_owed"
    t.do(SettleOwed, player="p1", approvers=(BOSS,), reason="paid in cash")
    assert t.balance(accounts.owed("p1")) == 0
    with pytest.raises(LedgerError) as none:
        t.do(SettleOwed, player="p1", approvers=(BOSS,), reason="paid in cash")
    assert none.value.code == "nothing_owed"
    assert verify(app).ok  # the cage took 70.00 in: conservation holds


def test_hcf_correction_moves_the_dead_seat(app: LedgerApp) -> None:
    """HCF-8/12: the DP's hand was recorded as a four-heart flush; two of its hearts were a
    diamond and a spade, so it did not qualify (HCF-8): Antes are paid even money and Raises
    push. Recorded, seat 3 (settled first, HCF-7) won 120.00 against the DP's 100.00 and was
    dead, and seat 2 was paid 90.00; corrected, seat 3 wins its 60.00 Ante and is covered,
    which leaves 40.00 for seat 2's 45.00 Ante: seat 2 is the dead seat now."""
    t = hcf_dp_hand(app, "HCF-M", {2: 4_500, 3: 6_000}, "As Ks Qs Js 8s 6d 8d")
    settled = list(stream(app, "HCF-M"))[-1]
    assert isinstance(settled, r.HandSettled) and settled.coverage is not None
    assert [(x.seat, x.covered) for x in settled.coverage.lines] == [(3, False), (2, True)]
    stacks = {s: t.stack(s) for s in (1, 2, 3)}
    before = stored(app, "HCF-M")

    t.do(CorrectHand, hand=1, fixes=(fix(1, "Kh", "Td"), fix(1, "9h", "9s")),
         approvers=(BOSS,), reason="reader misread the DP's hand")
    corrected = list(stream(app, "HCF-M"))[-1]
    assert isinstance(corrected, r.HandCorrected)
    coverage = corrected.settlement.coverage
    assert coverage is not None
    assert [(x.seat, x.covered) for x in coverage.lines] == [(3, True), (2, False)]
    results = {(o.seat, o.wager): o.result for o in corrected.settlement.outcomes
               if o.seat != 1}
    assert results == {(3, "ante"): "win", (3, "raise"): "push", (2, "ante"): "dead",
                       (2, "raise"): "dead"}
    assert {s: t.stack(s) - stacks[s] for s in (1, 2, 3)} == {1: 3_000, 2: -9_000, 3: 6_000}
    assert stored(app, "HCF-M")[: len(before)] == before
    report = verify(app)
    assert report.ok, report.discrepancies
    # COR-3: the DP was carded under seat 1's regular; its results and ratings follow. The
    # hand correction is the day's own line, not the DP's result (like the house win).
    t.do(CorrectSeat, seat=1, player="dora", from_hand=1, to_hand=1, approvers=(BOSS,),
         reason="carded under another id")
    Runner(app).catch_up()
    read = ReadModel(app)
    assert [(x["player"], x["hands"], x["result_minor"])
            for x in read.dp_results(table="HCF-M")] == [("dora", 1, -9_000)]
    [day] = read.accounting(table="HCF-M")
    assert (day["corrections"], day["dp_results_minor"]) == (2, -9_000)


def test_stud_correction_changes_a_split_pot(app: LedgerApp) -> None:
    """STUD8-7/8: seats 2 and 3 tied for the low and quartered it; seat 3's fifth-street card
    was a 6h, not the 7h keyed: its 6-low wins the whole low half (a 500 swing)."""
    t = stud_hand(app)
    settled = list(stream(app, "STUD-C"))[-1]
    assert isinstance(settled, r.HandSettled)
    [pot] = settled.pots
    assert (pot.high_winners, pot.low_winners) == ((1,), (2, 3))
    before = stored(app, "STUD-C")
    stacks = {s: t.stack(s) for s in (1, 2, 3)}

    t.do(CorrectHand, hand=1, fixes=(fix(3, "7h", "6h"),), approvers=(BOSS,),
         reason="dealer keyed 7h for 6h")
    corrected = list(stream(app, "STUD-C"))[-1]
    assert isinstance(corrected, r.HandCorrected)
    [pot] = corrected.settlement.pots
    assert (pot.high_winners, pot.low_winners, pot.low_amount) == ((1,), (3,), 1_000)
    assert {s: t.stack(s) - stacks[s] for s in (1, 2, 3)} == {1: 0, 2: -500, 3: 500}
    assert stored(app, "STUD-C")[: len(before)] == before
    assert verify(app).ok
    Runner(app).catch_up()  # ratings: each player's result over the hand, as corrected
    rows = Store(app.recorder).fetchall(
        "SELECT player, net_minor FROM {proj_seat_hands} WHERE table_code = 'STUD-C'")
    assert {x["player"]: x["net_minor"] for x in rows} == {"p1": 400, "p2": -700, "p3": 300}


def test_a_later_correction_of_a_hand_replaces_the_earlier_one(app: LedgerApp) -> None:
    """COR-1: the second correction states every wrong card again (seat 2's 7s was a 6s too):
    the low is tied again, and the difference is taken against the settlement in force (the
    first correction's), so the stacks end as the original settlement left them."""
    t = stud_hand(app)
    stacks = {s: t.stack(s) for s in (1, 2, 3)}
    t.do(CorrectHand, hand=1, fixes=(fix(3, "7h", "6h"),), approvers=(BOSS,),
         reason="dealer keyed 7h for 6h")
    t.do(CorrectHand, hand=1, fixes=(fix(3, "7h", "6h"), fix(2, "7s", "6s")),
         approvers=(BOSS,), reason="and 7s for 6s")
    second = list(stream(app, "STUD-C"))[-1]
    assert isinstance(second, r.HandCorrected)
    assert second.settlement.pots[0].low_winners == (2, 3)
    assert {d.account: d.amount for d in second.differences} == {
        "player:p2": 500, "player:p3": -500}
    assert {s: t.stack(s) for s in (1, 2, 3)} == stacks
    assert verify(app).ok


def test_audit_reports_a_forged_correction(app: LedgerApp,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """Someone with write access to the store redirects a correction's compensation to
    another player and recomputes the chain: the audit settles the hand again with the
    corrected cards and reports that the recorded correction is not what the rules give, and
    that its approver was no supervisor the ledger knew (COR-4). The
    audit starts the hand's state from its own checkpoints (every 5 events here), which give
    the same state as folding the table from its first event."""
    from projections.audit import replay as audit_replay
    from tests.support import tamper

    monkeypatch.setattr(audit_replay, "CHECKPOINT_EVERY", 5)
    t = stud_hand(app)
    t.do(CorrectHand, hand=1, fixes=(fix(3, "7h", "6h"),), approvers=(BOSS,),
         reason="dealer keyed 7h for 6h")
    assert verify(app).ok
    tid, version = table_id("STUD-C"), t.version
    audit = audit_replay.TableAudit("STUD-C", AuditReport())
    for event in stream(app, "STUD-C"):
        audit.feed(event)
    audit.finish()
    assert len(audit.checkpoints) == version // 5
    for at in (9, 23):
        from_checkpoint = StorePast(app, tid, version, snapshots=False,
                                    checkpoints=audit.checkpoints).state_before(at)
        folded = StorePast(app, tid, version, snapshots=False).state_before(at)
        assert from_checkpoint.to_snapshot() == folded.to_snapshot()
    revoke(app, BOSS)  # revoked after approving: still clean
    assert verify(app).ok
    tamper.replace_in_event(app, tid, version, '"dst":"player:p3"', '"dst":"player:p1"')
    tamper.replace_in_event(app, tid, version, f'"approvers":["{BOSS}"]', '"approvers":["zed"]')
    tamper.rechain(app, tid, version)
    report = verify(app)
    kinds = {(d.kind, d.hand, d.rule) for d in report.discrepancies}
    assert {("hand_correction", 1, "COR-1"), ("signature_invalid", 1, "COR-4")} <= kinds, kinds
    found = [d.recorded for d in report.discrepancies if d.kind == "signature_invalid"]
    assert {"version": version, "problem": f"the event names zed; signed by {BOSS}"} in found


def test_cor_2_cash_movements_corrected_by_a_linked_movement(app: LedgerApp) -> None:
    """COR-2: a buy-in keyed 5,000.00 for 500.00 is taken back to the cage; a cash-out keyed
    100.00 that really paid 150.00 takes the 50.00 from the stack; a fill and a credit of the
    tray (INV-2/3) move the difference between the cage and the house; the cage still
    balances."""
    t = Driver(app, "MOV-C", "caribbean-stud", {1: 500_000})
    buy_in = t.version
    t.do(CorrectMovement, version=buy_in, amount=50_000, approvers=(BOSS, DEPUTY),
         reason="keyed 5,000.00 for 500.00")
    moved = list(stream(app, "MOV-C"))[-1]
    assert isinstance(moved, r.MovementCorrected)
    assert (moved.original_version, moved.movement, moved.recorded_amount) == (
        buy_in, "buy_in", 500_000)
    assert [(x.src, x.dst, x.amount) for x in moved.transfers] == [
        ("player:p1", "cage", 450_000)]
    assert t.stack(1) == 50_000
    t.do(CashOut, seat=1, amount=10_000)
    cash_out = t.version
    t.do(CorrectMovement, version=cash_out, amount=15_000, approvers=(BOSS,),
         reason="cage paid 150.00")
    assert t.stack(1) == 35_000
    with pytest.raises(LedgerError) as again:
        t.do(CorrectMovement, version=cash_out, amount=15_000, approvers=(BOSS,),
             reason="cage paid 150.00")
    assert again.value.code == "correction_changes_nothing"
    with pytest.raises(LedgerError) as not_money:
        t.do(CorrectMovement, version=1, amount=1, approvers=(BOSS,), reason="no such thing")
    assert not_money.value.code == "not_a_movement"
    # a fill signed for 1,000.00 that brought 500.00, a credit signed for 200.00 that took 250.00
    house = t.balance(accounts.HOUSE)
    t.do(Fill, chips={10_000: 10}, signers=(BOSS, DEPUTY))
    fill = t.version
    t.do(Credit, chips={10_000: 2}, signers=(BOSS, DEPUTY))
    credit = t.version
    t.do(CorrectMovement, version=fill, amount=50_000, approvers=(BOSS,), reason="half a rack")
    t.do(CorrectMovement, version=credit, amount=25_000, approvers=(BOSS,), reason="miscounted")
    moves = [(x.src, x.dst, x.amount) for e in list(stream(app, "MOV-C"))[-2:]
             for x in getattr(e, "transfers", ())]
    assert moves == [("house", "cage", 50_000), ("house", "cage", 5_000)]
    assert t.balance(accounts.HOUSE) == house + 50_000 - 25_000
    assert verify(app).ok


def test_cor_3_seat_identity_corrected_without_moving_chips(app: LedgerApp) -> None:
    t = Driver(app, "SEAT-C", "stud-hilo", {1: 20_000, 2: 20_000})
    t.do(StartHand)
    t.do(VoidHand, reason="shuffler fault")
    balances = dict(app.load("SEAT-C").state.balances)
    t.do(CorrectSeat, seat=2, player="carla", from_hand=1, to_hand=1, approvers=(BOSS,),
         reason="carded under her husband's id")
    seat = list(stream(app, "SEAT-C"))[-1]
    assert isinstance(seat, r.SeatCorrected)
    assert (seat.recorded_player, seat.player, seat.transfers if hasattr(seat, "transfers")
            else ()) == ("p2", "carla", ())
    assert dict(app.load("SEAT-C").state.balances) == balances
    with pytest.raises(LedgerError) as wrong:
        t.do(CorrectSeat, seat=3, player="carla", from_hand=1, to_hand=1, approvers=(BOSS,),
             reason="nobody sat there")
    assert wrong.value.code == "seat_player_changed"
    assert verify(app).ok
    Runner(app).catch_up()
    rows = Store(app.recorder).fetchall(
        "SELECT seat, player FROM {proj_seat_hands} WHERE table_code = 'SEAT-C' ORDER BY seat")
    assert [(x["seat"], x["player"]) for x in rows] == [(1, "p1"), (2, "carla")]
    [listed] = ReadModel(app).corrections(table="SEAT-C")
    assert (listed["kind"], listed["approvers"], listed["detail"]["player"]) == (
        "seat", [BOSS], "carla")


def test_refused_corrections_append_nothing(app: LedgerApp) -> None:
    """COR-1, COR-4: unknown hands, cards the hand never recorded, a corrected hand holding a
    card twice (COM-1), a second approver who is the first, an approver who is not a
    supervisor known to the ledger (or was revoked), a hand in progress, a window that has
    passed, and an rng table's hand are each refused with a code."""
    t = stud_hand(app)
    before = stored(app, "STUD-C")

    def refused(**fields: Any) -> str:
        base: dict[str, Any] = {"hand": 1, "fixes": (fix(3, "7h", "6h"),),
                                "approvers": (BOSS,), "reason": "dealer keyed 7h for 6h"}
        with pytest.raises(LedgerError) as err:
            t.do(CorrectHand, **{**base, **fields})
        return err.value.code

    assert refused(hand=2) == "unknown_hand"
    assert refused(fixes=(fix(3, "8h", "6h"),)) == "card_not_recorded"
    assert refused(fixes=(fix(3, "7h", "Ah"),)) == "duplicate_card"
    assert refused(fixes=(fix(3, "7h", "7s"),)) == "duplicate_card"
    assert refused(approvers=(BOSS, BOSS)) == "approvers_not_distinct"
    # COR-4: approvers are principals known to the ledger, supervisors or admins, not revoked
    with_supervisors(app, {"floor-cas": ("Cas (floor)", "floor")})
    with_supervisors(app, {"sup-gone": ("Gone (supervisor)", "supervisor")})
    revoke(app, "sup-gone")
    assert refused(approvers=("sup-nobody",)) == "unknown_approver"
    assert refused(approvers=("floor-cas",)) == "approver_not_allowed"
    assert refused(approvers=(BOSS, "sup-gone")) == "approver_revoked"
    assert refused(fixes=(fix(1, "Js", "Qs"),)) == "correction_changes_nothing"
    t.do(ChangeConfig, config={"corrections": {"window_hours": 1}}, approver=BOSS)
    later = datetime.now(UTC) + timedelta(hours=2)
    with patch("ledger.app.application.datetime") as clock:
        clock.now.return_value = later
        assert refused() == "correction_window_passed"
    t.do(StartHand)
    assert refused() == "hand_in_progress"
    assert stored(app, "STUD-C")[: len(before)] == before
    t.do(VoidHand, reason="shuffler fault")
    assert refused(hand=2) == "hand_not_settled"
    rng = Driver(app, "RNG-C", "caribbean-stud", {1: 20_000}, {"card_source": "rng"})
    rng.do(StartHand)
    rng.do(PlaceWager, seat=1, kind="ante", amount=1_000)
    rng.do(DealCards)
    rng.do(Act, seat=1, action="fold")
    rng.do(Reveal)
    rng.do(Settle)
    with pytest.raises(LedgerError) as err:
        rng.do(CorrectHand, hand=1, fixes=(fix(1, "2c", "3c"),), approvers=(BOSS,),
               reason="a misread")
    assert err.value.code == "cards_not_correctable"


def test_chinese_poker_swapped_cards_make_both_hands_foul(app: LedgerApp) -> None:
    """CHP-3/4/5: the reader swapped a king of seat 1 with a jack of seat 2. Recorded, seat 1
    scooped with a middle full house and back quads: 12 points. With the cards really dealt
    both backs are below their middles: both hands are fouled and score 0 against each other,
    so the 12.00 goes back (the corrected card is found in the set segments too)."""
    from tests.unit.games.chinese.hands import F1, F2, G, H

    t = Driver(app, "CHP-C", "chinese-poker", {1: 2_000, 2: 2_000})
    t.do(StartHand)
    hands = {1: G, 2: H, 3: F1, 4: F2}
    t.deal(**{str(s): " ".join(h) for s, h in hands.items()})
    for seat in (1, 2):
        front, middle, back = (parse_cards(x) for x in hands[seat])
        t.do(Act, seat=seat, action="set", front=front, middle=middle, back=back)
    t.do(Reveal)
    t.do(Settle)
    before = stored(app, "CHP-C")
    stacks = {s: t.stack(s) for s in (1, 2)}
    settled = list(stream(app, "CHP-C"))[-1]
    assert isinstance(settled, r.HandSettled)
    assert [(p.seat, p.points) for p in settled.points] == [(2, -12), (1, 12)]

    t.do(CorrectHand, hand=1, fixes=(fix(1, "Kc", "Js"), fix(2, "Js", "Kc")),
         approvers=(BOSS,), reason="reader swapped two cards")
    corrected = list(stream(app, "CHP-C"))[-1]
    assert isinstance(corrected, r.HandCorrected)
    assert [(p.seat, p.points, p.detail) for p in corrected.settlement.points] == [
        (2, 0, ("both hands fouled: 0 (CHP-3)",)), (1, 0, ("both hands fouled: 0 (CHP-3)",))]
    assert {s: t.stack(s) - stacks[s] for s in (1, 2)} == {1: -1_200, 2: 1_200}
    assert stored(app, "CHP-C")[: len(before)] == before
    assert verify(app).ok
