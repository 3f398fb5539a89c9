"""CyberCaribbean Stud Poker (CSP-1..7): house-banked, with a progressive jackpot.

Flow: the seated players post an Ante (and optionally the 1.00 jackpot side wager) -> five cards
to each anted seat and to the dealer (four down, one up, CSP-1) -> each seat, in seat order,
folds or plays at exactly twice the Ante (CSP-2) -> the dealer's hand is revealed -> settlement:
dealer qualification (CSP-3), the Play paytable (CSP-4), ties push, the COM-7 cap on winnings,
then the jackpot: this hand's contributions, the awards in ascending seat order, the reseed
(CSP-6, CSP-7).
"""

from ledger.games.caribbean.config import GAME, CaribbeanConfig, JackpotConfig
from ledger.games.caribbean.game import CaribbeanStud
from ledger.games.caribbean.hand import CaribbeanHand, CaribbeanSeat
from ledger.games.caribbean.settlement import settle

__all__ = [
    "GAME",
    "CaribbeanConfig",
    "CaribbeanHand",
    "CaribbeanSeat",
    "CaribbeanStud",
    "JackpotConfig",
    "settle",
]
