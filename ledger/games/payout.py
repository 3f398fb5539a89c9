"""The maximum aggregate payout per hand (COM-7).

One cap per hand across all seats; it counts winnings only (never returned stakes) on wagers
the house or the designated player banks; jackpot awards are never capped. Winnings are paid in
settlement order, wager by wager, until the cap is used up; the rest is withheld. Within one
seat the wagers take their turn in rule order (decision of 2026-12-01): the main wagers first
(CSP Ante then Play; HCF Ante then Raise), then the side wagers by rule id (HCF-10 Straight
Flush Bonus before HCF-11 Flush Bonus). The games' settlements list each seat's wagers in that
order and call :meth:`PayoutCap.take` in it.
"""

from __future__ import annotations


class PayoutCap:
    """Tracks what is left of a hand's cap while a settlement pays out in order."""

    def __init__(self, limit: int | None) -> None:
        self.limit = limit
        self.paid = 0

    @property
    def remaining(self) -> int | None:
        return None if self.limit is None else max(self.limit - self.paid, 0)

    def take(self, winnings: int) -> tuple[int, int]:
        """Pay ``winnings`` as far as the cap allows: (paid, withheld)."""
        remaining = self.remaining
        paid = winnings if remaining is None else min(winnings, remaining)
        self.paid += paid
        return paid, winnings - paid

    def peek(self, winnings: int) -> tuple[int, int]:
        """What ``take`` would return, without using the cap (for coverage tests, HCF-12)."""
        remaining = self.remaining
        paid = winnings if remaining is None else min(winnings, remaining)
        return paid, winnings - paid
