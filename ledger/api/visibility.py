"""What a reader may see of the cards: hidden cards are masked for everyone but auditors.

Undealt cards are never in any answer (the sealed deck is not exposed). A card dealt face down
in the hand in progress stays hidden until it is revealed (``CardsRevealed``) or the game says
devices may see it (``Game.visible_cards``); a device token bound to a seat also sees that
seat's face-down cards. Once a hand has ended its cards are no longer hidden: the closing event
reveals the whole deck for ``rng`` tables (COM-8).

Masking is driven by the JSON schema of each model: every value the schema types as a card (the
``Card`` pattern) is replaced by ``null`` when hidden, so the shape (and the number of cards) is
kept whatever game the hand belongs to.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache, partial
from typing import Any

from pydantic import BaseModel

from ledger.api.auth import Principal
from ledger.app.application import LedgerApp
from ledger.domain.cards import format_card
from ledger.domain.errors import LedgerError
from ledger.domain.records import CardsDealt, CardsRevealed, HandStarted
from ledger.games.base import Step
from ledger.table.events import EVENT_TYPES, Table

CARD_PATTERN = "^[2-9TJQKA][cdhs]$"
_PAGE = 64


def sees_all_cards(who: Principal, table: Table) -> bool:
    """Whether ``who`` sees every face-down card of ``table``'s hand in progress: an auditor,
    and on a ``recorded`` table the table's own device that is not bound to a seat (the dealer
    terminal or card reader: it reported those cards, COM-8). On an ``rng`` table cards come
    from the ledger's sealed deck and a device sees only its own seat's."""
    if who.sees_everything:
        return True
    return (who.role == "device" and who.seat is None
            and table.state.config.card_source == "recorded"
            and who.may_use_table(table.state.code))


def visible_step(step: Step, who: Principal, full: bool) -> Step:
    """The step as ``who`` may read it: what the rules derive from the acting seat's cards
    (the HCF-5 raise cap) only for a reader who sees those cards."""
    if full or set(step.seats) <= who.seats:
        return step
    return step.public()


def hidden_cards(ledger: LedgerApp, table: Table, seats: frozenset[int]) -> frozenset[str]:
    """Cards (as text) of the hand in progress that a reader seeing ``seats`` may not see."""
    state = table.state
    if state.hand is None:
        return frozenset()
    down: set[int] = set()
    shown: set[int] = set()
    upto = table.version
    while upto > 0:
        page = ledger.recorder.select_events(table.id, lte=upto, desc=True, limit=_PAGE)
        if not page:
            break
        for stored in page:
            event = ledger.mapper.to_domain_event(stored)
            if isinstance(event, CardsRevealed):
                shown.update(event.cards)
            elif isinstance(event, CardsDealt):
                if state.game.visible_cards(state.hand, event):
                    continue
                for d in event.dealt:
                    if not (isinstance(d.target, int) and d.target in seats):
                        down.update(d.down)
            elif isinstance(event, HandStarted) and event.hand_no == state.hand_no:
                return frozenset(format_card(c) for c in down - shown)
        upto = page[-1].originator_version - 1
    return frozenset(format_card(c) for c in down - shown)


def mask(data: Any, model: type[BaseModel], hidden: Callable[[str], bool]) -> Any:
    """``data`` (the JSON of a ``model``) with every hidden card replaced by None."""
    schema = _schema(model)
    return _walk(data, schema, schema.get("$defs", {}), hidden)


class CardFilter:
    """Decides, lazily, which cards of a command's answer are hidden.

    ``load`` returns the hand in progress (or None) and its hidden cards; it is called the first
    time a card is met, so answers without cards cost nothing.
    """

    def __init__(self, load: Callable[[], tuple[int | None, frozenset[str]]]) -> None:
        self._load = load
        self._state: tuple[int | None, frozenset[str]] | None = None

    def hides(self, hand_no: Any, card: str) -> bool:
        if self._state is None:
            self._state = self._load()
        current, cards = self._state
        return current is not None and hand_no == current and card in cards


def mask_events(events: list[dict[str, Any]], cards: CardFilter) -> list[dict[str, Any]]:
    """Events as the API returns them (``type`` names the class), hidden cards masked and no
    chain digest (it hashes the previous event with its hidden cards: a search over the few
    cards a seat might hold would find them)."""
    out = []
    for event in events:
        event = {k: v for k, v in event.items() if k != "prev_hash"}
        cls = EVENT_TYPES.get(str(event.get("type")))
        if cls is None:
            out.append(event)
            continue
        out.append(mask(event, cls, partial(cards.hides, event.get("hand_no"))))
    return out


_CARD_TEXT = re.compile(r"(?<![A-Za-z0-9])([2-9TJQKA][cdhs])(?![A-Za-z0-9])")


def card_texts(value: Any) -> bool:
    """Whether ``value`` (text, or a structure of it) names a card anywhere."""
    if isinstance(value, str):
        return _CARD_TEXT.search(value) is not None
    if isinstance(value, dict):
        return any(card_texts(v) for v in value.values())
    if isinstance(value, list | tuple):
        return any(card_texts(v) for v in value)
    return False


def scrub(error: LedgerError, shown: frozenset[str]) -> LedgerError:
    """The same refusal with every card it names written ``??``, except the cards in ``shown``
    (those the reader sees on the table).

    A refusal must not tell what the rules know about hidden cards (a Chinese Poker set with the
    wrong cards is refused with the seat's missing cards, for instance). Every other card is
    masked too, so which cards come back masked tells nothing either.
    """

    def clean(value: Any) -> Any:
        if isinstance(value, str):
            return _CARD_TEXT.sub(lambda m: m.group(1) if m.group(1) in shown else "??", value)
        if isinstance(value, dict):
            return {k: clean(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [clean(v) for v in value]
        return value

    scrubbed = type(error)(error.code, clean(error.message), **clean(error.details))
    return scrubbed


def shown_cards(ledger: LedgerApp, table: Table, seats: frozenset[int]) -> frozenset[str]:
    """Cards of the hand in progress that a reader seeing ``seats`` sees on the table."""
    dealt = frozenset(format_card(c) for c in table.state.hand_cards)
    return dealt - hidden_cards(ledger, table, seats)


@cache
def _schema(model: type[BaseModel]) -> dict[str, Any]:
    return model.model_json_schema(mode="serialization")


def _walk(data: Any, node: dict[str, Any], defs: dict[str, Any], hidden: Callable[[str], bool]
          ) -> Any:
    ref = node.get("$ref")
    if ref is not None:
        node = defs.get(ref.rsplit("/", 1)[-1], {})
    if node.get("pattern") == CARD_PATTERN:
        return None if isinstance(data, str) and hidden(data) else data
    for key in ("anyOf", "oneOf", "allOf"):
        for branch in node.get(key, ()):
            data = _walk(data, branch, defs, hidden)
    if isinstance(data, dict):
        props = node.get("properties", {})
        extra = node.get("additionalProperties")
        result = {}
        for k, v in data.items():
            sub = props.get(k, extra if isinstance(extra, dict) else None)
            result[k] = v if sub is None else _walk(v, sub, defs, hidden)
        return result
    if isinstance(data, list):
        prefix = node.get("prefixItems")
        items = node.get("items")
        result_list = []
        for i, v in enumerate(data):
            sub = prefix[i] if prefix and i < len(prefix) else items
            result_list.append(v if not isinstance(sub, dict) else _walk(v, sub, defs, hidden))
        return result_list
    return data
