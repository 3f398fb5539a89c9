"""Expected against actual hold, per table and period, with a flag outside the 95% interval.

Per table and column (the period, month to date, year to date; :mod:`.periods`):

- ``hands`` settled, ``handle_minor`` (every wager, by kind in ``handle_by_kind``; fees are
  not wagers), ``drop_minor`` (buy-ins, the accounting view), ``win_minor`` (the house's result
  over the settled hands) and ``hold_pct`` (win / drop);
- house-banked games (Caribbean Stud): the theoretical win per wager kind from the paytable
  mathematics of the table's configuration: the Ante at the optimal strategy's house edge per
  Ante (its Play wagers are part of that edge, so the Play line shows handle only), the jackpot
  side wager at the house's share less the fixed awards it pays (the meter's part is a
  liability, not a win); the standard deviation of the win for these hands, from the
  per-hand variance in Antes scaled by each hand's Ante (``sqrt(sum ante^2) * sd``) and the
  side wager's variance;
- player-banked and pooled games: the same for the rake: expected rake per hand (the mean over
  the table's settled hands) times the hands, with its standard deviation;
- ``z`` (actual minus expected over the standard deviation) and ``flagged`` when it lies outside
  the 95% interval (|z| > 1.96); a flag names the hands that contributed most: the largest house
  losses when the win is short, the largest house wins when it is over (for rake: the hands
  with the least rake when it is short, the most when over).

The figures use the table's current configuration; the theoretical edge assumes the optimal
strategy (players who play worse make the house win more than theory).
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from projections.queries import hold_pct
from projections.reports.paytable import decimal, mathematics
from projections.reports.periods import Period, columns
from projections.reports.rake_report import rake_stats

Z_95 = 1.959964
FEES = ("house_fee",)
FLAG_HANDS = 5


def hold_report(model: Any, chosen: Period, table: str | None = None) -> dict[str, Any]:
    """The hold report of every table (or one) for a period, with its MTD and YTD columns."""
    tables = [model.table(table)] if table else model.tables()
    cols = columns(chosen)
    rows = []
    for t in tables:
        config = model.table_configs(t["table_code"])[-1]["config"]
        figures = mathematics(model.store, t["game"], config)
        row: dict[str, Any] = {"table": t["table_code"], "game": t["game"],
                               "currency": t["currency"], "digest": figures["digest"],
                               "columns": []}
        for col in cols:
            row["columns"].append(_column(model, t, figures, config, col))
        rows.append(row)
    return {"period": chosen.as_dict(), "columns": [c.as_dict() for c in cols],
            "z_95": Z_95, "tables": rows}


def _column(model: Any, table: dict[str, Any], figures: dict[str, Any],
            config: dict[str, Any], col: Period) -> dict[str, Any]:
    code = table["table_code"]
    store = model.store
    kinds = store.fetchall(
        "SELECT kind, SUM(wagers) AS wagers, SUM(amount_minor) AS amount, SUM(square_minor) "
        "AS squares FROM {proj_wager_days} WHERE table_code = ? AND gaming_day >= ? AND "
        "gaming_day <= ? GROUP BY kind ORDER BY kind", (code, col.first, col.last))
    by_kind = {k["kind"]: {"wagers": int(k["wagers"]), "amount_minor": int(k["amount"]),
                           "square_minor": int(k["squares"])}
               for k in kinds if k["kind"] not in FEES}
    hands = store.fetchone(
        "SELECT COUNT(*) AS hands, COALESCE(SUM(house_result_minor), 0) AS win, "
        "COALESCE(SUM(rake_minor), 0) AS rake FROM {proj_hands} WHERE table_code = ? AND "
        "status = 'settled' AND gaming_day >= ? AND gaming_day <= ?",
        (code, col.first, col.last))
    assert hands is not None
    drop = store.fetchone(
        "SELECT COALESCE(SUM(drop_minor), 0) AS drop_minor FROM {proj_accounting} WHERE "
        "table_code = ? AND gaming_day >= ? AND gaming_day <= ?", (code, col.first, col.last))
    assert drop is not None
    count, win, rake = int(hands["hands"]), int(hands["win"]), int(hands["rake"])
    drop_minor = int(drop["drop_minor"])
    out: dict[str, Any] = {
        **col.as_dict(), "hands": count,
        "handle_minor": sum(k["amount_minor"] for k in by_kind.values()),
        "handle_by_kind": {k: v["amount_minor"] for k, v in by_kind.items()},
        "drop_minor": drop_minor, "win_minor": win if figures.get("kind") == "house-banked"
        else None, "rake_minor": rake,
        "hold_pct": hold_pct(win, drop_minor) if figures.get("kind") == "house-banked" else None,
    }
    if figures.get("kind") == "house-banked":
        theo, variance, theo_by_kind = _house_theory(figures, by_kind)
        out.update({"theoretical_win_minor": _minor(theo), "theoretical_by_kind": theo_by_kind,
                    "sd_minor": _minor(variance ** 0.5)})
        measured, expected = win, theo
    else:
        stats = rake_stats(model, code)
        expected = stats["mean_minor"] * count
        variance = stats["sd_minor"] ** 2 * count
        out.update({"expected_rake_minor": _minor(expected),
                    "expected_rake_per_hand_minor": decimal(stats["mean_minor"], 2),
                    "sd_minor": _minor(variance ** 0.5)})
        measured = rake
    sd = variance ** 0.5
    z = (measured - expected) / sd if sd > 0 else 0.0
    flagged = abs(z) > Z_95
    out.update({"z": f"{z:.3f}", "interval_minor": [_minor(expected - Z_95 * sd),
                                                   _minor(expected + Z_95 * sd)],
                "flagged": flagged, "flag_hands": []})
    if flagged:
        out["flag_hands"] = _flag_hands(model, code, col, figures.get("kind") == "house-banked",
                                        short=z < 0)
    return out


def _house_theory(figures: dict[str, Any],
                  by_kind: dict[str, dict[str, int]]) -> tuple[float, float, dict[str, int]]:
    optimal = figures["strategies"][0]
    edge = float(optimal["house_edge"])
    sd_ante = float(optimal["sd_per_hand_antes"])
    ante = by_kind.get("ante", {"amount_minor": 0, "square_minor": 0, "wagers": 0})
    theo_by_kind = {"ante": _minor(edge * ante["amount_minor"])}
    theo = edge * ante["amount_minor"]
    variance = sd_ante ** 2 * ante["square_minor"]
    if "play" in by_kind:
        theo_by_kind["play"] = 0  # in the Ante's edge
    jackpot = by_kind.get("jackpot")
    if jackpot is not None:
        jp = figures["jackpot"]
        share = float(jp["house_share_expected_per_wager"])
        fixed = float(jp["fixed_return"])
        per_wager_var = float(jp["fixed_awards_second_moment"]) - fixed * fixed
        theo_by_kind["jackpot"] = _minor(share * jackpot["amount_minor"])
        theo += share * jackpot["amount_minor"]
        variance += per_wager_var * jackpot["square_minor"]
    return theo, variance, theo_by_kind


def _flag_hands(model: Any, code: str, col: Period, house: bool,
                short: bool) -> list[dict[str, Any]]:
    column = "house_result_minor" if house else "rake_minor"
    order = "ASC" if short else "DESC"
    rows = model.store.fetchall(
        f"SELECT hand_no, gaming_day, started_at, {column} AS amount FROM {{proj_hands}} WHERE "
        "table_code = ? AND status = 'settled' AND gaming_day >= ? AND gaming_day <= ? "
        f"ORDER BY {column} {order}, hand_no LIMIT {FLAG_HANDS}", (code, col.first, col.last))
    return [{"table": code, "hand_no": int(r["hand_no"]), "gaming_day": r["gaming_day"],
             "started_at": r["started_at"], f"{'house_result' if house else 'rake'}_minor":
             int(r["amount"])} for r in rows]


def _minor(value: float) -> int:
    return int(Decimal(str(value)).quantize(Decimal(1), rounding=ROUND_HALF_UP))
