"""Export of a finished Seven Card Stud Hi/Lo hand as a Poker Hand History (PHH) document.

PHH is the TOML hand-history format of the ``pokerkit`` project; this hand is variant ``F7S/8``
(fixed-limit seven card stud high/low-split eight or better). :func:`hand_to_phh` is pure:
the hand's records in order (``HandStarted`` to ``HandSettled``), the stacks at the start of the
hand and the table's settings in; the document out.

Mapping:

- Players in seat order (the dealer's left first): ``players`` (ids), ``seats``, ``seat_count``.
- Amounts are counted in the table's chips (``chip_unit`` minor units each, written to the
  user field ``_chip_unit``), so that PHH tools split pots in whole chips as STUD8-8 does; when
  some amount is not whole chips (only after a chip-unit change) they are minor units and
  ``_chip_unit`` is 1.
- ``antes`` (one per player; ``ante_trimming_status = true``: an ante counts toward the side pot
  levels), ``bring_in``, ``small_bet``, ``big_bet``, ``starting_stacks``, ``finishing_stacks``
  (the stacks after the settlement, rake and uncalled bets accounted for).
- Actions: ``d dh pN <cards>`` per street (down cards before up cards), ``d db <card>`` for the
  STUD8-6 community card, ``pN pb`` bring-in, ``pN cbr <to>`` completion, bet or raise to the
  seat's street total, ``pN cc`` check or call, ``pN f`` fold, ``pN sm <cards>`` show,
  ``pN sm`` muck (no cards).
- Where and when (PHH's optional fields): ``venue`` (the casino, ``LEDGER_VENUE``), ``table``
  (its code), ``time`` (the local time the hand started, a TOML local time), ``time_zone`` (the
  table's IANA zone, which ``time`` is in), ``day``, ``month`` and ``year`` (the local date),
  ``currency``; ``winnings``, what each player collected from the pots after the rake (as the
  specification asks of a raked hand).
- User fields: ``_rake`` (total), ``_pot_amounts`` and ``_pot_rakes`` (per pot, main first),
  ``_rules`` (the rule ids behind the settlement).

Every document says whether standard PHH tooling (pokerkit) replays it to the recorded
finishing stacks: ``_replayable`` (true or false) and, when false, ``_not_replayable``, the
rules of this hand that the format or the tool does not model (:func:`replay_blockers`):

- STUD8-6: the community card of a short deck (pokerkit's stud has no board card);
- STUD8-3: more than the small bet on fourth street with an open pair, the big bet or an all-in
  between the two (pokerkit bets the small bet);
- STUD8-5: more than one bet and three raises in a round (uncapped heads-up, or a larger cap);
- COM-6: a fold by a player who left the table, which can be out of turn;
- STUD8-7, STUD8-8, STUD8-9: splits pokerkit makes otherwise: it halves a pot whose contesting
  hands hold no low when another hand of the deal has one, kills the hands that cannot win and
  merges the pots left with the same players before splitting (STUD8-9 splits each pot on its
  own, which can move an odd chip), and gives every odd chip of a tied half to the first
  winner (STUD8-8 gives one each).

PHH has no rake field, and pokerkit takes the rake as a function when it loads a file
(``HandHistory.loads(text, rake=...)``), never from the file: the rake is in ``_rake``, and per
pot in ``_pot_amounts`` / ``_pot_rakes``, from which that function is two lines (the pot of
each amount is raked what ``_pot_rakes`` says: docs, hand-history formats); the recorded
``winnings`` are after the rake. Loaded without one, a replay is unraked (it ends with exactly
the rake more in the winners' stacks). When the betting is over before the
last street (every seat but one all-in), pokerkit shows the hands before it deals the remaining
cards: the show and muck actions are written there, after the last bet, with the cards dealt so
far, and the shows again with every card once the last card is dealt, as it expects.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime, time
from typing import Any

from ledger.domain import accounts
from ledger.domain.cards import format_card
from ledger.domain.records import (
    CardsDealt,
    HandRecord,
    HandSettled,
    HandStarted,
    PlayerActed,
    Record,
    Transfer,
    WagerPlaced,
)
from ledger.games.stud8.model import StudConfig

VARIANT = "F7S/8"
SEAT_COUNT = 8


def hand_to_phh(
    records: Sequence[Record],
    starting_stacks: Mapping[int, int],
    config: StudConfig | Mapping[str, Any],
    *,
    table: str | None = None,
    currency: str | None = None,
    started_at: datetime | None = None,
    venue: str | None = None,
) -> str:
    """The PHH document (TOML text) of one finished hand.

    ``records``: the hand's records in order, from its ``HandStarted`` to its ``HandSettled``;
    ``starting_stacks``: seat -> chips (minor units) before the ante; ``config``: the table's
    settings in force for the hand; ``started_at``: when the hand started, in the table's time
    zone (an aware datetime: its zone is written as ``time_zone``); ``venue``: the casino.
    """
    settings = config if isinstance(config, StudConfig) else StudConfig.model_validate(config)
    started = next(r for r in records if isinstance(r, HandStarted))
    settled = next((r for r in records if isinstance(r, HandSettled)), None)
    if settled is None:
        raise ValueError(f"hand {started.hand_no} has not been settled: nothing to export")
    seats = [e.seat for e in started.seats]
    players = {e.seat: e.player for e in started.seats}
    index = {seat: i + 1 for i, seat in enumerate(seats)}
    finishing = _finishing(records, starting_stacks, players)
    unit = _unit(settings, records, starting_stacks, finishing, seats)
    actions = _actions(records, index, unit, starting_stacks)
    fields: list[tuple[str, Any]] = [
        ("variant", VARIANT),
        ("ante_trimming_status", True),
        ("antes", [settings.ante // unit] * len(seats)),
        ("bring_in", settings.bring_in // unit),
        ("small_bet", settings.small_bet // unit),
        ("big_bet", settings.big_bet // unit),
        ("starting_stacks", [starting_stacks[s] // unit for s in seats]),
        ("actions", actions),
        ("hand", started.hand_no),
        ("seats", seats),
        ("seat_count", SEAT_COUNT),
        ("players", [players[s] for s in seats]),
        ("finishing_stacks", [finishing[s] // unit for s in seats]),
    ]
    if currency:
        fields.append(("currency", currency))
    won = _winnings(settled)
    fields.append(("winnings", [won.get(s, 0) // unit for s in seats]))
    if venue:
        fields.append(("venue", venue))
    if table:
        fields.append(("table", table))
    if started_at is not None:
        zone = getattr(started_at.tzinfo, "key", None) or started_at.tzname() or "UTC"
        fields += [("time", started_at.time().replace(microsecond=0)), ("time_zone", zone),
                   ("day", started_at.day), ("month", started_at.month),
                   ("year", started_at.year)]
    blockers = replay_blockers(records, settings, starting_stacks)
    fields += [
        ("_replayable", not blockers),
        ("_not_replayable", [f"{rule}: {why}" for rule, why in blockers]),
        ("_chip_unit", unit),
        ("_rake", sum(line.amount for line in settled.rake) // unit),
        ("_pot_amounts", [p.amount // unit for p in settled.pots]),
        ("_pot_rakes", [p.rake // unit for p in settled.pots]),
        ("_rules", sorted({o.rule for o in settled.outcomes})),
    ]
    return "\n".join(f"{key} = {_toml(value)}" for key, value in fields) + "\n"


def _winnings(settled: HandSettled) -> dict[int, int]:
    """What each seat collected from the pots (STUD8-7..9), after the rake: an uncalled bet
    returned (STUD8-11) is no winning."""
    won: dict[int, int] = {}
    for o in settled.outcomes:
        if o.seat is not None and o.wager.startswith("pot") and o.result in (
                "win", "split", "scoop"):
            won[o.seat] = won.get(o.seat, 0) + o.stake + o.amount
    return won


def _finishing(
    records: Sequence[Record], starting: Mapping[int, int], players: Mapping[int, str]
) -> dict[int, int]:
    net = accounts.net_flows(t for r in records for t in _transfers(r))
    return {seat: starting[seat] + net.get(accounts.player(pid), 0)
            for seat, pid in players.items()}


def _transfers(record: Record) -> tuple[Transfer, ...]:
    transfers: tuple[Transfer, ...] = getattr(record, "transfers", ())
    return transfers


def _unit(
    config: StudConfig, records: Sequence[Record], starting: Mapping[int, int],
    finishing: Mapping[int, int], seats: Sequence[int],
) -> int:
    unit = config.chip_unit
    amounts = [config.ante, config.bring_in, config.small_bet, config.big_bet]
    amounts += [starting[s] for s in seats] + [finishing[s] for s in seats]
    amounts += [t.amount for r in records for t in _transfers(r)]
    return unit if all(a % unit == 0 for a in amounts) else 1


def _actions(records: Sequence[Record], index: Mapping[int, int], unit: int,
             starting: Mapping[int, int]) -> list[str]:
    out: list[str] = []
    street_bets: dict[int, int] = {}
    live = set(index)
    shown_early = False
    mucked = {r.seat for r in records if isinstance(r, PlayerActed) and r.action == "muck"}
    early = all_in_showdown(records, starting)
    for k, record in enumerate(records):
        if isinstance(record, PlayerActed) and record.action == "fold":
            live.discard(record.seat)
        if isinstance(record, CardsDealt):
            if k == early:  # the betting is over: pokerkit shows the hands now
                showdown = [a for r in records if isinstance(r, PlayerActed)
                            and r.action in ("show", "muck")
                            for a in _action(r, index, {}, unit, records[:k])]
                out.extend(showdown)
                shown_early = True
            street_bets = {}
            for d in record.dealt:
                cards = "".join(format_card(c) for c in d.down + d.up)
                if d.target == "community":
                    out.append(f"d db {cards}")
                elif isinstance(d.target, int) and not (shown_early and (
                        d.target in mucked or len(live - mucked) < 2)):
                    out.append(f"d dh p{index[d.target]} {cards}")  # a mucked hand is dead
        elif isinstance(record, PlayerActed):
            if shown_early and (record.action == "muck" or len(live - mucked) < 2):
                continue  # mucked at the first showdown, or nobody left to show against
            out.extend(_action(record, index, street_bets, unit, records))
        elif isinstance(record, WagerPlaced):
            continue
    return out


def all_in_showdown(records: Sequence[Record], starting: Mapping[int, int]) -> int | None:
    """The position in ``records`` of the deal before which the betting was over for the rest
    of the hand (every live seat but one all-in): pokerkit shows the hands there. None when the
    betting went on to the last street."""
    started = next(r for r in records if isinstance(r, HandStarted))
    seat_of = {accounts.player(e.player): e.seat for e in started.seats}
    behind = {e.seat: starting[e.seat] for e in started.seats}
    live = set(behind)
    dealt = False
    for k, record in enumerate(records):
        for t in _transfers(record):
            if t.src in seat_of:
                behind[seat_of[t.src]] -= t.amount
        if isinstance(record, PlayerActed) and record.action == "fold":
            live.discard(record.seat)
        if isinstance(record, CardsDealt):
            if dealt and len(live) > 1 and len([s for s in live if behind[s] > 0]) <= 1:
                return k
            dealt = True
    return None


def _player(records: Sequence[Record], seat: int) -> str:
    started = next(r for r in records if isinstance(r, HandStarted))
    return next(e.player for e in started.seats if e.seat == seat)


def _action(
    record: PlayerActed, index: Mapping[int, int], street_bets: dict[int, int], unit: int,
    records: Sequence[Record],
) -> list[str]:
    player = f"p{index[record.seat]}"
    street_bets[record.seat] = street_bets.get(record.seat, 0) + record.amount
    match record.action:
        case "bring_in":
            return [f"{player} pb"]
        case "complete" | "bet" | "raise":
            return [f"{player} cbr {street_bets[record.seat] // unit}"]
        case "check" | "call":
            return [f"{player} cc"]
        case "fold":
            return [f"{player} f"]
        case "show":
            cards = _cards_of(records, record.seat)
            return [f"{player} sm {''.join(format_card(c) for c in cards)}"]
        case "muck":
            return [f"{player} sm"]
    return []


def _cards_of(records: Sequence[Record], seat: int) -> list[int]:
    cards: list[int] = []
    for r in records:
        if isinstance(r, CardsDealt):
            for d in r.dealt:
                if d.target == seat:
                    cards.extend(d.down + d.up)
    return cards


def _toml(value: Any) -> str:
    if isinstance(value, time):  # a TOML local time
        return value.isoformat()
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    raise TypeError(f"cannot write {value!r} in a PHH document")


# --- what standard tools replay -----------------------------------------------------------------

PK_MAX_RAISES = 4
"""pokerkit's fixed-limit stud allows one bet (or completion) and three raises a round."""


def replay_blockers(records: Sequence[Record], config: StudConfig,
                    starting: Mapping[int, int]) -> list[tuple[str, str]]:
    """The rules this hand used that PHH or pokerkit do not model, as (rule id, why); empty
    when pokerkit replays the document to the recorded finishing stacks (unraked)."""
    found: dict[str, str] = {}
    in_turn = _left_in_turn(records, config, starting)
    early = all_in_showdown(records, starting)
    if early is not None:
        shown = {r.seat for r in records if isinstance(r, PlayerActed) and r.action == "show"}
        if len(shown) < 2:
            found["STUD8-10"] = ("a hand was mucked at an all-in showdown before the last "
                                 "street, leaving one hand (pokerkit cannot go on dealing)")
    settled = next(r for r in records if isinstance(r, HandSettled))
    aggressive: dict[str, int] = {}
    street, level = "", 0
    totals: dict[int, int] = {}
    for record in records:
        if isinstance(record, CardsDealt):
            street, level, totals = record.round, 0, {}
            if any(d.target == "community" for d in record.dealt):
                found["STUD8-6"] = "a community card was dealt (pokerkit's stud has no board card)"
        elif isinstance(record, PlayerActed):
            if record.rule == "COM-6" and record.seat not in in_turn:
                found["COM-6"] = ("a player who left the table folded out of turn (PHH "
                                  "folds in turn)")
            totals[record.seat] = totals.get(record.seat, 0) + record.amount
            if record.action in ("complete", "bet", "raise"):
                aggressive[street] = aggressive.get(street, 0) + 1
                raised_by = totals[record.seat] - level
                # An all-in bet or raise between the two limits counts too: pokerkit refuses
                # any bet above the small bet on fourth street.
                if (street == "fourth_street" and config.big_bet > config.small_bet
                        and raised_by > config.small_bet):
                    found["STUD8-3"] = ("more than the small bet was bet on fourth street with "
                                        "an open pair (pokerkit bets the small bet)")
            level = max(level, totals[record.seat])
    if any(n > PK_MAX_RAISES for n in aggressive.values()):
        found["STUD8-5"] = ("a round had more than one bet and three raises (pokerkit caps "
                            "every round)")
    found.update(_split_blockers(settled, config.chip_unit))
    return sorted(found.items())


def _left_in_turn(records: Sequence[Record], config: StudConfig,
                  starting: Mapping[int, int]) -> set[int]:
    """Seats whose fold on leaving the table (COM-6) came at their turn to bet: an ordinary
    fold in PHH. The hand is replayed through the stud rules to know whose turn it was."""
    from ledger.games.stud8.game import StudHiLo, stage

    game = StudHiLo()
    started = next(r for r in records if isinstance(r, HandStarted))
    seat_of = {accounts.player(e.player): e.seat for e in started.seats}
    behind = {e.seat: starting[e.seat] for e in started.seats}
    hand = None
    found: set[int] = set()
    for record in records:
        if not isinstance(record, HandRecord):
            continue
        if isinstance(record, PlayerActed) and record.rule == "COM-6" and hand is not None:
            now = stage(config, hand, behind)
            if now.kind == "act" and now.seat == record.seat and not now.bring_in:
                found.add(record.seat)
        for t in _transfers(record):
            if t.src in seat_of:
                behind[seat_of[t.src]] -= t.amount
            if t.dst in seat_of:
                behind[seat_of[t.dst]] += t.amount
        hand = game.evolve(hand, record)
    return found


def _split_blockers(settled: HandSettled, chip: int) -> dict[str, str]:
    """Splits pokerkit makes otherwise than STUD8-7..9."""
    found: dict[str, str] = {}
    pots = settled.pots
    contested = [p for p in pots if len(p.eligible) > 1]
    lows = [bool(p.low_winners) for p in contested]
    if any(lows) and not all(lows):
        found["STUD8-7"] = ("a pot whose hands hold no low while another pot has one (pokerkit "
                            "halves it)")

    def odd(amount: int, winners: tuple[int, ...]) -> bool:
        return bool(winners) and amount // chip % len(winners) != 0

    if len(pots) > 1 and any(odd(p.high_amount, p.high_winners) or odd(p.low_amount,
                                                                     p.low_winners)
                             or (p.low_winners and p.high_amount != p.low_amount)
                             for p in pots):
        found["STUD8-9"] = ("side pots split with an odd chip (pokerkit merges pots before "
                            "splitting)")
    if any(len(w) >= 2 and amount // chip % len(w) >= 2 for p in pots
           for w, amount in ((p.high_winners, p.high_amount), (p.low_winners, p.low_amount))):
        found["STUD8-8"] = ("a tied half with two or more odd chips (pokerkit gives them all "
                            "to the first winner)")
    return found
