"""HCF-13 house rake (methods i, ii, iii; never on dead or voided hands), HCF-14 the DP's result."""

from __future__ import annotations

import pytest

from ledger.domain import accounts
from ledger.domain.commands import VoidHand
from ledger.domain.records import HandSettled, HandVoided

from .helpers import TABLE, Table, outcome
from .test_coverage import DP, HANDS


def raked_hand(method: str, fee: int = 100) -> tuple[Table, HandSettled]:
    """DP seat 1 (200.00); seat 3 folds, seat 2 loses, seat 5 wins."""
    t = Table({1: 20_000, 2: 20_000, 3: 20_000, 5: 20_000},
              {"rake": {"method": method, "fee": fee}})
    s = t.play(1, {5: {"ante": 1_000}, 3: {"ante": 1_000}, 2: {"ante": 1_000}},
               {5: HANDS[5], 3: HANDS[3], 2: "Ac Kc Qh Th 9s 4s 8d", 1: DP},
               {5: 1_000, 3: None, 2: 1_000})
    return t, s


@pytest.mark.parametrize(("method", "seats"), [("i", [3, 5, 2, 1]), ("ii", [3, 5, 2]),
                                               ("iii", [1])])
def test_hcf_13_the_three_rake_methods(method: str, seats: list[int]) -> None:
    t, s = raked_hand(method)
    assert [(r.seat, r.amount, r.rule, r.method) for r in s.rake] == [
        (seat, 100, "HCF-13", method) for seat in seats]
    assert t.balance(accounts.RAKE) == 100 * len(seats)
    assert not [a for a in t.state.balances if accounts.is_hand_scoped(a)]


def test_hcf_13_players_pay_their_fee_with_the_ante_and_a_folded_player_is_raked() -> None:
    t, _ = raked_hand("ii")
    assert t.stack(3) == 20_000 - 1_000 - 100  # folded: Ante lost, fee raked
    assert t.stack(2) == 20_000 - 2_000 - 100
    assert t.stack(5) == 20_000 + 2_000 - 100


def test_hcf_13_the_dps_fee_comes_after_settlement_and_never_reduces_the_funds() -> None:
    # the DP banks exactly what seat 2 wins: covered, and nothing is left for the fee
    t = Table({1: 10_000, 2: 20_000}, {"rake": {"method": "iii", "fee": 100}})
    s = t.play(1, {2: {"ante": 5_000}}, {2: HANDS[2], 1: DP}, {2: 5_000})
    assert s.coverage is not None and s.coverage.lines[0].covered
    assert s.rake == () and t.balance(accounts.RAKE) == 0
    dp = outcome(s, 1, "designated_player")
    assert dp.amount == -10_000 and "1.00 of the 1.00 fee waived" in (dp.note or "")


def test_hcf_13_no_dp_fee_when_every_player_hand_is_dead() -> None:
    t = Table({1: 10_000, 2: 20_000}, {"rake": {"method": "i", "fee": 100}})
    s = t.play(1, {2: {"ante": 6_000}}, {2: HANDS[2], 1: DP}, {2: 6_000})
    assert outcome(s, 2, "ante").result == "dead"
    assert s.rake == () and t.balance(accounts.RAKE) == 0
    assert t.stack(1) == 10_000 and t.stack(2) == 20_000
    assert outcome(s, 1, "designated_player").result == "push"


def test_hcf_13_com_5_a_voided_hand_is_not_raked_and_returns_everything() -> None:
    t = Table({1: 20_000, 2: 20_000, 3: 20_000}, {"rake": {"method": "i", "fee": 100}})
    t.start()
    t.act(1, "accept")
    t.wager(2, "ante", 1_000)
    t.wager(3, "ante", 1_000)
    t.deal({2: HANDS[2], 3: HANDS[3], 1: DP})
    t.act(2, "fold")
    (voided,) = t.run(VoidHand(command_id=t.cid(), table=TABLE, reason="card exposed"))
    assert isinstance(voided, HandVoided) and voided.rule == "COM-5"
    assert [t.stack(s) for s in (1, 2, 3)] == [20_000, 20_000, 20_000]
    assert t.balance(accounts.RAKE) == 0 and t.state.hand is None


def test_hcf_14_the_dps_result_is_every_settlement_against_it_minus_its_fee() -> None:
    t, s = raked_hand("i")
    players = sum(o.amount for o in s.outcomes if o.seat != 1)
    dp = outcome(s, 1, "designated_player")
    assert players == -1_000 + -2_000 + 2_000
    assert dp.rule == "HCF-14" and dp.stake == 20_000
    assert dp.amount == -players - 100 == 900
    assert dp.result == "win" and t.stack(1) == 20_000 + 900
    assert "settlements +10.00, fee 1.00" in (dp.note or "")
