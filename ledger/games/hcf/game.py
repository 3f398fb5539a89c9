"""High Card Flush Poker, designated-player version (HCF-1..14): the hand's flow.

Flow: ``start`` lists the seated players holding chips and offers the DP role (HCF-1) ->
accept (the DP's whole stack moves into ``bank``: the funds in action, HCF-12) or decline (the
offer moves on clockwise; nobody left: HandCancelled) -> the players place Ante, Flush Bonus and
Straight Flush Bonus wagers (HCF-2, HCF-6; the player's HCF-13 fee is held with the Ante) ->
seven cards to each player and the DP, left of the button clockwise (HCF-3) -> each player, in
the same order, folds (wagers into the bank) or raises up to the HCF-5 cap -> the DP's hand is
revealed (HCF-7) -> :func:`ledger.games.hcf.settlement.settle`.

Decisions taken where the rule book is silent are listed in :mod:`ledger.games.hcf`.
"""

from __future__ import annotations

from typing import Any

from ledger.domain import accounts
from ledger.domain.commands import Act, HandCommand, PlaceWager, Reveal, Settle
from ledger.domain.errors import InvalidInput, RuleViolation, StateConflict
from ledger.domain.frozen import replaced
from ledger.domain.money import format_amount
from ledger.domain.records import (
    HAND_ENDINGS,
    CardsDealt,
    CardsRevealed,
    HandCancelled,
    HandRecord,
    HandStarted,
    PlayerActed,
    Record,
    RoleOffered,
    SeatEntry,
    Transfer,
    WagerPlaced,
)
from ledger.evaluation import hcf as ev
from ledger.games.base import (
    DealPlan,
    DealSlot,
    Game,
    Option,
    Step,
    TableView,
    check_limits,
    out_of_turn,
    require_chips,
    wrong_phase,
)
from ledger.games.hcf.model import (
    ANTE,
    BONUS_KINDS,
    DP_ROLE,
    GAME,
    HOUSE_FEE,
    RAISE,
    WAGER_KINDS,
    HcfConfig,
    HcfHand,
    HcfMemo,
    HcfSeat,
    clockwise_after,
)
from ledger.games.hcf.settlement import settle


def eligible_dp(config: HcfConfig, table: TableView, seat: int, others: tuple[int, ...]) -> bool:
    """HCF-1: a seat may bank the hand when its stack reaches ``dp_minimum_bank`` and at least
    one other seat of the hand can post a minimum Ante (HCF-6, with its HCF-13 fee)."""
    if table.seat_stack(seat) < config.dp_minimum_bank:
        return False
    return any(o != seat and table.seat_stack(o) >= config.min_entry() for o in others)


def max_raise(hand_seat: HcfSeat) -> int:
    """HCF-5: the largest raise for this hand, by the length of its flush."""
    return ev.max_raise_multiple(ev.flush(hand_seat.cards).length) * hand_seat.ante


def public_max_raise(hand_seat: HcfSeat) -> int:
    """HCF-5: the largest raise any hand allows (3x Ante). The cap of *this* hand tells the
    class of its flush, so only readers who see the seat's cards are shown it."""
    return ev.max_raise_multiple(ev.HAND_SIZE) * hand_seat.ante


class HighCardFlush(Game[HcfConfig, HcfHand]):
    """High Card Flush Poker banked by a designated player (seeds 000 and 001)."""

    name = GAME
    title = "High Card Flush Poker"
    config_type = HcfConfig
    hand_type = HcfHand
    memo_type = HcfMemo
    seats = range(1, 8)
    banking = "player"

    # --- table level --------------------------------------------------------------------

    def evolve_memo(self, memo: Any, record: Record) -> Any:
        """Keep the DP rotation (HCF-1): the last DP, or the first seat offered a refused role."""
        assert isinstance(memo, HcfMemo)
        if isinstance(record, RoleOffered) and record.hand_no != memo.hand_no:
            return replaced(memo, hand_no=record.hand_no, first_offered=record.seat, accepted=False)
        if isinstance(record, PlayerActed) and record.action == "accept":
            return replaced(memo, position=record.seat, accepted=True)
        if (isinstance(record, HAND_ENDINGS) and record.hand_no == memo.hand_no
                and not memo.accepted and memo.first_offered is not None):
            return replaced(memo, position=memo.first_offered)
        return memo

    # --- hand ---------------------------------------------------------------------------

    def start(self, table: TableView, hand_no: int) -> list[HandRecord]:
        config: HcfConfig = table.config
        seated = [SeatEntry(seat=s, player=p) for s, p in sorted(table.seats.items())
                  if table.stack(p) > 0]
        if len(seated) < 2:
            raise StateConflict(
                "not_enough_players",
                "a designated-player hand needs two seated players with chips (HCF-1)",
                players=len(seated), rule="HCF-1",
            )
        numbers = tuple(e.seat for e in seated)
        candidates = [s for s in numbers if eligible_dp(config, table, s, numbers)]
        if not candidates:
            raise StateConflict(
                "no_eligible_designated_player",
                f"no seat can bank the hand: the designated player needs at least "
                f"{format_amount(config.dp_minimum_bank)} and an opponent able to post the"
                " minimum Ante (HCF-1)",
                minimum_bank=config.dp_minimum_bank, rule="HCF-1",
            )
        memo: HcfMemo = table.memo
        first = clockwise_after(memo.position, candidates)[0]
        return [
            HandStarted(hand_no=hand_no, seats=tuple(seated), card_source=config.card_source,
                        config_version=table.config_version),
            RoleOffered(hand_no=hand_no, seat=first, role=DP_ROLE),
        ]

    def decide(self, table: TableView, hand: HcfHand, command: HandCommand) -> list[HandRecord]:
        config: HcfConfig = table.config
        if isinstance(command, PlaceWager):
            return self._wager(table, config, hand, command)
        if isinstance(command, Act):
            if hand.phase == "offer":
                return self._answer(table, config, hand, command)
            return [self._act(table, hand, command)]
        if isinstance(command, Reveal):
            if hand.phase != "reveal":
                step = self.next_step(table, hand)
                raise wrong_phase("reveal the designated player's hand", step)
            assert hand.dp is not None
            return [CardsRevealed(hand_no=hand.hand_no, target=hand.dp, cards=hand.dp_cards)]
        if isinstance(command, Settle):
            return [self._settle(table, config, hand)]
        raise wrong_phase(command.name.replace("_", " "), self.next_step(table, hand))

    def _answer(
        self, table: TableView, config: HcfConfig, hand: HcfHand, cmd: Act
    ) -> list[HandRecord]:
        """HCF-1: the seat offered the role accepts (its stack becomes the bank) or declines."""
        offered = hand.offered_to
        assert offered is not None
        if cmd.action not in ("accept", "decline"):
            raise RuleViolation(
                "not_allowed_now",
                f"seat {offered} is being offered the designated player role; it accepts or "
                f"declines (HCF-1), nobody may {cmd.action} now",
                waiting_for="offer", seats=[offered], rule="HCF-1",
            )
        if cmd.seat != offered:
            raise out_of_turn(cmd.seat, self.next_step(table, hand))
        seat = hand.seat(offered)
        if cmd.action == "accept":
            funds = table.stack(seat.player)
            move = accounts.transfer(accounts.player(seat.player), accounts.BANK, funds, "HCF-12",
                                     "funds in action")
            return [PlayerActed(hand_no=hand.hand_no, seat=offered, action="accept", amount=funds,
                                transfers=(move,), rule="HCF-1")]
        records: list[HandRecord] = [
            PlayerActed(hand_no=hand.hand_no, seat=offered, action="decline", rule="HCF-1")
        ]
        seated = tuple(s.seat for s in hand.seats if s.seat not in table.departed)
        left = [s for s in seated
                if s not in hand.offered and eligible_dp(config, table, s, seated)]
        if left:
            nxt = clockwise_after(offered, left)[0]
            records.append(RoleOffered(hand_no=hand.hand_no, seat=nxt, role=DP_ROLE))
        else:
            records.append(HandCancelled(
                hand_no=hand.hand_no, rule="HCF-1",
                reason="no eligible player accepted the designated player role",
            ))
        return records

    def _wager(
        self, table: TableView, config: HcfConfig, hand: HcfHand, cmd: PlaceWager
    ) -> list[HandRecord]:
        """HCF-2 wagers, posted limits (COM-4) and the HCF-6 stack check."""
        if hand.phase != "wagers":
            raise wrong_phase("place a wager", self.next_step(table, hand))
        seat = hand.seat(cmd.seat)
        if cmd.seat == hand.dp:
            raise RuleViolation(
                "designated_player_cannot_wager",
                f"seat {cmd.seat} banks this hand; the designated player places no wager (HCF-1)",
                seat=cmd.seat, rule="HCF-1",
            )
        if seat.decision == "fold":
            raise RuleViolation("seat_folded", f"seat {cmd.seat} has folded this hand",
                                seat=cmd.seat)
        if cmd.kind not in WAGER_KINDS:
            raise RuleViolation(
                "unknown_wager_kind",
                f"{self.title} wagers are {', '.join(WAGER_KINDS)}, not {cmd.kind!r} (HCF-2)",
                kind=cmd.kind, rule="HCF-2",
            )
        if not config.offers(cmd.kind):
            raise RuleViolation("wager_not_offered", f"this table does not offer {cmd.kind}",
                                kind=cmd.kind, rule="COM-4")
        if seat.wager(cmd.kind):
            raise RuleViolation("wager_already_placed", f"seat {cmd.seat} has a {cmd.kind}",
                                seat=cmd.seat, kind=cmd.kind)
        if cmd.kind != ANTE and not seat.ante:
            raise RuleViolation("ante_required",
                                f"the {cmd.kind} goes with an Ante; place the Ante first (HCF-2)",
                                seat=cmd.seat, rule="HCF-2")
        check_limits(config, cmd.kind, cmd.amount)
        fee = config.rake.players_pay if cmd.kind == ANTE else 0
        reserve = cmd.amount if cmd.kind == ANTE else seat.ante
        require_chips(table, cmd.seat, cmd.amount + reserve + fee, "HCF-6")
        player = accounts.player(seat.player)
        move = accounts.transfer(player, accounts.spot(cmd.seat, cmd.kind), cmd.amount, "HCF-2")
        records: list[HandRecord] = [WagerPlaced(
            hand_no=hand.hand_no, seat=cmd.seat, kind=cmd.kind, amount=cmd.amount,
            transfers=(move,), rule="HCF-2",
        )]
        if fee:
            hold = accounts.transfer(player, accounts.spot(cmd.seat, HOUSE_FEE), fee, "HCF-13",
                                     "house fee held until settlement")
            records.append(WagerPlaced(hand_no=hand.hand_no, seat=cmd.seat, kind=HOUSE_FEE,
                                       amount=fee, transfers=(hold,), rule="HCF-13"))
        return records

    def _act(self, table: TableView, hand: HcfHand, cmd: Act, rule: str = "HCF-5") -> PlayerActed:
        """HCF-5: fold (Ante and bonus wagers go into the bank) or raise within the cap."""
        if hand.phase != "decisions":
            raise wrong_phase(cmd.action, self.next_step(table, hand))
        nxt = hand.to_act
        assert nxt is not None
        if cmd.seat != nxt.seat:
            raise out_of_turn(cmd.seat, self.next_step(table, hand))
        if cmd.action == "fold":
            return fold(hand, nxt, rule)
        if cmd.action != "raise":
            raise RuleViolation(
                "unknown_action",
                f"in {self.title} a player folds or raises, not {cmd.action!r} (HCF-5)",
                action=cmd.action, rule="HCF-5",
            )
        cap = max_raise(nxt)
        if cmd.amount is None:
            raise InvalidInput(
                "amount_required",
                f"a raise needs an amount from {nxt.ante} to {cap} (HCF-5)",
                minimum=nxt.ante, maximum=cap, rule="HCF-5",
            ).private_to(nxt.seat, f"a raise needs an amount from {nxt.ante} up to the cap "
                         "of the seat's flush (HCF-5)", "maximum")
        if cmd.amount < nxt.ante:
            raise RuleViolation(
                "raise_below_minimum",
                f"the raise is at least 1x Ante: {nxt.ante}, not {cmd.amount} (HCF-5)",
                amount=cmd.amount, minimum=nxt.ante, rule="HCF-5",
            )
        # HCF-6 before the hand's cap, and the cap any hand allows before this hand's: which
        # check refuses must not depend on the seat's hidden cards.
        require_chips(table, nxt.seat, cmd.amount, "HCF-6")
        top = public_max_raise(nxt)
        if cmd.amount > top:
            raise RuleViolation(
                "raise_above_maximum",
                f"the raise is at most {top // nxt.ante}x Ante: {top}, not {cmd.amount} (HCF-5)",
                amount=cmd.amount, maximum=top, rule="HCF-5",
            )
        if cmd.amount > cap:
            length = ev.flush(nxt.cards).length
            raise RuleViolation(
                "raise_above_maximum",
                f"with a {length}-card flush the raise is at most {cap // nxt.ante}x Ante: "
                f"{cap}, not {cmd.amount} (HCF-5)",
                amount=cmd.amount, maximum=cap, flush_length=length, rule="HCF-5",
            ).private_to(nxt.seat, f"a raise of {cmd.amount} is above the cap of the seat's "
                         "flush (HCF-5)", "maximum", "flush_length")
        move = accounts.transfer(accounts.player(nxt.player), accounts.spot(nxt.seat, RAISE),
                                 cmd.amount, "HCF-5")
        return PlayerActed(hand_no=hand.hand_no, seat=nxt.seat, action="raise", amount=cmd.amount,
                           transfers=(move,), rule="HCF-5")

    def _settle(self, table: TableView, config: HcfConfig, hand: HcfHand) -> HandRecord:
        if hand.phase == "settle":
            return settle(config, hand)
        if hand.phase == "wagers" and not hand.live:
            if any(s.ante for s in hand.seats):  # every Ante folded (its player left, COM-6)
                return settle(config, hand)
            dp = hand.dp_seat
            back = accounts.transfer(accounts.BANK, accounts.player(dp.player), hand.funds,
                                     "HCF-2", "funds in action returned to the DP")
            return HandCancelled(hand_no=hand.hand_no, reason="no player placed an Ante",
                                 transfers=(back,), rule="HCF-2")
        raise wrong_phase("settle", self.next_step(table, hand))

    def fold_out(self, table: TableView, hand: HcfHand, seat: int) -> list[HandRecord]:
        """COM-6: leaving without acting is a fold (before the deal too): the Ante and both
        bonus wagers go into the bank (HCF-5, HCF-12) and the player's fee is still raked (it
        took part, HCF-13). The seat offered the DP role declines it by leaving; a DP who
        leaves still banks the hand it accepted; a seat that raised has acted."""
        if hand.phase == "offer":
            if seat == hand.offered_to:
                act = Act(command_id="leave", table=table.code, seat=seat, action="decline")
                return self._answer(table, table.config, hand, act)
            return []
        if seat == hand.dp:
            return []
        s = hand.seat(seat)
        if hand.phase in ("wagers", "decisions") and s.ante and s.decision is None:
            return [fold(hand, s, "COM-6")]
        return []

    def deal_plan(self, table: TableView, hand: HcfHand) -> DealPlan:
        """HCF-3: seven face-down cards each, starting left of the button, the DP last."""
        if hand.phase != "wagers":
            raise wrong_phase("deal", self.next_step(table, hand))
        if not hand.live:
            raise RuleViolation("no_wagers",
                                "no seat has an Ante in play; nothing to deal (HCF-2)",
                                rule="HCF-2")
        assert hand.dp is not None
        order = clockwise_after(hand.dp, [s.seat for s in hand.live])
        slots = [DealSlot(target=n, down=7) for n in order]
        slots.append(DealSlot(target=hand.dp, down=7))
        return DealPlan(round="initial", slots=tuple(slots))

    def evolve(self, hand: HcfHand | None, record: HandRecord) -> HcfHand | None:
        if isinstance(record, HandStarted):
            seats = tuple(HcfSeat(seat=e.seat, player=e.player) for e in record.seats)
            return HcfHand(hand_no=record.hand_no, seats=seats)
        if hand is None or isinstance(record, HAND_ENDINGS):
            return None
        if isinstance(record, RoleOffered):
            return replaced(hand, offered=(*hand.offered, record.seat))
        if isinstance(record, WagerPlaced):
            s = hand.seat(record.seat)
            s = replaced(s, **{record.kind: s.wager(record.kind) + record.amount})
            return replaced(hand, seats=hand.replace(s))
        if isinstance(record, PlayerActed):
            return _acted(hand, record)
        if isinstance(record, CardsDealt):
            seats, dp_cards, dealt = hand.seats, hand.dp_cards, []
            for d in record.dealt:
                if d.target == hand.dp:
                    dp_cards = d.cards
                elif isinstance(d.target, int):
                    s = replaced(hand.seat(d.target), cards=d.cards)
                    seats = tuple(s if x.seat == s.seat else x for x in seats)
                    dealt.append(d.target)
            return replaced(hand, seats=seats, dp_cards=dp_cards, dealt=tuple(dealt),
                            phase="decisions")
        if isinstance(record, CardsRevealed):
            return replaced(hand, phase="settle")
        return hand

    def next_step(self, table: TableView, hand: HcfHand) -> Step:
        if hand.phase == "offer":
            return Step(kind="offer", seats=(hand.offered[-1],),
                        options=(Option(action="accept"), Option(action="decline")),
                        note="designated player role (HCF-1)")
        if hand.phase == "wagers":
            config: HcfConfig = table.config
            seats = tuple(s.seat for s in hand.seats if s.seat != hand.dp
                          and s.decision is None and s.seat not in table.departed)
            options = tuple(Option(action=k, min_amount=config.limits[k].min,
                                   max_amount=config.limits[k].max)
                            for k in WAGER_KINDS if config.offers(k))
            note = ("deal once the wagers are in" if hand.live else
                    "no Ante in play: deal once one is placed, or settle to close the hand")
            return Step(kind="wager", seats=seats, options=options, note=note)
        if hand.phase == "decisions":
            nxt = hand.to_act
            assert nxt is not None
            stack = table.stack(nxt.player)
            top = min(max_raise(nxt), stack)
            acts = [Option(action="fold")]
            if top >= nxt.ante:
                acts.append(Option(action="raise", min_amount=nxt.ante, max_amount=top,
                                   public_max_amount=min(public_max_raise(nxt), stack)))
            return Step(kind="act", seats=(nxt.seat,), options=tuple(acts))
        return Step(kind=hand.phase)


def fold(hand: HcfHand, seat: HcfSeat, rule: str) -> PlayerActed:
    """HCF-5 (or COM-6): the Ante and bonus wagers go into the bank at the fold (HCF-12)."""
    moves: list[Transfer] = [
        accounts.transfer(accounts.spot(seat.seat, kind), accounts.BANK, seat.wager(kind), rule,
                          "folded")
        for kind in (ANTE, *BONUS_KINDS) if seat.wager(kind)
    ]
    return PlayerActed(hand_no=hand.hand_no, seat=seat.seat, action="fold",
                       transfers=tuple(moves), rule=rule)


def _acted(hand: HcfHand, record: PlayerActed) -> HcfHand:
    if record.action == "accept":
        return replaced(hand, dp=record.seat, funds=record.amount, phase="wagers")
    if record.action == "decline":
        return hand
    s = hand.seat(record.seat)
    if record.action == "fold":
        s = replaced(s, decision="fold")
        new = replaced(hand, seats=hand.replace(s), folds=(*hand.folds, s.seat))
    else:
        s = replaced(s, decision="raise", raised=record.amount)
        new = replaced(hand, seats=hand.replace(s))
    if new.phase == "decisions" and new.to_act is None:
        new = replaced(new, phase="reveal")
    return new
