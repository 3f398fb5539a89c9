"""Cards: parsing, formatting, the deck, secure shuffles and deck commitments (COM-1, COM-8).

A card is an ``int`` from 0 to 51: ``rank * 4 + suit``, where rank 0..12 stands for 2..A and
suit 0..3 for clubs, diamonds, hearts, spades. Integers keep the evaluators fast; everything a
person or a stored event sees is the two-character text form (``As``, ``Td``, ``9h``).
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Annotated, Any

from ledger.domain.errors import InvalidInput

RANKS = "23456789TJQKA"
SUITS = "cdhs"
RANK_NAMES = tuple(RANKS)
DECK_SIZE = 52
FULL_DECK: tuple[int, ...] = tuple(range(DECK_SIZE))

_CARD_TEXT = {f"{r}{s}": i * 4 + j for i, r in enumerate(RANKS) for j, s in enumerate(SUITS)}
_CARD_NAMES = tuple(f"{RANKS[c >> 2]}{SUITS[c & 3]}" for c in FULL_DECK)
_SPLIT = re.compile(r"[\s,]+")


def rank_of(card: int) -> int:
    """Rank index 0..12 (2..A)."""
    return card >> 2


def suit_of(card: int) -> int:
    """Suit index 0..3 (c, d, h, s)."""
    return card & 3


def make_card(rank: int, suit: int) -> int:
    return rank * 4 + suit


def parse_card(text: str) -> int:
    """Parse ``As`` / ``td`` / ``10h`` into a card; unknown text is an ``unknown_card`` error.

    The rank is case-insensitive and ``10`` is accepted for ``T``; the suit is one of ``cdhs``.
    """
    token = text.strip()
    if len(token) == 3 and token.startswith("10"):
        token = "T" + token[2]
    if len(token) == 2:
        card = _CARD_TEXT.get(token[0].upper() + token[1].lower())
        if card is not None:
            return card
    raise InvalidInput(
        "unknown_card",
        f"unknown card {text!r}: write a rank 2-9, T, J, Q, K, A then a suit c, d, h, s (e.g. As)",
        card=text,
    )


def parse_cards(
    text: str | Iterable[str], *, count: int | Sequence[int] | None = None
) -> tuple[int, ...]:
    """Parse several cards (``"As Td 9h"`` or ``["As", "Td"]``), rejecting repeats (COM-1).

    ``count`` optionally demands an exact number of cards (or one of several numbers); a wrong
    number is a ``wrong_card_count`` error.
    """
    tokens = [t for t in _SPLIT.split(text.strip())] if isinstance(text, str) else list(text)
    tokens = [t for t in tokens if t]
    cards = tuple(parse_card(t) for t in tokens)
    ensure_distinct(cards)
    if count is not None:
        allowed = (count,) if isinstance(count, int) else tuple(count)
        if len(cards) not in allowed:
            wanted = " or ".join(str(n) for n in allowed)
            raise InvalidInput(
                "wrong_card_count",
                f"expected {wanted} cards, got {len(cards)}",
                expected=list(allowed),
                got=len(cards),
            )
    return cards


def ensure_distinct(cards: Iterable[int]) -> None:
    """Reject a card seen twice (``duplicate_card``, COM-1)."""
    seen: set[int] = set()
    for card in cards:
        if card in seen:
            raise InvalidInput(
                "duplicate_card",
                f"card {format_card(card)} appears more than once",
                card=format_card(card),
            )
        seen.add(card)


def format_card(card: int) -> str:
    return _CARD_NAMES[card]


def format_cards(cards: Iterable[int]) -> str:
    return " ".join(_CARD_NAMES[c] for c in cards)


def card_list(cards: Iterable[int]) -> list[str]:
    return [_CARD_NAMES[c] for c in cards]


def _validate_card(value: Any) -> int:
    if type(value) is str:  # the stored form ("As"): one lookup, the common case on reads
        card = _CARD_TEXT.get(value)
        if card is not None:
            return card
    if isinstance(value, bool):
        raise ValueError("a card is a string like 'As'")
    if isinstance(value, int):
        if 0 <= value < DECK_SIZE:
            return value
        raise ValueError(f"card number {value} is outside the deck")
    if isinstance(value, str):
        try:
            return parse_card(value)
        except InvalidInput as exc:
            raise ValueError(exc.message) from None
    raise ValueError("a card is a string like 'As'")


def _card_type() -> Any:
    from pydantic import PlainSerializer, PlainValidator, WithJsonSchema

    return Annotated[
        int,
        PlainValidator(_validate_card),
        PlainSerializer(format_card, return_type=str),
        WithJsonSchema({"type": "string", "pattern": "^[2-9TJQKA][cdhs]$", "examples": ["As"]}),
    ]


if TYPE_CHECKING:
    from pydantic import PlainSerializer, PlainValidator, WithJsonSchema

    Card = Annotated[
        int,
        PlainValidator(_validate_card),
        PlainSerializer(format_card, return_type=str),
        WithJsonSchema({"type": "string", "pattern": "^[2-9TJQKA][cdhs]$", "examples": ["As"]}),
    ]
    """A card in pydantic models: an ``int`` in Python, ``"As"`` in JSON."""
else:
    def __getattr__(name: str) -> Any:
        """``Card``, the card in pydantic models (an ``int`` in Python, ``"As"`` in JSON), made
        when first imported: pydantic is not imported by what only parses or shows cards
        (``ledger --help``, ``ledger evaluate``)."""
        if name == "Card":
            card = globals()["Card"] = _card_type()
            return card
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# --- the deck and card sources (COM-8) -------------------------------------------------------

_RNG = secrets.SystemRandom()


def shuffled_deck() -> tuple[int, ...]:
    """A fresh deck in an order drawn from the operating system's secure generator."""
    deck = list(FULL_DECK)
    _RNG.shuffle(deck)
    return tuple(deck)


@lru_cache(maxsize=64)
def seeded_deck(seed: int, table: str, hand_no: int) -> tuple[tuple[int, ...], str]:
    """The deck and salt of hand ``hand_no`` at a ``seeded`` table (simulations only, COM-8):
    a shuffle by a generator seeded with the table's seed, its code and the hand number, so a
    simulation plays the same cards every run. Anyone who knows the seed knows every deck:
    never for real play (the HTTP API refuses such tables). A hand's deck is asked for at its
    start and at each deal: the last few are kept (an immutable value, the same each time)."""
    import random

    name = f"{seed}:{table.strip().upper()}:{hand_no}"
    deck = list(range(DECK_SIZE))
    random.Random(name).shuffle(deck)
    return tuple(deck), hashlib.sha256(f"seeded:{name}".encode()).hexdigest()[:32]


def new_salt() -> str:
    return secrets.token_hex(16)


def deck_commitment(deck: Sequence[int], salt: str) -> str:
    """SHA-256 commitment to a deck order: ``sha256(salt + ":" + "As Kd ...")`` in hex.

    Recorded before the first wager; the deck and the salt are revealed after the hand so that
    anyone can recompute it (COM-8).
    """
    payload = f"{salt}:{format_cards(deck)}".encode()
    return hashlib.sha256(payload).hexdigest()


def verify_commitment(deck: Sequence[int], salt: str, commitment: str) -> bool:
    return hmac.compare_digest(deck_commitment(deck, salt), commitment)


def validate_deck(deck: Sequence[int]) -> None:
    """A deck order must hold each of the 52 cards exactly once (COM-1)."""
    ensure_distinct(deck)
    if len(deck) != DECK_SIZE:
        raise InvalidInput(
            "invalid_deck", f"a deck holds 52 cards, this one {len(deck)}", got=len(deck)
        )
