"""Each view, on SQLite and PostgreSQL, against what the events themselves say."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

import pytest

from ledger.app.application import LedgerApp
from ledger.domain import accounts
from ledger.domain import records as r
from ledger.domain.cards import card_list
from ledger.domain.commands import DealCards, PlaceWager, StartHand, VoidHand
from ledger.domain.errors import NotFound
from ledger.games.registry import get_game
from ledger.sim.profiles import PROFILES
from projections.read.queries import ReadModel
from projections.views.runner import Runner
from tests.support.driver import with_supervisors

from .conftest import HANDS, events

Shared = tuple[LedgerApp, dict[str, str]]


def test_tables_view_lists_every_table_with_its_configuration(shared: Shared) -> None:
    app, played = shared
    read = ReadModel(app)
    rows = {t["table_code"]: t for t in read.tables()}
    assert set(rows) == set(played.values())
    for game, code in played.items():
        assert rows[code]["game"] == game
        assert rows[code]["hands"] == HANDS[game]
        assert rows[code]["last_version"] == app.load(code).version
        configs = read.table_configs(code.lower())
        assert configs[0]["config"] == events(app, code)[0].config
    with pytest.raises(NotFound) as err:
        read.table("NO-SUCH")
    assert err.value.code == "unknown_table"


def test_bankrolls_hold_every_balance_and_every_movement(shared: Shared) -> None:
    app, played = shared
    read = ReadModel(app)
    totals: dict[str, int] = {}
    for code in played.values():
        state = app.load(code).state
        viewed = {b["account"]: b["balance_minor"] for b in read.balances(table=code,
                                                                          nonzero=True)}
        assert viewed == {a: b for a, b in state.balances.items() if b}
        assert not [a for a in viewed if accounts.is_hand_scoped(a)]
        for account, balance in state.balances.items():
            if accounts.is_player(account):
                totals[accounts.player_id(account)] = totals.get(
                    accounts.player_id(account), 0) + balance
        player = next(a for a in state.balances if accounts.is_player(a))
        moves = read.movements(code, player, limit=10_000)
        assert sum(m["change_minor"] for m in moves) == state.balances[player]
        touching = [t for e in events(app, code) for t in getattr(e, "transfers", ())
                    if player in (t.src, t.dst)]
        assert len(moves) == len(touching)
    viewed_totals = {t["player"]: t["balance_minor"] for t in read.player_totals()}
    assert {p: b for p, b in viewed_totals.items() if b} == {p: b for p, b in totals.items() if b}


def test_hands_view_shows_each_hand_without_the_events(shared: Shared) -> None:
    app, played = shared
    read = ReadModel(app)
    for game, code in played.items():
        stream = events(app, code)
        assert len(read.hands(table=code, limit=1_000)) == HANDS[game]
        for settled in [e for e in stream if isinstance(e, r.HandSettled)][:4]:
            hand = read.hand(code, settled.hand_no)
            own = [e for e in stream if getattr(e, "hand_no", None) == settled.hand_no]
            assert hand["status"] == "settled"
            assert (hand["first_version"], hand["last_version"]) == (
                own[0].originator_version, own[-1].originator_version)
            assert hand["result"]["outcomes"] == [o.model_dump(mode="json")
                                                   for o in settled.outcomes]
            dealt = [e for e in own if isinstance(e, r.CardsDealt)]
            assert [c["round"] for c in hand["cards"]] == [d.round for d in dealt]
            assert hand["cards"][0]["dealt"][0]["down"] == card_list(dealt[0].dealt[0].down)
            acts = [e for e in own if isinstance(e, r.WagerPlaced | r.PlayerActed
                                                 | r.RoleOffered)]
            assert len(hand["actions"]) == len(acts)
            assert {o.rule for o in settled.outcomes} <= set(hand["rules"])
            assert hand["result"]["deck"] == card_list(settled.deck or ())
            rake = sum(accounts.net_flows(getattr(e, "transfers", ())).get(accounts.RAKE, 0)
                       for e in own)
            assert hand["rake_minor"] == rake
        if game == "high-card-flush":
            assert any(h["dp_seat"] is not None for h in read.hands(table=code))
        page = read.hands(table=code, limit=3, offset=2)
        assert [h["hand_no"] for h in page] == [3, 4, 5]
        assert {h["status"] for h in read.hands(table=code, status="settled")} == {"settled"}


def test_hole_cards_of_a_hand_in_progress_are_hidden(app: LedgerApp,
                                                     played: dict[str, str]) -> None:
    code = played["caribbean-stud"]
    state = app.load(code).state
    seat = min(state.seats)
    app.execute(StartHand(command_id="x-start", table=code))
    app.execute(PlaceWager(command_id="x-ante", table=code, seat=seat, kind="ante",
                           amount=500))
    app.execute(DealCards(command_id="x-deal", table=code))
    Runner(app).catch_up()
    read = ReadModel(app)
    hand_no = app.load(code).state.hand_no
    hidden = read.hand(code, hand_no)
    assert hidden["status"] == "in_progress"
    assert set(hidden["cards"][0]["dealt"][0]["down"]) == {"??"}
    assert "??" not in read.hand(code, hand_no, show_hidden=True)["cards"][0]["dealt"][0]["down"]


def test_a_voided_hand_is_shown_voided_and_counted(app: LedgerApp,
                                                   played: dict[str, str]) -> None:
    code = played["caribbean-stud"]
    seat = min(app.load(code).state.seats)
    app.execute(StartHand(command_id="v-start", table=code))
    app.execute(PlaceWager(command_id="v-ante", table=code, seat=seat, kind="ante", amount=500))
    app.execute(VoidHand(command_id="v-void", table=code, reason="shuffler fault"))
    Runner(app).catch_up()
    read = ReadModel(app)
    hand = read.hand(code, app.load(code).state.hand_no)
    assert hand["status"] == "voided" and hand["result"]["reason"] == "shuffler fault"
    assert "COM-5" in hand["rules"]
    (day,) = read.accounting(table=code)
    assert day["hands_voided"] == 1 and day["hands_settled"] == HANDS["caribbean-stud"]
    assert read.balances(table=code, prefix="spot:", nonzero=True) == []


def test_coverage_view_shows_each_designated_player_hand(shared: Shared) -> None:
    app, played = shared
    read = ReadModel(app)
    code = played["high-card-flush"]
    settled = [e for e in events(app, code)
               if isinstance(e, r.HandSettled) and e.coverage is not None]
    rows = read.coverage(table=code, limit=1_000)
    assert len(rows) == len(settled) > 0
    for row, event in zip(rows, settled, strict=True):
        assert event.coverage is not None
        assert row["dp_seat"] == event.coverage.dp_seat
        assert row["funds_at_start_minor"] == event.coverage.funds_at_start
        assert row["funds_left_minor"] == event.coverage.funds_left
        assert [(x["seat"], x["liability_minor"], x["covered"]) for x in row["lines"]] == [
            (line.seat, line.liability, line.covered) for line in event.coverage.lines]
        for x in row["lines"]:  # what the seat paid into the funds and was paid (HCF-12)
            assert x["funds_after_minor"] - x["funds_before_minor"] == \
                x["paid_in_minor"] - x["paid_minor"]
            assert x["covered"] or x["paid_in_minor"] == x["paid_minor"] == 0
    assert any(x["paid_minor"] for row in rows for x in row["lines"])
    assert any(x["paid_in_minor"] for row in rows for x in row["lines"])
    assert read.coverage(table=played["caribbean-stud"]) == []


def test_each_seat_s_result_of_every_hand_sums_with_the_table_lines_to_zero(
    shared: Shared,
) -> None:
    """The hands view's per-seat results (``ledger.domain.results``) balance with the house, DP,
    rake and jackpot lines, and each seat's net is its stack's change over the hand."""
    app, _ = shared
    read = ReadModel(app)
    (day,) = read.gaming_days()
    for hand in read.hands_full(day=day):
        results = hand["result"]["results"]
        dp = results["designated_player"]
        assert sum(s["net"] for s in results["seats"]) + results["house"] + results["rake"] + \
            results["jackpot"] + (dp["net"] if dp else 0) == 0, hand["hand_no"]
        for seat in results["seats"]:
            assert seat["net"] == seat["won"] + seat["returned"] - seat["wagered"] - seat["fee"]
            assert min(seat["wagered"], seat["fee"], seat["returned"], seat["won"]) >= 0
            if hand["status"] != "settled":
                assert seat["won"] == 0


def test_rake_view_totals_match_the_rake_account(shared: Shared) -> None:
    app, played = shared
    read = ReadModel(app)
    for game, code in played.items():
        raked = app.load(code).state.balances.get(accounts.RAKE, 0)
        totals = read.rake_totals(table=code)
        assert sum(t["amount_minor"] for t in totals) == raked
        (day,) = read.accounting(table=code)
        assert day["rake_minor"] == raked
        for total in totals:
            assert total["game"] == game and total["method"]
    assert read.rake_totals(table=played["high-card-flush"])[0]["amount_minor"] > 0


def test_jackpot_view_follows_the_meter(shared: Shared) -> None:
    app, played = shared
    read = ReadModel(app)
    code = played["caribbean-stud"]
    stream = events(app, code)
    meter = app.load(code).state.balances[accounts.JACKPOT]
    assert read.jackpot_meters() == [{"table_code": code, "meter_minor": meter,
                                      "last_version": read.jackpot_meters()[0]["last_version"]}]
    moves = read.jackpot_moves(table=code, limit=10_000)
    assert moves[-1]["meter_after_minor"] == meter or any(
        m["kind"] == "award" and m["source"] == "house" for m in moves[-2:])
    contributions = sum(t.amount for e in stream for t in getattr(e, "transfers", ())
                        if t.dst == accounts.JACKPOT and accounts.is_spot(t.src))
    assert sum(m["amount_minor"] for m in moves if m["kind"] == "contribution") == \
        contributions > 0
    assert moves[0]["kind"] == "seed"
    awards = sum(j.amount for e in stream if isinstance(e, r.HandSettled) for j in e.jackpot)
    assert sum(m["amount_minor"] for m in moves if m["kind"] == "award") == awards


def test_accounting_view_per_table_and_gaming_day(shared: Shared) -> None:
    app, played = shared
    read = ReadModel(app)
    for game, code in played.items():
        stream = events(app, code)
        (day,) = read.accounting(table=code)
        assert day["drop_minor"] == sum(e.amount for e in stream
                                        if isinstance(e, r.ChipsBoughtIn))
        assert day["hands_settled"] == HANDS[game]
        banking = get_game(game).banking
        if banking == "house":
            win = sum(accounts.net_flows(getattr(e, "transfers", ())).get(accounts.HOUSE, 0)
                      for e in stream if isinstance(e, r.HandRecord))
            assert day["house_win_minor"] == win
            expected = (Decimal(win) * 100 / Decimal(day["drop_minor"])).quantize(
                Decimal("0.01"), rounding=ROUND_HALF_UP)
            assert day["hold_pct"] == str(expected)
        else:
            assert day["house_win_minor"] is None and day["hold_pct"] is None
        if banking == "player":
            dp = sum(o.amount for e in stream if isinstance(e, r.HandSettled)
                     for o in e.outcomes if o.wager == "designated_player")
            assert day["dp_results_minor"] == dp
            assert sum(x["result_minor"] for x in read.dp_results(table=code)) == dp
        else:
            assert day["dp_results_minor"] is None
    assert read.gaming_days() == [day["gaming_day"]]
    assert sorted(PROFILES) == sorted(played)


def test_chp_10_an_approved_void_after_a_set_is_shown_and_audits_clean(
    app: LedgerApp, played: dict[str, str]
) -> None:
    from ledger.domain.commands import Act
    from ledger.domain.errors import RuleViolation
    from projections.audit import verify

    code = played["chinese-poker"]
    app.execute(StartHand(command_id="c-start", table=code))
    app.execute(DealCards(command_id="c-deal", table=code))
    hand = app.load(code).state.hand
    first = hand.seats[0]
    cards = list(first.cards)
    app.execute(Act(command_id="c-set", table=code, seat=first.seat, action="set",
                    front=cards[:3], middle=cards[3:8], back=cards[8:]))
    version = app.load(code).version
    with pytest.raises(RuleViolation) as err:
        app.execute(VoidHand(command_id="c-void", table=code, reason="deck short"))
    assert err.value.code == "void_needs_approval" and app.load(code).version == version
    with_supervisors(app, {"a-popescu": ("A. Popescu", "supervisor")})
    app.execute(VoidHand(command_id="c-void2", table=code, reason="deck short",
                         approved_by="a-popescu"))
    Runner(app).catch_up()
    row = ReadModel(app).hand(code, hand.hand_no)
    assert row["status"] == "voided" and row["result"]["approved_by"] == "a-popescu"
    report = verify(app, table=code)
    assert report.ok and report.discrepancies == []
