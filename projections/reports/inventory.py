"""The win by inventory, reconciled with the ledger (INV-4), per house-banked table and day.

``win = drop + credits - fills + closing - opening``: the drop is the accounting view's
buy-ins of the day, fills and credits the day's sums, opening the day's first opening count and
closing its last closing count (:mod:`projections.tray`). The ledger's own house result for the
day is the accounting view's house win; the difference is the ``variance``. ``status`` is
``reconciled`` (no difference), ``variance`` or ``incomplete`` (a count is missing: nothing to
compare).
"""

from __future__ import annotations

from typing import Any

from projections.reports.periods import Period


def inventory_report(model: Any, chosen: Period, table: str | None = None) -> dict[str, Any]:
    where = "gaming_day >= ? AND gaming_day <= ?"
    params: list[Any] = [chosen.first, chosen.last]
    if table is not None:
        where += " AND table_code = ?"
        params.append(model.table(table)["table_code"])
    moves = model.store.fetchall(
        f"SELECT table_code, gaming_day, version, kind, amount_minor, signer_1, signer_2 FROM "
        f"{{proj_tray}} WHERE {where} ORDER BY table_code, gaming_day, version", tuple(params))
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
    rows = []
    for (code, gaming_day), day in sorted(days.items()):
        acc = model.store.fetchone(
            "SELECT drop_minor, house_win_minor FROM {proj_accounting} WHERE table_code = ? "
            "AND gaming_day = ?", (code, gaming_day))
        drop = int(acc["drop_minor"]) if acc else 0
        ledger_win = int(acc["house_win_minor"]) if acc else 0
        day.update({"drop_minor": drop, "ledger_win_minor": ledger_win})
        if day["opening_minor"] is None or day["closing_minor"] is None:
            day.update({"inventory_win_minor": None, "variance_minor": None,
                        "status": "incomplete"})
        else:
            win = (drop + day["credits_minor"] - day["fills_minor"] + day["closing_minor"]
                   - day["opening_minor"])
            day.update({"inventory_win_minor": win, "variance_minor": win - ledger_win,
                        "status": "reconciled" if win == ledger_win else "variance"})
        rows.append(day)
    return {"period": chosen.as_dict(), "rule": "INV-4", "rows": rows}
