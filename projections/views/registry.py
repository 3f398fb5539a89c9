"""The views the runner knows, by name (the order is the order they are listed and built)."""

from __future__ import annotations

from projections.views.accounting import Accounting
from projections.views.bankrolls import Bankrolls
from projections.views.base import View
from projections.views.corrections import Corrections
from projections.views.coverage import Coverage
from projections.views.hands import Hands
from projections.views.jackpot import Jackpot
from projections.views.rake import Rake
from projections.views.tables import Tables
from projections.views.tray import Tray
from projections.views.wagers import Wagers

VIEW_TYPES: dict[str, type[View]] = {
    view.name: view
    for view in (Tables, Hands, Bankrolls, Coverage, Rake, Jackpot, Accounting, Wagers, Tray,
                 Corrections)
}


def view_names() -> list[str]:
    return list(VIEW_TYPES)
