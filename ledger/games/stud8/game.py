"""The Seven Card Stud Hi/Lo Eight or Better game: commands in, records out (STUD8-1..11).

Flow: ``start`` deals in every seat whose stack covers the ante and posts the antes
(STUD8-1) -> third street (two down, one up) -> the bring-in, completion and betting
(STUD8-2) -> fourth street (STUD8-3) -> fifth, sixth, seventh street (STUD8-4; the community
card of STUD8-6 when the deck runs short) -> showdown, show or muck (STUD8-10) -> ``settle``
(STUD8-7..9, STUD8-11). A hand ends at once, to settlement, when all but one seat have folded.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from ledger.domain import accounts
from ledger.domain.cards import DECK_SIZE
from ledger.domain.commands import Act, HandCommand, Settle
from ledger.domain.errors import RuleViolation, StateConflict
from ledger.domain.frozen import replaced
from ledger.domain.records import (
    HAND_ENDINGS,
    CardsDealt,
    CardsRevealed,
    HandRecord,
    HandStarted,
    PlayerActed,
    SeatEntry,
    WagerPlaced,
)
from ledger.games.base import (
    DealPlan,
    DealSlot,
    Game,
    Option,
    Step,
    TableView,
    out_of_turn,
    wrong_phase,
)
from ledger.games.stud8 import betting
from ledger.games.stud8.model import (
    GAME,
    STREET_NAMES,
    STREET_RULES,
    StreetAction,
    StudConfig,
    StudHand,
    StudSeat,
)
from ledger.games.stud8.showdown import must_show, next_to_show, settle

STREETS = {name: number for number, name in STREET_NAMES.items()}
BETTING_ACTIONS = ("fold", "check", "call", "bring_in", "complete", "bet", "raise")


@dataclass(slots=True)
class Stage:
    """What the hand waits for, with the betting round replayed (not changed once made)."""

    kind: Literal["deal", "act", "showdown", "settle"]
    seat: int | None = None
    choices: tuple[betting.Choice, ...] = ()
    round: betting.RoundState | None = None
    bring_in: bool = False


def behind(table: TableView, hand: StudHand) -> dict[int, int]:
    """Chips each seat of the hand has behind (0 = all-in), from the table's balances."""
    get, player = table.balances.get, accounts.player
    return {s.seat: get(player(s.player), 0) for s in hand.seats}


def stage(config: StudConfig, hand: StudHand, stacks: Mapping[int, int]) -> Stage:
    if hand.phase == "settle" or len(hand.live) < 2:
        return Stage("settle")
    if hand.street == 0:
        return Stage("deal")
    rs = betting.round_state(hand, config)
    turn = betting.current_turn(hand, config, rs, stacks)
    if turn.seat is not None:
        options = betting.choices(hand, config, rs, turn, stacks)
        return Stage("act", turn.seat, tuple(options), rs, turn.bring_in)
    if hand.street < 7:
        return Stage("deal", round=rs)
    seat = next_to_show(hand, config)
    if seat is None:
        return Stage("settle", round=rs)
    return Stage("showdown", seat, round=rs)


class StudHiLo(Game[StudConfig, StudHand]):
    """Seven Card Stud Hi/Lo Eight or Better, fixed limit, pooled (seed 004)."""

    name = GAME
    title = "Seven Card Stud Hi/Lo Eight or Better"
    config_type = StudConfig
    hand_type = StudHand
    seats = range(1, 9)
    banking = "pool"

    def check_buy_in(self, table: TableView, seat: int, amount: int, kind: str) -> None:
        """Buy-ins are whole chips of the table's ``chip_unit`` (STUD8-8)."""
        super().check_buy_in(table, seat, amount, kind)
        unit = table.config.chip_unit
        if amount % unit:
            raise RuleViolation(
                "buy_in_not_whole_chips",
                f"buy in whole chips of {unit}: {amount} is not (STUD8-8)",
                amount=amount, chip_unit=unit, rule="STUD8-8",
            )

    def check_corrected_amount(self, table: TableView, kind: str, amount: int) -> None:
        """COR-2 with STUD8-8: what really moved at the cage is whole chips, like every stack."""
        unit = table.config.chip_unit
        if amount % unit:
            raise RuleViolation(
                "amount_not_whole_chips",
                f"a {kind.replace('_', '-')} moves whole chips of {unit}: {amount} is not "
                "(STUD8-8, COR-2)", amount=amount, chip_unit=unit, rule="STUD8-8",
            )

    # --- hand ---------------------------------------------------------------------------

    def start(self, table: TableView, hand_no: int) -> list[HandRecord]:
        """STUD8-1: every seat whose stack covers the ante is dealt in and antes; a seat that
        cannot cover it sits the hand out. Two to eight players."""
        config: StudConfig = table.config
        dealt = [
            SeatEntry(seat=seat, player=player)
            for seat, player in sorted(table.seats.items())
            if table.stack(player) >= config.ante
        ]
        if len(dealt) < 2:
            raise StateConflict(
                "not_enough_players",
                f"a hand needs two players who can cover the ante of {config.ante}; "
                f"{len(dealt)} can (STUD8-1)",
                players=len(dealt), ante=config.ante, rule="STUD8-1",
            )
        records: list[HandRecord] = [
            HandStarted(
                hand_no=hand_no, seats=tuple(dealt), card_source=config.card_source,
                config_version=table.config_version,
            )
        ]
        for entry in dealt:
            move = accounts.transfer(accounts.player(entry.player),
                                     accounts.spot(entry.seat, "pot"), config.ante, "STUD8-1",
                                     "ante")
            records.append(WagerPlaced(hand_no=hand_no, seat=entry.seat, kind="ante",
                                       amount=config.ante, transfers=(move,), rule="STUD8-1"))
        return records

    def decide(self, table: TableView, hand: StudHand, command: HandCommand) -> list[HandRecord]:
        config: StudConfig = table.config
        now = stage(config, hand, behind(table, hand))
        if isinstance(command, Act):
            return self._act(table, config, hand, now, command)
        if isinstance(command, Settle):
            if now.kind != "settle":
                raise wrong_phase("settle", self.next_step(table, hand))
            return [settle(config, hand)]
        what = "place a wager (antes are posted at the start, bets are actions)" if (
            command.name == "place_wager") else command.name.replace("_", " ")
        raise wrong_phase(what, self.next_step(table, hand))

    def _act(
        self, table: TableView, config: StudConfig, hand: StudHand, now: Stage, cmd: Act
    ) -> list[HandRecord]:
        seat = hand.seat(cmd.seat)
        if not seat.live:
            raise RuleViolation(
                "already_folded", f"seat {cmd.seat} has folded and takes no further part",
                seat=cmd.seat,
            )
        if cmd.action in ("show", "muck"):
            if now.kind != "showdown":
                raise wrong_phase(cmd.action, self.next_step(table, hand))
            if cmd.seat != now.seat:
                raise out_of_turn(cmd.seat, self.next_step(table, hand))
            return self._showdown(hand, seat, cmd.action)
        if cmd.action not in BETTING_ACTIONS:
            raise RuleViolation(
                "unknown_action",
                f"stud actions are {', '.join(BETTING_ACTIONS)}, show and muck, "
                f"not {cmd.action!r}",
                action=cmd.action,
            )
        if now.kind != "act":
            raise wrong_phase(cmd.action, self.next_step(table, hand))
        if cmd.seat != now.seat:
            raise out_of_turn(cmd.seat, self.next_step(table, hand))
        assert now.round is not None
        amount = self._amount(config, hand, now, now.round, table, cmd)
        street = hand.street
        rule = "STUD8-2" if street == 3 else STREET_RULES[street]
        if cmd.action in ("bet", "raise", "complete") and now.round.raises:
            rule = "STUD8-5"
        moves = (
            (accounts.transfer(accounts.player(seat.player), accounts.spot(seat.seat, "pot"),
                               amount, rule, cmd.action),) if amount else ()
        )
        return [PlayerActed(hand_no=hand.hand_no, seat=seat.seat, action=cmd.action,
                            amount=amount, transfers=moves, rule=rule)]

    def _amount(
        self, config: StudConfig, hand: StudHand, now: Stage, rs: betting.RoundState,
        table: TableView, cmd: Act,
    ) -> int:
        """Check the action against the legal choices; the chips it puts in."""
        legal = {c.action: c for c in now.choices}
        action = cmd.action
        if action not in legal:
            raise self._refusal(config, hand, now, rs, table, cmd)
        choice = legal[action]
        if cmd.amount is None:
            return choice.amounts[0]
        if cmd.amount not in choice.amounts:
            allowed = " or ".join(str(a) for a in choice.amounts)
            rule = "STUD8-3" if hand.street == 4 else STREET_RULES[hand.street]
            raise RuleViolation(
                "wrong_amount",
                f"a {action} on {STREET_NAMES[hand.street].replace('_', ' ')} puts in "
                f"{allowed}, not {cmd.amount} ({rule})",
                action=action, amount=cmd.amount, allowed=list(choice.amounts), rule=rule,
            )
        return cmd.amount

    def _refusal(
        self, config: StudConfig, hand: StudHand, now: Stage, rs: betting.RoundState,
        table: TableView, cmd: Act,
    ) -> RuleViolation:
        action, seat = cmd.action, cmd.seat
        if now.bring_in:
            return RuleViolation(
                "bring_in_required",
                f"seat {seat} has the lowest up card: it brings in ({config.bring_in}) or "
                "completes (STUD8-2)",
                seat=seat, rule="STUD8-2",
            )
        to_call = rs.to_call(seat)
        if action == "check":
            return RuleViolation(
                "check_facing_bet", f"seat {seat} faces a bet of {to_call}: call, raise or fold",
                seat=seat, to_call=to_call,
            )
        if action == "call":
            return RuleViolation(
                "nothing_to_call", f"there is no bet to call for seat {seat}: check or bet",
                seat=seat,
            )
        if action == "bring_in":
            return RuleViolation(
                "bring_in_not_due", "the bring-in is posted once, on third street (STUD8-2)",
                rule="STUD8-2",
            )
        reason = betting.can_raise(hand, config, rs, seat, behind(table, hand))
        if reason is not None:
            return reason
        expected = rs.aggression_name()
        return RuleViolation(
            "wrong_action",
            f"seat {seat} can {expected} now, not {action}",
            action=action, expected=expected,
        )

    def _showdown(self, hand: StudHand, seat: StudSeat, action: str) -> list[HandRecord]:
        if action == "muck":
            reason = must_show(hand, seat.seat)
            if reason is not None:
                raise RuleViolation("must_show", f"seat {seat.seat} must show: {reason}",
                                    seat=seat.seat, rule="STUD8-10")
            return [PlayerActed(hand_no=hand.hand_no, seat=seat.seat, action="muck",
                                rule="STUD8-10")]
        return [
            PlayerActed(hand_no=hand.hand_no, seat=seat.seat, action="show", rule="STUD8-10"),
            CardsRevealed(hand_no=hand.hand_no, target=seat.seat, cards=seat.cards),
        ]

    def fold_out(self, table: TableView, hand: StudHand, seat: int) -> list[HandRecord]:
        """COM-6: a player who leaves during the hand folds at once, in turn or not, all-in
        too (the hand holds a decision for it until the showdown): its chips stay in the pots
        as dead money, except the part no other player matched, which goes back to it
        (STUD8-11). A seat that has shown or mucked at the showdown has made its last decision:
        its leaving folds nothing (folding the last hand shown would leave no hand to win the
        pots, and they would stay on the spots)."""
        folding = hand.seat(seat)
        if hand.phase == "settle" or not folding.live or folding.showdown is not None:
            return []
        return [PlayerActed(hand_no=hand.hand_no, seat=seat, action="fold", rule="COM-6")]

    def deal_plan(self, table: TableView, hand: StudHand) -> DealPlan:
        """Third street two down and one up, fourth to sixth one up, seventh one down; on
        seventh street one community card when the deck cannot serve every live seat
        (STUD8-2, STUD8-4, STUD8-6). No burn cards: the table deals from the top."""
        config: StudConfig = table.config
        if stage(config, hand, behind(table, hand)).kind != "deal":
            raise wrong_phase("deal", self.next_step(table, hand))
        street = 3 if hand.street == 0 else hand.street + 1
        live = [s.seat for s in hand.live]
        left = DECK_SIZE - sum(len(s.cards) for s in hand.seats) - len(hand.community)
        note = None
        if street == 3:
            slots = tuple(DealSlot(target=s, down=2, up=1) for s in live)
        elif street < 7:
            slots = tuple(DealSlot(target=s, up=1) for s in live)
            after = left - len(slots)
            if street == 6 and after < len(live):
                note = (f"after this round {after} cards are left for {len(live)} live seats: "
                        "seventh street will be one community card face up, unless seats "
                        "fold (STUD8-6)")
        elif left < len(live):
            slots = (DealSlot(target="community", up=1),)
            note = (f"{left} cards are left for {len(live)} live seats: one community card "
                    "face up plays in every hand (STUD8-6)")
        else:
            slots = tuple(DealSlot(target=s, down=1) for s in live)
        return DealPlan(round=STREET_NAMES[street], slots=slots, note=note)

    def evolve(self, hand: StudHand | None, record: HandRecord) -> StudHand | None:
        if isinstance(record, HandStarted):
            seats = tuple(StudSeat(seat=e.seat, player=e.player) for e in record.seats)
            return StudHand(hand_no=record.hand_no, seats=seats)
        if hand is None or isinstance(record, HAND_ENDINGS):
            return None
        if isinstance(record, WagerPlaced):
            s = hand.seat(record.seat)
            s = replaced(s, contributed=s.contributed + record.amount)
            return replaced(hand, seats=hand.replace(s))
        if isinstance(record, CardsDealt):
            return _dealt(hand, record)
        if isinstance(record, PlayerActed):
            return _acted(hand, record)
        return hand

    def next_step(self, table: TableView, hand: StudHand) -> Step:
        now = stage(table.config, hand, behind(table, hand))
        if now.kind == "act":
            options = tuple(
                Option(action=c.action, min_amount=min(c.amounts), max_amount=max(c.amounts))
                for c in now.choices
            )
            note = "bring-in (STUD8-2)" if now.bring_in else STREET_NAMES[hand.street]
            return Step(kind="act", seats=(now.seat,) if now.seat else (), options=options,
                        note=note)
        if now.kind == "showdown":
            assert now.seat is not None
            options = (Option(action="show"),)
            if must_show(hand, now.seat) is None:
                options += (Option(action="muck"),)
            return Step(kind="act", seats=(now.seat,), options=options,
                        note="showdown (STUD8-10)")
        return Step(kind=now.kind)


def _dealt(hand: StudHand, record: CardsDealt) -> StudHand:
    street = STREETS[record.round]
    seats = {s.seat: replaced(s, street_bet=0) for s in hand.seats}
    community = hand.community
    for d in record.dealt:
        if d.target == "community":
            community = community + d.up
        elif isinstance(d.target, int):
            s = seats[d.target]
            seats[d.target] = replaced(s, down=s.down + d.down, up=s.up + d.up)
    return replaced(hand, seats=tuple(seats[s.seat] for s in hand.seats), street=street,
                    community=community, actions=())


def _acted(hand: StudHand, record: PlayerActed) -> StudHand:
    s = hand.seat(record.seat)
    if record.action in ("show", "muck"):
        s = replaced(s, showdown=record.action)
        shown = replaced(hand, seats=hand.replace(s))
        betting.keep_round(hand, shown)
        return shown
    update: dict[str, object] = {
        "contributed": s.contributed + record.amount, "street_bet": s.street_bet + record.amount,
    }
    if record.action == "fold":
        update["folded_on"] = hand.betting_street
    live = hand.live
    s = replaced(s, **update)
    action = StreetAction(seat=record.seat, action=record.action, amount=record.amount)
    seats = hand.replace(s)
    changes: dict[str, object] = {"seats": seats, "actions": (*hand.actions, action)}
    folded = record.action == "fold" and s.seat in {x.seat for x in live}
    if len(live) - folded < 2:  # fewer than two seats not folded
        changes["phase"] = "settle"
    after = replaced(hand, **changes)
    betting.after_action(hand, after, action.seat, action.action, action.amount)
    return after
