"""The table as a pure state machine: ``decide`` turns a command into records, ``apply`` folds a
record into the state.

This is the whole behaviour of a table without any storage. The event-sourced aggregate
(``ledger.table.events``) wraps it: each record it decides becomes an event, and replaying events
calls ``apply``. Tests, the simulator's property checks and the audit drive the same code directly.

The state is the table *now*: configuration, seats, balances, button, the hand in progress.
History lives in the projections.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from ledger.domain import accounts
from ledger.domain.cards import (
    DECK_SIZE,
    deck_commitment,
    seeded_deck,
)
from ledger.domain.commands import (
    Act,
    BuyIn,
    CashOut,
    ChangeConfig,
    Command,
    CountInventory,
    Credit,
    DealCards,
    Fill,
    OpenTable,
    PlaceWager,
    Reveal,
    SeatPlayer,
    Settle,
    SignInDealer,
    SignOutDealer,
    StartHand,
    UnseatPlayer,
    VoidHand,
)
from ledger.domain.errors import (
    InvalidInput,
    LedgerError,
    NotFound,
    RuleViolation,
    StateConflict,
    validation_problems,
)
from ledger.domain.money import minor_units
from ledger.domain.records import (
    HAND_ENDINGS,
    CardsDealt,
    ChipsBoughtIn,
    ChipsCashedOut,
    ConfigChanged,
    DealerSignedIn,
    DealerSignedOut,
    Dealt,
    HandRecord,
    HandStarted,
    HandVoided,
    PlayerSeated,
    PlayerUnseated,
    Record,
    TableOpened,
    Transfer,
)
from ledger.games.base import ConfigBase, DealPlan, Game, Step, TableView
from ledger.games.registry import get_game
from ledger.table.dealing import DeckKeeper, deal_round_robin, recorded_deal
from ledger.table.decks import UNSEALABLE

GENESIS_HASH = "0" * 64
_new = object.__new__
_set = object.__setattr__


class TableState:
    """Everything a command needs to be validated, and nothing more."""

    def __init__(self, opened: TableOpened) -> None:
        self.game: Game[Any, Any] = get_game(opened.game)
        self.code = opened.code
        self.currency = opened.currency
        self.timezone = opened.timezone
        self.config: ConfigBase = self.game.config_type.model_validate(opened.config)
        self.config_version = opened.config_version
        self.seats: dict[int, str] = {}
        self.balances: dict[str, int] = {}
        self.button: int | None = None
        self.hand_no = 0
        self.hand: Any = None
        self.memo: Any = self.game.initial_memo()
        self.hand_flows: dict[str, int] = {}
        """Chips moved during the hand in progress, ``"src>dst"`` -> amount (reversed by a void)."""
        self.hand_cards: list[int] = []
        """Every card dealt in the hand in progress, in dealing order."""
        self.hand_players: list[str] = []
        """The players dealt into the hand in progress (whatever seat they sit at now)."""
        self.sealed_deck: str | None = None
        self.dealer: str | None = None
        """DLR-1: the dealer on duty (None: nobody signed in)."""
        accounts.apply_transfers(self.balances, opened.transfers)

    # --- reading ------------------------------------------------------------------------

    def view(self, departed: frozenset[int] | None = None) -> TableView:
        """The table as its game reads it (``departed``: :meth:`departed`, when known).

        Made as its frozen ``__init__`` makes it, with every field set at once rather than
        one ``object.__setattr__`` at a time (a view is made for every command)."""
        view = _new(TableView)
        _set(view, "__dict__", {
            "code": self.code,
            "game": self.game.name,
            "currency": self.currency,
            "config": self.config,
            "config_version": self.config_version,
            "seats": self.seats,
            "balances": self.balances,
            "button": self.button,
            "hand_no": self.hand_no,
            "memo": self.memo,
            "departed": self.departed() if departed is None else departed,
        })
        return view

    def departed(self) -> frozenset[int]:
        """Seats of the hand in progress whose player has left (COM-6).

        A seat dealt into the hand stays reserved until the hand ends (nobody may sit in it,
        see ``_seat``), so a seat of the hand without a player is one whose player left.
        """
        if self.hand is None:
            return frozenset()
        seats = self.seats
        return frozenset([s for s in self.hand.participants() if s not in seats])

    def next_step(self) -> Step:
        """What the hand waits for. A seat whose player left (COM-6) is never waited for: a
        wager step does not list it (the game never gives it the turn: it has folded)."""
        if self.hand is None:
            return Step(kind="over")
        view = self.view()
        step = self.game.next_step(view, self.hand)
        if step.kind == "wager" and view.departed & set(step.seats):
            step = step.model_copy(
                update={"seats": tuple(s for s in step.seats if s not in view.departed)})
        if step.kind in ("wager", "deal"):
            try:
                plan = self.game.deal_plan(view, self.hand)
            except LedgerError:  # nothing to deal yet (no wager in)
                plan = None
            if plan is not None:
                step = step.model_copy(update={"deal": plan})
        return step

    def seat_in_hand(self, seat: int) -> bool:
        return self.hand is not None and seat in self.hand.participants()

    # --- deciding -----------------------------------------------------------------------

    def execute(self, command: Command, keeper: DeckKeeper) -> list[Record]:
        """Decide and apply at once (the pure equivalent of the application's command)."""
        records = self.decide(command, keeper)
        for record in records:
            self.apply(record)
        return records

    @staticmethod
    def open(command: OpenTable) -> TableOpened:
        """Validate the opening of a table (the aggregate does not exist yet)."""
        game = get_game(command.game)
        config = validate_config(game, {**command.config, "game": game.name})
        _check_timezone(command.timezone)
        minor_units(command.currency)  # an ISO 4217 code with minor units, or unknown_currency
        return TableOpened(
            code=command.table,
            game=game.name,
            currency=command.currency,
            timezone=command.timezone,
            config=config.model_dump(mode="json"),
            opened_by=command.opened_by,
            transfers=game.opening_transfers(config),
        )

    def decide(self, command: Command, keeper: DeckKeeper) -> list[Record]:
        """Validate ``command`` and return the records it produces; raises a LedgerError."""
        if isinstance(command, OpenTable):
            raise StateConflict("table_exists", f"table {self.code} is already open")
        handler = _HANDLERS.get(type(command))
        if handler is None:
            raise InvalidInput("unknown_command", f"unknown command {type(command).__name__}")
        records: list[Record] = handler(self, command, keeper)
        return records

    def _change_config(self, cmd: ChangeConfig, keeper: DeckKeeper) -> list[Record]:
        if self.hand is not None:
            raise StateConflict(
                "config_change_mid_hand",
                "the configuration changes only between hands (COM-4)",
                rule="COM-4",
            )
        named = cmd.config.get("game", self.game.name)
        if named != self.game.name:
            raise InvalidInput(
                "config_game_mismatch",
                f"table {self.code} plays {self.game.name}; a configuration change cannot make "
                f"it {named!r} (open another table for another game)",
                game=self.game.name, requested=named,
            )
        current = self.config.model_dump(mode="json")
        merged = {**current, **cmd.config, "game": self.game.name}
        config = validate_config(self.game, merged)
        if (config.card_source == "seeded") != (self.config.card_source == "seeded"):
            raise RuleViolation(
                "seeded_source_fixed",
                "a table deals from a seeded shuffle (simulations) from its opening to its end, "
                "or never: open another table (COM-8)", rule="COM-8",
            )
        if config.model_dump(mode="json") == current:
            raise RuleViolation(
                "config_unchanged",
                "the configuration given is the one in force: nothing to change",
            )
        return [
            ConfigChanged(
                config=config.model_dump(mode="json"),
                config_version=self.config_version + 1,
                approver=cmd.approver,
                reason=cmd.reason,
                transfers=self.game.config_change_transfers(self.view(), config),
            )
        ]

    def _seat(self, cmd: SeatPlayer, keeper: DeckKeeper) -> list[Record]:
        if cmd.seat not in self.game.seats:
            first, last = self.game.seats[0], self.game.seats[-1]
            raise InvalidInput(
                "invalid_seat",
                f"{self.game.title} tables have seats {first} to {last}",
                seat=cmd.seat,
            )
        if cmd.seat in self.seats:
            raise StateConflict("seat_taken", f"seat {cmd.seat} is taken", seat=cmd.seat)
        if cmd.seat in self.departed():
            raise StateConflict(
                "seat_reserved",
                f"seat {cmd.seat} is in hand {self.hand_no}, which its player left: nobody may "
                "sit in it until the hand has ended (COM-6)",
                seat=cmd.seat, hand=self.hand_no, rule="COM-6",
            )
        if cmd.player in self.seats.values():
            raise StateConflict(
                "player_already_seated", f"{cmd.player} is already seated", player=cmd.player
            )
        if cmd.player == self.dealer:
            raise RuleViolation(
                "dealer_cannot_play", f"{cmd.player} deals at {self.code} and cannot play at "
                "it (DLR-1)", player=cmd.player, rule="DLR-1")
        return [PlayerSeated(seat=cmd.seat, player=cmd.player)]

    def _sign_in(self, cmd: SignInDealer, keeper: DeckKeeper) -> list[Record]:
        self._between_hands("change dealers")
        if cmd.dealer == self.dealer:
            raise StateConflict("dealer_on_duty", f"{cmd.dealer} already deals at {self.code}",
                                dealer=cmd.dealer, rule="DLR-1")
        if cmd.dealer in self.seats.values():
            raise RuleViolation("dealer_cannot_play", f"{cmd.dealer} plays at {self.code} and "
                                "cannot deal at it (DLR-1)", dealer=cmd.dealer, rule="DLR-1")
        records: list[Record] = []
        if self.dealer is not None:
            records.append(DealerSignedOut(dealer=self.dealer, reason="relieved"))
        return [*records, DealerSignedIn(dealer=cmd.dealer)]

    def _sign_out(self, cmd: SignOutDealer, keeper: DeckKeeper) -> list[Record]:
        self._between_hands("change dealers")
        if cmd.dealer != self.dealer:
            on_duty = "nobody" if self.dealer is None else self.dealer
            raise StateConflict("dealer_not_on_duty", f"{cmd.dealer} does not deal at "
                                f"{self.code} ({on_duty} does)", dealer=cmd.dealer,
                                rule="DLR-1")
        return [DealerSignedOut(dealer=cmd.dealer, reason=cmd.reason)]

    def _between_hands(self, what: str) -> None:
        if self.hand is not None:
            raise StateConflict("hand_in_progress", f"hand {self.hand_no} is in progress: "
                                f"{what} between hands (DLR-1)", hand=self.hand_no,
                                rule="DLR-1")

    def _unseat(self, cmd: UnseatPlayer, keeper: DeckKeeper) -> list[Record]:
        player = self._player_at(cmd.seat)
        records: list[Record] = []
        if self.hand is not None and self.seat_in_hand(cmd.seat):
            # COM-6: the seat has folded, at once, whoever's turn it is (it may end the hand).
            left = self.game.leave(self.view(), self.hand, cmd.seat)
            records.extend(self._with_deck_reveal(r, keeper) for r in left)
        records.append(PlayerUnseated(seat=cmd.seat, player=player, reason=cmd.reason))
        return records

    def _buy_in(self, cmd: BuyIn, keeper: DeckKeeper) -> list[Record]:
        player = self._player_at(cmd.seat)
        self._no_chip_movement_in_hand(cmd.seat, "buy in")
        self.game.check_buy_in(self.view(), cmd.seat, cmd.amount, cmd.kind)
        move = accounts.transfer(accounts.CAGE, accounts.player(player), cmd.amount, None, cmd.kind)
        return [
            ChipsBoughtIn(
                seat=cmd.seat, player=player, amount=cmd.amount, kind=cmd.kind, transfers=(move,)
            )
        ]

    def _cash_out(self, cmd: CashOut, keeper: DeckKeeper) -> list[Record]:
        player = self._player_at(cmd.seat)
        self._no_chip_movement_in_hand(cmd.seat, "cash out")
        stack = self.balances.get(accounts.player(player), 0)
        amount = stack if cmd.amount is None else cmd.amount
        if amount <= 0:
            raise RuleViolation("nothing_to_cash_out", f"seat {cmd.seat} holds no chips")
        if amount > stack:
            raise RuleViolation(
                "insufficient_chips",
                f"seat {cmd.seat} holds {stack}, cannot cash out {amount}",
                stack=stack,
                amount=amount,
            )
        move = accounts.transfer(accounts.player(player), accounts.CAGE, amount, None, "cash out")
        return [ChipsCashedOut(seat=cmd.seat, player=player, amount=amount, transfers=(move,))]

    def _tray(self, cmd: CountInventory | Fill | Credit, keeper: DeckKeeper) -> list[Record]:
        from ledger.table.inventory import decide

        return [decide(cmd, banking=self.game.banking, title=self.game.title,
                       hand_in_progress=self.hand is not None,
                       players=set(self.seats.values()))]

    def _start(self, cmd: StartHand, keeper: DeckKeeper) -> list[Record]:
        if self.hand is not None:
            raise StateConflict(
                "hand_in_progress", f"hand {self.hand_no} is still in progress", hand=self.hand_no
            )
        records: list[Record] = list(self.game.start(self.view(), self.hand_no + 1))
        first = records[0]
        if not isinstance(first, HandStarted):  # pragma: no cover - a game bug
            raise TypeError(f"{self.game.name}.start must begin with HandStarted")
        source = self.config.card_source
        update: dict[str, Any] = {"card_source": source, "config_version": self.config_version,
                                  "dealer": self.dealer}
        if source != "recorded":
            deck, salt = (keeper.new_deck() if source == "rng"
                          else seeded_deck(self._seed(), self.code, self.hand_no + 1))
            update["deck_commitment"] = deck_commitment(deck, salt)
            update["sealed_deck"] = keeper.seal(deck, salt)
        records[0] = first.model_copy(update=update)
        return records

    def _hand_command(
        self, cmd: PlaceWager | Act | Reveal | Settle, keeper: DeckKeeper
    ) -> list[Record]:
        hand = self._require_hand()
        departed = self.departed()
        if isinstance(cmd, PlaceWager | Act) and cmd.seat in departed:
            raise StateConflict(
                "seat_left",
                f"the player of seat {cmd.seat} left hand {self.hand_no} and has folded: the "
                "seat takes no further part in it (COM-6)",
                seat=cmd.seat, hand=self.hand_no, rule="COM-6",
            )
        records: list[Record] = list(self.game.decide(self.view(departed), hand, cmd))
        return [self._with_deck_reveal(r, keeper) for r in records]

    def _deal(self, cmd: DealCards, keeper: DeckKeeper) -> list[Record]:
        hand = self._require_hand()
        plan = self.game.deal_plan(self.view(), hand)
        if self.config.card_source != "recorded":
            if cmd.cards is not None:
                raise InvalidInput(
                    "cards_not_expected",
                    "this table deals from its own shuffled deck (rng); send no cards (COM-8)",
                    rule="COM-8",
                )
            dealt = self._deal_from_deck(plan, keeper)
        else:
            if cmd.cards is None:
                raise InvalidInput(
                    "cards_required",
                    "this table records the cards dealt; send them by target (COM-8)",
                    rule="COM-8",
                )
            dealt = recorded_deal(plan, cmd.cards, self.hand_cards)
        return [CardsDealt(hand_no=self.hand_no, round=plan.round, dealt=dealt)]

    def _deck(self, keeper: DeckKeeper) -> tuple[tuple[int, ...], str]:
        """The hand's deck and salt: from the seed for a ``seeded`` table, else unsealed."""
        if self.config.card_source == "seeded":
            return seeded_deck(self._seed(), self.code, self.hand_no)
        assert self.sealed_deck is not None
        return keeper.unseal(self.sealed_deck)

    def _seed(self) -> int:
        seed = self.config.shuffle_seed
        assert seed is not None  # the configuration requires it with the seeded source
        return seed

    def _deal_from_deck(self, plan: DealPlan, keeper: DeckKeeper) -> tuple[Dealt, ...]:
        deck, _ = self._deck(keeper)
        position = len(self.hand_cards)
        if position + plan.count > DECK_SIZE:
            raise RuleViolation(
                "deck_exhausted",
                f"{plan.count} cards needed, {DECK_SIZE - position} left in the deck",
            )
        return deal_round_robin(plan, deck[position : position + plan.count])

    def _void(self, cmd: VoidHand, keeper: DeckKeeper) -> list[Record]:
        hand = self._require_hand()
        restriction = self.game.void_restriction(hand)
        if restriction is not None and cmd.approved_by is None:
            rule, why = restriction
            raise RuleViolation(
                "void_needs_approval",
                f"{why} ({rule}); a floor supervisor may still void it: name them in "
                "approved_by",
                rule=rule,
            )
        voided = HandVoided(hand_no=self.hand_no, reason=cmd.reason, transfers=self.reversal(),
                            approved_by=cmd.approved_by)
        try:
            return [self._with_deck_reveal(voided, keeper)]
        except LedgerError as exc:
            if exc.code not in UNSEALABLE:
                raise
            # The deck key in use cannot open the hand's sealed deck (lost or replaced key):
            # nothing more can be dealt, so the hand must be voided or the table is stuck for
            # good (COM-5: every wager returned). Only with an approver (a supervisor or admin
            # principal, checked like every void approval), and recorded without a deck: the
            # audit then names the hand whose deals it cannot check against its commitment.
            if cmd.approved_by is None:
                raise type(exc)(exc.code, f"{exc.message}; the hand can only be voided, every "
                                "wager returned (COM-5), with an approver: name a supervisor "
                                "or admin principal in approved_by", rule="COM-5",
                                **{k: v for k, v in exc.details.items() if k != "rule"}
                                ) from None
            return [voided.model_copy(update={"deck_unreadable": True})]

    # --- helpers ------------------------------------------------------------------------

    def reversal(self) -> tuple[Transfer, ...]:
        """Transfers that undo every chip moved during the hand, latest first (COM-5)."""
        moves: list[Transfer] = []
        for key, amount in reversed(self.hand_flows.items()):
            src, dst = key.split(">", 1)
            moves.append(accounts.transfer(dst, src, amount, "COM-5", "returned"))
        return tuple(moves)

    def _with_deck_reveal(self, record: Record, keeper: DeckKeeper) -> Record:
        if not isinstance(record, HAND_ENDINGS) or self.sealed_deck is None:
            return record
        deck, salt = self._deck(keeper)
        return record.model_copy(update={"deck": deck, "salt": salt})

    def _require_hand(self) -> Any:
        if self.hand is None:
            raise StateConflict("no_hand_in_progress", "no hand is in progress; start one first")
        return self.hand

    def _player_at(self, seat: int) -> str:
        try:
            return self.seats[seat]
        except KeyError:
            raise NotFound("seat_empty", f"seat {seat} has no player", seat=seat) from None

    def _no_chip_movement_in_hand(self, seat: int, what: str) -> None:
        if self.seat_in_hand(seat) or (
            self.hand is not None and self.seats.get(seat) in self.hand_players
        ):
            raise StateConflict(
                "hand_in_progress",
                f"seat {seat} is in hand {self.hand_no}: nobody may {what} during a hand (COM-3)",
                seat=seat,
                rule="COM-3",
            )

    # --- applying -----------------------------------------------------------------------

    def apply(self, record: Record) -> None:
        """Fold one record into the state (used when appending and when replaying)."""
        # the record's field, read without pydantic's slow path for a missing attribute
        transfers: tuple[Transfer, ...] = record.__dict__.get("transfers", ())
        if transfers:
            accounts.apply_transfers(self.balances, transfers)
        if isinstance(record, HandRecord):
            self._apply_hand(record, transfers)
        elif isinstance(record, PlayerSeated):
            self.seats[record.seat] = record.player
        elif isinstance(record, PlayerUnseated):
            self.seats.pop(record.seat, None)
        elif isinstance(record, DealerSignedIn):
            self.dealer = record.dealer
        elif isinstance(record, DealerSignedOut):
            self.dealer = None
        elif isinstance(record, ConfigChanged):
            self.config = self.game.config_type.model_validate(record.config)
            self.config_version = record.config_version
        self.memo = self.game.evolve_memo(self.memo, record)

    def _apply_hand(self, record: HandRecord, transfers: tuple[Transfer, ...]) -> None:
        if isinstance(record, HandStarted):
            self.hand_no = record.hand_no
            self.button = record.button
            self.sealed_deck = record.sealed_deck
            self.hand_flows = {}
            self.hand_cards = []
            self.hand_players = [e.player for e in record.seats]
        elif isinstance(record, CardsDealt):
            for d in record.dealt:
                self.hand_cards.extend(d.cards)
        self.hand = self.game.evolve(self.hand, record)
        if self.hand is None:
            self.hand_flows = {}
            self.hand_cards = []
            self.hand_players = []
            self.sealed_deck = None
            return
        for t in transfers:
            key, back = f"{t.src}>{t.dst}", f"{t.dst}>{t.src}"
            if back in self.hand_flows:
                left = self.hand_flows[back] - t.amount
                if left > 0:
                    self.hand_flows[back] = left
                else:
                    del self.hand_flows[back]
                    if left < 0:
                        self.hand_flows[key] = -left
            else:
                self.hand_flows[key] = self.hand_flows.get(key, 0) + t.amount

    # --- snapshots ----------------------------------------------------------------------

    def to_snapshot(self) -> dict[str, Any]:
        return {
            "game": self.game.name,
            "code": self.code,
            "currency": self.currency,
            "timezone": self.timezone,
            "config": self.config.model_dump(mode="json"),
            "config_version": self.config_version,
            "seats": {str(k): v for k, v in self.seats.items()},
            "balances": dict(self.balances),
            "button": self.button,
            "hand_no": self.hand_no,
            "hand": None if self.hand is None else self.hand.model_dump(mode="json"),
            "memo": None if self.memo is None else self.memo.model_dump(mode="json"),
            "hand_flows": dict(self.hand_flows),
            "hand_cards": list(self.hand_cards),
            "hand_players": list(self.hand_players),
            "sealed_deck": self.sealed_deck,
            "dealer": self.dealer,
        }

    @classmethod
    def from_snapshot(cls, data: dict[str, Any]) -> TableState:
        state = cls.__new__(cls)
        state.game = get_game(data["game"])
        state.code = data["code"]
        state.currency = data["currency"]
        state.timezone = data["timezone"]
        state.config = state.game.config_type.model_validate(data["config"])
        state.config_version = data["config_version"]
        state.seats = {int(k): v for k, v in data["seats"].items()}
        state.balances = dict(data["balances"])
        state.button = data["button"]
        state.hand_no = data["hand_no"]
        hand = data["hand"]
        state.hand = None if hand is None else state.game.hand_type.model_validate(hand)
        memo = data["memo"]
        memo_type = state.game.memo_type
        state.memo = None if memo is None or memo_type is None else memo_type.model_validate(memo)
        state.hand_flows = dict(data["hand_flows"])
        state.hand_cards = list(data["hand_cards"])
        state.hand_players = list(data.get("hand_players", []))
        state.sealed_deck = data["sealed_deck"]
        state.dealer = data.get("dealer")
        return state


_HANDLERS: dict[type[Command], Any] = {
    ChangeConfig: TableState._change_config,
    SeatPlayer: TableState._seat,
    UnseatPlayer: TableState._unseat,
    SignInDealer: TableState._sign_in,
    SignOutDealer: TableState._sign_out,
    BuyIn: TableState._buy_in,
    CashOut: TableState._cash_out,
    StartHand: TableState._start,
    PlaceWager: TableState._hand_command,
    Act: TableState._hand_command,
    Reveal: TableState._hand_command,
    Settle: TableState._hand_command,
    DealCards: TableState._deal,
    VoidHand: TableState._void,
    CountInventory: TableState._tray,
    Fill: TableState._tray,
    Credit: TableState._tray,
}


def validate_config(game: Game[Any, Any], data: dict[str, Any]) -> ConfigBase:
    try:
        return game.config_type.model_validate(data)
    except ValidationError as exc:
        problems = validation_problems(exc)
        summary = "; ".join(f"{p['field'] or 'config'}: {p['problem']}" for p in problems)
        raise InvalidInput(
            "invalid_config", f"invalid {game.title} configuration: {summary}", problems=problems
        ) from None


def _check_timezone(name: str) -> None:
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise InvalidInput("invalid_timezone", f"unknown time zone {name!r}") from None
