"""Every Play/fold and fold/raise decision of a settled hand, judged against the hidden cards.

Reads a row of the hands view (:mod:`projections.views.hands`: seats, cards by round, actions,
the DP's seat) and the table's configuration in force for the hand (COM-4), and returns one
:class:`Decision` per seat that decided: Caribbean Stud (CSP-2) against the dealer's four
hidden cards, High Card Flush (HCF-5) against the DP's seven. A seat that left before deciding
(COM-6) made no decision; a hand without a revealed dealer or DP hand (voided, cancelled) is
not read.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ledger.domain.cards import parse_card
from ledger.evaluation import high
from ledger.games.caribbean.config import CaribbeanConfig
from ledger.games.hcf.model import HcfConfig
from projections.protection import caribbean, hcf
from projections.protection.odds import Judgement, judge


@dataclass(frozen=True)
class Decision:
    table: str
    hand_no: int
    player: str
    seat: int
    judgement: Judgement
    against: str | None = None
    """High Card Flush: the player who was the DP."""
    dealer: str | None = None
    """The dealer of the hand (DLR-2)."""



def column(row: Mapping[str, Any], key: str) -> Any:
    value = row[key]
    return json.loads(value) if isinstance(value, str) else value


def _cards(texts: list[str]) -> tuple[int, ...]:
    return tuple(parse_card(t) for t in texts)


def dealt(row: Mapping[str, Any]) -> dict[Any, tuple[tuple[int, ...], tuple[int, ...]]]:
    """Each target's (face-down, face-up) cards over every round of the hand."""
    out: dict[Any, tuple[tuple[int, ...], tuple[int, ...]]] = {}
    for round_ in column(row, "cards_json"):
        for item in round_["dealt"]:
            down, up = out.get(item["target"], ((), ()))
            out[item["target"]] = (down + _cards(item["down"]), up + _cards(item["up"]))
    return out


def players(row: Mapping[str, Any]) -> dict[int, str]:
    return {int(s["seat"]): str(s["player"]) for s in column(row, "seats_json")}


def _wagers(actions: list[dict[str, Any]]) -> dict[int, dict[str, int]]:
    out: dict[int, dict[str, int]] = {}
    for action in actions:
        if action["type"] == "wager":
            seat = out.setdefault(int(action["seat"]), {})
            seat[action["action"]] = seat.get(action["action"], 0) + int(action["amount_minor"])
    return out


def caribbean_decisions(row: Mapping[str, Any], config: CaribbeanConfig) -> list[Decision]:
    """CSP-2..6: each seat's Play or fold, judged against the dealer's hidden cards."""
    cards = dealt(row)
    dealer = cards.get("dealer")
    if dealer is None or len(dealer[0]) != 4 or len(dealer[1]) != 1:
        return []
    up = dealer[1][0]
    dealer_hand = (*dealer[0], up)
    names = players(row)
    actions = column(row, "actions_json")
    wagers = _wagers(actions)
    jackpot = config.jackpot
    out = []
    for action in actions:
        if action["type"] != "act" or action["action"] not in ("play", "fold"):
            continue
        seat = int(action["seat"])
        mine = cards.get(seat)
        ante = wagers.get(seat, {}).get("ante", 0)
        if mine is None or len(mine[0]) != 5 or not ante or seat not in names:
            continue
        award = 0
        if jackpot.enabled and wagers[seat].get("jackpot"):
            # Percentage awards need the meter of the moment: the seed stands for it (only a
            # straight or royal flush takes one, and with either the Play is the better action).
            award = caribbean.jackpot_award(mine[0], jackpot.fixed_awards,
                                            jackpot.percent_awards_bps, jackpot.seed)
        counts = caribbean.dealer_counts(mine[0], up)
        odds = caribbean.action_odds(counts, ante, config.play_paytable, award)
        cell = caribbean.cell_of(mine[0], dealer_hand)
        out.append(Decision(row["table_code"], int(row["hand_no"]), names[seat], seat,
                            judge(odds, action["action"], cell), dealer=row.get("dealer")))
    return out


@dataclass(frozen=True)
class HandLuck:
    """A Caribbean Stud hand's cards for the dealer tests (:func:`caribbean.table_luck`)."""

    table: str
    hand_no: int
    dealer: str | None
    real: float
    mean: float
    variance: float


def caribbean_luck(row: Mapping[str, Any], config: CaribbeanConfig) -> HandLuck | None:
    """The seats' Play results on the dealer's cards, each as if played, in Antes."""
    cards = dealt(row)
    dealer = cards.get("dealer")
    if dealer is None or len(dealer[0]) != 4 or len(dealer[1]) != 1:
        return None
    seats = [(mine[0], config.play_paytable[high.category(high.evaluate(mine[0])).label])
             for target, mine in cards.items() if target != "dealer" and len(mine[0]) == 5]
    if not seats:
        return None
    real, mean, variance = caribbean.table_luck(seats, dealer[1][0], dealer[0])
    return HandLuck(str(row["table_code"]), int(row["hand_no"]), row.get("dealer"), real, mean,
                    variance)


def hcf_decisions(row: Mapping[str, Any], config: HcfConfig) -> list[Decision]:
    """HCF-5, HCF-8..11: each seat's fold or raise, judged against the DP's hidden hand."""
    dp_seat = row.get("dp_seat")
    cards = dealt(row)
    if dp_seat is None or int(dp_seat) not in cards:
        return []
    dp_hand = cards[int(dp_seat)][0]
    if len(dp_hand) != hcf.HAND:
        return []
    names = players(row)
    actions = column(row, "actions_json")
    wagers = _wagers(actions)
    out = []
    for action in actions:
        if action["type"] != "act" or action["action"] not in ("fold", "raise"):
            continue
        seat = int(action["seat"])
        if seat == int(dp_seat) or seat not in names or seat not in cards:
            continue
        mine = cards[seat][0]
        placed = wagers.get(seat, {})
        ante = placed.get("ante", 0)
        if len(mine) != hcf.HAND or not ante:
            continue
        stakes = hcf.Stakes(ante=ante, flush_bonus=placed.get("flush_bonus", 0),
                            straight_flush_bonus=placed.get("straight_flush_bonus", 0))
        amount = int(action["amount_minor"]) if action["action"] == "raise" else None
        odds = hcf.action_odds(mine, hcf.dp_cells(mine), stakes, config.flush_bonus_paytable,
                               config.straight_flush_bonus_paytable,
                               hcf.raise_sizes(mine, ante, amount))
        cell = hcf.cell_of(mine, dp_hand).name
        out.append(Decision(row["table_code"], int(row["hand_no"]), names[seat], seat,
                            judge(odds, hcf.action_name(action["action"], amount), cell),
                            against=names.get(int(dp_seat)), dealer=row.get("dealer")))
    return out
