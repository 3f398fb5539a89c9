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
- ``z`` (actual minus expected over the standard deviation) and ``flagged`` when it lies outside
  the 95% interval (|z| > 1.96); a flag names the hands that contributed most: the largest house
  losses when the win is short, the largest house wins when it is over, each with the API path
  of its replay (the record beside the rules' recomputation);
- player-banked and pooled games (no ``win_minor``, no ``hold_pct``: the house banks nothing):
  the rake recorded against the rake the policy owes on each hand (``expected_rake_minor``,
  ``rake_variance_minor``, every difference in ``rake_differences``, exact: any difference
  flags), and for High Card Flush the designated players' results against the paytable
  (``dp``: result, theory, interval, z and the hands that weigh most); see
  :mod:`.variance`.

Each hand is measured against the mathematics of the configuration in force when it was played
(its ``config_version``, COM-4): a paytable changed during a period gives its hands before and
after their own edges and variances, summed (``config_versions`` lists those that contributed).
The theoretical edge assumes the optimal strategy
(players who play worse make the house win more than theory).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from projections.read.fleet import for_table
from projections.read.queries import hold_pct
from projections.reports.paytable import mathematics
from projections.reports.periods import Period, columns
from projections.reports.variance import player_banked

Z_95 = 1.959964
FEES = ("house_fee",)
FLAG_HANDS = 5


@dataclass(frozen=True)
class Theory:
    """The mathematics of every configuration a table has had, by configuration version."""

    by_version: dict[int, dict[str, Any]]

    @property
    def current(self) -> dict[str, Any]:
        return self.by_version[max(self.by_version)]

    @property
    def house(self) -> bool:
        return self.current.get("kind") == "house-banked"

    @property
    def one_digest(self) -> bool:
        return len({f["digest"] for f in self.by_version.values()}) == 1


def theory(model: Any, table: dict[str, Any]) -> Theory:
    """The figures of each of the table's configurations (cached by digest: a configuration
    changed back to an earlier one, or one already computed, costs nothing)."""
    return Theory({row["config_version"]: mathematics(model.store, table["game"], row["config"])
                   for row in model.table_configs(table["table_code"])})


def hold_report(model: Any, chosen: Period, table: str | None = None) -> dict[str, Any]:
    """The hold report of every table (or one) for a period, with its MTD and YTD columns."""
    tables = [model.table(table)] if table else model.tables()
    cols = columns(chosen)
    rows = []
    for t in tables:
        figures = theory(model, t)
        row: dict[str, Any] = {"table": t["table_code"], "game": t["game"],
                               "currency": t["currency"], "digest": figures.current["digest"],
                               "columns": []}
        for col in cols:
            row["columns"].append(_column(model, t, figures, col))
        rows.append(row)
    return {"period": chosen.as_dict(), "columns": [c.as_dict() for c in cols],
            "z_95": Z_95, "tables": rows}


def _kinds_by_version(store: Any, code: str,
                      col: Period) -> dict[int, dict[str, dict[str, int]]]:
    """The settled wagers of the column by the configuration version of their hand and by kind:
    count, amount and sum of squares per player and hand, as ``proj_wager_days`` keeps them."""
    rows = store.fetchall(
        "SELECT h.config_version, s.kinds_json FROM {proj_seat_hands} s JOIN {proj_hands} h "
        "ON h.table_code = s.table_code AND h.hand_no = s.hand_no WHERE s.table_code = ? AND "
        "s.status = 'settled' AND s.gaming_day >= ? AND s.gaming_day <= ?",
        (code, col.first, col.last))
    out: dict[int, dict[str, dict[str, int]]] = {}
    for row in rows:
        kinds = out.setdefault(int(row["config_version"]), {})
        for kind, amount in json.loads(row["kinds_json"]).items():
            if kind in FEES:
                continue
            k = kinds.setdefault(kind, {"wagers": 0, "amount_minor": 0, "square_minor": 0})
            k["wagers"] += 1
            k["amount_minor"] += amount
            k["square_minor"] += amount * amount
    return out


def _column(model: Any, table: dict[str, Any], figures: Theory,
            col: Period) -> dict[str, Any]:
    code = table["table_code"]
    store = for_table(model, code).store
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
    house = figures.house
    out: dict[str, Any] = {
        **col.as_dict(), "hands": count,
        "handle_minor": sum(k["amount_minor"] for k in by_kind.values()),
        "handle_by_kind": {k: v["amount_minor"] for k, v in by_kind.items()},
        "drop_minor": drop_minor, "win_minor": win if house else None, "rake_minor": rake,
        "hold_pct": hold_pct(win, drop_minor) if house else None,
    }
    if house:
        if figures.one_digest:  # one set of figures for every hand: the daily sums serve
            parts = {max(figures.by_version): by_kind}
        else:
            parts = _kinds_by_version(store, code, col)
        theo, variance = 0.0, 0.0
        theo_by_kind: dict[str, int] = {}
        for version, part in sorted(parts.items()):
            t, v, by = _house_theory(figures.by_version[version], part)
            theo += t
            variance += v
            for kind, amount in by.items():
                theo_by_kind[kind] = theo_by_kind.get(kind, 0) + amount
        versions = store.fetchall(
            "SELECT DISTINCT config_version FROM {proj_hands} WHERE table_code = ? AND status "
            "= 'settled' AND gaming_day >= ? AND gaming_day <= ?", (code, col.first, col.last))
        out.update({"theoretical_win_minor": _minor(theo), "theoretical_by_kind": theo_by_kind,
                    "sd_minor": _minor(variance ** 0.5),
                    "config_versions": sorted(int(r["config_version"]) for r in versions)})
        measured, expected = win, theo
    else:
        # Player-banked and pooled games: the rake against the policy, hand by hand, and for
        # High Card Flush the DPs against the paytable (:mod:`.variance`); never a figure
        # against an average of itself.
        checks = player_banked(model, table, figures.by_version, col.first, col.last)
        rake_check = checks["rake_check"]
        out.update({"rake_minor": rake_check["recorded_minor"],
                    "expected_rake_minor": rake_check["owed_minor"],
                    "rake_variance_minor": rake_check["variance_minor"],
                    "rake_differences": rake_check["differences"],
                    "config_versions": sorted(_versions(store, code, col))})
        dp = checks.get("dp_check")
        flagged = rake_check["flagged"] or bool(dp and dp["flagged"])
        # The rake is owed exactly: its interval is the one figure, and no z applies (the
        # DPs' own interval and z are in ``dp``).
        out.update({"z": None,
                    "interval_minor": [rake_check["owed_minor"], rake_check["owed_minor"]],
                    "flagged": flagged, "flag_hands": []})
        if dp is not None:
            out["dp"] = dp
            out["flag_hands"] = [
                {"table": code, **h, "replay": f"/tables/{code}/hands/{h['hand_no']}/replay"}
                for h in dp["flag_hands"]]
        out["flag_hands"] += [
            {"table": code, **h, "replay": f"/tables/{code}/hands/{h['hand_no']}/replay"}
            for h in rake_check["differences"][:FLAG_HANDS * 20]]
        return out
    sd = variance ** 0.5
    z = (measured - expected) / sd if sd > 0 else 0.0
    flagged = abs(z) > Z_95
    out.update({"z": f"{z:.3f}", "interval_minor": [_minor(expected - Z_95 * sd),
                                                   _minor(expected + Z_95 * sd)],
                "flagged": flagged, "flag_hands": []})
    if flagged:
        out["flag_hands"] = _flag_hands(model, code, col, house, short=z < 0)
    return out


def _versions(store: Any, code: str, col: Period) -> list[int]:
    rows = store.fetchall(
        "SELECT DISTINCT config_version FROM {proj_hands} WHERE table_code = ? AND status = "
        "'settled' AND gaming_day >= ? AND gaming_day <= ?", (code, col.first, col.last))
    return [int(r["config_version"]) for r in rows]


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
    rows = for_table(model, code).store.fetchall(
        f"SELECT hand_no, gaming_day, started_at, {column} AS amount FROM {{proj_hands}} WHERE "
        "table_code = ? AND status = 'settled' AND gaming_day >= ? AND gaming_day <= ? "
        f"ORDER BY {column} {order}, hand_no LIMIT {FLAG_HANDS}", (code, col.first, col.last))
    return [{"table": code, "hand_no": int(r["hand_no"]), "gaming_day": r["gaming_day"],
             "started_at": r["started_at"], f"{'house_result' if house else 'rake'}_minor":
             int(r["amount"]), "replay": f"/tables/{code}/hands/{int(r['hand_no'])}/replay"}
            for r in rows]


def _minor(value: float) -> int:
    return int(Decimal(str(value)).quantize(Decimal(1), rounding=ROUND_HALF_UP))
