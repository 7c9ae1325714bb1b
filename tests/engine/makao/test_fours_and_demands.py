"""Fours (skips that stack) and the jack's and ace's demands with their duration switches."""

from dataclasses import replace

from engine.cards import Rank, Suit
from engine.makao import Accept, DemandDuration, Draw, MakaoGame, MakaoRules, Pass, Rule, preset

from .support import game, play, refused


def test_four_skips_the_next_player_who_may_add_a_four():
    g = game(["4D 5C", "4C 6C", "7D 8D", "9H 9S"], "9D")
    g.play(play("4D"))
    assert (g.skip, g.to_move) == (1, 1)
    g.play(play("4C"))  # M6
    assert (g.skip, g.to_move) == (2, 2)


def test_accepting_k_fours_loses_k_turns_including_the_current_one():
    g = game(["4D 5C 5S", "4C 6C 6S", "7D 8D 8C", "9C 9S QS"], "9D")
    g.play(play("4D"))
    g.play(play("4C"))
    assert refused(g.check(Draw())).rule is Rule.MUST_ANSWER
    assert refused(g.check(play("7D"))).rule is Rule.SKIP
    g.play(Accept())  # M6b: Cem loses this turn and his next
    assert g.to_move == 3
    assert g.public_view()["skips_owed"] == [0, 0, 1, 0]
    g.play(play("9C"))  # Dan
    g.play(play("5C"))  # Ada
    g.play(play("6C"))  # Ben
    assert g.to_move == 3  # Cem sat out again
    assert g.public_view()["skips_owed"] == [0, 0, 0, 0]


def test_fours_do_not_stack_when_switched_off():
    rules = replace(preset("makao"), fours_stack=False)
    g = game(["4D 5C", "4C 6C", "7D"], "9D", rules=rules)
    g.play(play("4D"))
    assert refused(g.check(play("4C"))).rule is Rule.SKIP
    assert list(g.legal_actions()) == [Accept()]


def jack_of_spades_demanding_eight(rules: MakaoRules | str = "makao") -> MakaoGame:
    g = game(["JS 8S 5C", "8D 9S JH 5H", "8C 6C", "8H 7C"], "10S", rules=rules)
    g.play(play("JS", Rank.EIGHT))
    return g


def test_jack_demand_binds_everyone_including_the_demander_then_expires():
    g = jack_of_spades_demanding_eight()
    assert refused(g.check(play("9S"))).rule is Rule.DEMAND  # M7b: suit matching is suspended
    g.play(play("8D"))  # M7
    g.play(play("8C"))
    g.play(play("8H"))
    assert g.demand == Rank.EIGHT  # Ada, the demander, is bound too (ROUND_INCLUDING_DEMANDER)
    assert refused(g.check(play("5C"))).rule is Rule.DEMAND
    g.play(play("8S"))
    assert g.demand is None
    assert g.check(play("9S")) is None


def test_jack_demand_excluding_the_demander():
    rules = replace(preset("makao"), jack_demand_duration=DemandDuration.ROUND_EXCLUDING_DEMANDER)
    g = jack_of_spades_demanding_eight(rules)
    g.play(play("8D"))
    g.play(play("8C"))
    g.play(play("8H"))
    assert g.demand is None and g.to_move == 0


def test_a_new_jack_sets_a_new_demand():
    g = jack_of_spades_demanding_eight()
    g.play(play("JH", Rank.TEN))  # M7c
    assert g.demand == Rank.TEN
    assert g.public_view()["demand"] == {"rank": "10", "by": 1, "turns_left": 4}


def test_a_jack_demands_only_ranks_five_to_ten_and_queens():
    g = game(["JS 5C", "8D", "8C"], "9S")
    for bad in (Rank.KING, Rank.FOUR, Rank.ACE, Suit.HEARTS):
        assert refused(g.check(play("JS", bad))).rule is Rule.BAD_DEMAND  # M7d
    assert g.check(play("JS", Rank.QUEEN)) is None


def test_jack_without_demand_is_an_ordinary_card():
    g = game(["JS 5C", "5S 6D", "8C"], "9S")
    g.play(play("JS"))  # M7e
    assert g.demand is None
    assert g.check(play("5S")) is None


def test_drawing_against_a_demand_and_playing_the_drawn_card_only_if_it_meets_it():
    g = game(["JS 8S 5C", "9S 5H", "8C 6C"], "10S", stock_top="8D 9D")
    g.play(play("JS", Rank.EIGHT))
    g.play(Draw())
    assert set(g.legal_actions()) == {play("8D"), Pass()}
    g.play(Pass())
    g.play(Draw())  # Cem draws 9D: a diamond does not meet the demand
    assert refused(g.check(play("9D"))).rule is Rule.DEMAND


def test_ace_demands_a_suit_answered_by_the_suit_or_an_ace():
    g = game(["AC 5C", "7H 7C AD", "8H", "9H"], "9C")
    g.play(play("AC", Suit.HEARTS))
    assert refused(g.check(play("7C"))).rule is Rule.DEMAND  # M8b
    assert g.check(play("7H")) is None  # M8
    g.play(play("AD", Suit.SPADES))  # M8c
    assert g.demand == Suit.SPADES


def test_ace_demand_lasts_a_round_in_makao_and_one_player_in_makao_polish():
    g = game(["AC 5C", "7H 7C", "8H 8S", "9H"], "9C")
    g.play(play("AC", Suit.HEARTS))
    g.play(play("7H"))
    assert g.demand == Suit.HEARTS  # Cem still bound
    assert refused(g.check(play("8S"))).rule is Rule.DEMAND
    p = game(["AC 5C", "7H 7C", "8H 8S", "9H"], "9C", rules="makao-polish")
    p.play(play("AC", Suit.HEARTS))
    p.play(play("7H"))
    assert p.demand is None  # NEXT_ONLY
    assert p.check(play("8H")) is None


def test_ace_must_demand_a_suit_not_a_rank():
    g = game(["AC 5C", "7H"], "9C")
    assert refused(g.check(play("AC", Rank.EIGHT))).rule is Rule.BAD_DEMAND
    assert refused(g.check(play("5C", Rank.EIGHT))).rule is Rule.BAD_DEMAND
