"""The `makao-polish` switches: starter turned until plain, wild queens, one-player ace, the makao call."""

from engine.cards import Suit
from engine.makao import MakaoGame, Rule, StarterRule, preset

from .support import NAMES, game, play, refused


def test_presets_differ_only_in_the_polish_switches():
    plain, polish = preset("makao"), preset("makao-polish")
    assert plain.starter is StarterRule.NO_EFFECT and polish.starter is StarterRule.TURN_UNTIL_PLAIN
    assert (plain.queen_wild, polish.queen_wild) == (False, True)
    assert (plain.makao_call, polish.makao_call) == (False, True)
    assert plain.ace_demand_duration is not polish.ace_demand_duration


def test_starter_is_turned_until_it_is_not_a_functional_card():
    rules = preset("makao-polish")
    functional_seen = False
    for seed in range(60):
        g = MakaoGame.deal(rules, NAMES[:3], seed=seed)
        assert not rules.is_functional(g.top)
        assert all(rules.is_functional(c) for c in g.pile[:-1])
        functional_seen |= len(g.pile) > 1
    assert functional_seen


def test_in_plain_makao_the_starter_has_no_effect():
    g = game(["5C 6C", "7D"], "2H")
    assert g.penalty == 0
    assert refused(g.check(play("5C"))).rule is Rule.NO_MATCH


def test_queen_on_anything_and_anything_on_a_queen():
    g = game(["QS 5C", "5D 6C", "7D"], "7H", rules="makao-polish")
    g.play(play("QS"))
    assert g.check(play("5D")) is None
    plain = game(["QS 5C", "5D 6C", "7D"], "7H")
    assert refused(plain.check(play("QS"))).rule is Rule.NO_MATCH


def test_a_queen_does_not_answer_a_penalty_or_a_demand():
    g = game(["2H 5C", "QH 6C", "7D"], "7H", rules="makao-polish")
    g.play(play("2H"))
    assert refused(g.check(play("QH"))).rule is Rule.PENALTY
    d = game(["AH 5C", "QC 6C", "7D"], "7H", rules="makao-polish")
    d.play(play("AH", Suit.SPADES))
    assert refused(d.check(play("QC"))).rule is Rule.DEMAND


def test_forgetting_makao_with_one_card_left_costs_five_cards():
    g = game(["7D 8D 9D", "5C 6C", "7C"], "7H", rules="makao-polish")
    g.play(play("7D"))
    assert len(g.hand(0)) == 2
    g2 = game(["7D 8D", "5C 6C", "7C"], "7H", rules="makao-polish")
    g2.play(play("7D"))
    assert len(g2.hand(0)) == 6
    assert g2.makao_penalties == ((1, 0),)
    g3 = game(["7D 8D", "5C 6C", "7C"], "7H", rules="makao-polish")
    g3.play(play("7D", makao=True))
    assert len(g3.hand(0)) == 1 and g3.makao_penalties == ()


def test_legal_actions_say_makao_when_it_is_due():
    g = game(["7D 8D", "5C 6C", "7C"], "7H", rules="makao-polish")
    plays = [a for a in g.legal_actions() if hasattr(a, "cards")]
    assert plays and all(getattr(a, "makao", False) for a in plays)
