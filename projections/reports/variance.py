"""The variance checks of games the house does not bank: each compares a recorded figure with one
worked out independently of it, so each can fail.

- **Rake against the policy** (HCF-13, CHP-11, STUD8-11): for every settled hand, the rake the
  policy in force when the hand was played (its configuration version, COM-4) owes, worked out
  from the hand itself (Stud Hi/Lo: the rate of the pots, whole chips, capped, none when the
  hand ended on third street; Chinese Poker: the fee per player; High Card Flush: the fee per
  player hand that was not dead and the DP's fee when a player hand was live), against the rake
  recorded. Exact: every difference is listed with its hand.
- **The designated player against the paytable** (High Card Flush, HCF-14): the DPs' results
  over the period against their theoretical result from the paytable mathematics (each player
  hand's Ante at the exact player-against-DP figure, each bonus wager at its return against the
  DP, less the DP's fees), with the standard deviation from the simulated spread per Ante and a
  95% interval; outside it, the hands that weigh most (the DP's results furthest from theory in
  the direction of the difference) are named.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from projections.read.fleet import for_table
from projections.reports.paytable import normalised

Z_95 = 1.959964
FLAG_HANDS = 5
BONUSES = {"flush_bonus": "flush_bonus", "straight_flush_bonus": "straight_flush_bonus"}


def settled_hands(store: Any, code: str, first: str, last: str) -> list[dict[str, Any]]:
    """The settled hands of a table over the days (the rake recorded, pots, cards, outcomes)."""
    rows = store.fetchall(
        "SELECT hand_no, gaming_day, config_version, dp_seat, players, rake_minor, "
        "dp_result_minor, cards_json, result_json FROM {proj_hands} WHERE table_code = ? AND "
        "status = 'settled' AND gaming_day >= ? AND gaming_day <= ? ORDER BY hand_no",
        (code, first, last))
    for row in rows:
        for key in ("cards_json", "result_json"):
            if isinstance(row[key], str):
                row[key] = json.loads(row[key])
    return list(rows)


def owed_rake(game: str, config: Mapping[str, Any], hand: Mapping[str, Any]) -> int:
    """The rake the policy owes on one settled hand, from the hand's own record."""
    result = hand["result_json"]
    if game == "stud-hilo":
        bps, cap, chip = (int(config.get("rake_bps") or 0), config.get("rake_cap"),
                          int(config.get("chip_unit") or 1))
        third_only = all(c.get("round") == "third_street" for c in hand["cards_json"])
        if third_only or not bps:  # STUD8-11: no rake when the hand ends on third street
            return 0
        total = sum(int(p["amount"]) for p in result.get("pots", []))
        rake = total * bps // 10_000 // chip * chip
        return rake if cap is None else min(rake, int(cap))
    if game == "chinese-poker":
        return int(config.get("fee") or 0) * int(hand["players"])  # CHP-11
    if game == "high-card-flush":
        policy: Mapping[str, Any] = config.get("rake") or {}
        fee, method = int(policy.get("fee") or 0), policy.get("method", "i")
        players = fee if method in ("i", "ii") else 0
        dp_fee = fee if method in ("i", "iii") else 0
        dp = hand["dp_seat"]
        outcomes = result.get("outcomes", [])
        seats = {o["seat"] for o in outcomes if o["seat"] != dp}
        dead = {o["seat"] for o in outcomes if o["result"] == "dead"}
        live = seats - dead
        owed = players * len(live)
        if live and dp is not None:  # HCF-13: no DP fee when every player hand is dead
            waived = any(o["seat"] == dp and "waived" in (o.get("note") or "")
                         for o in outcomes)
            if waived:  # the DP's funds could not cover it: what was left, as noted
                owed += sum(int(line["amount"]) for line in result.get("rake", [])
                            if line.get("seat") == dp)
            else:
                owed += dp_fee
        return owed
    return 0


def rake_check(game: str, configs: Mapping[int, Mapping[str, Any]],
               hands: list[dict[str, Any]]) -> dict[str, Any]:
    """The rake recorded against the rake the policy owes, hand by hand."""
    owed_total, recorded_total, differences = 0, 0, []
    for hand in hands:
        owed = owed_rake(game, configs[int(hand["config_version"])], hand)
        recorded = int(hand["rake_minor"])
        owed_total += owed
        recorded_total += recorded
        if owed != recorded:
            differences.append({"hand_no": int(hand["hand_no"]),
                                "gaming_day": hand["gaming_day"], "owed_minor": owed,
                                "recorded_minor": recorded,
                                "difference_minor": recorded - owed})
    return {"owed_minor": owed_total, "recorded_minor": recorded_total,
            "variance_minor": recorded_total - owed_total, "differences": differences,
            "flagged": bool(differences)}


def dp_check(figures: Mapping[int, Mapping[str, Any]], hands: list[dict[str, Any]],
             wagers: Mapping[int, list[dict[str, int]]]) -> dict[str, Any]:
    """The DPs' results against the paytable's theory over ``hands`` (High Card Flush).

    ``wagers``: per hand, each player hand's wagers by kind (the DP's seat excluded)."""
    theory, variance, result = 0.0, 0.0, 0
    per_hand: list[tuple[float, dict[str, Any]]] = []
    for hand in hands:
        if hand["dp_result_minor"] is None:
            continue
        math = figures[int(hand["config_version"])]
        player = float(math["player_expected_per_ante"])
        sim = math["simulation"]
        root = float(sim["hands"]) ** 0.5
        sd_ante = float(sim["player"]["stderr"]) * root
        expected = 0.0
        for kinds in wagers.get(int(hand["hand_no"]), []):
            ante = kinds.get("ante", 0)
            expected -= player * ante
            variance += (sd_ante * ante) ** 2
            for kind, name in BONUSES.items():
                amount = kinds.get(kind, 0)
                if amount:
                    expected -= float(math[name]["return_against_dp"]) * amount
                    sd = float(sim["flush" if kind == "flush_bonus" else "straight_flush"]
                               ["stderr"]) * root
                    variance += (sd * amount) ** 2
        dp = hand["dp_seat"]
        expected -= sum(int(line["amount"]) for line in hand["result_json"].get("rake", [])
                        if line.get("seat") == dp)  # HCF-14: less the fee the DP pays
        actual = int(hand["dp_result_minor"])
        theory += expected
        result += actual
        per_hand.append((actual - expected, hand))
    sd = variance ** 0.5
    z = (result - theory) / sd if sd > 0 else 0.0
    flagged = abs(z) > Z_95
    heaviest: list[dict[str, Any]] = []
    if flagged:
        per_hand.sort(key=lambda item: item[0], reverse=z > 0)
        heaviest = [{"hand_no": int(h["hand_no"]), "gaming_day": h["gaming_day"],
                     "dp_result_minor": int(h["dp_result_minor"]),
                     "beyond_theory_minor": round(d)} for d, h in per_hand[:FLAG_HANDS]]
    return {"result_minor": result, "theoretical_minor": round(theory), "sd_minor": round(sd),
            "interval_minor": [round(theory - Z_95 * sd), round(theory + Z_95 * sd)],
            "z": f"{z:.3f}", "flagged": flagged, "flag_hands": heaviest}


def player_wagers(store: Any, code: str, first: str, last: str) -> dict[int, list[dict[str,
                                                                                        int]]]:
    """Per settled hand, the wagers of each player hand (the DP's seat excluded)."""
    rows = store.fetchall(
        "SELECT s.hand_no, s.seat, s.kinds_json, h.dp_seat FROM {proj_seat_hands} s JOIN "
        "{proj_hands} h ON h.table_code = s.table_code AND h.hand_no = s.hand_no WHERE "
        "s.table_code = ? AND s.status = 'settled' AND s.gaming_day >= ? AND "
        "s.gaming_day <= ?", (code, first, last))
    out: dict[int, list[dict[str, int]]] = {}
    for row in rows:
        if row["dp_seat"] is not None and int(row["seat"]) == int(row["dp_seat"]):
            continue
        out.setdefault(int(row["hand_no"]), []).append(json.loads(row["kinds_json"]))
    return out


def player_banked(model: Any, table: Mapping[str, Any], figures: Mapping[int, Mapping[str, Any]],
                  first: str, last: str,
                  hands_of: Callable[..., list[dict[str, Any]]] | None = None
                  ) -> dict[str, Any]:
    """Both checks of a player-banked or pooled table over the days ``first``..``last``."""
    code, game = table["table_code"], table["game"]
    store = for_table(model, code).store
    configs = {int(row["config_version"]): normalised(game, row["config"])
               for row in model.table_configs(code)}
    hands = (hands_of or settled_hands)(store, code, first, last)
    out: dict[str, Any] = {"rake_check": rake_check(game, configs, hands)}
    if game == "high-card-flush":
        out["dp_check"] = dp_check(figures, hands, player_wagers(store, code, first, last))
    return out
