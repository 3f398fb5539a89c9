"""The pair occasions of a settled hand, read from a row of the hands view.

Stud Hi/Lo (:mod:`.stud`): the cards of every round with the version of the event that dealt
them, every action in order, each seat's result. Chinese Poker (:mod:`.chinese`): each seat's
13 cards, its arrangement and any automatic win declared; the shortfall of each player against
each opponent is an occasion of the kind ``points_passed`` (its amount in points).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ledger.domain.cards import parse_card
from ledger.games.chinese.config import ChineseConfig
from ledger.games.chinese.hand import ChineseSeat
from projections.protection import chinese, stud
from projections.protection.decisions import column, dealt, players
from projections.protection.pairs import Occasion


def stud_occasions(row: Mapping[str, Any]) -> list[Occasion]:
    deals = []
    for round_ in column(row, "cards_json"):
        for item in round_["dealt"]:
            cards = tuple(parse_card(c) for c in (*item["down"], *item["up"]))
            deals.append(stud.Deal(int(round_["version"]), item["target"], cards))
    actions = [stud.Action(int(a["version"]), int(a["seat"]), str(a["action"]))
               for a in column(row, "actions_json") if a["type"] == "act"]
    result = column(row, "result_json") or {}
    seats = (result.get("results") or {}).get("seats") or []
    net = {int(s["seat"]): int(s["net"]) for s in seats}
    facts = stud.StudHandFacts(table=str(row["table_code"]), hand_no=int(row["hand_no"]),
                               players=players(row), deals=deals, actions=actions, net=net)
    return stud.occasions(facts)


def chinese_occasions(row: Mapping[str, Any], config: ChineseConfig) -> list[Occasion]:
    names = players(row)
    cards = dealt(row)
    arranged: dict[int, dict[str, Any]] = {}
    for action in column(row, "actions_json"):
        if action["type"] == "act" and int(action["seat"]) in names:
            entry = arranged.setdefault(int(action["seat"]), {})
            if action.get("segments") is not None:
                entry["segments"] = tuple(tuple(parse_card(c) for c in s)
                                          for s in action["segments"])
            if action.get("declaration") is not None:
                entry["declaration"] = action["declaration"]
            if action["action"] == "fold":
                entry["folded"] = True
    seats = []
    for seat, player in names.items():
        held = cards.get(seat)
        if held is None:
            continue
        seats.append(ChineseSeat(seat=seat, player=player, cards=held[0] + held[1],
                                 **arranged.get(seat, {})))
    table, hand_no = str(row["table_code"]), int(row["hand_no"])
    return [Occasion("points_passed", names[a], names[x], table, hand_no, float(points),
                     weight=float(points))
            for (a, x), points in chinese.shortfalls(seats, config.scoring).items()]
