"""Chinese Poker (CHP-1..11): the game, its settings, its hand state and its settlement.

- :mod:`.config`: settings, buy-ins and short buys (CHP-4, CHP-8, CHP-11)
- :mod:`.hand`: the hand state and how records change it (CHP-1, CHP-9)
- :mod:`.scoring`: points between every pair of players (CHP-2..7)
- :mod:`.settlement`: points into chips under table stakes, in button order (CHP-8, CHP-9)
- :mod:`.game`: the Game protocol: start, decide, deal, evolve, next step (CHP-1..3, CHP-7)

Pure rules: it may use ``ledger.domain``, ``ledger.evaluation`` and ``ledger.games.base`` only.
"""

from ledger.games.chinese.config import ChineseConfig, ChineseMemo
from ledger.games.chinese.game import ChinesePoker
from ledger.games.chinese.hand import ChineseHand, ChineseSeat
from ledger.games.chinese.settlement import settle

__all__ = ["ChineseConfig", "ChineseHand", "ChineseMemo", "ChinesePoker", "ChineseSeat", "settle"]
