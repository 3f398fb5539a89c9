"""Cards and decks (COM-1, COM-8)."""

import pytest

from ledger.domain.cards import (
    FULL_DECK,
    deck_commitment,
    format_cards,
    parse_card,
    parse_cards,
    shuffled_deck,
    validate_deck,
    verify_commitment,
)
from ledger.domain.errors import InvalidInput


def test_com_1_parse_and_format_round_trip() -> None:
    assert format_cards(parse_cards("As Td 9h 2c")) == "As Td 9h 2c"
    assert parse_card("10h") == parse_card("Th")
    assert parse_card("qS") == parse_card("Qs")
    assert len({parse_card(f"{r}{s}") for r in "23456789TJQKA" for s in "cdhs"}) == 52


@pytest.mark.parametrize("bad", ["1s", "Ax", "A", "Ass", "", "Jk"])
def test_com_1_unknown_card_is_rejected_with_a_code(bad: str) -> None:
    with pytest.raises(InvalidInput) as err:
        parse_card(bad)
    assert err.value.code == "unknown_card"


def test_com_1_repeated_card_is_rejected() -> None:
    with pytest.raises(InvalidInput) as err:
        parse_cards("As Kd as")
    assert err.value.code == "duplicate_card"


def test_wrong_count_is_rejected() -> None:
    with pytest.raises(InvalidInput) as err:
        parse_cards("As Kd", count=5)
    assert err.value.code == "wrong_card_count"


def test_com_8_shuffled_deck_is_a_full_deck_and_commitment_verifies() -> None:
    deck = shuffled_deck()
    validate_deck(deck)
    assert sorted(deck) == list(FULL_DECK)
    commitment = deck_commitment(deck, "salt")
    assert verify_commitment(deck, "salt", commitment)
    assert not verify_commitment(deck, "other", commitment)
    swapped = (deck[1], deck[0], *deck[2:])
    assert not verify_commitment(swapped, "salt", commitment)


def test_com_1_deck_with_repeat_or_missing_card_is_rejected() -> None:
    with pytest.raises(InvalidInput):
        validate_deck((0, 0, *range(2, 52)))
    with pytest.raises(InvalidInput):
        validate_deck(tuple(range(51)))
