"""The CyberCaribbean Stud game: wagers, deal, decisions, reveal and settlement (CSP-1..7)."""

from __future__ import annotations

from ledger.domain import accounts
from ledger.domain.commands import Act, HandCommand, PlaceWager, Reveal, Settle
from ledger.domain.errors import RuleViolation, StateConflict
from ledger.domain.frozen import replaced
from ledger.domain.records import (
    HAND_ENDINGS,
    CardsDealt,
    CardsRevealed,
    HandCancelled,
    HandRecord,
    HandStarted,
    PlayerActed,
    SeatEntry,
    Transfer,
    WagerPlaced,
)
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
from ledger.games.caribbean.config import GAME, CaribbeanConfig
from ledger.games.caribbean.hand import CaribbeanHand, CaribbeanSeat
from ledger.games.caribbean.settlement import settle


class CaribbeanStud(Game[CaribbeanConfig, CaribbeanHand]):
    """CyberCaribbean Stud Poker with a progressive jackpot (seed 002)."""

    name = GAME
    title = "CyberCaribbean Stud Poker"
    config_type = CaribbeanConfig
    hand_type = CaribbeanHand
    seats = range(1, 8)
    banking = "house"

    def opening_transfers(self, config: CaribbeanConfig) -> tuple[Transfer, ...]:
        seed = config.jackpot.seed if config.jackpot.enabled else 0
        if not seed:
            return ()
        return (accounts.transfer(accounts.HOUSE, accounts.JACKPOT, seed, "CSP-6", "jackpot seed"),)

    # --- hand ---------------------------------------------------------------------------

    def start(self, table: TableView, hand_no: int) -> list[HandRecord]:
        seated = [SeatEntry(seat=s, player=p) for s, p in sorted(table.seats.items())]
        if not seated:
            raise StateConflict("no_players", "no player is seated at this table")
        return [
            HandStarted(
                hand_no=hand_no,
                seats=tuple(seated),
                card_source=table.config.card_source,
                config_version=table.config_version,
            )
        ]

    def decide(
        self, table: TableView, hand: CaribbeanHand, command: HandCommand
    ) -> list[HandRecord]:
        config: CaribbeanConfig = table.config
        if isinstance(command, PlaceWager):
            return [self._wager(table, config, hand, command)]
        if isinstance(command, Act):
            return [self._act(table, hand, command)]
        if isinstance(command, Reveal):
            if hand.phase != "reveal":
                raise wrong_phase("reveal the dealer's hand", self.next_step(table, hand))
            return [CardsRevealed(hand_no=hand.hand_no, target="dealer", cards=hand.dealer_cards)]
        if isinstance(command, Settle):
            meter = table.balances.get(accounts.JACKPOT, 0)
            if hand.phase == "settle":
                return [settle(config, hand, meter)]
            if hand.phase == "wagers" and not hand.standing:
                if hand.playing:  # every Ante folded before the deal (its player left, COM-6)
                    return [settle(config, hand, meter)]
                return [HandCancelled(hand_no=hand.hand_no, reason="no player placed an Ante",
                                      rule="CSP-1")]
            raise wrong_phase("settle", self.next_step(table, hand))
        raise wrong_phase(command.name.replace("_", " "), self.next_step(table, hand))

    def _wager(
        self, table: TableView, config: CaribbeanConfig, hand: CaribbeanHand, cmd: PlaceWager
    ) -> WagerPlaced:
        if hand.phase != "wagers":
            raise wrong_phase("place a wager", self.next_step(table, hand))
        seat = hand.seat(cmd.seat)
        if cmd.kind == "ante":
            if seat.ante:
                raise RuleViolation("wager_already_placed", f"seat {cmd.seat} has an Ante")
            check_limits(config, "ante", cmd.amount)
            require_chips(table, cmd.seat, cmd.amount)
        elif cmd.kind == "jackpot":
            if not config.jackpot.enabled:
                raise RuleViolation("jackpot_disabled", "this table has no jackpot wager")
            if not seat.ante:
                raise RuleViolation(
                    "ante_required", "the jackpot wager goes with an Ante (CSP-6)", rule="CSP-6"
                )
            if seat.jackpot:
                raise RuleViolation("wager_already_placed", f"seat {cmd.seat} has a jackpot wager")
            if cmd.amount != config.jackpot.wager:
                raise RuleViolation(
                    "jackpot_wager_must_be_exact",
                    f"the jackpot wager is exactly {config.jackpot.wager} (CSP-6)",
                    required=config.jackpot.wager,
                    rule="CSP-6",
                )
            require_chips(table, cmd.seat, cmd.amount)
        else:
            raise RuleViolation(
                "unknown_wager_kind",
                f"{self.title} wagers are 'ante' and 'jackpot', not {cmd.kind!r}",
                kind=cmd.kind,
            )
        account = accounts.spot(cmd.seat, cmd.kind)
        rule = "CSP-6" if cmd.kind == "jackpot" else "CSP-1"
        move = accounts.transfer(accounts.player(seat.player), account, cmd.amount, rule)
        return WagerPlaced(
            hand_no=hand.hand_no,
            seat=cmd.seat,
            kind=cmd.kind,
            amount=cmd.amount,
            transfers=(move,),
            rule=rule,
        )

    def _act(self, table: TableView, hand: CaribbeanHand, cmd: Act) -> PlayerActed:
        if hand.phase != "decisions":
            raise wrong_phase(f"{cmd.action}", self.next_step(table, hand))
        nxt = hand.to_act
        assert nxt is not None
        if cmd.seat != nxt.seat:
            raise out_of_turn(cmd.seat, self.next_step(table, hand))
        if cmd.action == "fold":
            return fold(hand, nxt, "CSP-2")
        if cmd.action == "play":
            needed = 2 * nxt.ante
            if cmd.amount is not None and cmd.amount != needed:
                raise RuleViolation(
                    "play_must_be_double_ante",
                    f"the Play wager is exactly twice the Ante: {needed} (CSP-2)",
                    required=needed,
                    amount=cmd.amount,
                    rule="CSP-2",
                )
            require_chips(table, nxt.seat, needed, "CSP-2")
            move = accounts.transfer(
                accounts.player(nxt.player), accounts.spot(nxt.seat, "play"), needed, "CSP-2"
            )
            return PlayerActed(
                hand_no=hand.hand_no,
                seat=nxt.seat,
                action="play",
                amount=needed,
                transfers=(move,),
                rule="CSP-2",
            )
        raise RuleViolation(
            "unknown_action",
            f"in {self.title} a player folds or plays, not {cmd.action!r} (CSP-2)",
            action=cmd.action,
        )

    def fold_out(self, table: TableView, hand: CaribbeanHand, seat: int) -> list[HandRecord]:
        """COM-6: a seat with an Ante and no decision yet folds, before the deal too: the Ante
        is lost to the house as a fold loses it (CSP-2), and the jackpot wager stays collected
        for the meter but cannot win (CSP-6). A seat without an Ante has nothing at stake; a
        seat that played has acted, and its hand plays on."""
        s = hand.seat(seat)
        if hand.phase in ("wagers", "decisions") and s.ante and s.decision is None:
            return [fold(hand, s, "COM-6")]
        return []

    def deal_plan(self, table: TableView, hand: CaribbeanHand) -> DealPlan:
        if hand.phase != "wagers":
            raise wrong_phase("deal", self.next_step(table, hand))
        playing = hand.standing
        if not playing:
            raise RuleViolation("no_wagers", "no seat has an Ante in play; nothing to deal "
                                "(CSP-1)", rule="CSP-1")
        slots = [DealSlot(target=s.seat, down=5) for s in playing]
        slots.append(DealSlot(target="dealer", down=4, up=1))
        return DealPlan(round="initial", slots=tuple(slots))

    def evolve(self, hand: CaribbeanHand | None, record: HandRecord) -> CaribbeanHand | None:
        if isinstance(record, HandStarted):
            seats = tuple(CaribbeanSeat(seat=e.seat, player=e.player) for e in record.seats)
            return CaribbeanHand(hand_no=record.hand_no, seats=seats)
        if hand is None or isinstance(record, HAND_ENDINGS):
            return None
        if isinstance(record, WagerPlaced):
            s = hand.seat(record.seat)
            s = replaced(s, **{record.kind: getattr(s, record.kind) + record.amount})
            return replaced(hand, seats=hand.replace(s))
        if isinstance(record, CardsDealt):
            seats = hand.seats
            down: tuple[int, ...] = ()
            up: tuple[int, ...] = ()
            for d in record.dealt:
                if d.target == "dealer":
                    down, up = d.down, d.up
                elif isinstance(d.target, int):
                    s = replaced(hand.seat(d.target), cards=d.cards)
                    seats = tuple(s if x.seat == s.seat else x for x in seats)
            return replaced(hand, seats=seats, dealer_down=down, dealer_up=up, phase="decisions")
        if isinstance(record, PlayerActed):
            s = replaced(hand.seat(record.seat), decision=record.action, play=record.amount)
            new = replaced(hand, seats=hand.replace(s))
            if new.phase == "decisions" and new.to_act is None:
                new = replaced(new, phase="reveal")
            return new
        if isinstance(record, CardsRevealed):
            return replaced(hand, phase="settle")
        return hand

    def next_step(self, table: TableView, hand: CaribbeanHand) -> Step:
        if hand.phase == "wagers":
            config: CaribbeanConfig = table.config
            ante = config.limits["ante"]
            options = [Option(action="ante", min_amount=ante.min, max_amount=ante.max)]
            if config.jackpot.enabled:
                j = config.jackpot.wager
                options.append(Option(action="jackpot", min_amount=j, max_amount=j))
            note = None
            if hand.standing:
                note = "deal once the wagers are in"
            elif hand.playing:
                note = "no Ante in play: deal once one is placed, or settle to close the hand"
            return Step(
                kind="wager",
                seats=tuple(s.seat for s in hand.seats if s.decision is None),
                options=tuple(options),
                note=note,
            )
        if hand.phase == "decisions":
            nxt = hand.to_act
            assert nxt is not None
            return Step(
                kind="act",
                seats=(nxt.seat,),
                options=(
                    Option(action="fold"),
                    Option(action="play", min_amount=2 * nxt.ante, max_amount=2 * nxt.ante),
                ),
            )
        return Step(kind=hand.phase)


def fold(hand: CaribbeanHand, seat: CaribbeanSeat, rule: str) -> PlayerActed:
    """CSP-2 (or COM-6, a player who left): the Ante goes to the house; a jackpot wager stays
    on its spot until the settlement collects it for the meter and the house (CSP-6)."""
    memo = "ante folded" if rule == "CSP-2" else "ante folded: the player left (COM-6)"
    lose = accounts.transfer(accounts.spot(seat.seat, "ante"), accounts.HOUSE, seat.ante,
                             "CSP-2", memo)
    return PlayerActed(hand_no=hand.hand_no, seat=seat.seat, action="fold", transfers=(lose,),
                       rule=rule)
