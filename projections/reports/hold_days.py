"""Hold against theory day by day over a month, for one table: the series the console charts.

Each day is the hold report's own column for that day (:func:`projections.reports.hold._column`):
hands, drop, win, hold %, the theoretical win with its standard deviation and 95% interval (the
rake against the expected rake for player-banked and pooled games). For house-banked tables the
theoretical hold and its interval are also given as percentages of the day's drop, as the hold
itself is; a day without drop has no hold %.
"""

from __future__ import annotations

from datetime import date, timedelta
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from projections.reports.hold import Z_95, _column, theory
from projections.reports.periods import Period, parse_month


def hold_days(model: Any, month: str, table: str) -> dict[str, Any]:
    """Every day of ``month`` at ``table``: the hold report's day column, with percentages."""
    first, last = parse_month(month)
    t = model.table(table)
    figures = theory(model, t)
    house = figures.house
    days = []
    day = date.fromisoformat(first)
    while day.isoformat() <= last:
        text = day.isoformat()
        column = _column(model, t, figures, Period(text, text, "day"))
        if house:
            drop = column["drop_minor"]
            column["theoretical_hold_pct"] = _pct(column["theoretical_win_minor"], drop)
            low, high = column["interval_minor"]
            column["interval_pct"] = [_pct(low, drop), _pct(high, drop)]
        days.append(column)
        day += timedelta(days=1)
    return {"table": t["table_code"], "game": t["game"], "currency": t["currency"],
            "kind": figures.current.get("kind"), "month": month[:7], "from": first, "to": last,
            "z_95": Z_95, "days": days}


def _pct(amount: int, drop: int) -> str | None:
    if not drop:
        return None
    return str((Decimal(amount) * 100 / Decimal(drop)).quantize(Decimal("0.01"),
                                                                 rounding=ROUND_HALF_UP))
