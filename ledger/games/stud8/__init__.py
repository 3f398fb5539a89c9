"""Seven Card Stud Hi/Lo Eight or Better (STUD8-1..11), fixed limit, pooled.

Modules: ``model`` (settings and hand state), ``betting`` (the fixed-limit rounds), ``pots``
(side pots, rake, hi/lo splits in whole chips), ``showdown`` (show or muck, and the pure
settlement the audit re-runs), ``game`` (the Game: commands in, records out), ``phh`` (export of
a finished hand as a Poker Hand History document).

Seats are numbered clockwise from the dealer's left; the house dealer deals every street from
the top of the deck, without burn cards, starting at the lowest live seat (COM-8, STUD8-6).

Decisions where the rule book (docs/rules.md) is silent (the auditor's reading):

- STUD8-1: the antes are posted automatically when the hand starts (``WagerPlaced``, rule
  STUD8-1). A seat whose stack does not cover the ante sits the hand out (it is not dealt in);
  a hand needs two such seats (``not_enough_players``). Buy-ins are whole chips of
  ``chip_unit`` (``buy_in_not_whole_chips``), so every stack, wager and split is whole chips.
- STUD8-2: the bring-in is half the small bet (the small bet must be an even number of chips).
  It is posted by the lowest up card among the seats with chips behind after the ante; the
  bring-in may complete but neither fold nor check. A completion goes to the small bet, a bet to
  the street's bet, a raise to the current bet plus the street's bet.
- All-in for less: a seat short of a call or a raise puts in what it has. A short all-in bet or
  raise does not reopen the betting for the seats that already acted since the last full bet or
  raise, unless consecutive short raises add up to a full bet; every completion, bet and raise,
  short or not, counts toward the STUD8-5 cap.
- STUD8-3: with an open pair on fourth street the bet or raise is the small or the big bet at
  the bettor's choice (``amount``); once the big bet is used, later raises of the round are big.
- A seat may fold at its turn even when it could check. A player who leaves (COM-6) folds at
  once, in turn or not, even when all-in.
- STUD8-6: the community card is dealt when the cards left in the deck are fewer than the live
  seats at seventh street; it plays in every hand and is not a showing card for the order of
  action.
- STUD8-10: with no bet on seventh street, the seat that acted first on it shows first. The first
  hand must be shown; a seat may not muck when no other hand still in the showdown covers its
  contribution (its side pot would otherwise go to a player who could not cover it, STUD8-9).
- STUD8-9: pots are formed by the hands still contesting (neither folded nor mucked); a mucked
  hand is dead like a folded one. The uncalled part of the highest contribution is returned to
  its seat, folded, left or not (STUD8-11, decision of 2026-12-01), and is in no pot.
- STUD8-8: odd chips of a split pot go to the high half; within a half, one each to the tied seats
  from the dealer's left (lowest seat first). A remainder smaller than a chip (possible only when
  the chip unit changed between hands) goes with the odd chips, in the same order.
- STUD8-11: ``rake_bps`` of all pots together, rounded down to whole chips, capped by
  ``rake_cap`` per hand, taken from the main pot first; none when the hand ends on third street.

Pure rules: it may use ``ledger.domain``, ``ledger.evaluation`` and ``ledger.games.base`` only.
"""

from ledger.games.stud8.game import StudHiLo
from ledger.games.stud8.model import StudConfig, StudHand, StudSeat
from ledger.games.stud8.showdown import settle

__all__ = ["StudConfig", "StudHand", "StudHiLo", "StudSeat", "settle"]
