"""Table mode, as the controller drives it from the camera: observed plays, proofs, undo, views."""

import json

import pytest

from engine.cards import Card
from engine.errors import IllegalActionError
from engine.threefiveeight.hand import Hand, Phase
from engine.threefiveeight.rules import PRESETS, Contract
from engine.threefiveeight.session import Session
from engine.threefiveeight.view import public_view, seat_view
from tests.engine.helpers_358 import deal_with

C = Card.from_text


def table_hand(preset: str = "sergeant-major"):  # type: ignore[no-untyped-def]
    session = Session(PRESETS[preset], ["Ada", "Ben", "Cem"], strict=False)
    hand = session.new_hand(dealer=0) if preset != "ucbessekiz" else session.new_hand(declarer=0)
    hand.set_contract(Contract.SPADES)
    return session, hand


def test_a_revoke_is_flagged_when_the_proof_appears_citing_the_earlier_trick() -> None:
    _s, hand = table_hand()
    for seat, card in ((0, "KH"), (1, "2C"), (2, "AH")):
        assert hand.play(seat, C(card)).violations == ()
    assert hand.to_move == 2
    hand.play(2, C("3D"))
    hand.play(0, C("4D"))
    result = hand.play(1, C("7H"))
    assert result.trick is not None and result.trick.winner == 0
    (violation,) = result.violations
    assert (violation.trick, violation.seat, str(violation.card), violation.rule, violation.proven_at) == (
        1,
        1,
        "2C",
        "follow-suit",
        2,
    )
    assert violation.reason == (
        "Ben must follow hearts: they played 7H at trick 2 after discarding 2C on hearts at trick 1"
    )


def test_out_of_turn_and_seen_twice_are_flagged_at_once() -> None:
    _s, hand = table_hand()
    assert [v.rule for v in hand.play(1, C("5S")).violations] == ["out-of-turn"]
    assert hand.to_move == 0  # still Ada's lead
    assert [v.rule for v in hand.play(0, C("5S")).violations] == ["duplicate-card"]
    with pytest.raises(IllegalActionError, match="Ben already played to trick 1"):
        hand.play(1, C("6S"))


def test_the_final_audit_finds_a_missed_overtake() -> None:
    _s, hand = table_hand("ucbessekiz")  # counterclockwise: 0, 2, 1
    plays = [(0, "10H"), (2, "9H"), (1, "2H")]  # Cem plays under 10H...
    for seat, card in plays:
        hand.play(seat, C(card))
    assert hand.violations == []
    # ... and his only later heart is the JH he kept: proven when he plays it
    result = hand.play(0, C("3H")) if hand.to_move == 0 else None
    assert result is not None
    result = hand.play(2, C("JH"))
    assert [(v.rule, v.trick, v.proven_at) for v in result.violations] == [("overtake", 1, 2)]


def test_is_possible_rejects_seen_cards_and_proven_voids() -> None:
    _s, hand = table_hand()
    hand.play(0, C("KH"))
    assert not hand.is_possible(1, C("KH"))  # already on the table
    hand.play(1, C("2C"))  # Ben shows void in hearts
    assert not hand.is_possible(1, C("9H"))
    assert hand.is_possible(2, C("9H"))
    assert hand.is_possible(1, C("9D"))


def test_exchanged_cards_are_placed() -> None:
    session = Session(PRESETS["sergeant-major"], ["Ada", "Ben", "Cem"], strict=False)
    first = session.new_hand(dealer=0)
    first.set_contract(Contract.SPADES)
    import random

    first_full = Session(PRESETS["sergeant-major"]).new_hand(deal=deal_with({}), dealer=0)
    first_full.set_contract(Contract.SPADES)
    first_full.take_kitty((first_full.hand_of(0) or [])[:4])
    first_full.random_playout(random.Random(4).random)
    for seat, card in first_full.plays:
        first.play(seat, card)
    hand = session.new_hand()
    if not hand.exchange_due:
        pytest.skip("that hand left nobody plus")
    due = hand.exchange_due[0]
    hand.give(due.giver, due.receiver, C("3D"), C("KD"))
    assert not hand.is_possible(due.giver, C("3D"))
    assert not hand.is_possible(due.receiver, C("KD"))


def test_undo_restores_the_state_and_the_violations() -> None:
    _s, hand = table_hand()
    hand.play(0, C("KH"))
    hand.play(1, C("2C"))
    hand.play(2, C("AH"))
    hand.play(2, C("3D"))
    hand.play(0, C("4D"))
    before = public_view(hand)
    hand.play(1, C("7H"))
    assert len(hand.violations) == 1
    assert hand.undo() == (1, C("7H"))
    assert hand.violations == [] and public_view(hand) == before
    hand.undo()
    hand.undo()
    assert hand.to_move == 2 and len(hand.tricks) == 1
    hand.undo()  # back into trick 1
    assert hand.to_move == 2 and len(hand.tricks) == 0 and hand.taken == (0, 0, 0)
    hand.play(2, C("AH"))
    assert hand.tricks[0].winner == 2


def test_undo_with_nothing_played() -> None:
    _s, hand = table_hand()
    with pytest.raises(IllegalActionError, match="nothing to undo"):
        hand.undo()


def phase(hand: Hand) -> Phase:
    return hand.phase


def test_phases_and_errors_before_play() -> None:
    session = Session(PRESETS["sergeant-major"], strict=False)
    hand = session.new_hand(dealer=1)
    assert phase(hand) is Phase.CONTRACT
    with pytest.raises(IllegalActionError, match="no contract yet"):
        hand.play(1, C("AS"))
    hand.set_contract(Contract.HEARTS)
    assert phase(hand) is Phase.KITTY
    hand.play(1, C("AS"))
    assert phase(hand) is Phase.PLAY
    with pytest.raises(IllegalActionError, match="not finished"):
        session.new_hand()
    with pytest.raises(IllegalActionError, match="no seat 3"):
        hand.play(3, C("KS"))


def test_views_hide_hands_kitty_discards_and_exchanged_cards() -> None:
    session = Session(PRESETS["sergeant-major"], ["Ada", "Ben", "Cem"])
    deal = deal_with({})
    hand = session.new_hand(deal=deal, dealer=0)
    hand.set_contract(Contract.SPADES)
    own = hand.hand_of(0) or []
    hand.take_kitty(own[:4])
    hand.play(0, (hand.hand_of(0) or [])[-1])
    on_table = {str(c) for _s, c in hand.plays}
    hidden = {str(c) for s in range(3) for c in deal.cards(s)} | {str(c) for c in deal.kitty_cards}
    hidden -= on_table
    text = json.dumps(public_view(hand))
    leaked = [c for c in hidden if f'"{c}"' in text]
    assert leaked == []
    mine = seat_view(hand, 1)
    assert mine["hand_cards"] == [str(c) for c in hand.hand_of(1) or []]
    others = json.dumps({k: v for k, v in mine.items() if k != "hand_cards"})
    assert [c for c in hidden if f'"{c}"' in others] == []
    assert seat_view(hand, 0)["discards"] == [str(c) for c in own[:4]]
    assert "kitty" not in seat_view(hand, 2)
