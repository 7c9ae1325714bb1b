"""Reshuffling, the end of the game for 2-4 and 5-6 players, and two-deck tables."""

from collections import Counter

import pytest

from engine.cards import Card, deck
from engine.errors import IllegalActionError
from engine.makao import Accept, Draw, MakaoGame, Pass, Rule, preset

from .support import NAMES, cards, game, play


def test_empty_stock_reshuffles_the_pile_except_its_top_card():
    g = game(["3H 5C", "6C 7C", "8C"], "9H", stock_top="AD", stock_size=1)
    pile_before = len(g.pile)
    g.play(play("3H"))
    g.play(Accept())  # M9: draw 1, reshuffle, draw 2 more
    hand = g.hand(1)
    assert len(hand) == 5 and cards("AD")[0] in hand
    assert g.pile == cards("3H")
    assert g.stock_size == pile_before - 2  # the whole old pile became the stock; two were drawn
    assert Counter(g.cards_in_play()) == Counter(deck())


def test_a_renewal_kept_when_its_draw_is_taken_back_puts_the_pile_under_the_cards_left_in_the_stock():
    """At a table the shuffled pile cannot be put back under the top card: undoing the draw that renewed the stock
    and renewing it again leaves the card left in the stock on top, the old pile under it, every card kept."""
    g = game(["3H 5C", "6C 7C", "8C"], "9H", stock_top="AD", stock_size=1)
    g.play(play("3H"))
    pile_before = g.pile
    g.play(Accept())  # draw 1, reshuffle, draw 2 more
    g.pop()
    assert g.pile == pile_before and g.stock_size == 1
    assert g.renew_stock() == len(pile_before) - 1
    assert g.pile == cards("3H") and g.stock_size == len(pile_before)
    assert g.reshuffles == 1
    assert Counter(g.cards_in_play()) == Counter(deck())
    g.play(Accept())  # the same penalty drawn from the renewed stock: AD first, no second renewal
    assert cards("AD")[0] in g.hand(1) and g.reshuffles == 1


def test_reshuffle_order_is_reproducible_for_one_seed():
    def hands_after(seed: int) -> tuple[Card, ...]:
        g = game(["3H 5C", "6C 7C", "8C"], "9H", stock_top="AD", stock_size=1, seed=seed)
        g.play(play("3H"))
        g.play(Accept())
        return g.hand(1)

    assert hands_after(1) == hands_after(1)


def test_four_players_last_holder_loses():
    g = game(["6H", "8C 9C", "5D", "6D 6S"], "5C", stock_top="10C", first=2)
    g.play(play("5D"))  # Cem out
    g.play(play("6D"))
    g.play(play("6H"))  # Ada out
    g.play(Draw())
    g.play(Pass())  # Ben draws 10C and keeps it
    g.play(play("6S"))  # Dan out: M10
    outcome = g.outcome()
    assert outcome is not None
    assert (outcome.ended_by, outcome.out, outcome.losers) == ("last-holder", (2, 0, 3), (1,))
    assert g.to_move is None
    with pytest.raises(IllegalActionError) as err:
        g.play(Draw())
    assert err.value.rule == "game-over"
    assert g.observe(1, Draw())[0].rule is Rule.GAME_OVER


def test_two_players_end_when_one_goes_out():
    g = game(["6C", "8H 9H"], "5C")
    g.play(play("6C"))
    outcome = g.outcome()
    assert outcome is not None and outcome.losers == (1,)


@pytest.mark.parametrize("n", [5, 6])
def test_five_or_six_players_stop_when_the_third_goes_out(n: int) -> None:
    hands = ["5D", "5H", "5S", "KC KD", "QC QD", "JD JH"][:n]
    g = game(hands, "5C")
    assert g.decks == 2
    g.play(play("5D"))
    g.play(play("5H"))
    assert not g.is_over
    g.play(play("5S"))  # M10b
    outcome = g.outcome()
    assert outcome is not None
    assert outcome.ended_by == "third-out"
    assert outcome.out == (0, 1, 2)
    assert outcome.losers == tuple(range(3, n))


def test_two_decks_for_five_and_six_players_with_copies_as_identity():
    for n, decks in ((2, 1), (4, 1), (5, 2), (6, 2)):
        g = MakaoGame.deal(preset("makao"), NAMES[:n], seed=n)
        assert g.decks == decks
        every = g.cards_in_play()
        assert len(every) == 52 * decks
        assert Counter(every) == Counter(deck(decks))
        assert all(len(g.hand(s)) == 5 for s in range(n))


def test_a_face_means_whichever_copy_the_player_holds():
    g = game(["7H#1 5C", "7C 8C", "8D", "9D", "9S"], "7S")
    g.play(play("7H"))  # the camera cannot tell copies apart
    assert g.top == Card.from_text("7H#1")
    assert g.hand(0) == cards("5C")


def test_deal_rejects_a_deal_that_is_not_the_decks():
    with pytest.raises(ValueError, match="1 deck"):
        MakaoGame.from_deal(preset("makao"), NAMES[:2], [cards("7H 8H"), cards("9H 7H")], cards("5C"), ())


def test_playing_the_drawn_card_by_its_face_picks_the_drawn_copy():
    g = game(["7H 5C", "7C 8C", "8D", "9D", "9S"], "7S", stock_top="7H#1")
    g.play(Draw())
    g.play(play("7H"))  # the drawn one, though Ada also holds copy 0
    assert g.top == Card.from_text("7H#1")
    assert g.hand(0) == cards("7H 5C")
