"""The remaining rule switches, each flipped away from its preset value."""

from dataclasses import replace

import pytest

from engine.cards import Suit
from engine.makao import Draw, MakaoRules, Pass, Rule, preset

from .support import game, play, refused


def rules(**changes: object) -> MakaoRules:
    return replace(preset("makao"), **changes)  # type: ignore[arg-type]


def test_one_card_per_turn_when_multi_same_rank_is_off():
    g = game(["7D 7H", "5S", "5H"], "7C", rules=rules(multi_same_rank=False))
    assert refused(g.check(play("7D 7H"))).rule is Rule.SAME_RANK
    assert all(len(a.cards) == 1 for a in g.legal_actions() if hasattr(a, "cards"))


def test_drawing_ends_the_turn_when_the_drawn_card_may_not_be_played():
    g = game(["7D 5S", "5H", "6H"], "7C", stock_top="9C", rules=rules(play_drawn_if_match=False))
    g.play(Draw())
    assert g.to_move == 1


def test_every_king_is_a_battle_card_when_switched_on():
    g = game(["KC 5S", "KD 5H", "6H"], "7C", rules=rules(battle_king_suits=frozenset(Suit)))
    g.play(play("KC"))
    assert (g.penalty, g.to_move) == (5, 1)
    g.play(play("KD"))  # the other king passes it on
    assert (g.penalty, g.to_move) == (10, 2)


def test_counterclockwise_play():
    g = game(["7D 5S", "5H", "7H"], "7C", rules=rules(clockwise=False))
    g.play(play("7D"))
    assert g.to_move == 2


def test_penalty_sizes_are_switches():
    g = game(["2C 5S", "5H", "7H"], "7C", rules=rules(penalty_two=4))
    g.play(play("2C"))
    assert g.penalty == 4


def test_a_jack_cannot_be_configured_to_demand_jacks():
    from engine.cards import Rank

    with pytest.raises(ValueError, match="jack"):
        rules(jack_demand_ranks=(Rank.JACK,))


def test_drawn_card_turn_can_still_pass():
    g = game(["7D 5S", "5H", "6H"], "7C", stock_top="9C")
    g.play(Draw())
    assert Pass() in set(g.legal_actions())
