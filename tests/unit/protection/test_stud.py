"""Stud Hi/Lo occasions between pairs (STUD8-7): ahead and behind, folds facing the other's
bet, bets into the other, chips passed."""

from __future__ import annotations

from ledger.domain.cards import parse_cards
from projections.protection import stud
from projections.protection.pairs import Occasion, run_pair_tests


def c(text: str) -> tuple[int, ...]:
    return tuple(parse_cards(text))


def test_ahead_and_behind() -> None:
    assert stud.ahead(c("Ah Ad 9c"), c("Kh Kd 2c"))
    assert not stud.ahead(c("Kh Kd 2c"), c("Ah Ad 9c"))
    # Seven cards: a worse high but the only qualifying low wins a half.
    assert stud.ahead(c("Ac 2d 3h 4s 7c Kd Qh"), c("9c 9d 9h Ks Qc Js Th"))
    assert not stud.behind_both(c("Ac 2d 3h 4s 7c Kd Qh"), c("9c 9d 9h Ks Qc Js Th"))
    assert stud.behind_both(c("2c 2d 8h Ks Qc Js 4h"), c("9c 9d 9s Kh Qs 5d 3c"))


def _hand() -> stud.StudHandFacts:
    """Seat 1 (Ann) has aces, seat 2 (Bob) bets with nothing; Ann folds to Bob's bet."""
    deals = [stud.Deal(10, 1, c("Ah Ad 9c")), stud.Deal(10, 2, c("3h 7d Kc")),
             stud.Deal(10, 3, c("2s 5s Js"))]
    actions = [stud.Action(11, 3, "bring_in"), stud.Action(12, 1, "call"),
               stud.Action(13, 2, "raise"), stud.Action(14, 3, "fold"),
               stud.Action(15, 1, "fold")]
    return stud.StudHandFacts(table="S1", hand_no=4, players={1: "ann", 2: "bob", 3: "cy"},
                              deals=deals, actions=actions, net={1: -700, 2: 1200, 3: -500})


def test_occasions_of_a_hand() -> None:
    found = stud.occasions(_hand())
    soft = [o for o in found if o.kind == "soft_fold"]
    assert [(o.actor, o.other, o.value) for o in soft] == [("ann", "bob", 1.0)]
    bets = [o for o in found if o.kind == "bet_behind"]
    assert {(o.actor, o.other, o.value) for o in bets} == {("bob", "ann", 1.0),
                                                           ("bob", "cy", 0.0)}
    chips = {(o.actor, o.other): o.value for o in found if o.kind == "chips_passed"}
    assert chips == {("ann", "bob"): 700.0, ("cy", "bob"): 0.0}


def test_pairs_stand_out_only_against_both_sides() -> None:
    """Ann folds to Bob every time and to nobody else; Cy folds to everyone: Ann-Bob stands
    out, Cy's folds do not make Cy a pair with anyone."""
    items = []
    for n in range(30):
        items.append(Occasion("soft_fold", "ann", "bob", "T", n, 1.0, 1.0))
        items.append(Occasion("soft_fold", "ann", "dan", "T", n, 0.0))
        items.append(Occasion("soft_fold", "ann", "eve", "T", n, 0.0))
        items.append(Occasion("soft_fold", "cy", "bob", "T", n, 1.0 if n % 3 else 0.0))
        items.append(Occasion("soft_fold", "cy", "dan", "T", n, 1.0 if n % 3 else 0.0))
        items.append(Occasion("soft_fold", "dan", "bob", "T", n, 0.0))
        items.append(Occasion("soft_fold", "eve", "bob", "T", n, 0.0))
    results = {(t.actor, t.other): t for t in run_pair_tests("soft_fold", items, counted=True)}
    assert results[("ann", "bob")].result.p_value < 1e-6
    assert results[("ann", "bob")].hands[0] == ("T", 0)
    assert results[("cy", "dan")].result.p_value > 0.05
    assert results[("cy", "bob")].result.p_value > 0.001
