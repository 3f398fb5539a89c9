"""CyberCaribbean Stud Poker (CSP-1..7): house-banked, with a progressive jackpot.

Flow: the seated players post an Ante (and optionally the 1.00 jackpot side wager) -> five cards
to each anted seat and to the dealer (four down, one up, CSP-1) -> each seat, in seat order,
folds or plays at exactly twice the Ante (CSP-2) -> the dealer's hand is revealed -> settlement:
dealer qualification (CSP-3), the Play paytable (CSP-4), ties push, the COM-7 cap on winnings,
then the jackpot: this hand's contributions, the awards in ascending seat order, the reseed
(CSP-6, CSP-7).

Decisions where the rule book (docs/rules.md) is silent:

- COM-6: a player who leaves with an Ante in play and no decision yet folds at once, before the
  deal too: the Ante goes to the house (CSP-2) and a jackpot wager is collected for the meter
  but cannot win (CSP-6); a seat folded before the deal is not dealt. A player who leaves
  before wagering has nothing at stake; one who played has acted and its hand plays on.
- When every Ante has folded before the deal (their players left), ``settle`` closes the hand
  with the folds; when nobody placed an Ante, it cancels the hand (HandCancelled, CSP-1).
- COM-7: a seat's winnings use the cap Ante first, then Play (decision of 2026-12-01).

Pure rules: it may use ``ledger.domain``, ``ledger.evaluation`` and ``ledger.games.base`` only.
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
