"""Ordinary play: matching, several cards of one rank, drawing, passing, the checked path."""

import pytest

from engine.errors import IllegalActionError
from engine.makao import Draw, Pass, Phase, Rule

from .support import cards, game, play, refused


def test_rank_or_suit_matches_and_turn_passes_clockwise():
    g = game(["5S 6S", "7D KC", "9H 2D"], "7C", first=1)
    g.play(play("7D"))  # M1: rank
    assert g.top == cards("7D")[0]
    assert g.to_move == 2


def test_plain_king_is_an_ordinary_card():
    g = game(["5S 6S", "KC 8D", "9H 2D"], "7C", first=1)
    g.play(play("KC"))  # M1b: suit, K♣ is not a battle card
    assert g.penalty == 0
    assert g.to_move == 2


def test_card_matching_nothing_is_refused_with_a_readable_reason():
    g = game(["9H 5S", "7D", "2D"], "7C")
    with pytest.raises(IllegalActionError) as err:
        g.play(play("9H"))
    assert str(err.value) == "Ada cannot play 9H on 7C: it matches neither rank nor suit"
    assert err.value.rule == "no-match"
    assert g.hand(0) == cards("9H 5S")  # unchanged


def test_several_cards_of_one_rank_last_laid_is_top():
    g = game(["7D 7H 7S 2C", "5S", "5H"], "7C")
    g.play(play("7D 7H 7S"))  # M2
    assert g.top == cards("7S")[0]
    assert g.hand(0) == cards("2C")
    assert g.to_move == 1
    assert g.check(play("5S")) is None  # Ben: 5S matches the top 7S by suit


def test_several_cards_must_share_a_rank_and_the_first_must_match():
    g = game(["7D 8D 9H 9C", "5S", "5H"], "7C")
    assert refused(g.check(play("7D 8D"))).rule is Rule.SAME_RANK
    assert refused(g.check(play("9H 9C"))).rule is Rule.NO_MATCH
    assert g.check(play("9C 9H")) is None


def test_card_not_held_is_refused():
    g = game(["7D", "5S", "5H"], "7C")
    violation = refused(g.check(play("7H")))
    assert violation.rule is Rule.NOT_IN_HAND
    assert violation.reason == "Ada does not hold 7H"


def test_playing_is_never_compulsory_draw_then_play_the_drawn_card():
    g = game(["7D 5S", "5H", "6H"], "7C", stock_top="9C")
    assert Draw() in list(g.legal_actions())
    g.play(Draw())
    assert g.phase is Phase.DRAWN and g.to_move == 0
    assert g.hand(0) == cards("7D 5S 9C")
    assert set(g.legal_actions()) == {play("9C"), Pass()}
    assert refused(g.check(play("7D"))).rule is Rule.AFTER_DRAW
    g.play(play("9C"))
    assert g.to_move == 1 and g.top == cards("9C")[0]


def test_draw_then_pass_when_the_drawn_card_does_not_fit():
    g = game(["7D 5S", "5H", "6H"], "7C", stock_top="9H")
    g.play(Draw())
    assert list(g.legal_actions()) == [Pass()]
    g.play(Pass())
    assert g.to_move == 1


def test_pass_without_drawing_is_refused():
    g = game(["7D 5S", "5H", "6H"], "7C")
    assert refused(g.check(Pass())).rule is Rule.PASS


def test_nothing_left_to_draw_allows_a_pass():
    # every card but the top is in the hands: draw is impossible, pass is the way out
    from engine.cards import deck

    rest = [c for c in deck() if str(c) not in ("7C",)]
    hands = [" ".join(str(c) for c in rest[:26]), " ".join(str(c) for c in rest[26:])]
    g = game(hands, "7C")
    assert g.stock_size == 0
    assert refused(g.check(Draw())).rule is Rule.EMPTY_STOCK
    assert Pass() in list(g.legal_actions())


def test_accept_without_anything_pending_is_refused():
    from engine.makao import Accept

    g = game(["7D", "5H", "6H"], "7C")
    assert refused(g.check(Accept())).rule is Rule.NOTHING_PENDING


def test_play_by_the_wrong_seat_is_out_of_turn():
    g = game(["7D", "7H", "6H"], "7C")
    violation = refused(g.check(play("7H"), seat=1))
    assert violation.rule is Rule.OUT_OF_TURN
    assert "it is Ada's turn" in violation.reason
