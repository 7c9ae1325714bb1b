"""TABLE mode: hands unknown; plays seen on the pile, draws told by buttons; only proofs are flagged."""

import json

from engine.cards import Rank
from engine.makao import Accept, Draw, MakaoGame, Pass, Play, Rule, preset

from .support import NAMES, cards, game, play


def table(n: int = 3, starter: str = "7C", rules: str = "makao") -> MakaoGame:
    return MakaoGame.table(preset(rules), NAMES[:n], cards(starter))


def test_counts_follow_plays_draws_and_penalties():
    g = table()
    assert g.cards_left == (5, 5, 5) and g.stock_size == 52 - 15 - 1
    assert g.observe(0, play("7H")) == []
    assert g.observe(1, Draw()) == []
    assert g.observe(1, Pass()) == []
    assert g.observe(2, play("2H")) == []
    assert g.observe(0, Accept()) == []
    assert g.cards_left == (6, 6, 4)
    assert g.to_move == 1
    assert g.stock_size == 52 - 15 - 1 - 3


def test_a_card_that_matches_nothing_is_flagged_and_still_lands_on_the_pile():
    g = table()
    found = g.observe(0, play("9H"))
    assert [(v.rule, v.reason) for v in found] == [
        (Rule.NO_MATCH, "Ada cannot play 9H on 7C: it matches neither rank nor suit")
    ]
    assert g.top == cards("9H")[0] and g.to_move == 1
    assert g.violations == tuple(found)


def test_out_of_turn_is_flagged_and_play_goes_on_from_that_seat():
    g = table(4)
    found = g.observe(2, play("7D"))
    assert [v.rule for v in found] == [Rule.OUT_OF_TURN]
    assert found[0].turn == 1 and found[0].seat == 2
    assert g.to_move == 3 and g.cards_left == (5, 5, 4, 5)


def test_a_card_seen_more_often_than_the_decks_hold_it():
    g = table()
    g.observe(0, play("7H"))
    found = g.observe(1, play("7H"))
    assert [v.rule for v in found] == [Rule.DUPLICATE_CARD]
    two_decks = table(5)
    assert two_decks.observe(0, play("7H")) == []
    assert two_decks.observe(1, play("7H")) == []
    assert [v.rule for v in two_decks.observe(2, play("7H"))] == [Rule.DUPLICATE_CARD]


def test_more_cards_than_the_player_holds():
    g = table()
    found = g.observe(0, play("7H 7D 7S 8C 9C 10C"))
    assert found[0].rule is Rule.CARD_COUNT
    assert g.cards_left[0] == 0


def test_penalties_skips_and_demands_are_checked_without_hands():
    g = table(4)
    g.observe(0, play("2C"))
    assert [v.rule for v in g.observe(1, Draw())] == [Rule.MUST_ANSWER]
    g = table(4)
    g.observe(0, play("4C"))
    assert [v.rule for v in g.observe(1, play("5C"))] == [Rule.SKIP]
    g = table(4)
    g.observe(0, Play(cards("JC"), Rank.NINE))
    assert [v.rule for v in g.observe(1, play("10C"))] == [Rule.DEMAND]


def test_going_out_and_the_end_are_known_from_counts():
    g = MakaoGame.table(preset("makao"), NAMES[:2], cards("7C"))
    for card in ("7H", "8H", "8S", "9S", "9D", "10D", "10C", "JC"):
        seat = g.to_move
        assert seat is not None
        assert g.observe(seat, play(card)) == []
    assert g.cards_left == (1, 1)
    g.observe(0, play("JD"))
    outcome = g.outcome()
    assert outcome is not None and outcome.out == (0,) and outcome.losers == (1,)


def test_only_hand_free_actions_are_listed_in_table_mode():
    g = table()
    assert list(g.legal_actions()) == [Draw()]
    g.observe(0, play("2C"))
    assert list(g.legal_actions()) == [Accept()]


def test_observe_can_be_undone():
    g = table()
    before = g.public_view()
    g.observe(0, play("9H"))
    assert g.pop() == play("9H")
    assert g.public_view() == before and g.violations == ()


def test_public_view_is_json_and_hides_every_hidden_card():
    g = game(["7D 5S 2C", "5H 6D KS", "6H 9S 3D"], "7C")
    g.play(play("7D"))
    view = g.public_view()
    text = json.dumps(view)
    hidden = [c for c in g.cards_in_play() if c not in set(g.pile)]  # hands and stock
    strings = set(_strings(view))
    assert not any(str(c) in strings for c in hidden)
    assert view["top"] == "7D" and view["cards_left"] == [2, 3, 3]
    assert "hand" not in text
    mine = g.seat_view(1)
    assert mine["hand"] == ["5H", "6D", "KS"]
    assert "5S" not in json.dumps(mine)


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def test_undo_restores_a_full_game_exactly():
    g = MakaoGame.deal(preset("makao"), NAMES[:4], seed=3)
    first = (g.public_view(), [g.hand(s) for s in range(4)])
    for _ in range(30):
        if g.is_over:
            break
        g.push(next(iter(g.legal_actions())))
    while g.peek() is not None:
        g.pop()
    assert (g.public_view(), [g.hand(s) for s in range(4)]) == first


def test_module_examples_run() -> None:
    import doctest

    import engine.makao.game

    result = doctest.testmod(engine.makao.game)
    assert result.attempted > 0 and result.failed == 0
