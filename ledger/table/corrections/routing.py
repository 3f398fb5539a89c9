"""COR-5: turning what each account gains or loses by a correction into transfers, today.

A correction is decided as of the hand (or movement) it corrects, but its chips move now: a
player who gains is paid into the stack when still seated, else the house owes it
(``owed:<player>``, paid at the cage); a player who loses pays from the stack as far as it
goes, and the rest is owed to the house. The jackpot meter and the rake give back what they
hold and the house makes up the rest. Payers and receivers are paired in the order of their
account names, so the same differences always give the same transfers.
"""

from __future__ import annotations

from collections.abc import Mapping

from ledger.domain import accounts
from ledger.domain.records import Difference, Transfer
from ledger.table.state import TableState

_BOUNDED = (accounts.JACKPOT, accounts.RAKE)


def differences(net: Mapping[str, int]) -> tuple[Difference, ...]:
    return tuple(Difference(account=a, amount=v) for a, v in sorted(net.items()) if v)


def route(diffs: tuple[Difference, ...], state: TableState, rule: str,
          memo: str) -> tuple[Transfer, ...]:
    """Transfers that carry ``diffs`` out given the table as it is now (COR-5)."""
    seated = set(state.seats.values())
    payers: list[tuple[str, int]] = []
    receivers: list[tuple[str, int]] = []
    for d in diffs:
        if d.amount > 0:
            receivers.append((_receiver(d.account, seated), d.amount))
        elif d.amount < 0:
            payers.extend(_payers(d.account, -d.amount, state, seated))
    return pair(payers, receivers, rule, memo)


def pair(payers: list[tuple[str, int]], receivers: list[tuple[str, int]], rule: str,
         memo: str) -> tuple[Transfer, ...]:
    """Balanced transfers from ``payers`` to ``receivers`` (equal totals), in order."""
    moves: list[Transfer] = []
    i = j = 0
    left_pay = payers[0][1] if payers else 0
    left_get = receivers[0][1] if receivers else 0
    while i < len(payers) and j < len(receivers):
        amount = min(left_pay, left_get)
        src, dst = payers[i][0], receivers[j][0]
        if src != dst:
            moves.append(accounts.transfer(src, dst, amount, _rule(src, dst, rule), memo))
        left_pay -= amount
        left_get -= amount
        if not left_pay:
            i += 1
            left_pay = payers[i][1] if i < len(payers) else 0
        if not left_get:
            j += 1
            left_get = receivers[j][1] if j < len(receivers) else 0
    return tuple(moves)


def _rule(src: str, dst: str, rule: str) -> str:
    return "COR-5" if src.startswith("owed:") or dst.startswith("owed:") else rule


def _receiver(account: str, seated: set[str]) -> str:
    if accounts.is_player(account) and accounts.player_id(account) not in seated:
        return accounts.owed(accounts.player_id(account))
    return account


def _payers(account: str, amount: int, state: TableState,
            seated: set[str]) -> list[tuple[str, int]]:
    if accounts.is_player(account):
        who = accounts.player_id(account)
        held = state.balances.get(account, 0) if who in seated else 0
        return _split(account, accounts.owed(who), amount, held)
    if account in _BOUNDED:
        return _split(account, accounts.HOUSE, amount, state.balances.get(account, 0))
    return [(account, amount)]


def _split(first: str, rest: str, amount: int, held: int) -> list[tuple[str, int]]:
    taken = max(0, min(amount, held))
    out = [(first, taken)] if taken else []
    if amount - taken:
        out.append((rest, amount - taken))
    return out
