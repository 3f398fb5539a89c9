"""High Card Flush Poker, designated-player version (HCF-1..14), seeds 000 and 001.

- :mod:`~ledger.games.hcf.model`: the configuration, the hand state, the rotation memo.
- :mod:`~ledger.games.hcf.game`: the Game: DP offers, wagers, deal, decisions, reveal.
- :mod:`~ledger.games.hcf.settlement`: the pure settlement the audit calls again.

Every hand-strength question (flush, run, DP qualification, raise cap, bonus odds) is answered by
:mod:`ledger.evaluation.hcf`, the same evaluator ``ledger evaluate --rules hcf`` uses.

Decisions where the rule book is silent (an auditor's reading; each one is tested):

- Seat order: seats are numbered clockwise, so "clockwise" is ascending seat numbers and the
  HCF-7 order (right of the button, counter-clockwise) is descending numbers from the seat below
  the button, wrapping, the button last.
- HCF-1 eligibility: a seat may be offered the role when its stack is at least the configurable
  ``dp_minimum_bank`` (default 100.00, never below the Ante minimum) and another seat of the hand
  could post a minimum Ante (twice the minimum plus any player fee, HCF-6). A hand needs two
  seated players with chips (``not_enough_players``); with no eligible seat no hand starts
  (``no_eligible_designated_player``) and nothing is recorded. Offers start at the first eligible
  seat clockwise after the previous DP; a decline moves the offer clockwise to the next eligible
  seat not yet offered; when every eligible seat has declined, HandCancelled (HCF-1). When
  nobody accepted, the rotation moves past the first seat offered in that hand.
- The button sits in front of the DP: the hand state's ``dp`` is the button (HandStarted is
  written before the DP is known and carries no button).
- HCF-2: bonus wagers need an Ante first; a bonus kind is offered only when the table posts
  limits for it (COM-4). The DP places no wager. If the DP accepts and nobody antes, Settle
  closes the hand unplayed (HandCancelled, funds back to the DP, rule HCF-2).
- HCF-5: a raise needs an explicit amount (``amount_required``); the raise cap uses the player's
  flush as HCF-4 defines it. Players decide in the dealing order, left of the button.
- HCF-6: each wager must leave a 1x Ante raise in the stack (and the Ante also the player's fee).
- COM-6: a player who leaves before deciding folds, before the deal too (its wagers go into the
  bank and it still pays its fee: it took part); the seat offered the role declines by leaving; a
  DP who leaves still banks the hand it accepted.
- HCF-10/HCF-11: a bonus whose player's length cannot win (run below 3, flush below 4, or a
  length the configured paytable leaves out) loses, even when the DP's hand is no better: a push
  needs a paying hand equal to the DP's. Both bonuses compare with the DP's hand whether or not
  the DP qualifies (HCF-8). Within a seat, wagers settle ante, raise, Straight Flush Bonus,
  Flush Bonus; that is also their order against the COM-7 cap, as the rule book decides
  (COM-7, 2026-12-01: main wagers first, then side wagers by rule id).
- HCF-12: coverage liability is a seat's net winnings after its own losses and after COM-7
  (shown as 0 for a net loser). A dead seat's Outcome shows the winnings it was denied in
  ``withheld``. The ``collect-first`` policy (settle the seats that win nothing net before the
  winners, each group in HCF-7 order) is the alternative setting to the default ``in-order``.
  Folded seats appear first in the coverage lines (liability 0), in folding order.
- HCF-13: the player's fee is taken from the stack with the Ante into ``spot:<seat>:house_fee``
  and raked at settlement (returned on a dead or voided hand); the DP's fee is taken from the
  funds left after every seat is settled, so it never reduces the funds in action; if less than
  the fee is left, only what is left is raked and the DP's outcome notes the waiver. Default fee
  0, method (i).
- HCF-14: the DP's Outcome (wager ``designated_player``) has ``stake`` = funds in action and
  ``amount`` = funds returned minus funds in action (settlements minus fee).

Pure rules: it may use ``ledger.domain``, ``ledger.evaluation`` and ``ledger.games.base`` only.
"""

from __future__ import annotations

from ledger.games.hcf.game import HighCardFlush
from ledger.games.hcf.model import HcfConfig, HcfHand, HcfMemo, HcfSeat
from ledger.games.hcf.settlement import settle

__all__ = ["HcfConfig", "HcfHand", "HcfMemo", "HcfSeat", "HighCardFlush", "settle"]
