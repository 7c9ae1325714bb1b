import pytest

from controller.feed.guard import LeakError, cards_named, check_payload
from engine.cards import Card

TEN_H = Card.from_text("10H")


def test_cards_are_found_in_values_lists_and_text() -> None:
    payload = {"trick": [{"seat": 0, "card": "QS"}], "text": "Ada plays 10H, then 7♣", "AS": 1}
    assert {str(c) for c in cards_named(payload)} == {"QS", "10H", "7C", "AS"}


def test_ordinary_words_are_not_cards() -> None:
    assert list(cards_named({"name": "As Ah Kate", "msg": "TEST 2SX 110H"})) == []


def test_a_hidden_card_blocks_the_payload_and_is_named() -> None:
    with pytest.raises(LeakError, match="10H"):
        check_payload({"text": "Ben holds 10H"}, {TEN_H}, "cardtable/t/state")
    check_payload({"text": "Ben holds QS"}, {TEN_H}, "cardtable/t/state")
    check_payload('{"card": "10H"}', set(), "cardtable/t/events")
