"""CyberCaribbean Stud Poker (CSP-1..7): house-banked, with a progressive jackpot.

Flow: the seated players post an Ante (and optionally the 1.00 jackpot side wager) -> five cards
to each anted seat and to the dealer (four down, one up, CSP-1) -> each seat, in seat order,
folds or plays at exactly twice the Ante (CSP-2) -> the dealer's hand is revealed -> settlement:
dealer qualification (CSP-3), the Play paytable (CSP-4), ties push, the COM-7 cap on winnings,
then the jackpot: this hand's contributions, the awards in ascending seat order, the reseed
(CSP-6, CSP-7).
"""

from __future__ import annotations

from typing import Final, Literal

from pydantic import Field, field_validator

from ledger import accounts
from ledger.cards import Card
from ledger.commands import Act, HandCommand, PlaceWager, Reveal, Settle
from ledger.errors import RuleViolation, StateConflict
from ledger.evaluation import caribbean as csp
from ledger.evaluation import high
from ledger.games.base import (
    ConfigBase,
    DealPlan,
    DealSlot,
    Game,
    HandBase,
    Limits,
    Option,
    Step,
    TableView,
    check_limits,
    out_of_turn,
    require_chips,
    wrong_phase,
)
from ledger.games.payout import PayoutCap
from ledger.money import bps, odds_win
from ledger.records import (
    HAND_ENDINGS,
    CardsDealt,
    CardsRevealed,
    HandRecord,
    HandSettled,
    HandStarted,
    JackpotLine,
    Outcome,
    PlayerActed,
    Record,
    SeatEntry,
    Transfer,
    WagerPlaced,
)

GAME: Final = "caribbean-stud"
CATEGORY_LABELS = tuple(c.label for c in high.Category)


class JackpotConfig(Record):
    """The progressive side wager (CSP-6)."""

    enabled: bool = True
    wager: int = Field(default=100, gt=0)
    """The side wager is exactly this amount (1.00)."""
    contribution_bps: int = Field(default=7000, ge=0, le=10_000)
    """Share of each side wager that feeds the meter, rounded down; the rest goes to the house."""
    seed: int = Field(default=1_000_000, ge=0)
    """The meter at opening and after every 100% award (10,000.00)."""
    fixed_awards: dict[str, int] = Field(
        default_factory=lambda: {"flush": 5_000, "full_house": 10_000, "four_of_a_kind": 50_000}
    )
    """Awards the house pays, by line."""
    percent_awards_bps: dict[str, int] = Field(
        default_factory=lambda: {"straight_flush": 1_000, "royal_flush": 10_000}
    )
    """Awards paid out of the meter, as basis points of the meter (rounded down)."""

    @field_validator("fixed_awards", "percent_awards_bps")
    @classmethod
    def _known_lines(cls, value: dict[str, int]) -> dict[str, int]:
        for line, amount in value.items():
            if line not in csp.JACKPOT_LINES:
                raise ValueError(f"unknown jackpot line {line!r}; lines: {csp.JACKPOT_LINES}")
            if amount < 0:
                raise ValueError(f"jackpot award for {line} is negative")
        return value


def _default_paytable() -> dict[str, int]:
    return {cat.label: odds for cat, odds in csp.DEFAULT_PLAY_PAYTABLE.items()}


class CaribbeanConfig(ConfigBase):
    game: Literal["caribbean-stud"] = GAME
    limits: dict[str, Limits] = Field(default_factory=lambda: {"ante": Limits(min=500, max=50_000)})
    play_paytable: dict[str, int] = Field(default_factory=_default_paytable)
    """Odds N (of N-1) paid on the Play wager by the player's hand category (CSP-4)."""
    jackpot: JackpotConfig = Field(default_factory=JackpotConfig)

    @field_validator("limits")
    @classmethod
    def _ante_limits(cls, value: dict[str, Limits]) -> dict[str, Limits]:
        if "ante" not in value:
            raise ValueError("the table must post Ante limits (COM-4)")
        unknown = set(value) - {"ante"}
        if unknown:
            raise ValueError(f"limits for unknown wagers {sorted(unknown)}; only 'ante' has limits")
        return value

    @field_validator("play_paytable")
    @classmethod
    def _complete_paytable(cls, value: dict[str, int]) -> dict[str, int]:
        unknown = set(value) - set(CATEGORY_LABELS)
        if unknown:
            raise ValueError(f"unknown hand categories {sorted(unknown)}")
        missing = set(CATEGORY_LABELS) - set(value)
        if missing:
            raise ValueError(f"paytable lacks {sorted(missing)}")
        if any(odds < 0 for odds in value.values()):
            raise ValueError("paytable odds must not be negative")
        return value


class CaribbeanSeat(Record):
    seat: int
    player: str
    ante: int = 0
    jackpot: int = 0
    play: int = 0
    cards: tuple[Card, ...] = ()
    decision: Literal["fold", "play"] | None = None


Phase = Literal["wagers", "decisions", "reveal", "settle"]


class CaribbeanHand(HandBase):
    game: Literal["caribbean-stud"] = GAME
    phase: Phase = "wagers"
    seats: tuple[CaribbeanSeat, ...]
    dealer_down: tuple[Card, ...] = ()
    dealer_up: tuple[Card, ...] = ()

    def seat(self, number: int) -> CaribbeanSeat:
        for s in self.seats:
            if s.seat == number:
                return s
        raise RuleViolation("seat_not_in_hand", f"seat {number} is not in this hand", seat=number)

    def participants(self) -> tuple[int, ...]:
        return tuple(s.seat for s in self.seats)

    def replace(self, updated: CaribbeanSeat) -> tuple[CaribbeanSeat, ...]:
        return tuple(updated if s.seat == updated.seat else s for s in self.seats)

    @property
    def playing(self) -> tuple[CaribbeanSeat, ...]:
        """Seats dealt in: those with an Ante."""
        return tuple(s for s in self.seats if s.ante)

    @property
    def to_act(self) -> CaribbeanSeat | None:
        return next((s for s in self.playing if s.decision is None), None)

    @property
    def dealer_cards(self) -> tuple[int, ...]:
        return self.dealer_down + self.dealer_up


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
            if hand.phase != "settle":
                raise wrong_phase("settle", self.next_step(table, hand))
            meter = table.balances.get(accounts.JACKPOT, 0)
            return [settle(config, hand, meter)]
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
        move = accounts.transfer(accounts.player(seat.player), account, cmd.amount, "CSP-1")
        return WagerPlaced(
            hand_no=hand.hand_no,
            seat=cmd.seat,
            kind=cmd.kind,
            amount=cmd.amount,
            transfers=(move,),
            rule="CSP-6" if cmd.kind == "jackpot" else "CSP-1",
        )

    def _act(self, table: TableView, hand: CaribbeanHand, cmd: Act) -> PlayerActed:
        step = self.next_step(table, hand)
        if hand.phase != "decisions":
            raise wrong_phase(f"{cmd.action}", step)
        nxt = hand.to_act
        assert nxt is not None
        if cmd.seat != nxt.seat:
            raise out_of_turn(cmd.seat, step)
        if cmd.action == "fold":
            lose = accounts.transfer(
                accounts.spot(nxt.seat, "ante"), accounts.HOUSE, nxt.ante, "CSP-2", "ante folded"
            )
            return PlayerActed(
                hand_no=hand.hand_no,
                seat=nxt.seat,
                action="fold",
                transfers=(lose,),
                rule="CSP-2",
            )
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

    def deal_plan(self, table: TableView, hand: CaribbeanHand) -> DealPlan:
        if hand.phase != "wagers":
            raise wrong_phase("deal", self.next_step(table, hand))
        playing = hand.playing
        if not playing:
            raise RuleViolation("no_wagers", "no seat has an Ante yet; nothing to deal (CSP-1)")
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
            s = s.model_copy(update={record.kind: getattr(s, record.kind) + record.amount})
            return hand.model_copy(update={"seats": hand.replace(s)})
        if isinstance(record, CardsDealt):
            seats = hand.seats
            down: tuple[int, ...] = ()
            up: tuple[int, ...] = ()
            for d in record.dealt:
                if d.target == "dealer":
                    down, up = d.down, d.up
                elif isinstance(d.target, int):
                    s = hand.seat(d.target).model_copy(update={"cards": d.cards})
                    seats = tuple(s if x.seat == s.seat else x for x in seats)
            return hand.model_copy(
                update={"seats": seats, "dealer_down": down, "dealer_up": up, "phase": "decisions"}
            )
        if isinstance(record, PlayerActed):
            s = hand.seat(record.seat).model_copy(
                update={"decision": record.action, "play": record.amount}
            )
            new = hand.model_copy(update={"seats": hand.replace(s)})
            if new.to_act is None:
                new = new.model_copy(update={"phase": "reveal"})
            return new
        if isinstance(record, CardsRevealed):
            return hand.model_copy(update={"phase": "settle"})
        return hand

    def next_step(self, table: TableView, hand: CaribbeanHand) -> Step:
        if hand.phase == "wagers":
            config: CaribbeanConfig = table.config
            ante = config.limits["ante"]
            options = [Option(action="ante", min_amount=ante.min, max_amount=ante.max)]
            if config.jackpot.enabled:
                j = config.jackpot.wager
                options.append(Option(action="jackpot", min_amount=j, max_amount=j))
            return Step(
                kind="wager",
                seats=tuple(s.seat for s in hand.seats),
                options=tuple(options),
                note="deal once the wagers are in" if hand.playing else None,
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


# --- settlement (pure, also used by the audit) -----------------------------------------------


def settle(config: CaribbeanConfig, hand: CaribbeanHand, meter: int) -> HandSettled:
    """Settle a revealed hand: CSP-3/4 against the dealer, COM-7 cap, then CSP-6/7 jackpot."""
    dealer = high.evaluate(hand.dealer_cards)
    qualifies = csp.dealer_qualifies(dealer)
    cap = PayoutCap(config.max_aggregate_payout)
    outcomes: list[Outcome] = []
    transfers: list[Transfer] = []

    for s in hand.playing:
        player = accounts.player(s.player)
        if s.decision == "fold":
            outcomes.append(
                Outcome(
                    seat=s.seat,
                    wager="ante",
                    result="lose",
                    stake=s.ante,
                    amount=-s.ante,
                    rule="CSP-2",
                    note="folded",
                )
            )
            continue
        strength = high.evaluate(s.cards)
        if not qualifies:
            results = [("ante", "win", 1, "CSP-3"), ("play", "push", 0, "CSP-3")]
        elif strength > dealer:
            odds = config.play_paytable[high.category(strength).label]
            results = [("ante", "win", 1, "CSP-4"), ("play", "win", odds, "CSP-4")]
        elif strength < dealer:
            results = [("ante", "lose", 0, "CSP-4"), ("play", "lose", 0, "CSP-4")]
        else:
            results = [("ante", "push", 0, "CSP-4"), ("play", "push", 0, "CSP-4")]
        for kind, result, odds, rule in results:
            stake = s.ante if kind == "ante" else s.play
            spot = accounts.spot(s.seat, kind)
            if result == "lose":
                transfers.append(accounts.transfer(spot, accounts.HOUSE, stake, rule))
                outcomes.append(
                    Outcome(
                        seat=s.seat,
                        wager=kind,
                        result="lose",
                        stake=stake,
                        amount=-stake,
                        rule=rule,
                    )
                )
                continue
            transfers.append(accounts.transfer(spot, player, stake, rule, "stake returned"))
            won, withheld = cap.take(odds_win(stake, odds)) if result == "win" else (0, 0)
            if won:
                transfers.append(accounts.transfer(accounts.HOUSE, player, won, rule, "winnings"))
            outcomes.append(
                Outcome(
                    seat=s.seat,
                    wager=kind,
                    result=result,
                    stake=stake,
                    amount=won,
                    withheld=withheld,
                    rule="COM-7" if withheld else rule,
                    note=f"{odds}-1" if result == "win" else None,
                )
            )

    lines = _jackpot(config, hand, meter, transfers, outcomes)
    return HandSettled(
        hand_no=hand.hand_no,
        outcomes=tuple(outcomes),
        transfers=tuple(transfers),
        max_aggregate_payout=config.max_aggregate_payout,
        jackpot=lines,
    )


def _jackpot(
    config: CaribbeanConfig,
    hand: CaribbeanHand,
    meter: int,
    transfers: list[Transfer],
    outcomes: list[Outcome],
) -> tuple[JackpotLine, ...]:
    """CSP-6/7: collect every side wager into the meter and the house, then pay the awards."""
    jp = config.jackpot
    entered = [s for s in hand.playing if s.jackpot]
    for s in entered:
        spot = accounts.spot(s.seat, "jackpot")
        to_meter = bps(s.jackpot, jp.contribution_bps)
        if to_meter:
            transfers.append(
                accounts.transfer(spot, accounts.JACKPOT, to_meter, "CSP-6", "meter contribution")
            )
        if s.jackpot - to_meter:
            transfers.append(
                accounts.transfer(
                    spot,
                    accounts.HOUSE,
                    s.jackpot - to_meter,
                    "CSP-6",
                    "house share of the jackpot wager",
                )
            )
        meter += to_meter
    lines: list[JackpotLine] = []
    for s in entered:
        if s.decision == "fold":
            outcomes.append(
                Outcome(
                    seat=s.seat,
                    wager="jackpot",
                    result="forfeit",
                    stake=s.jackpot,
                    amount=-s.jackpot,
                    rule="CSP-6",
                    note="folded: the side wager cannot win",
                )
            )
            continue
        line = csp.jackpot_line(high.evaluate(s.cards))
        award, source, reset = 0, "house", False
        if line in jp.fixed_awards:
            award = jp.fixed_awards[line]
        elif line in jp.percent_awards_bps:
            rate = jp.percent_awards_bps[line]
            award, source, reset = bps(meter, rate), "meter", rate >= 10_000
        if not award and not reset:
            outcomes.append(
                Outcome(
                    seat=s.seat,
                    wager="jackpot",
                    result="lose",
                    stake=s.jackpot,
                    amount=-s.jackpot,
                    rule="CSP-6",
                )
            )
            continue
        player = accounts.player(s.player)
        before = meter
        if award:
            src = accounts.JACKPOT if source == "meter" else accounts.HOUSE
            transfers.append(accounts.transfer(src, player, award, "CSP-6", f"jackpot {line}"))
            if source == "meter":
                meter -= award
        if reset and jp.seed:
            transfers.append(
                accounts.transfer(
                    accounts.HOUSE, accounts.JACKPOT, jp.seed, "CSP-6", "meter reset to seed"
                )
            )
            meter += jp.seed
        lines.append(
            JackpotLine(
                seat=s.seat,
                line=line or "",
                amount=award,
                source=source,
                meter_before=before,
                meter_after=meter,
                reset_to_seed=reset,
            )
        )
        outcomes.append(
            Outcome(
                seat=s.seat,
                wager="jackpot",
                result="win",
                stake=s.jackpot,
                amount=award,
                rule="CSP-7" if line else "CSP-6",
                note=f"{line}: {award}",
            )
        )
    return tuple(lines)
