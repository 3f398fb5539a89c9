"""The house's take of player-banked and pooled games: the fee or rake per hand (HCF-13,
CHP-11, STUD8-11), from the table's rake policy and its recorded hands.

The rake of a hand is a function of the policy and of the hand (who took part, the pots), so the
expected rake per hand is the mean, over the table's settled hands, of what the policy took
(each recorded rake line is the policy's, re-decided by the audit); its standard deviation per
hand is what the hold report scales to a period's hands.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from ledger.domain.money import format_amount
from projections.read.fleet import for_table
from projections.reports.figures import decimal


def policy_text(game: str, config: dict[str, Any], currency: str | None = None) -> str:
    """The rake policy in words, amounts in ``currency`` (``3.00 EUR``; without a currency,
    a configuration not at a table, in the currency's units with two decimals)."""
    def money(minor: Any) -> str:
        return format_amount(int(minor or 0), currency, code=True)

    if game == "high-card-flush":
        rake = config.get("rake", {})
        who = {"i": "every player and the DP", "ii": "every player, not the DP",
               "iii": "the DP only, one fee"}[rake.get("method", "i")]
        return f"HCF-13: a fee of {money(rake.get('fee', 0))} per hand from {who}"
    if game == "chinese-poker":
        return f"CHP-11: a fee of {money(config.get('fee', 0))} per player per hand"
    if game == "stud-hilo":
        cap = config.get("rake_cap")
        percent = (Decimal(int(config.get("rake_bps") or 0)) / 100).quantize(Decimal("0.01"))
        return (f"STUD8-11: {percent}% of the pot"
                f"{'' if cap is None else f', at most {money(cap)}'}, none when the hand "
                "ends on third street")
    return "no rake"


def rake_stats(model: Any, code: str, first_day: str | None = None,
               last_day: str | None = None) -> dict[str, Any]:
    """Settled hands, their rake's sum, mean and standard deviation per hand, and the mean
    number of players, over the days given (all days by default)."""
    where = "table_code = ? AND status = 'settled'"
    params: list[Any] = [code]
    if first_day is not None:
        where += " AND gaming_day >= ?"
        params.append(first_day)
    if last_day is not None:
        where += " AND gaming_day <= ?"
        params.append(last_day)
    row = for_table(model, code).store.fetchone(
        "SELECT COUNT(*) AS hands, COALESCE(SUM(rake_minor), 0) AS rake, "
        "COALESCE(SUM(rake_minor * rake_minor), 0) AS squares, COALESCE(SUM(players), 0) AS "
        f"players FROM {{proj_hands}} WHERE {where}", tuple(params))
    assert row is not None
    hands, rake, squares = int(row["hands"]), int(row["rake"]), int(row["squares"])
    mean = rake / hands if hands else 0.0
    variance = (squares / hands - mean * mean) if hands else 0.0
    return {"hands": hands, "rake_minor": rake, "mean_minor": mean,
            "sd_minor": max(variance, 0.0) ** 0.5,
            "mean_players": int(row["players"]) / hands if hands else 0.0}


def rake_stats_by_config(model: Any, code: str) -> dict[int, dict[str, float]]:
    """Per configuration version of the table: the mean and standard deviation of the rake
    per settled hand under it (a version without hands: none, its hands expect nothing)."""
    rows = for_table(model, code).store.fetchall(
        "SELECT config_version, COUNT(*) AS hands, COALESCE(SUM(rake_minor), 0) AS rake, "
        "COALESCE(SUM(rake_minor * rake_minor), 0) AS squares FROM {proj_hands} WHERE "
        "table_code = ? AND status = 'settled' GROUP BY config_version", (code,))
    out = {}
    for row in rows:
        hands, rake, squares = int(row["hands"]), int(row["rake"]), int(row["squares"])
        mean = rake / hands
        out[int(row["config_version"])] = {
            "hands": hands, "mean_minor": mean,
            "sd_minor": max(squares / hands - mean * mean, 0.0) ** 0.5}
    return out


def rake_figures(model: Any, code: str, game: str, config: dict[str, Any],
                 currency: str | None = None) -> dict[str, Any]:
    """The rake over every settled hand of the table, and per configuration version (the
    policy in force when the hands were played, COM-4)."""
    stats = rake_stats(model, code)
    return {"policy": policy_text(game, config, currency), "currency": currency,
            "recorded_hands": stats["hands"],
            "rake_minor": stats["rake_minor"],
            "expected_per_hand_minor": decimal(stats["mean_minor"], 2),
            "sd_per_hand_minor": decimal(stats["sd_minor"], 2),
            "mean_players": decimal(stats["mean_players"], 2),
            "by_config": [{"config_version": version, "hands": int(v["hands"]),
                           "expected_per_hand_minor": decimal(v["mean_minor"], 2),
                           "sd_per_hand_minor": decimal(v["sd_minor"], 2)}
                          for version, v in sorted(rake_stats_by_config(model, code).items())]}
