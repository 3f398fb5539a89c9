"""The views the runner knows, by name (the order is the order they are listed and built)."""

from __future__ import annotations

from projections.accounting import Accounting
from projections.bankrolls import Bankrolls
from projections.base import View
from projections.corrections import Corrections
from projections.coverage import Coverage
from projections.hands import Hands
from projections.jackpot import Jackpot
from projections.rake import Rake
from projections.tables import Tables
from projections.tray import Tray
from projections.wagers import Wagers

VIEW_TYPES: dict[str, type[View]] = {
    view.name: view
    for view in (Tables, Hands, Bankrolls, Coverage, Rake, Jackpot, Accounting, Wagers, Tray,
                 Corrections)
}


def view_names() -> list[str]:
    return list(VIEW_TYPES)
