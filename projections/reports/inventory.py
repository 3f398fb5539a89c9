"""The win by inventory, reconciled with the ledger (INV-4), per house-banked table and day.

``win = drop + credits - fills + closing - opening``: the drop is the accounting view's
buy-ins of the day, fills and credits the day's sums, opening the day's first opening count and
closing its last closing count (:mod:`projections.views.tray`). The ledger's own house result for
the day is the accounting view's house win; the difference is the ``variance``. ``status`` is
``reconciled`` (no difference), ``variance`` or ``incomplete`` (a count is missing: nothing to
compare; ``reason`` says which). A house-banked table that played on a day (it has an accounting
row: a drop, hands) without any tray count is listed as ``incomplete`` too, never left out.
Every row and total carries its table's ``currency``.

Per table, ``totals`` gives the period, the month to date and the year to date of its
last day (COMAR 36.05.03.25): the sums over the days counted at both ends, and how many days
reconciled, showed a variance or were incomplete.

Corrections recorded that day (COR-1..5, :mod:`projections.views.corrections`) count as what they
say really happened: a corrected buy-in changes the drop, a corrected fill or credit the day's
fills or credits, and what a hand correction moves between the house and the players' stacks
(the tray pays it or takes it) the ledger's win; what it leaves owed is settled at the cage,
not from the tray. ``corrections`` counts those that changed the day's figures.
"""

from __future__ import annotations

import json
from typing import Any

from ledger.domain.accounts import HOUSE
from projections.read.fleet import by, fetch_all, for_table
from projections.reports.periods import Period, columns

TOTALS = ("drop_minor", "fills_minor", "credits_minor", "inventory_win_minor",
          "ledger_win_minor", "variance_minor")


def inventory_report(model: Any, chosen: Period, table: str | None = None) -> dict[str, Any]:
    """Per table and gaming day of the period (``rows``), and per table the period, month to
    date and year to date (``totals``, COMAR 36.05.03.25's columns): the sums over the days
    counted at both ends, the days reconciled, with a variance and incomplete."""
    cols = columns(chosen)
    first = min(c.first for c in cols)
    every = _days(model, Period(first, chosen.last, "range"), table)
    totals: dict[str, list[dict[str, Any]]] = {}
    for row in every:
        totals.setdefault(row["table"], [])
    out = []
    for code in sorted(totals):
        mine = [r for r in every if r["table"] == code]
        out.append({"table": code, "currency": mine[0]["currency"],
                    "columns": [_total(mine, c) for c in cols]})
    rows = [r for r in every if chosen.first <= r["gaming_day"] <= chosen.last]
    return {"period": chosen.as_dict(), "rule": "INV-4", "rows": rows,
            "columns": [c.as_dict() for c in cols], "totals": out}


def _total(rows: list[dict[str, Any]], col: Period) -> dict[str, Any]:
    days = [r for r in rows if col.first <= r["gaming_day"] <= col.last]
    complete = [r for r in days if r["status"] != "incomplete"]
    total: dict[str, Any] = {**col.as_dict(), "days": len(days),
                             "reconciled": sum(r["status"] == "reconciled" for r in days),
                             "variance_days": sum(r["status"] == "variance" for r in days),
                             "incomplete": len(days) - len(complete)}
    for key in TOTALS:
        total[key] = sum(int(r[key]) for r in complete)
    return total


def _days(model: Any, chosen: Period, table: str | None) -> list[dict[str, Any]]:
    where = "gaming_day >= ? AND gaming_day <= ?"
    params: list[Any] = [chosen.first, chosen.last]
    if table is not None:
        where += " AND table_code = ?"
        params.append(model.table(table)["table_code"])
    moves = fetch_all(
        model, f"SELECT table_code, gaming_day, version, kind, amount_minor, signer_1, "
        f"signer_2 FROM {{proj_tray}} WHERE {where} ORDER BY table_code, gaming_day, version",
        tuple(params), by("table_code", "gaming_day", "version"))
    days: dict[tuple[str, str], dict[str, Any]] = {}
    for m in moves:
        day = days.setdefault((m["table_code"], m["gaming_day"]), {
            "table": m["table_code"], "gaming_day": m["gaming_day"], "opening_minor": None,
            "closing_minor": None, "fills_minor": 0, "credits_minor": 0, "fills": 0,
            "credits": 0})
        amount = int(m["amount_minor"])
        if m["kind"] == "opening" and day["opening_minor"] is None:
            day["opening_minor"] = amount
        elif m["kind"] == "closing":
            day["closing_minor"] = amount
        elif m["kind"] in ("fill", "credit"):
            day[f"{m['kind']}s_minor"] += amount
            day[f"{m['kind']}s"] += 1
    for played in fetch_all(
            model, f"SELECT table_code, gaming_day FROM {{proj_accounting}} WHERE {where} AND "
            "banking = 'house' ORDER BY table_code, gaming_day", tuple(params),
            by("table_code", "gaming_day")):
        days.setdefault((played["table_code"], played["gaming_day"]), {
            "table": played["table_code"], "gaming_day": played["gaming_day"],
            "opening_minor": None, "closing_minor": None, "fills_minor": 0,
            "credits_minor": 0, "fills": 0, "credits": 0})
    currencies: dict[str, str] = {}
    rows = []
    for (code, gaming_day), day in sorted(days.items()):
        if code not in currencies:
            currencies[code] = model.table(code)["currency"]
        day["currency"] = currencies[code]
        acc = for_table(model, code).store.fetchone(
            "SELECT drop_minor, house_win_minor FROM {proj_accounting} WHERE table_code = ? "
            "AND gaming_day = ?", (code, gaming_day))
        drop = int(acc["drop_minor"]) if acc else 0
        ledger_win = int(acc["house_win_minor"]) if acc else 0
        day.update({"drop_minor": drop, "ledger_win_minor": ledger_win, "corrections": 0})
        _corrected(model, code, gaming_day, day)
        missing = [k for k in ("opening", "closing") if day[f"{k}_minor"] is None]
        if missing:
            day.update({"inventory_win_minor": None, "variance_minor": None,
                        "status": "incomplete",
                        "reason": f"no {' and no '.join(missing)} count of the tray (INV-1)"})
        else:
            win = (day["drop_minor"] + day["credits_minor"] - day["fills_minor"]
                   + day["closing_minor"] - day["opening_minor"])
            ledger_win = day["ledger_win_minor"]
            day.update({"inventory_win_minor": win, "variance_minor": win - ledger_win,
                        "status": "reconciled" if win == ledger_win else "variance",
                        "reason": None})
        rows.append(day)
    return rows


def _corrected(model: Any, code: str, gaming_day: str, day: dict[str, Any]) -> None:
    """The day's figures as its corrections say they really were (in place)."""
    rows = for_table(model, code).store.fetchall(
        "SELECT kind, detail_json FROM {proj_corrections} WHERE table_code = ? AND "
        "gaming_day = ? ORDER BY version", (code, gaming_day))
    for row in rows:
        detail = json.loads(row["detail_json"])
        if row["kind"] == "movement" and detail["movement"] in ("buy_in", "fill", "credit"):
            key = {"buy_in": "drop_minor", "fill": "fills_minor",
                   "credit": "credits_minor"}[detail["movement"]]
            day[key] += detail["amount_minor"] - detail["recorded_minor"]
        elif row["kind"] == "hand":
            day["ledger_win_minor"] += sum(
                t["amount"] * ((t["dst"] == HOUSE) - (t["src"] == HOUSE))
                for t in detail["transfers"]
                if not (t["src"].startswith("owed:") or t["dst"].startswith("owed:")))
        else:
            continue
        day["corrections"] += 1
