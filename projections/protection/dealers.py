"""The dealer tests: who dealt the hands (DLR-2), and what a dealer alone could move.

Per dealer over the period, across the tables it dealt at:

- ``dealer_hold`` (house-banked, Caribbean Stud): the house's result *on the cards*: every
  seat's Ante as if its player had played (CSP-3, CSP-4), in its own Antes (each seat weighs
  the same whatever its stake), summed over the seats of each hand; against its exact mean and
  variance over every dealer hand the seats' cards and the up card leave (the seats share one
  dealer hand: their results move together). The players' decisions, good,
  bad or informed, do not move it; a dealer whose cards favour the players (a dealer's hand
  keyed in that does not qualify, at a table whose cards are recorded, COM-8) does. Two-sided:
  a z outside the interval either way. The detail also gives the house's real result on the
  Ante and Play wagers and its expectation given the decisions made.
- ``dealer_rake`` (player-banked: High Card Flush, Chinese Poker, Stud Hi/Lo): the rake of the
  dealer's hands against the table's policy, as the mean and spread of the rake per settled
  hand under each configuration (HCF-13, CHP-11, STUD8-11). Two-sided.
- ``dealer_voids``: voided hands (COM-5) and corrected hands (COR-1) per 100 hands dealt,
  against the rate of every other dealer's hands of the period (exact binomial upper tail).

Hands that name no dealer (nobody had signed in) are left out of the dealer tests.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from scipy import stats as dist

from projections.protection.decisions import Decision, HandLuck
from projections.protection.flags import Test
from projections.protection.pairs import TOP_HANDS
from projections.read.fleet import for_table
from projections.reports.periods import Period
from projections.reports.rake_report import rake_stats_by_config

PLAYER_BANKED = ("high-card-flush", "chinese-poker", "stud-hilo")


def dealer_tests(model: Any, chosen: Period, tables: Sequence[Mapping[str, Any]],
                 lucks: Sequence[HandLuck], decisions: Sequence[Decision]) -> list[Test]:
    hands = {t["table_code"]: _hand_rows(model, t["table_code"], chosen) for t in tables}
    games = {t["table_code"]: t["game"] for t in tables}
    return [*_hold(lucks, decisions), *_rake(model, hands, games),
            *_voids(model, hands, chosen)]


def _hand_rows(model: Any, code: str, chosen: Period) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = for_table(model, code).store.fetchall(
        "SELECT table_code, hand_no, status, dealer, rake_minor, config_version, "
        "house_result_minor FROM {proj_hands} WHERE table_code = ? AND gaming_day >= ? AND "
        "gaming_day <= ? AND status IN ('settled', 'voided') ORDER BY hand_no",
        (code, chosen.first, chosen.last))
    return rows


def _two_sided(z: float) -> float:
    return float(2 * dist.norm.sf(abs(z)))


def _hold(lucks: Sequence[HandLuck], decisions: Sequence[Decision]) -> list[Test]:
    by_dealer: dict[str, list[HandLuck]] = defaultdict(list)
    for luck in lucks:
        if luck.dealer is not None:
            by_dealer[luck.dealer].append(luck)
    results: dict[tuple[str, int], tuple[int, float]] = defaultdict(lambda: (0, 0.0))
    for d in decisions:
        real, expected = results[(d.table, d.hand_no)]
        results[(d.table, d.hand_no)] = (real + d.judgement.result,
                                         expected + d.judgement.expected)
    tests = []
    for dealer, group in sorted(by_dealer.items()):
        excess = sum(h.real - h.mean for h in group)
        variance = sum(h.variance for h in group)
        z = excess / math.sqrt(variance) if variance > 0 else 0.0
        side = 1 if z >= 0 else -1
        ranked = sorted(group, key=lambda h: (-side * (h.real - h.mean), h.table, h.hand_no))
        tables = sorted({h.table for h in group})
        keys = [(h.table, h.hand_no) for h in group]
        tests.append(Test(
            kind="dealer_hold", table=tables[0] if len(tables) == 1 else None,
            game="caribbean-stud", players=[], dealer=dealer, statistic=-z,
            p_value_raw=_two_sided(z) if variance > 0 else 1.0,
            hands=[(h.table, h.hand_no) for h in ranked if side * (h.real - h.mean) > 0][
                :TOP_HANDS],
            hands_tested=len(group),
            detail={"tables": tables, "house_on_cards_antes": round(-excess, 2),
                    "sd_antes": round(math.sqrt(variance), 2),
                    "house_result_minor": -sum(results[k][0] for k in keys),
                    "expected_given_decisions_minor": round(-sum(results[k][1]
                                                                 for k in keys))}))
    return tests


def _rake(model: Any, hands: Mapping[str, list[dict[str, Any]]],
          games: Mapping[str, str]) -> list[Test]:
    sums: dict[str, dict[str, Any]] = {}
    for code, rows in hands.items():
        if games[code] not in PLAYER_BANKED:
            continue
        policy = rake_stats_by_config(model, code)
        for row in rows:
            if row["status"] != "settled" or row["dealer"] is None:
                continue
            stat = policy.get(int(row["config_version"]))
            if stat is None:
                continue
            entry = sums.setdefault(row["dealer"], {"rake": 0, "expected": 0.0, "var": 0.0,
                                                    "hands": [], "tables": set()})
            rake = int(row["rake_minor"])
            entry["rake"] += rake
            entry["expected"] += stat["mean_minor"]
            entry["var"] += stat["sd_minor"] ** 2
            entry["hands"].append(((code, int(row["hand_no"])), rake - stat["mean_minor"]))
            entry["tables"].add(code)
    tests = []
    for dealer, entry in sorted(sums.items()):
        sd = math.sqrt(entry["var"])
        z = (entry["rake"] - entry["expected"]) / sd if sd > 0 else 0.0
        side = 1 if z >= 0 else -1
        ranked = sorted(entry["hands"], key=lambda kv: (-side * kv[1], kv[0]))
        tables = sorted(entry["tables"])
        tests.append(Test(
            kind="dealer_rake", table=tables[0] if len(tables) == 1 else None,
            game=games[tables[0]], players=[], dealer=dealer, statistic=z,
            p_value_raw=_two_sided(z) if sd > 0 else 1.0,
            hands=[k for k, v in ranked if side * v > 0][:TOP_HANDS],
            hands_tested=len(entry["hands"]),
            detail={"tables": tables, "rake_minor": entry["rake"],
                    "expected_minor": round(entry["expected"]), "sd_minor": round(sd)}))
    return tests


def _voids(model: Any, hands: Mapping[str, list[dict[str, Any]]], chosen: Period
           ) -> list[Test]:
    corrected: set[tuple[str, int]] = set()
    for code in hands:
        for row in for_table(model, code).store.fetchall(
                "SELECT DISTINCT hand_no FROM {proj_corrections} WHERE table_code = ? AND "
                "hand_no IS NOT NULL", (code,)):
            corrected.add((code, int(row["hand_no"])))
    dealt: dict[str, list[tuple[str, int, bool]]] = defaultdict(list)
    for code, rows in hands.items():
        for row in rows:
            if row["dealer"] is not None:
                key = (code, int(row["hand_no"]))
                bad = row["status"] == "voided" or key in corrected
                dealt[row["dealer"]].append((code, key[1], bad))
    total = sum(len(v) for v in dealt.values())
    total_bad = sum(b for v in dealt.values() for *_, b in v)
    tests: list[Test] = []
    if len(dealt) < 2:
        return tests  # no other dealer to compare with
    for dealer, mine in sorted(dealt.items()):
        n, k = len(mine), sum(b for *_, b in mine)
        rate = (total_bad - k + 0.5) / (total - n + 1)
        p = float(dist.binom.sf(k - 1, n, rate)) if k else 1.0
        expected = n * rate
        z = (k - expected) / math.sqrt(n * rate * (1 - rate)) if 0 < rate < 1 else 0.0
        tables = sorted({c for c, _, _ in mine})
        tests.append(Test(
            kind="dealer_voids", table=tables[0] if len(tables) == 1 else None, game="",
            players=[], dealer=dealer, statistic=z, p_value_raw=min(max(p, 0.0), 1.0),
            hands=[(c, h) for c, h, b in mine if b][:TOP_HANDS], hands_tested=n,
            detail={"tables": tables, "voided_or_corrected": k,
                    "per_100_hands": round(100 * k / n, 2),
                    "others_per_100_hands": round(100 * rate, 2)}))
    return tests
