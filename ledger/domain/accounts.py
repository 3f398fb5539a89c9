"""Double entry: account names and balanced transfers.

Every chip movement is a :class:`~ledger.domain.records.Transfer` from one named account to another,
so the transfers of an event always sum to zero and every balance is the sum of its transfers.
Account names are local to a table (the projections qualify them with the table code):

``cage``               the cash desk: buy-ins come from it, cash-outs go back to it
``player:<id>``        a player's chips at this table (their stack)
``spot:<seat>:<kind>`` a wager in front of a seat during a hand (``spot:3:ante``)
``bank``               the designated player's funds in action during an HCF hand
``house``              the house bank (banked games pay from it; it funds jackpot seeds)
``rake``               the house's rake and fees
``jackpot``            the progressive jackpot meter
``owed:<id>``          what the house owes a player (positive) or the player owes the house
                       (negative) after a correction the stacks could not carry (COR-5)

Spots and the bank are empty whenever no hand is in progress.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from ledger.domain.records import Transfer

CAGE = "cage"
HOUSE = "house"
RAKE = "rake"
JACKPOT = "jackpot"
BANK = "bank"


def player(player_id: str) -> str:
    """The stack account of a player at this table."""
    return f"player:{player_id}"


def owed(player_id: str) -> str:
    """What the house owes ``player_id`` (positive) or is owed by them (negative), COR-5."""
    return f"owed:{player_id}"


def spot(seat: int, kind: str) -> str:
    """The wager spot of ``kind`` in front of ``seat``."""
    return f"spot:{seat}:{kind}"


def is_spot(account: str) -> bool:
    return account.startswith("spot:")


def spot_seat(account: str) -> int:
    """The seat of a ``spot:<seat>:<kind>`` account."""
    return int(account.split(":", 2)[1])


def spot_kind(account: str) -> str:
    return account.split(":", 2)[2]


def is_player(account: str) -> bool:
    return account.startswith("player:")


def player_id(account: str) -> str:
    return account.split(":", 1)[1]


def is_hand_scoped(account: str) -> bool:
    """Accounts that must be empty whenever no hand is in progress."""
    return account == BANK or is_spot(account)


def transfer(
    src: str, dst: str, amount: int, rule: str | None = None, memo: str | None = None
) -> Transfer:
    return Transfer(src=src, dst=dst, amount=amount, rule=rule, memo=memo)


def apply_transfers(balances: dict[str, int], transfers: Iterable[Transfer]) -> None:
    """Move chips in ``balances`` (in place); accounts that reach zero are dropped."""
    for t in transfers:
        src, dst, amount = t.src, t.dst, t.amount
        remaining = balances.get(src, 0) - amount
        if remaining:
            balances[src] = remaining
        else:
            balances.pop(src, None)
        added = balances.get(dst, 0) + amount
        if added:
            balances[dst] = added
        else:
            balances.pop(dst, None)


def net_flows(transfers: Iterable[Transfer]) -> dict[str, int]:
    """Net change per account implied by some transfers (sums to zero)."""
    net: dict[str, int] = {}
    for t in transfers:
        net[t.src] = net.get(t.src, 0) - t.amount
        net[t.dst] = net.get(t.dst, 0) + t.amount
    return {k: v for k, v in net.items() if v}


def total(balances: Mapping[str, int]) -> int:
    return sum(balances.values())
