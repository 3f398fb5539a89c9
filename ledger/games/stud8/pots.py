"""Pots, rake and splits of a Seven Card Stud Hi/Lo hand (STUD8-7..9, STUD8-11).

Every seat's chips sit on its own spot (``spot:<seat>:pot``) until settlement. From the seats'
contributions this module forms the pots, takes the rake and splits each pot hi/lo, all pure
functions of the hand:

- The uncalled part of the highest contribution (above every other seat's) goes back to its
  seat, unraked, whether that seat is still in the hand, folded or left: it is never in a pot
  (STUD8-11, decision of 2026-12-01).
- Pots are formed by the contributions of the hands still contesting (neither folded nor
  mucked): one pot per distinct contribution level, each contested by the seats that reached
  it (STUD8-9). Folded and mucked chips are dead money in the pots up to their level; dead chips
  above the highest contested level join the highest pot.
- Rake (STUD8-11): ``rake_bps`` of all pots together, rounded down to whole chips, at most
  ``rake_cap``, taken from the main pot first, then from the side pots in order, before the
  split; none when the hand ends on third street.
- Each pot is split hi/lo on its own (STUD8-7, STUD8-9): when a contesting hand holds an
  eight-or-better low, the pot is halved in whole chips and the odd chip goes to the high half;
  otherwise the best high takes it all. Tied hands split their half in whole chips; the odd
  chips go one each to the tied seats from the dealer's left (lowest seat first) (STUD8-8).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ledger.domain import accounts
from ledger.domain.money import bps, split_chips
from ledger.domain.records import Transfer


@dataclass(frozen=True)
class Pot:
    index: int
    shares: tuple[tuple[int, int], ...]
    """(seat, chips it put into this pot), by seat."""
    contesting: tuple[int, ...]

    @property
    def amount(self) -> int:
        return sum(a for _, a in self.shares)


def uncalled(contributed: dict[int, int]) -> tuple[int, int] | None:
    """(seat, amount): the part of the highest contribution no other player matched, which goes
    back to its seat unraked and is never in a pot, whether that seat is still in the hand,
    folded or left (STUD8-11, decision of 2026-12-01). Only the highest contribution can hold
    such a part; a contribution matched by a seat that folded later is matched all the same."""
    if not contributed:
        return None
    ranked = sorted(contributed.items(), key=lambda kv: -kv[1])
    top_seat, top = ranked[0]
    second = ranked[1][1] if len(ranked) > 1 else 0
    if top > second:
        return top_seat, top - second
    return None


def build_pots(contributed: dict[int, int], contesting: Iterable[int]) -> list[Pot]:
    """STUD8-9: main pot and side pots from the contributions (uncalled part already removed)."""
    contest = sorted(contesting)
    levels = sorted({contributed[s] for s in contest if contributed[s] > 0})
    pots: list[Pot] = []
    previous = 0
    for level in levels:
        shares = tuple(
            (seat, min(c, level) - min(c, previous))
            for seat, c in sorted(contributed.items())
            if min(c, level) - min(c, previous) > 0
        )
        eligible = tuple(s for s in contest if contributed[s] >= level)
        pots.append(Pot(index=len(pots), shares=shares, contesting=eligible))
        previous = level
    dead = tuple((seat, c - previous) for seat, c in sorted(contributed.items()) if c > previous)
    if dead and pots:
        last = pots[-1]
        merged = dict(last.shares)
        for seat, amount in dead:
            merged[seat] = merged.get(seat, 0) + amount
        pots[-1] = Pot(last.index, tuple(sorted(merged.items())), last.contesting)
    return pots


def rake_by_pot(
    pots: Sequence[Pot], rake_bps: int, rake_cap: int | None, chip_unit: int, *, exempt: bool
) -> list[int]:
    """STUD8-11: the rake, whole chips, capped, from the main pot first; none when exempt."""
    if exempt or not rake_bps:
        return [0] * len(pots)
    total = sum(p.amount for p in pots)
    rake = bps(total, rake_bps) // chip_unit * chip_unit
    if rake_cap is not None:
        rake = min(rake, rake_cap)
    taken: list[int] = []
    for pot in pots:
        part = min(rake, pot.amount)
        taken.append(part)
        rake -= part
    return taken


def halves(amount: int, has_low: bool, chip_unit: int) -> tuple[int, int]:
    """STUD8-7/8: (high half, low half) in whole chips; the odd chip goes to the high half."""
    if not has_low:
        return amount, 0
    share, odd = split_chips(amount, 2, chip_unit)
    return share + odd, share


def share_out(amount: int, winners: Sequence[int], chip_unit: int) -> dict[int, int]:
    """STUD8-8: split among tied seats in whole chips; odd chips one each from the dealer's
    left (lowest seat first)."""
    if not winners:
        return {}
    ordered = sorted(winners)
    share, odd = split_chips(amount, len(ordered), chip_unit)
    paid = {seat: share for seat in ordered}
    for seat in ordered:
        if not odd:
            break
        chip = min(chip_unit, odd)
        paid[seat] += chip
        odd -= chip
    return paid


def pour(
    sources: Sequence[tuple[str, int]], sinks: Sequence[tuple[str, int, str, str | None]]
) -> list[Transfer]:
    """Balanced transfers moving ``sources`` (account, amount) into ``sinks`` (account, amount,
    rule, memo) in order; the two sides must hold the same total."""
    assert sum(a for _, a in sources) == sum(s[1] for s in sinks), "pot does not balance"
    out: list[Transfer] = []
    names = [account for account, amount in sources if amount > 0]
    left_in = [amount for _, amount in sources if amount > 0]
    i = 0
    for dst, amount, rule, memo in sinks:
        left = amount
        while left > 0:
            take = min(left, left_in[i])
            out.append(accounts.transfer(names[i], dst, take, rule, memo))
            left_in[i] -= take
            left -= take
            if left_in[i] == 0:
                i += 1
    return merge(out)


def merge(transfers: Iterable[Transfer]) -> list[Transfer]:
    """Sum transfers with the same accounts, rule and memo (order of first appearance)."""
    totals: dict[tuple[str, str, str | None, str | None], int] = {}
    for t in transfers:
        key = (t.src, t.dst, t.rule, t.memo)
        totals[key] = totals.get(key, 0) + t.amount
    return [
        accounts.transfer(src, dst, amount, rule, memo)
        for (src, dst, rule, memo), amount in totals.items()
    ]
