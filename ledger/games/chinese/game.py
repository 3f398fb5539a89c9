"""Chinese Poker (CHP-1..11): four seats, 13 cards each, pairwise points paid between players.

Flow of a hand: ``start`` (the button moves; the fee is taken, CHP-11; each player's remaining
stack goes into play, CHP-8) -> deal 13 cards to each of the four seats, occupied or not
(CHP-1) -> each player sets front / middle / back, in any order, and may declare an automatic
win (CHP-2, CHP-3, CHP-7) -> once the last player has set, the hands are opened (``Reveal``,
CHP-3 timing) -> ``Settle`` (CHP-3..9).

Decisions where the rule book is silent (the rest are in the modules they govern):

- Seats and button (CHP-1, CHP-9): seats 1..4, numbered clockwise from the dealer's left. The
  players dealt in are the seated players whose stack exceeds the fee (CHP-11); at least two are
  needed. The button goes to the lowest such seat on the first hand, then moves to the next such
  seat clockwise each hand. Cards are dealt one at a time starting left of the button.
- Setting (CHP-2, CHP-3): a ``set`` act carries the three segments; all three must be given.
  Segments of any size are accepted as long as together they are exactly the 13 cards dealt to
  that seat: a wrong size is then a foul (CHP-3), not a rejection. A set whose cards are not the
  13 dealt is rejected (``wrong_cards``). A set is final: it cannot be changed or set again.
  Players set in any order (there is no turn; nobody sees another hand before the opening).
- Declaring (CHP-7): a declaration is checked against the hand as set, so it comes with the set
  (a ``set`` act that carries ``declaration``, recorded as a set then a declare) or after it in
  its own ``declare`` act, until the hands are opened; at most one per player, final. A player
  holding an automatic win who does not declare plays the hand as set.
- Leaving (COM-6): a player who leaves before setting has folded; in Chinese Poker that is a
  fouled hand (CHP-3): it pays the foul penalty and the bonuses. A player who leaves after
  setting keeps the hand in play. Chips in play stay in play until the settlement either way
  (COM-3: nobody adds or removes chips during a hand).
- Misdeals (CHP-10) are voided through the table's ``VoidHand`` (COM-5): every chip moved in
  the hand, the fee and the stakes, goes back. Once a player has set, a void is refused
  (``void_needs_approval``) unless a floor supervisor is named in ``approved_by``. A wrong
  number of cards reported by a card reader is refused outright by the table, which then voids
  the hand (before anyone can set).
"""

from __future__ import annotations

from ledger.domain import accounts
from ledger.domain.cards import ensure_distinct, format_cards
from ledger.domain.commands import Act, HandCommand, PlaceWager, Reveal, Settle
from ledger.domain.errors import InvalidInput, RuleViolation, StateConflict
from ledger.domain.frozen import replaced
from ledger.domain.records import (
    CardsRevealed,
    HandRecord,
    HandStarted,
    PlayerActed,
    Record,
    SeatEntry,
    Transfer,
)
from ledger.evaluation.chinese import AutomaticWin, automatic_wins
from ledger.games.base import DealPlan, DealSlot, Game, Option, Step, TableView, wrong_phase
from ledger.games.chinese import config as cfg
from ledger.games.chinese.config import ChineseConfig, ChineseMemo
from ledger.games.chinese.hand import (
    SEATS,
    STAKE,
    ChineseHand,
    ChineseSeat,
    clockwise_from_left_of,
    evolve,
    next_button,
)
from ledger.games.chinese.settlement import settle

HAND_SIZE = 13


class ChinesePoker(Game[ChineseConfig, ChineseHand]):
    """Chinese Poker, ``basic`` or ``mandarin`` scoring (seed 003)."""

    name = cfg.GAME
    title = "Chinese Poker"
    config_type = ChineseConfig
    hand_type = ChineseHand
    memo_type = ChineseMemo
    seats = SEATS
    banking = "pool"

    # --- table level --------------------------------------------------------------------

    def check_buy_in(self, table: TableView, seat: int, amount: int, kind: str) -> None:
        """CHP-8: full buy-ins of 20 points, one short buy after each."""
        memo = table.memo if isinstance(table.memo, ChineseMemo) else ChineseMemo()
        cfg.check_buy_in(table.config, memo, table.player_at(seat), amount, kind)

    def check_corrected_amount(self, table: TableView, kind: str, amount: int) -> None:
        """COR-2 with CHP-8: stacks are whole points, so what really moved is too."""
        cfg.check_whole_points(table.config, amount, kind)

    def evolve_memo(self, memo: ChineseMemo, record: Record) -> ChineseMemo:
        return cfg.evolve_memo(memo, record)

    # --- hand ---------------------------------------------------------------------------

    def start(self, table: TableView, hand_no: int) -> list[HandRecord]:
        """The button moves, the fee is taken (CHP-11) and every stack goes into play (CHP-8)."""
        config: ChineseConfig = table.config
        playing = {s: p for s, p in table.seats.items() if table.stack(p) > config.fee}
        if len(playing) < 2:
            raise StateConflict(
                "not_enough_players",
                f"Chinese Poker needs two players with more than the fee of {config.fee} in "
                f"chips; {len(playing)} seated player(s) have it (CHP-8, CHP-11)",
                players=len(playing), fee=config.fee,
            )
        button = next_button(table.button, list(playing))
        transfers: list[Transfer] = []
        for seat in clockwise_from_left_of(button, playing):
            account = accounts.player(playing[seat])
            if config.fee:
                transfers.append(accounts.transfer(account, accounts.RAKE, config.fee, "CHP-11",
                                                   "fee per player per hand"))
            stake = table.stack(playing[seat]) - config.fee
            transfers.append(accounts.transfer(account, accounts.spot(seat, STAKE), stake,
                                               "CHP-8", "table stakes: chips in play"))
        return [HandStarted(
            hand_no=hand_no,
            button=button,
            seats=tuple(SeatEntry(seat=s, player=p) for s, p in sorted(playing.items())),
            card_source=config.card_source,
            config_version=table.config_version,
            transfers=tuple(transfers),
        )]

    def deal_plan(self, table: TableView, hand: ChineseHand) -> DealPlan:
        """CHP-1: 13 cards to each of the four seats, one at a time from left of the button."""
        if hand.phase != "deal":
            raise wrong_phase("deal", self.next_step(table, hand))
        return DealPlan(round="initial", slots=tuple(
            DealSlot(target=seat, down=HAND_SIZE)
            for seat in clockwise_from_left_of(hand.button, SEATS)
        ))

    def evolve(self, hand: ChineseHand | None, record: HandRecord) -> ChineseHand | None:
        return evolve(hand, record)

    def next_step(self, table: TableView, hand: ChineseHand) -> Step:
        if hand.phase == "setting":
            return Step(
                kind="act", seats=hand.waiting,
                options=(Option(action="set"), Option(action="declare")),
                note="the listed seats set their hands, in any order (CHP-2); a seat that has "
                     "set may declare an automatic win until the hands are opened (CHP-7)",
            )
        if hand.phase == "reveal":
            return Step(kind="reveal", note="every player has set; declarations (CHP-7) are "
                                            "accepted until the hands are opened")
        return Step(kind=hand.phase)

    def decide(self, table: TableView, hand: ChineseHand, command: HandCommand
               ) -> list[HandRecord]:
        if isinstance(command, Act):
            if command.action == "set":
                return self._set(table, hand, command)
            if command.action == "declare":
                return [self._declare(table, hand, command)]
            raise RuleViolation(
                "unknown_action",
                f"in {self.title} a player sets a hand or declares an automatic win, not "
                f"{command.action!r} (CHP-2, CHP-7)",
                action=command.action,
            )
        if isinstance(command, Reveal):
            if hand.phase != "reveal":
                raise wrong_phase("open the hands", self.next_step(table, hand))
            return [
                CardsRevealed(hand_no=hand.hand_no, target=s.seat,
                              cards=tuple(c for segment in s.segments for c in segment))
                for s in hand.seats if s.segments is not None
            ]
        if isinstance(command, Settle):
            if hand.phase != "settle":
                raise wrong_phase("settle", self.next_step(table, hand))
            return [settle(table.config, hand)]
        if isinstance(command, PlaceWager):
            raise RuleViolation(
                "no_wagers",
                f"{self.title} has no wagers: points are paid from the chips in play (CHP-8)",
                kind=command.kind,
            )
        raise wrong_phase(command.name.replace("_", " "), self.next_step(table, hand))

    def void_restriction(self, hand: ChineseHand) -> tuple[str, str] | None:
        """CHP-10: a misdeal voids the hand only before anyone has set."""
        done = sorted(s.seat for s in hand.seats if s.segments is not None)
        if not done:
            return None
        return ("CHP-10", "a misdeal voids a Chinese Poker hand only before anyone has set; "
                "seat" + ("s " if len(done) > 1 else " ") + ", ".join(map(str, done))
                + (" have" if len(done) > 1 else " has") + " set")

    def fold_out(self, table: TableView, hand: ChineseHand, seat: int) -> list[HandRecord]:
        """COM-6: a player who leaves before setting has folded: the hand is fouled (CHP-3).
        A player who has set has acted: the hand plays on as set."""
        if hand.seat(seat).done:
            return []
        if hand.phase not in ("deal", "setting"):  # pragma: no cover - every seat is done
            return []
        return [PlayerActed(hand_no=hand.hand_no, seat=seat, action="fold", rule="COM-6")]

    # --- acts ---------------------------------------------------------------------------

    def _set(self, table: TableView, hand: ChineseHand, cmd: Act) -> list[HandRecord]:
        """CHP-2, CHP-3: the three segments, exactly the 13 cards dealt to the seat."""
        if hand.phase != "setting":
            raise wrong_phase("set a hand", self.next_step(table, hand))
        seat = self._acting(table, hand, cmd)
        if seat.segments is not None:
            raise RuleViolation("already_set", f"seat {seat.seat} has set its hand; a set is "
                                "final (CHP-2)", seat=seat.seat, rule="CHP-2")
        if cmd.front is None or cmd.middle is None or cmd.back is None:
            raise InvalidInput("segments_required", "a set gives the front, middle and back "
                               "segments (CHP-2)", seat=seat.seat, rule="CHP-2")
        given = (*cmd.front, *cmd.middle, *cmd.back)
        ensure_distinct(given)
        if sorted(given) != sorted(seat.cards):
            extra = sorted(set(given) - set(seat.cards))
            missing = sorted(set(seat.cards) - set(given))
            raise RuleViolation(
                "wrong_cards",
                f"a set must use exactly the 13 cards dealt to seat {seat.seat}"
                + (f"; not dealt to it: {format_cards(extra)}" if extra else "")
                + (f"; missing: {format_cards(missing)}" if missing else "") + " (CHP-3)",
                seat=seat.seat, extra=format_cards(extra), missing=format_cards(missing),
                rule="CHP-3",
            ).private_to(seat.seat, f"a set must use exactly the 13 cards dealt to seat "
                         f"{seat.seat} (CHP-3)", "extra", "missing")
            # A reader who cannot see the seat's cards learns only that the set was refused:
            # not which cards, nor how many, were wrong.
        segments = (cmd.front, cmd.middle, cmd.back)
        records: list[HandRecord] = [PlayerActed(
            hand_no=hand.hand_no, seat=seat.seat, action="set", segments=segments, rule="CHP-2",
        )]
        if cmd.declaration is not None:
            set_seat = replaced(seat, segments=segments)
            records.append(self._declaration(hand, set_seat, cmd.declaration))
        return records

    def _declare(self, table: TableView, hand: ChineseHand, cmd: Act) -> PlayerActed:
        """CHP-7: an automatic win, declared after the set and before the hands are opened."""
        if hand.phase not in ("setting", "reveal"):
            raise wrong_phase("declare an automatic win", self.next_step(table, hand))
        seat = self._acting(table, hand, cmd)
        if cmd.front is not None or cmd.middle is not None or cmd.back is not None:
            raise InvalidInput("segments_not_expected", "a declaration carries no cards; it "
                               "is checked against the hand as set (CHP-7)", rule="CHP-7")
        if cmd.declaration is None:
            raise InvalidInput("declaration_required", "name the automatic win declared: "
                               + ", ".join(w.value for w in AutomaticWin) + " (CHP-7)")
        if seat.segments is None:
            raise RuleViolation("hand_not_set", f"seat {seat.seat} declares after setting its "
                                "hand (CHP-7)", seat=seat.seat, rule="CHP-7")
        return self._declaration(hand, seat, cmd.declaration)

    def _declaration(self, hand: ChineseHand, seat: ChineseSeat, text: str) -> PlayerActed:
        if seat.declaration is not None:
            raise RuleViolation("already_declared", f"seat {seat.seat} has declared "
                                f"{seat.declaration} (CHP-7)", seat=seat.seat, rule="CHP-7")
        try:
            win = AutomaticWin(text)
        except ValueError:
            raise InvalidInput(
                "unknown_declaration",
                f"{text!r} is not an automatic win; they are "
                + ", ".join(w.value for w in AutomaticWin) + " (CHP-7)",
                declaration=text, rule="CHP-7",
            ) from None
        assert seat.segments is not None
        if win not in automatic_wins(*seat.segments):
            raise RuleViolation(
                "declaration_not_supported",
                f"seat {seat.seat}'s hand as set is not {win.value} (CHP-7)",
                seat=seat.seat, declaration=win.value, rule="CHP-7",
            ).private_to(seat.seat, f"seat {seat.seat}'s hand as set is not {win.value} "
                         "(CHP-7)")  # the refusal itself tells it: recorded (ledger.access.probes)
        return PlayerActed(hand_no=hand.hand_no, seat=seat.seat, action="declare",
                           declaration=win.value, rule="CHP-7")

    def _acting(self, table: TableView, hand: ChineseHand, cmd: Act) -> ChineseSeat:
        """The hand's seat for ``cmd``, held by the same player that was dealt in."""
        seat = hand.seat(cmd.seat)
        if seat.folded:
            raise RuleViolation("hand_folded", f"seat {cmd.seat}'s hand was folded when its "
                                "player left (COM-6)", seat=cmd.seat, rule="COM-6")
        if cmd.amount is not None:
            raise InvalidInput("amount_not_expected", "setting or declaring moves no chips; "
                               "send no amount", seat=cmd.seat)
        return seat
