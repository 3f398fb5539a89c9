"""Pure hand evaluators shared by every game module and the audit (one evaluator per concept).

- :mod:`~ledger.evaluation.high`: the standard high hand of 5 to 7 cards, up cards, best five.
- :mod:`~ledger.evaluation.low`: the eight-or-better low (STUD8-7).
- :mod:`~ledger.evaluation.hcf`: High Card Flush flushes, runs, qualification, odds.
- :mod:`~ledger.evaluation.caribbean`: Caribbean Stud qualification, Play odds, jackpot line.
- :mod:`~ledger.evaluation.chinese`: Chinese Poker segments, fouls, automatic wins.

This package imports nothing from the ledger but :mod:`ledger.domain.cards` and
:mod:`ledger.domain.errors`: no I/O, no logging. Its tables are built in memory, each at its first
use.

Pure functions over card values: they may use ``ledger.domain`` (cards, errors) and nothing
else of the ledger; no storage, I/O or logging (an import-linter contract).
"""

from __future__ import annotations

from ledger.evaluation import caribbean, chinese, hcf, high, low
from ledger.evaluation.high import Category

__all__ = ["Category", "caribbean", "chinese", "hcf", "high", "low"]
