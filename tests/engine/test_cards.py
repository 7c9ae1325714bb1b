import pytest

from engine.cards import FULL_DECK, Card, CardError, Rank, Suit, deck


@pytest.mark.parametrize("text", ["10H", "TH", "10♥", "th", " 10h ", "10♡"])
def test_ten_of_hearts_parses_from_every_form(text: str) -> None:
    card = Card.from_text(text)
    assert card == Card(Rank.TEN, Suit.HEARTS)
    assert str(card) == "10H"


def test_ace_lowercase_and_symbols() -> None:
    assert Card.from_text("ah") == Card(Rank.ACE, Suit.HEARTS)
    assert Card.from_text("Q♠").symbol == "Q♠"
    assert str(Card.from_text("2c")) == "2C"


@pytest.mark.parametrize("text", ["", "H", "1", "11H", "10X", "ZZ", "10", "AS#x", "AS#9", "♥10"])
def test_bad_text_raises_card_error_quoting_input(text: str) -> None:
    with pytest.raises(CardError) as info:
        Card.from_text(text)
    assert repr(text) in str(info.value)
    assert isinstance(info.value, ValueError)


def test_non_string_is_a_card_error() -> None:
    with pytest.raises(CardError):
        Card.from_text(10)  # type: ignore[arg-type]


def test_cards_are_frozen_hashable_values() -> None:
    a, b = Card.from_text("QS"), Card.from_text("qs")
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1
    with pytest.raises(AttributeError):
        a.rank = Rank.KING  # type: ignore[misc]
    assert not hasattr(a, "__dict__")
    assert eval(repr(a)) == a


def test_copy_index_for_two_decks() -> None:
    first, second = Card.from_text("KH"), Card.from_text("KH#1")
    assert first != second and first.same_face(second) and second.face == first
    assert str(second) == "KH#1"
    two = deck(2)
    assert len(two) == 104 and len(set(two)) == 104


def test_full_deck_and_index_round_trip() -> None:
    assert len(FULL_DECK) == 52 and len(set(FULL_DECK)) == 52
    assert [Card.from_index(c.index) for c in FULL_DECK] == list(FULL_DECK)
    with pytest.raises(CardError):
        Card.from_index(52)
