"""Reports on both stores: hold against theory with its flag, periods (day, month to date, year
to date), player ratings, the hands of a player, and the accounting workbook read back with
openpyxl.

Hands are played on a recorded Caribbean Stud table (CSP-4: the cards decide), at chosen
moments: the application's clock is set per hand, so gaming days of several months exist.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import openpyxl
import pytest

from ledger.app.application import LedgerApp
from ledger.domain.cards import parse_cards
from ledger.domain.commands import (
    Act,
    BuyIn,
    ChangeConfig,
    DealCards,
    OpenTable,
    PlaceWager,
    Reveal,
    SeatPlayer,
    Settle,
    StartHand,
)
from ledger.domain.errors import InvalidInput
from ledger.evaluation import caribbean as csp
from projections.exports.workbook import export_workbook
from projections.read.queries import ReadModel
from projections.reports.hold import hold_report
from projections.reports.paytable import mathematics
from projections.reports.periods import period
from projections.reports.players import player_hands, player_report
from projections.views.runner import Runner
from tests.support.driver import with_supervisors

ROYAL = "As Ks Qs Js Ts"
FLUSH = "2h 6h 9h Jh Kh"
LOSER = "2d 4c 7s 9c Qd"
OTHER_LOSER = "3c 5d 7c 9s Jc"
DEALER = "8c 8d 3h 5s Kc"  # a pair of eights: the dealer qualifies (CSP-3)


class Clock:
    moment = datetime(2026, 3, 14, 20, 0, tzinfo=UTC)

    @classmethod
    def now(cls, tz: object = None) -> datetime:
        return cls.moment


@pytest.fixture
def app(store_settings: object, monkeypatch: pytest.MonkeyPatch) -> Iterator[LedgerApp]:
    monkeypatch.setattr("ledger.app.application.datetime", Clock)
    ledger = LedgerApp(store_settings)  # type: ignore[arg-type]
    Clock.moment = datetime(2025, 12, 1, 20, 0, tzinfo=UTC)
    ledger.execute(OpenTable(command_id="open", table="CSP-1", game="caribbean-stud",
                             config={"card_source": "recorded"}, timezone="UTC"))
    for seat, player in ((1, "alice"), (2, "bob")):
        ledger.execute(SeatPlayer(command_id=f"seat-{seat}", table="CSP-1", seat=seat,
                                  player=player))
        ledger.execute(BuyIn(command_id=f"buy-{seat}", table="CSP-1", seat=seat,
                             amount=40_000))
    yield ledger
    ledger.close()


def play(app: LedgerApp, when: datetime, first: str, n: int) -> None:
    """One hand at ``when``: seat 1 holds ``first``, seat 2 a losing hand; both play."""
    Clock.moment = when
    app.execute(StartHand(command_id=f"h{n}", table="CSP-1"))
    for seat in (1, 2):
        app.execute(PlaceWager(command_id=f"w{n}-{seat}", table="CSP-1", seat=seat, kind="ante",
                               amount=1_000))
    app.execute(DealCards(command_id=f"d{n}", table="CSP-1", cards={
        "1": parse_cards(first), "2": parse_cards(LOSER), "dealer": parse_cards(DEALER)}))
    for seat in (1, 2):
        app.execute(Act(command_id=f"a{n}-{seat}", table="CSP-1", seat=seat, action="play"))
    app.execute(Reveal(command_id=f"r{n}", table="CSP-1"))
    app.execute(Settle(command_id=f"s{n}", table="CSP-1"))


def at(day: str, hour: int = 20) -> datetime:
    return datetime.fromisoformat(f"{day}T{hour:02d}:00:00+00:00")


def test_a_day_pushed_outside_its_interval_is_flagged_and_names_its_hands(
        app: LedgerApp) -> None:
    """Royal flushes against a qualifying dealer (CSP-4, 100-1 on the Play) on one day: the
    house's loss is far outside the 95% interval of its theoretical win; the flag names those
    hands. Another day of ordinary hands is not flagged."""
    for n in range(1, 4):
        play(app, at("2026-03-13"), FLUSH if n == 1 else OTHER_LOSER, n)
    for n in range(4, 7):
        play(app, at("2026-03-14"), ROYAL if n != 5 else FLUSH, n)
    Runner(app).catch_up()
    model = ReadModel(app)
    report = hold_report(model, period(day="2026-03-14"))
    (table,) = report["tables"]
    day, month, year = table["columns"]
    assert (day["label"], month["label"], year["label"]) == ("day", "month_to_date",
                                                             "year_to_date")
    assert day["hands"] == 3 and month["hands"] == 6 and year["hands"] == 6
    assert day["handle_by_kind"] == {"ante": 6_000, "play": 12_000}
    # House: two royals (-1,000 - 200,000 each), one flush (-11,000), three losing seats.
    assert day["win_minor"] == 2 * -201_000 - 11_000 + 3 * 3_000
    assert day["drop_minor"] == 0 and month["drop_minor"] == 0
    assert day["theoretical_by_kind"]["ante"] == round(0.0522430577 * 6_000)
    assert day["flagged"] and float(day["z"]) < -1.96
    flagged = [h["hand_no"] for h in day["flag_hands"]]
    assert flagged[:2] == [4, 6]  # the two royal flushes: the largest house losses
    assert day["flag_hands"][0]["replay"] == "/tables/CSP-1/hands/4/replay"
    assert day["flag_hands"][0]["house_result_minor"] == -201_000 + 3_000  # seat 2 lost
    ordinary = hold_report(model, period(day="2026-03-13"))["tables"][0]["columns"][0]
    assert ordinary["hands"] == 3 and not ordinary["flag_hands"]


def test_periods_players_and_the_workbook(app: LedgerApp, tmp_path: Path) -> None:
    play(app, at("2025-12-31"), FLUSH, 1)
    play(app, at("2026-02-20"), FLUSH, 2)
    play(app, at("2026-03-14"), FLUSH, 3)
    play(app, at("2026-03-14", 22), FLUSH, 4)
    Clock.moment = at("2026-03-14", 23)
    app.execute(BuyIn(command_id="drop", table="CSP-1", seat=2, amount=10_000))
    Runner(app).catch_up()
    model = ReadModel(app)

    cols = hold_report(model, period(day="2026-03-14"))["tables"][0]["columns"]
    assert [c["hands"] for c in cols] == [2, 2, 3]  # day, MTD, YTD (2025-12-31 is last year)
    february = hold_report(model, period(month="2026-02"))["tables"][0]["columns"]
    assert (february[0]["from"], february[0]["to"], february[0]["hands"]) == (
        "2026-02-01", "2026-02-28", 1)
    ranged = hold_report(model, period(first="2025-12-01", last="2026-03-13"))
    assert ranged["tables"][0]["columns"][0]["hands"] == 2

    ratings = player_report(model, period(first="2026-01-01", last="2026-03-31"))
    by_player = {p["player"]: p for p in ratings["players"]}
    alice, bob = by_player["alice"], by_player["bob"]
    assert alice["hands"] == bob["hands"] == 3
    (euros,) = alice["by_currency"]  # one currency: EUR
    assert euros["currency"] == "EUR" and alice["by_table"][0]["currency"] == "EUR"
    assert euros["handle_minor"] == 3 * 3_000 and euros["average_wager_minor"] == 3_000
    # The player's side (as ``ledger hands``): a win is positive.
    assert euros["result_minor"] == 3 * 11_000  # a flush: Ante 1-1, Play 5-1 (CSP-4)
    assert bob["by_currency"][0]["result_minor"] == -3 * 3_000
    assert euros["theoretical_result_minor"] == -round(0.0522430577 * 3_000)
    assert alice["seconds"] == 2 * 3600  # 20:00 to 22:00 on 2026-03-14
    day_ratings = player_report(model, period(day="2026-03-14"))
    alice_day = next(p for p in day_ratings["players"] if p["player"] == "alice")
    assert [(c["label"], c["hands"], c["by_currency"][0]["result_minor"])
            for c in alice_day["columns"]] == [
        ("day", 2, 22_000), ("month_to_date", 2, 22_000), ("year_to_date", 3, 33_000)]
    assert alice_day["columns"][2]["from"] == "2026-01-01"
    assert alice_day["columns"][2]["by_table"][0]["handle_minor"] == 3 * 3_000
    hands = player_hands(model, "alice", period(first="2026-02-01", last="2026-03-31"))
    assert [(h["table_code"], h["hand_no"], h["net_minor"]) for h in hands] == [
        ("CSP-1", 2, 11_000), ("CSP-1", 3, 11_000), ("CSP-1", 4, 11_000)]
    assert hands[0]["wagers"] == {"ante": 1_000, "play": 2_000}

    path, sheets = export_workbook(model, period(day="2026-03-14"), tmp_path)
    assert path.name == "accounting-2026-03-14.xlsx"
    assert sheets["accounting"] == 1 and sheets["hold"] == 3
    book = openpyxl.load_workbook(path)
    assert book.sheetnames == ["accounting", "hold", "rake", "jackpot", "dp-results",
                               "players", "inventory", "corrections", "bankrolls"]
    for ws in book.worksheets:  # one Excel table per sheet, its header frozen
        (table,) = ws.tables.values()
        assert table.ref.startswith("A1:") and ws.freeze_panes == "A2", ws.title
        headers = [str(c.value) for c in ws[1]]  # human headers, not snake_case
        assert not any("_" in h or h[0].islower() for h in headers), (ws.title, headers)
    sheet = book["accounting"]
    header = [c.value for c in sheet[1]]
    row = dict(zip(header, [c.value for c in sheet[2]], strict=True))
    assert row["Table"] == "CSP-1" and row["Hands settled"] == 2
    assert row["Gaming day"] == datetime(2026, 3, 14)
    assert sheet.cell(row=2, column=header.index("Gaming day") + 1).number_format == "yyyy-mm-dd"
    assert row["House win"] == pytest.approx(2 * (-11_000 + 3_000) / 100)
    win_cell = sheet.cell(row=2, column=header.index("House win") + 1)
    assert isinstance(win_cell.value, int | float)
    assert win_cell.number_format == '#,##0.00 "EUR"'  # a currency format
    hold_cell = sheet.cell(row=2, column=header.index("Hold %") + 1)
    # the house lost 160.00 on a drop of 100.00: -160% as the fraction -1.6
    assert hold_cell.number_format == "0.00%" and hold_cell.value == pytest.approx(-1.6)
    total = [c.value for c in sheet[3]]  # the totals row, per currency
    assert total[0] == "Total EUR" and total[header.index("Hands settled")] == 2
    assert total[header.index("House win")] == pytest.approx(row["House win"])
    hold = book["hold"]
    labels = [r[3] for r in hold.iter_rows(min_row=2, values_only=True) if r[0] != "Total EUR"]
    assert labels == ["day", "month_to_date", "year_to_date"]
    (hold_total,) = [r for r in hold.iter_rows(min_row=2, values_only=True)
                     if r[0] == "Total EUR"]
    assert hold_total[6] == 2  # the day's hands: the MTD and YTD rows are not added again
    jackpot = [c.value for c in book["jackpot"][1]]
    assert "At (UTC)" in jackpot  # local times, the zone in the header (the table's: UTC)
    players_header = [c.value for c in book["players"][1]]
    assert "Minutes at the tables" in players_header and "Seconds" not in players_header
    players = {r[0]: r for r in book["players"].iter_rows(min_row=2, values_only=True)}
    assert players["bob"][9] == pytest.approx(-2 * 30.0)  # bob's result, in euros
    assert players["alice"][5] == pytest.approx(120.0)  # minutes: 20:00 to 22:00
    assert [c.value for c in book["corrections"][1]][:3] == ["Table", "Gaming day", "Currency"]
    month_book, _ = export_workbook(model, period(month="2026-03"), tmp_path)
    assert month_book.name == "accounting-2026-03.xlsx"
    assert "bankrolls" not in openpyxl.load_workbook(month_book).sheetnames


def test_each_hand_is_held_to_the_paytable_in_force_when_it_was_played(
        app: LedgerApp) -> None:
    """COM-4: the Play paytable is made three times as generous between two days. The hold of
    the two days together sums each day's hands at their own configuration's edge (the second
    one is the player's: a negative theoretical win), not the current one's; a player's
    theoretical win likewise."""
    with_supervisors(app, {"pit-boss": ("P. Boss", "supervisor")})
    play(app, at("2026-03-13"), FLUSH, 1)
    generous = {c.label: 3 * odds for c, odds in csp.DEFAULT_PLAY_PAYTABLE.items()}
    Clock.moment = at("2026-03-13", 23)
    app.execute(ChangeConfig(command_id="generous", table="CSP-1", approver="pit-boss",
                             config={"play_paytable": generous}, reason="promotion"))
    play(app, at("2026-03-14"), FLUSH, 2)
    Runner(app).catch_up()
    model = ReadModel(app)
    configs = model.table_configs("CSP-1")
    first, second = (float(mathematics(model.store, "caribbean-stud", c["config"])
                           ["strategies"][0]["house_edge"]) for c in configs)
    assert first == pytest.approx(0.0522430577) and second < 0
    both = hold_report(model, period(first="2026-03-13", last="2026-03-14"))
    col = both["tables"][0]["columns"][0]
    assert col["config_versions"] == [1, 2] and col["hands"] == 2
    assert col["theoretical_by_kind"]["ante"] == round(first * 2_000) + round(second * 2_000)
    day_one = hold_report(model, period(day="2026-03-13"))["tables"][0]["columns"][0]
    assert day_one["config_versions"] == [1]
    assert day_one["theoretical_by_kind"]["ante"] == round(first * 2_000)
    day_two = hold_report(model, period(day="2026-03-14"))["tables"][0]["columns"][0]
    assert day_two["theoretical_win_minor"] == round(second * 2_000) < 0
    ratings = player_report(model, period(month="2026-03"))
    alice = next(p for p in ratings["players"] if p["player"] == "alice")
    assert alice["by_currency"][0]["theoretical_result_minor"] == -round(
        first * 1_000 + second * 1_000)


@pytest.mark.parametrize(("kwargs", "code"), [
    ({}, "invalid_period"),
    ({"day": "2026-03-14", "month": "2026-03"}, "invalid_period"),
    ({"first": "2026-03-14"}, "invalid_period"),
    ({"first": "2026-03-14", "last": "2026-03-01"}, "invalid_period"),
    ({"month": "2026-13"}, "invalid_month"),
    ({"day": "2026-02-30"}, "invalid_day"),
    ({"first": "1990-01-01", "last": "2026-01-01"}, "invalid_period"),
])
def test_bad_periods_are_refused_with_a_code(kwargs: dict[str, str], code: str) -> None:
    with pytest.raises(InvalidInput) as caught:
        period(**kwargs)
    assert caught.value.code == code
