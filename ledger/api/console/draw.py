"""What the console draws: amounts in a currency's decimals, cards as faces with their names,
and a hand as a table (seats, cards, chips) at any step.

Two sources, one drawing: a step of the hand replay (the recorded events folded up to that
step, with the balances the audit's replay computed), or the table's hand in progress as the
API showed it to the reader (a card the reader may not see is ``null`` there and is drawn as a
card back, with nothing of it in the page).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from projections.exports.workbook import currency_decimals

RANKS = {"2": "two", "3": "three", "4": "four", "5": "five", "6": "six", "7": "seven",
         "8": "eight", "9": "nine", "T": "ten", "J": "jack", "Q": "queen", "K": "king",
         "A": "ace"}
SUITS = {"c": ("clubs", "\u2663"), "d": ("diamonds", "\u2666"), "h": ("hearts", "\u2665"),
         "s": ("spades", "\u2660")}
RANK_FACE = {"T": "10"}


def money(amount_minor: int | None, currency: str | None = None, *, sign: bool = False) -> str:
    """1234550 -> ``12,345.50`` in the currency's decimals (ISO 4217); ``-`` for None."""
    if amount_minor is None:
        return "-"
    places = currency_decimals(currency or "EUR")
    value = Decimal(int(amount_minor)).scaleb(-places)
    text = f"{value:,.{places}f}"
    return f"+{text}" if sign and amount_minor > 0 else text


def parse_money(text: str, currency: str | None) -> int:
    """``"12.5"`` -> 1250 (in the currency's decimals); ValueError when it is not an amount."""
    places = currency_decimals(currency or "EUR")
    value = Decimal(text.strip().replace(",", ""))
    minor = value.scaleb(places)
    if minor != minor.to_integral_value() or minor < 0 or not value.is_finite():
        raise ValueError(text)
    return int(minor)


@dataclass(frozen=True)
class Card:
    """A card as drawn: ``text`` None is a card the reader may not see (a back)."""

    text: str | None
    up: bool = True

    @property
    def known(self) -> bool:
        return self.text is not None

    @property
    def name(self) -> str:
        if self.text is None:
            return "face-down card"
        return f"{RANKS[self.text[0]]} of {SUITS[self.text[1]][0]}"

    @property
    def rank(self) -> str:
        return "" if self.text is None else RANK_FACE.get(self.text[0], self.text[0])

    @property
    def suit(self) -> str:
        return "" if self.text is None else SUITS[self.text[1]][1]

    @property
    def red(self) -> bool:
        return self.text is not None and self.text[1] in "dh"


@dataclass
class Spot:
    """Somewhere cards lie: a seat, the dealer, the designated player, the community cards."""

    label: str
    seat: int | None = None
    player: str | None = None
    cards: list[Card] = field(default_factory=list)
    rows: list[list[Card]] = field(default_factory=list)
    """A Chinese Poker set: front, middle, back."""
    stack: int | None = None
    wagers: list[tuple[str, int]] = field(default_factory=list)
    note: str | None = None
    acting: bool = False


@dataclass
class Picture:
    spots: list[Spot]
    pools: list[tuple[str, int]] = field(default_factory=list)
    """Chips not in front of a seat: the designated player's bank, the jackpot meter, ..."""


POOLS = (("bank", "DP bank"), ("jackpot", "jackpot meter"), ("rake", "rake"),
         ("house", "house"))


# --- a replay step -------------------------------------------------------------------------


def replay_pictures(steps: list[dict[str, Any]]) -> list[Picture]:
    """The table after each step of a hand replay (``GET .../replay``)."""
    seats: dict[int, str] = {}
    cards: dict[Any, list[Card]] = {}
    rows: dict[int, list[list[Card]]] = {}
    notes: dict[int, str] = {}
    dp: int | None = None
    pictures = []
    for step in steps:
        data = step.get("data") or {}
        kind = step.get("event")
        if kind == "HandStarted":
            seats = {int(s["seat"]): str(s["player"]) for s in data.get("seats", ())}
        elif kind == "CardsDealt":
            for dealt in data.get("dealt", ()):
                held = cards.setdefault(_target(dealt["target"]), [])
                held.extend(Card(c, up=False) for c in dealt.get("down", ()))
                held.extend(Card(c, up=True) for c in dealt.get("up", ()))
        elif kind == "CardsRevealed":
            shown = set(data.get("cards", ()))
            target = _target(data["target"])
            cards[target] = [Card(c.text, up=c.up or c.text in shown)
                             for c in cards.get(target, [])]
            known = {c.text for c in cards[target]}
            cards[target].extend(Card(c) for c in data.get("cards", ()) if c not in known)
        elif kind == "PlayerActed":
            seat = int(data.get("seat", 0))
            action = str(data.get("action", ""))
            if data.get("segments"):
                rows[seat] = [[Card(c, up=False) for c in seg] for seg in data["segments"]]
            if action == "accept":
                dp = seat
            notes[seat] = action + (f" ({data['declaration']})" if data.get("declaration")
                                    else "")
        elif kind == "HandSettled":
            for target, held in cards.items():
                cards[target] = [Card(c.text, up=True) for c in held]
            for seat, segs in rows.items():
                rows[seat] = [[Card(c.text, up=True) for c in seg] for seg in segs]
        balances = step.get("balances") or {}
        spots = []
        for seat, player in sorted(seats.items()):
            spots.append(Spot(
                label=f"seat {seat}" + (" (designated player)" if seat == dp else ""),
                seat=seat, player=player, cards=list(cards.get(seat, [])),
                rows=[list(r) for r in rows.get(seat, [])],
                stack=balances.get(f"player:{player}", 0),
                wagers=_spot_wagers(balances, seat), note=notes.get(seat),
                acting=data.get("seat") == seat))
        for target in ("dealer", "community"):
            if target in cards:
                spots.append(Spot(label=target, cards=list(cards[target])))
        pools = [(label, balances[a]) for a, label in POOLS if balances.get(a)]
        pictures.append(Picture(spots=spots, pools=pools))
    return pictures


def _target(value: Any) -> Any:
    return int(value) if isinstance(value, int) or str(value).isdigit() else str(value)


def _spot_wagers(balances: dict[str, int], seat: int) -> list[tuple[str, int]]:
    prefix = f"spot:{seat}:"
    return [(k[len(prefix):], v) for k, v in sorted(balances.items())
            if k.startswith(prefix) and v]


# --- the hand in progress as the API showed it ----------------------------------------------

WAGER_FIELDS = ("ante", "play", "jackpot", "flush_bonus", "straight_flush_bonus", "house_fee",
                "raised", "stake", "fee", "contributed")
EXTRA = (("dealer", ("dealer_down", "dealer_up")), ("designated player", ("dp_cards",)),
         ("community", ("community",)))


def live_picture(state: dict[str, Any]) -> Picture | None:
    """The hand in progress of a table state (``GET /tables/{code}``), or None."""
    hand = state.get("hand")
    if not isinstance(hand, dict):
        return None
    balances = state.get("balances") or {}
    acting = set((state.get("step") or {}).get("seats") or ())
    spots = []
    for entry in hand.get("seats") or ():
        if not isinstance(entry, dict) or "seat" not in entry:
            continue
        seat, player = int(entry["seat"]), str(entry.get("player", ""))
        segments = entry.get("segments")
        rows = ([[Card(c, up=False) for c in _cards(seg)] for seg in segments]
                if isinstance(segments, list) else [])
        held = [Card(c, up=False) for c in _cards(entry.get("down"))]
        held += [Card(c, up=True) for c in _cards(entry.get("up"))]
        if not rows:  # a Chinese Poker hand once set is shown as its three rows
            held += [Card(c, up=False) for c in _cards(entry.get("cards"))]
        wagers = [(k, int(entry[k])) for k in WAGER_FIELDS
                  if isinstance(entry.get(k), int) and entry[k] > 0]
        note = entry.get("decision") or entry.get("declaration") or (
            f"folded on street {entry['folded_on']}" if entry.get("folded_on") else None)
        spots.append(Spot(label=f"seat {seat}" + (" (designated player)" if hand.get("dp") ==
                                                  seat else ""),
                          seat=seat, player=player, cards=held, rows=rows,
                          stack=balances.get(f"player:{player}", 0), wagers=wagers,
                          note=str(note) if note else None, acting=seat in acting))
    for label, keys in EXTRA:
        held = []
        for key in keys:
            held += [Card(c, up=key.endswith("_up") or key == "community")
                     for c in _cards(hand.get(key))]
        if held:
            spots.append(Spot(label=label, cards=held))
    pools = [(label, balances[a]) for a, label in POOLS[:2] if balances.get(a)]
    return Picture(spots=spots, pools=pools)


def _cards(value: Any) -> list[str | None]:
    if not isinstance(value, list):
        return []
    return [c if isinstance(c, str) else None for c in value]
