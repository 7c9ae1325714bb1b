"""Trick winners: the worked examples T1..T8 of rules-research.md section 3.1."""

import pytest

from engine.cards import Card, Suit, parse_cards
from engine.tricks import INT_OF, Trick, cards_of_mask, mask_of, trick_winner


@pytest.mark.parametrize(
    ("name", "trump", "cards", "winner"),
    [
        ("T1", Suit.SPADES, "KH 7H AH", 2),
        ("T2", Suit.SPADES, "AD 2S KD", 1),
        ("T3", Suit.SPADES, "9C 5S QS", 2),
        ("T4", Suit.SPADES, "4H 2C 3H", 0),
        ("T5", None, "10C AS JC", 2),
        ("T6", Suit.HEARTS, "6H 9H 8H", 1),
        ("T7", Suit.SPADES, "QS 3D KS", 2),
        ("T8", None, "5D 2D KD", 2),
    ],
)
def test_worked_trick_examples(name: str, trump: Suit | None, cards: str, winner: int) -> None:
    assert trick_winner(parse_cards(cards.split()), trump) == winner, name


def test_empty_trick_has_no_winner() -> None:
    with pytest.raises(ValueError, match="empty trick"):
        trick_winner([], Suit.SPADES)


def test_masks_round_trip_and_ints_match_card_index() -> None:
    cards = parse_cards(["2S", "AS", "10H", "KC"])
    assert cards_of_mask(mask_of(cards)) == cards
    assert all(INT_OF[c] == c.index for c in cards)


def test_trick_led_suit_is_the_leaders_card_even_out_of_turn() -> None:
    trick = Trick(3, leader=1, seats=(2, 1, 0), cards=tuple(parse_cards(["AS", "4H", "5H"])), winner=0)
    assert trick.led_suit is Suit.HEARTS
    assert trick.to_json() == {"leader": 1, "cards": ["AS", "4H", "5H"], "winner": 0}
    assert Card.from_text("4H") in trick.cards
