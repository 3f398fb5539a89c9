"""The hold chart: hold % per day of a month against the theoretical hold and its 95% interval
(``GET /reports/hold/days``), drawn as SVG on the server (no script, no library).

House-banked tables: the day's hold (win / drop) against the theoretical hold with its interval,
both as percentages of the day's drop. Player-banked and pooled tables: the day's rake against
the expected rake and its interval, in currency units. A day without hands (or, for hold %,
without drop) has no point; a day outside its interval is marked.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from ledger.api.console.draw import money
from projections.exports.workbook import currency_decimals

WIDTH, HEIGHT = 760, 300
LEFT, RIGHT, TOP, BOTTOM = 64, 16, 16, 40


@dataclass
class Point:
    x: float
    y: float
    day: str
    label: str
    outside: bool


@dataclass
class Chart:
    title: str
    unit: str
    width: int = WIDTH
    height: int = HEIGHT
    points: list[Point] = field(default_factory=list)
    theory: str = ""
    """The theoretical line as an SVG path."""
    band: str = ""
    """The 95% interval as an SVG path (a closed polygon)."""
    y_ticks: list[tuple[float, str]] = field(default_factory=list)
    x_ticks: list[tuple[float, str]] = field(default_factory=list)
    theory_marks: list[tuple[float, float, float]] = field(default_factory=list)
    """A short level line per day at its theoretical value (x1, x2, y)."""
    rows: list[dict[str, Any]] = field(default_factory=list)
    """The figures behind the chart, one per day with hands (the accessible table)."""
    empty: bool = False
    plot_left: int = LEFT
    plot_right: int = WIDTH - RIGHT
    plot_top: int = TOP
    plot_bottom: int = HEIGHT - BOTTOM


def hold_chart(report: dict[str, Any]) -> Chart:
    house = report.get("kind") == "house-banked"
    currency = report.get("currency")
    days = report.get("days") or []
    series: list[tuple[int, str, float | None, float | None, float | None, float | None,
                       dict[str, Any]]] = []
    for i, d in enumerate(days):
        if not d.get("hands"):
            continue
        if house:
            actual = _num(d.get("hold_pct"))
            theo = _num(d.get("theoretical_hold_pct"))
            low, high = (_num(v) for v in (d.get("interval_pct") or [None, None]))
        else:
            places = Decimal(10) ** -currency_decimals(currency or "EUR")
            actual = _units(d.get("rake_minor"), places)
            theo = _units(d.get("expected_rake_minor"), places)
            low, high = (_units(v, places) for v in (d.get("interval_minor") or [None, None]))
        if actual is None:
            continue
        series.append((i, d["from"], actual, theo, low, high, d))
    chart = Chart(title=("Hold % per day against the theoretical hold (95% interval)" if house
                         else "Rake per day against the expected rake (95% interval)"),
                  unit="%" if house else (currency or ""))
    if not series:
        chart.empty = True
        return chart
    values = [v for s in series for v in s[2:6] if v is not None]
    top, bottom = max([*values, 0.0]), min([*values, 0.0])
    if top == bottom:
        top += 1
    pad = (top - bottom) * 0.08
    top, bottom = top + pad, bottom - pad
    n = max(len(days), 1)

    def x(i: int) -> float:
        return LEFT + (WIDTH - LEFT - RIGHT) * (i + 0.5) / n

    def y(v: float) -> float:
        return TOP + (HEIGHT - TOP - BOTTOM) * (top - v) / (top - bottom)

    with_theory = [s for s in series if s[3] is not None]
    if with_theory:
        chart.theory = "M " + " L ".join(f"{x(s[0]):.1f} {y(s[3]):.1f}"
                                         for s in with_theory if s[3] is not None)
    banded = [s for s in series if s[4] is not None and s[5] is not None]
    if banded:
        upper = [f"{x(s[0]):.1f} {y(s[5]):.1f}" for s in banded if s[5] is not None]
        lower = [f"{x(s[0]):.1f} {y(s[4]):.1f}" for s in reversed(banded) if s[4] is not None]
        if len(banded) == 1:  # one day: a bar
            i = banded[0][0]
            half = (WIDTH - LEFT - RIGHT) / n / 3
            hi, lo = banded[0][5], banded[0][4]
            assert hi is not None and lo is not None
            upper = [f"{x(i) - half:.1f} {y(hi):.1f}", f"{x(i) + half:.1f} {y(hi):.1f}"]
            lower = [f"{x(i) + half:.1f} {y(lo):.1f}", f"{x(i) - half:.1f} {y(lo):.1f}"]
        chart.band = "M " + " L ".join(upper + lower) + " Z"
    half_day = (WIDTH - LEFT - RIGHT) / n / 2.5
    for i, day, actual, theo, low, high, d in series:
        assert actual is not None
        if theo is not None:
            chart.theory_marks.append((x(i) - half_day, x(i) + half_day, y(theo)))
        outside = bool(d.get("flagged"))
        label = (f"{day}: hold {actual:.2f}%" if house else
                 f"{day}: rake {money(d.get('rake_minor'), currency)}")
        chart.points.append(Point(x(i), y(actual), day, label, outside))
        chart.rows.append({
            "day": day, "hands": d.get("hands"), "drop": money(d.get("drop_minor"), currency),
            "actual": f"{actual:.2f}" + ("%" if house else ""),
            "theory": "-" if theo is None else f"{theo:.2f}" + ("%" if house else ""),
            "interval": "-" if low is None or high is None else
            f"{low:.2f} to {high:.2f}" + ("%" if house else ""),
            "z": d.get("z"), "flagged": outside,
            "flag_hands": [h.get("hand_no") for h in d.get("flag_hands") or ()],
        })
    steps = 5
    for k in range(steps + 1):
        v = bottom + (top - bottom) * k / steps
        chart.y_ticks.append((y(v), f"{v:.1f}"))
    for i, d in enumerate(days):
        if i % 5 == 0 or i == len(days) - 1:
            chart.x_ticks.append((x(i), str(d["from"])[-2:]))
    return chart


def _num(value: Any) -> float | None:
    try:
        return None if value is None else float(value)
    except (TypeError, ValueError):
        return None


def _units(value: Any, places: Decimal) -> float | None:
    if value is None:
        return None
    return float(Decimal(int(value)) * places)
