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
- User fields: ``_rake`` (total), ``_pot_amounts`` and ``_pot_rakes`` (per pot, main first),
  ``_table``, ``_rules`` (the rule ids behind the settlement).

Standard PHH tooling (pokerkit) loads these documents and replays them to the same finishing
stacks, within what PHH and that tool express:

- PHH has no rake field: the rake is in ``_rake`` and ``_pot_rakes``, and a replay is unraked
  (it ends with exactly the rake more in the winners' stacks);
- no STUD8-6 community card in stud, no open-pair big bet on fourth street (STUD8-3), no
  uncapped heads-up raising (STUD8-5), no fold out of turn (COM-6);
- pokerkit halves a pot even when none of its contesting hands has a low if another hand of
  the deal has one; it kills hands that cannot win and merges pots left with the same players
  before splitting (STUD8-9 splits each pot on its own, which can move an odd chip); and it
  gives all odd chips of a tied half to the first winner, where STUD8-8 gives one each.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ledger import accounts
from ledger.cards import format_card
from ledger.games.stud8.model import StudConfig
from ledger.records import (
    CardsDealt,
    HandSettled,
    HandStarted,
    PlayerActed,
    Record,
    Transfer,
    WagerPlaced,
)

VARIANT = "F7S/8"
SEAT_COUNT = 8


def hand_to_phh(
    records: Sequence[Record],
    starting_stacks: Mapping[int, int],
    config: StudConfig | Mapping[str, Any],
    *,
    table: str | None = None,
    currency: str | None = None,
) -> str:
    """The PHH document (TOML text) of one finished hand.

    ``records``: the hand's records in order, from its ``HandStarted`` to its ``HandSettled``;
    ``starting_stacks``: seat -> chips (minor units) before the ante; ``config``: the table's
    settings in force for the hand.
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
    actions = _actions(records, index, unit)
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
    fields += [
        ("_chip_unit", unit),
        ("_rake", sum(line.amount for line in settled.rake) // unit),
        ("_pot_amounts", [p.amount // unit for p in settled.pots]),
        ("_pot_rakes", [p.rake // unit for p in settled.pots]),
        ("_rules", sorted({o.rule for o in settled.outcomes})),
    ]
    if table:
        fields.append(("_table", table))
    return "\n".join(f"{key} = {_toml(value)}" for key, value in fields) + "\n"


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


def _actions(records: Sequence[Record], index: Mapping[int, int], unit: int) -> list[str]:
    out: list[str] = []
    street_bets: dict[int, int] = {}
    for record in records:
        if isinstance(record, CardsDealt):
            street_bets = {}
            for d in record.dealt:
                cards = "".join(format_card(c) for c in d.down + d.up)
                if d.target == "community":
                    out.append(f"d db {cards}")
                elif isinstance(d.target, int):
                    out.append(f"d dh p{index[d.target]} {cards}")
        elif isinstance(record, PlayerActed):
            out.extend(_action(record, index, street_bets, unit, records))
        elif isinstance(record, WagerPlaced):
            continue
    return out


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
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    raise TypeError(f"cannot write {value!r} in a PHH document")
