"""Battle cards: 2, 3, K♥, K♠ and every stacking case of RULES.md (rules-research §3.4 M3-M5, M11)."""

import pytest

from engine.makao import Accept, Draw, MakaoGame, Rule

from .support import cards, game, play, refused


def two_hearts_pending(p1: str) -> MakaoGame:
    g = game(["2H 9C", p1, "5D 6D", "8S 8C"], "9H")
    g.play(play("2H"))
    assert (g.penalty, g.to_move) == (2, 1)
    return g


@pytest.mark.parametrize(
    ("answer", "total", "target"),
    [("2C", 4, 2), ("3H", 5, 2), ("KH", 7, 2)],  # M3, M3b, M3d
)
def test_penalty_passed_on_adds_up_and_moves_to_the_next(answer, total, target):
    g = two_hearts_pending(f"{answer} 5C")
    g.play(play(answer))
    assert (g.penalty, g.to_move) == (total, target)


@pytest.mark.parametrize("answer", ["3S", "KS", "5H", "4H", "JH", "AH"])  # M3c, M3e, plain, 4, J, A
def test_cards_that_cannot_answer_a_two(answer):
    g = two_hearts_pending(f"{answer} 5C")
    violation = refused(g.check(play(answer)))
    assert violation.rule is Rule.PENALTY
    assert "pending penalty of 2 cards from 2H" in violation.reason


def test_draw_is_not_an_answer_to_a_penalty():
    g = two_hearts_pending("5C 6C")
    assert refused(g.check(Draw())).rule is Rule.MUST_ANSWER
    assert list(g.legal_actions()) == [Accept()]


def test_accepting_draws_the_total_ends_the_turn_and_spends_the_top_card():
    g = game(["2H 9C", "5C 6C", "5H 6D", "8S 8C"], "9H", stock_top="AD KD")
    g.play(play("2H"))
    g.play(Accept())  # M3f
    assert g.hand(1) == cards("5C 6C AD KD")
    assert (g.penalty, g.to_move) == (0, 2)
    g.play(play("5H"))  # an ordinary heart on the spent 2H
    assert g.penalty == 0


def test_two_twos_at_once_add_up_and_the_last_sets_the_suit():
    g = game(["9C 2H 2S", "3S 3H 5C", "5D", "8C"], "9H")
    g.play(play("2H 2S"))  # M4
    assert (g.penalty, g.to_move) == (4, 1)
    assert refused(g.check(play("3H"))).rule is Rule.PENALTY
    g.play(play("3S"))
    assert (g.penalty, g.to_move) == (7, 2)


@pytest.mark.parametrize(
    ("attack", "ok", "bad"),
    [
        ("3S", ["3D", "2S", "KS"], ["2H", "KH", "4S"]),
        ("KH", ["KS", "2H", "3H"], ["KC", "KD", "2C", "3S"]),  # M5, M5b, M5c
        ("KS", ["KH", "2S", "3S"], ["KC", "2H", "3D"]),
    ],
)
def test_stacking_table(attack, ok, bad):
    top = {"3S": "9S", "KH": "9H", "KS": "9S"}[attack]
    for answer in ok + bad:
        if attack == "KS":  # Ben lays K♠, so Ada (before him) must answer
            g = game([f"{answer} 6C", "5C " + attack, "6D", "7D"], top, first=1)
        else:
            g = game(["5C " + attack, f"{answer} 6C", "6D", "7D"], top)
        g.play(play(attack))
        assert g.hand(g.to_move or 0)[0] == cards(answer)[0]
        violation = g.check(play(answer))
        assert (violation is None) == (answer in ok), (attack, answer, violation)


def test_king_of_spades_aims_at_the_previous_player():
    g = game(["8S 5C", "KS 6C", "6D 7D", "7C 9D"], "9S", first=1)
    g.play(play("KS"))
    assert (g.penalty, g.to_move) == (5, 0)  # Ada, before Ben
    assert "only KH, 2S or 3S passes it on" in refused(g.check(play("8S"))).reason
    g.play(Accept())
    assert len(g.hand(0)) == 7
    assert g.to_move == 2  # play resumes after the K♠ player (ajoz ADR 0004)


def test_king_of_spades_on_king_of_hearts_turns_ten_cards_back():
    g = game(["KH 5C KC", "KS 6C", "6D 7D", "7C 9D"], "9H")
    g.play(play("KH"))
    g.play(play("KS"))  # M5
    assert (g.penalty, g.to_move) == (10, 0)
    g.play(Accept())
    assert len(g.hand(0)) == 12
    assert g.to_move == 2


def test_defence_against_king_of_spades_by_the_previous_player_aims_forward_again():
    g = game(["2S 5C", "KS 6C", "6D 7D", "7C 9D"], "9S", first=1)
    g.play(play("KS"))
    g.play(play("2S"))  # Ada passes it on: 2S hits the player after her, Ben
    assert (g.penalty, g.to_move) == (7, 1)


def test_king_of_spades_with_two_players_the_victim_keeps_his_turn():
    g = game(["KS 5C", "6C 7D"], "9S")
    g.play(play("KS"))
    assert g.to_move == 1
    g.play(Accept())
    assert g.to_move == 1


def test_king_of_spades_switch_next():
    from dataclasses import replace

    from engine.makao import preset

    rules = replace(preset("makao"), king_of_spades_hits_previous=False)
    g = game(["8S 5C", "KS 6C", "6D 7D", "7C 9D"], "9S", first=1, rules=rules)
    g.play(play("KS"))
    assert g.to_move == 2


def test_going_out_on_a_defence_passes_the_penalty_on():
    g = game(["2H 9C", "2C", "5D 6D", "8S 8C"], "9H")
    g.play(play("2H"))
    g.play(play("2C"))  # M11
    assert g.out_order == (1,)
    assert (g.penalty, g.to_move) == (4, 2)
