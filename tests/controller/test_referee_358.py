"""The 3-5-8 referee at a physical table, driven by the typed inputs a camera and buttons give."""

import io
from pathlib import Path

import pytest

from controller.announcements import (
    Announcer,
    AskReplace,
    CardAccepted,
    CardRejected,
    ContractDeclared,
    Correction,
    GameOver,
    HandScored,
    ListOutput,
    PrinterOutput,
    Prompt,
    TrickWon,
    TurnTo,
    ViolationFound,
)
from controller.commands import DeclareContract
from controller.feed.control import CorrectCard
from controller.journal import Journal
from controller.referee.threefiveeight import Phase, ThreeFiveEightReferee
from controller.simulation import direct_inputs, script_358
from engine.cards import Card
from hardware.events import Press, SeatButton
from vision.events import CardPlaced, CardRemoved, UnreadableCard, ZoneCleared
from vision.zones import layout_for

NAMES = ("Ada", "Ben", "Cem")


def C(text: str) -> Card:
    return Card.from_text(text)


def placed(seat: int, card: str, *alts: tuple[str, float], zone: str = "") -> CardPlaced:
    first = C(card)
    return CardPlaced(zone or f"seat{seat}", first, 0.9, candidates=((first, 0.9), *((C(c), p) for c, p in alts)))


def referee(preset: str = "sergeant-major", journal: Journal | None = None) -> tuple[ThreeFiveEightReferee, ListOutput]:
    heard = ListOutput()
    ref = ThreeFiveEightReferee(NAMES, preset, Announcer([heard], NAMES), journal)
    ref.start()
    return ref, heard


def in_play(contract: str = "D") -> tuple[ThreeFiveEightReferee, ListOutput]:
    """Hand 1 of sergeant-major: Ada (seat 0) deals, is the 8 and leads; contract named by the operator."""
    ref, heard = referee()
    ref.submit(DeclareContract(contract))
    ref.submit(SeatButton(0, Press.SHORT))  # kitty done
    assert ref.phase is Phase.PLAY
    return ref, heard


def phase(ref: ThreeFiveEightReferee) -> Phase:
    return ref.phase


def clear(ref: ThreeFiveEightReferee) -> None:
    for seat in range(3):
        ref.submit(ZoneCleared(f"seat{seat}"))


@pytest.mark.parametrize("preset", ["sergeant-major", "ucbessekiz", "online-18", "pagat"])
def test_whole_hands_from_card_events_match_the_bots_game(preset: str) -> None:
    """Every trick's winner and the scores the table announces are the true ones."""
    actions, truth = script_358(preset, seed=3, hands=3)
    ref, heard = referee(preset)
    for item in direct_inputs(actions):
        ref.submit(item)
    assert [a.winner for a in heard.of(TrickWon)] == [w for hand in truth.winners for w in hand]
    assert heard.of(HandScored)[-1].totals == truth.scores
    assert not heard.of(CardRejected)
    true_hands = truth.session.to_record()["hands"]
    assert isinstance(true_hands, list)
    played = ref.record()["hands"][: len(true_hands)]
    assert [h["plays"] for h in played] == [h["plays"] for h in true_hands]


def test_a_card_out_of_turn_is_rejected_and_announced() -> None:
    ref, heard = in_play()
    ref.submit(placed(1, "KS"))
    rejected = heard.of(CardRejected)
    assert rejected and "out of turn: it is Ada's turn" in rejected[-1].reason
    assert not heard.of(CardAccepted)
    ref.submit(placed(0, "AS"))
    assert heard.of(CardAccepted)[-1].card == C("AS")


def test_wrong_zone_is_rejected() -> None:
    ref, heard = in_play()
    ref.submit(placed(0, "AS"))
    ref.submit(placed(0, "KS", zone="seat0"))
    assert "Ada already played to this trick" in heard.of(CardRejected)[-1].reason
    ref.submit(placed(0, "QS", zone="pile"))
    assert heard.of(CardRejected)[-1].reason == "wrong zone: play into your own zone (Ben's is SEAT 2)"
    assert len(heard.of(CardAccepted)) == 1


def test_a_revoke_is_announced_the_moment_it_is_proven_with_the_proof() -> None:
    ref, heard = in_play("D")
    for seat, card in ((0, "AS"), (1, "2H"), (2, "3S")):
        ref.submit(placed(seat, card))
    assert heard.of(TrickWon)[-1].winner == 0
    assert ref.phase is Phase.COLLECT
    clear(ref)
    assert heard.of(TurnTo)[-1].seat == 0
    assert not heard.of(ViolationFound)
    ref.submit(placed(0, "KS"))
    ref.submit(placed(1, "4S"))
    (revoke,) = heard.of(ViolationFound)
    assert (revoke.seat, revoke.trick, revoke.proven_at) == (1, 1, 2)
    assert "4S" in revoke.reason and "trick 1" in revoke.reason


def test_next_lead_waits_until_the_zones_are_cleared() -> None:
    ref, heard = in_play()
    for seat, card in ((0, "AS"), (1, "2S"), (2, "3S")):
        ref.submit(placed(seat, card))
    ref.submit(placed(0, "KS"))
    assert "wait until the trick is collected" in heard.of(CardRejected)[-1].reason
    ref.submit(ZoneCleared("seat0"))
    ref.submit(ZoneCleared("seat1"))
    assert phase(ref) is Phase.COLLECT
    ref.submit(ZoneCleared("seat2"))
    assert phase(ref) is Phase.PLAY


def test_an_impossible_reading_falls_back_on_the_next_candidate() -> None:
    ref, heard = in_play()
    for seat, card in ((0, "AS"), (1, "2S"), (2, "3S")):
        ref.submit(placed(seat, card))
    clear(ref)
    ref.submit(placed(0, "AS", ("AC", 0.08)))  # AS was played at trick 1: it must be the AC
    accepted = heard.of(CardAccepted)[-1]
    assert (accepted.card, accepted.corrected_from) == (C("AC"), C("AS"))


def test_an_impossible_reading_without_alternatives_asks_the_player() -> None:
    ref, heard = in_play()
    for seat, card in ((0, "AS"), (1, "2S"), (2, "3S")):
        ref.submit(placed(seat, card))
    clear(ref)
    ref.submit(placed(0, "2S"))
    assert heard.of(AskReplace)[-1].zone == "seat0"
    assert len(heard.of(CardAccepted)) == 3


def test_an_unreadable_card_is_picked_with_the_button() -> None:
    ref, heard = in_play()
    ref.submit(UnreadableCard("seat0", best_guesses=((C("QH"), 0.4), (C("QD"), 0.3))))
    assert heard.of(AskReplace)[-1].seat == 0
    ref.submit(SeatButton(0, Press.SHORT))
    ref.submit(SeatButton(0, Press.SHORT))
    assert "QD" in heard.of(Prompt)[-1].message
    ref.submit(SeatButton(0, Press.LONG))
    assert heard.of(CardAccepted)[-1].card == C("QD")


def test_the_player_asked_about_a_card_hears_the_zone_as_the_mat_prints_it() -> None:
    """The zones are numbered from 0 in code and records, from 1 on the mat: Ben, in the second seat, is told
    about the zone the mat labels SEAT 2."""
    ref, heard = in_play()
    ref.submit(placed(0, "7D"))
    ref.submit(UnreadableCard("seat1", best_guesses=((C("QH"), 0.4), (C("QD"), 0.3))))
    out = io.StringIO()
    PrinterOutput(NAMES, out).announce(heard.of(AskReplace)[-1])
    printed = layout_for("358").zone("seat1").label
    assert printed == "SEAT 2"
    assert out.getvalue().startswith(f"Ben: the card in {printed} cannot be read")
    assert "seat1" not in out.getvalue()


def test_the_card_picked_for_an_unreadable_one_read_by_the_camera_later_is_not_a_second_card() -> None:
    """Ada picked QD for the card the table could not read; the camera reads it a moment later, the tracker
    saying it is the card it asked about. It was played already: no second card, no rejection. Once the trick
    is collected, a card in her zone is a card again."""
    ref, heard = in_play()
    ref.submit(UnreadableCard("seat0", best_guesses=((C("QH"), 0.4), (C("QD"), 0.3))))
    for press in (Press.SHORT, Press.SHORT, Press.LONG):
        ref.submit(SeatButton(0, press))
    assert [a.card for a in heard.of(CardAccepted)] == [C("QD")]
    first = C("QH")  # read at last, as the other red queen
    ref.submit(CardPlaced("seat0", first, 0.8, candidates=((first, 0.8),), answers_ask=True))
    assert [a.card for a in heard.of(CardAccepted)] == [C("QD")] and not heard.of(CardRejected)
    for seat, card in ((1, "2D"), (2, "3D")):
        ref.submit(placed(seat, card))
    clear(ref)
    ref.submit(placed(0, "KD"))  # QD won the trick: Ada leads again
    assert heard.of(CardAccepted)[-1].card == C("KD")


def test_a_suit_in_doubt_is_settled_when_the_other_suit_of_its_rank_was_played() -> None:
    ref, heard = in_play()
    for seat, card in ((0, "QD"), (1, "2D"), (2, "3D")):
        ref.submit(placed(seat, card))
    clear(ref)
    asked = len(heard.of(AskReplace))
    ref.submit(UnreadableCard("seat0", best_guesses=((C("QD"), 0.45), (C("QH"), 0.4), (C("KH"), 0.05))))
    assert heard.of(CardAccepted)[-1].card == C("QH")  # QD lies in the first trick: the red queen is QH
    assert len(heard.of(AskReplace)) == asked


def test_a_suit_in_doubt_is_asked_when_both_suits_are_still_out_or_the_rank_is_unsure() -> None:
    ref, heard = in_play()
    for seat, card in ((0, "QD"), (1, "2D"), (2, "3D")):
        ref.submit(placed(seat, card))
    clear(ref)
    ref.submit(UnreadableCard("seat0", best_guesses=((C("7H"), 0.45), (C("7D"), 0.4))))  # neither 7 played
    assert heard.of(AskReplace)[-1].zone == "seat0"
    ref.submit(UnreadableCard("seat0", best_guesses=((C("QD"), 0.35), (C("QH"), 0.3), (C("KH"), 0.25))))
    assert len(heard.of(AskReplace)) == 2  # a queen only 0.65 sure: QH is not taken on the deck's word
    assert len(heard.of(CardAccepted)) == 3


def test_a_settled_suit_that_would_be_a_revoke_is_asked_not_taken() -> None:
    ref, heard = in_play()
    for seat, card in ((0, "2S"), (1, "3S"), (2, "AS")):
        ref.submit(placed(seat, card))
    clear(ref)
    ref.submit(placed(2, "4C"))  # Cem won and leads clubs
    ref.submit(placed(0, "5S"))  # Ada shows she has no club
    ref.submit(placed(1, "6C"))  # Ben wins and leads
    clear(ref)
    ref.submit(placed(1, "9D"))
    ref.submit(placed(2, "10D"))
    # Ada's card: spade or club, and 5S was played. A club would prove a revoke (she had none): ask.
    ref.submit(UnreadableCard("seat0", best_guesses=((C("5S"), 0.5), (C("5C"), 0.45))))
    assert heard.of(AskReplace)[-1].zone == "seat0"
    assert [a.card for a in heard.of(CardAccepted)][-1] == C("10D")


def test_undo_and_correction() -> None:
    ref, heard = in_play()
    ref.submit(placed(0, "AS"))
    ref.submit(SeatButton(2, Press.LONG))
    assert heard.of(Correction)[-1].old == C("AS")
    assert heard.of(TurnTo)[-1].seat == 0
    ref.submit(placed(0, "AC"))
    ref.submit(placed(1, "2C"))
    ref.submit(CorrectCard(seat=1, card=C("3C")))
    correction = heard.of(Correction)[-1]
    assert (correction.old, correction.new) == (C("2C"), C("3C"))
    assert ref.record()["hands"][0]["plays"] == [{"seat": 0, "card": "AC"}, {"seat": 1, "card": "3C"}]


def test_ucbessekiz_asks_for_two_of_clubs_to_decide_the_eight() -> None:
    ref, _ = referee("ucbessekiz")
    assert phase(ref) is Phase.SHOW_2C
    ref.submit(placed(2, "2C"))
    assert ref.hand is not None and ref.hand.eight == 2
    assert phase(ref) is Phase.CONTRACT


def test_the_session_ends_with_game_over() -> None:
    actions, truth = script_358("pagat", seed=1, hands=20)
    ref, heard = referee("pagat")
    for item in direct_inputs(actions):
        ref.submit(item)
    if truth.session.is_over:
        (over,) = heard.of(GameOver)
        assert over.winners == (truth.session.outcome().winner,)
        assert ref.phase is Phase.GAME_OVER


def test_a_restarted_referee_resumes_the_same_game_from_its_journal(tmp_path: Path) -> None:
    inputs = list(direct_inputs(script_358("online-18", seed=5, hands=2)[0]))
    whole, _ = referee("online-18")
    for item in inputs:
        whole.submit(item)
    path = tmp_path / "journal.jsonl"
    first, _ = referee("online-18", Journal(path))
    for item in inputs[:70]:
        first.submit(item)
    assert first.journal is not None
    first.journal.close()
    second = ThreeFiveEightReferee(NAMES, "online-18", Announcer([ListOutput()], NAMES), Journal(path))
    assert second.resume() == 70
    assert second.state() == first.state()
    for item in inputs[70:]:
        second.submit(item)
    second.close()
    assert second.record() == whole.record()


def test_an_exchange_shown_in_the_exchange_zone_is_checked() -> None:
    """Hand 2 of sergeant-major after a hand scored (+1, -1, 0): the plus player gives one card."""
    actions, _truth = script_358("sergeant-major", seed=3, hands=1)
    ref, heard = referee()
    for item in direct_inputs(actions):
        ref.submit(item)
    assert ref.hand is not None and phase(ref) is Phase.EXCHANGE
    due = ref.hand.effective_exchange_due[0]
    ref.submit(CardPlaced("exchange", C("5D"), 0.9))
    ref.submit(CardPlaced("exchange", C("3D"), 0.9))  # returned lower than given: against the rule
    (bad,) = heard.of(ViolationFound)
    assert bad.rule == "exchange-return" and bad.seat == due.receiver
    assert "3D" in bad.reason


def test_a_card_shown_for_the_contract_during_the_exchange_is_proposed_not_declared() -> None:
    """Hand 2 of sergeant-major opens with the exchange. A card the declarer shows in his zone there used
    to declare at once, so a club read as a spade set spades for the hand with no way back; now it is
    proposed, his long press declares it, and a long press with nothing proposed (the choice left from
    hand 1) declares nothing."""
    actions, _truth = script_358("sergeant-major", seed=3, hands=1)
    ref, heard = referee()
    for item in direct_inputs(actions):
        ref.submit(item)
    assert ref.hand is not None and phase(ref) is Phase.EXCHANGE
    eight = ref.hand.eight
    declared = len(heard.of(ContractDeclared))
    ref.submit(SeatButton(eight, Press.LONG))  # nothing shown yet this hand
    assert len(heard.of(ContractDeclared)) == declared and phase(ref) is Phase.EXCHANGE
    ref.submit(placed(eight, "QS"))  # QC shown, read as QS
    assert heard.of(Prompt)[-1].message == "contract spades? long press to confirm"
    assert len(heard.of(ContractDeclared)) == declared and ref.hand.contract is None
    ref.submit(placed(eight, "QC"))  # shown again, read right this time
    assert heard.of(Prompt)[-1].message == "contract clubs? long press to confirm"
    ref.submit(SeatButton(eight, Press.LONG))
    assert heard.of(ContractDeclared)[-1] == ContractDeclared(eight, "C")
    assert ref.hand.contract is not None and ref.hand.contract.value == "C"


def test_a_card_the_declarer_shows_in_the_exchange_after_the_contract_does_not_change_it() -> None:
    """online-18 exchanges after the contract (and the kitty). A card the declarer put in his own zone
    there used to be taken as a new contract and re-declared; the contract stands and the card is
    refused as out of time."""
    actions, _truth = script_358("online-18", seed=0, hands=1)
    ref, heard = referee("online-18")
    for item in direct_inputs(actions):
        ref.submit(item)
    assert ref.hand is not None and phase(ref) is Phase.CONTRACT
    eight = ref.hand.eight
    ref.submit(DeclareContract("H"))
    ref.submit(SeatButton(eight, Press.SHORT))  # kitty picked up and discarded
    assert phase(ref) is Phase.EXCHANGE
    declared = len(heard.of(ContractDeclared))
    ref.submit(placed(eight, "QS"))
    assert len(heard.of(ContractDeclared)) == declared
    assert ref.hand.contract is not None and ref.hand.contract.value == "H"
    assert heard.of(CardRejected)[-1].card == C("QS")


def test_a_weak_alternative_reading_does_not_explain_away_a_revoke() -> None:
    ref, heard = in_play("D")
    for seat, card in ((0, "AS"), (1, "2H"), (2, "3S")):
        ref.submit(placed(seat, card))
    clear(ref)
    ref.submit(placed(0, "KS"))
    ref.submit(placed(1, "4S", ("4C", 0.1)))  # 4S proves the revoke; a 10% "4C" must not hide it
    assert heard.of(CardAccepted)[-1].card == C("4S")
    assert [v.rule for v in heard.of(ViolationFound)] == ["follow-suit"]


def test_a_card_shown_for_the_contract_proposes_its_suit_and_the_declarer_confirms() -> None:
    """The suit is what the camera misreads most: a club shown for the contract and read as a spade is
    heard as "spades?", and the declarer moves on to clubs with short presses before confirming."""
    ref, heard = referee()
    assert ref.phase is Phase.CONTRACT and ref.hand is not None and ref.hand.eight == 0
    ref.submit(placed(0, "QS"))  # Ada shows QC, read as QS
    assert "contract spades?" in heard.of(Prompt)[-1].message
    assert not heard.of(ContractDeclared) and ref.phase is Phase.CONTRACT
    for _ in range(3):  # spades -> hearts -> diamonds -> clubs
        ref.submit(SeatButton(0, Press.SHORT))
    ref.submit(SeatButton(0, Press.LONG))
    assert heard.of(ContractDeclared) == [ContractDeclared(0, "C")]
    assert ref.phase is not Phase.CONTRACT


def test_a_card_picked_up_and_laid_again_before_the_trick_is_collected_is_the_card_played() -> None:
    # A player straightens the card the table accepted (the tracker bench's --retake on 3-5-8): the tracker reports
    # it removed and, laid again, placed. It was announced "Ben already played to this trick" (in play) and "wait
    # until the trick is collected" (the trick full); it is the card played, and the trick goes on.
    ref, heard = in_play()
    ref.submit(placed(0, "AS"))
    ref.submit(placed(1, "2S"))
    ref.submit(CardRemoved("seat1", C("2S")))
    ref.submit(ZoneCleared("seat1"))
    ref.submit(placed(1, "2S"))
    ref.submit(placed(2, "3S"))
    assert ref.phase is Phase.COLLECT and heard.of(TrickWon)[-1].winner == 0
    ref.submit(CardRemoved("seat0", C("AS")))
    ref.submit(ZoneCleared("seat0"))
    assert ref.phase is Phase.COLLECT  # the other two still lie there
    ref.submit(placed(0, "AS"))
    assert not heard.of(CardRejected)
    assert [a.card for a in heard.of(CardAccepted)] == [C("AS"), C("2S"), C("3S")]
    clear(ref)
    assert phase(ref) is Phase.PLAY and heard.of(TurnTo)[-1].seat == 0


@pytest.mark.parametrize("cleared", [False, True])
def test_a_card_named_with_the_button_then_laid_again_and_read_is_the_card_played(cleared: bool) -> None:
    # tango_nuevo, 3-5-8 with --retake, seeds 0 and 1: the card the table could not read, picked with the button,
    # was the trick's last; its player straightened it before the trick was collected. The tracker, which never
    # had it, reported no removal (at most its zone cleared, nothing left in it), and read it laid again: "wait
    # until the trick is collected" was announced for a card nobody played. It is that card laid again.
    ref, heard = in_play()
    for seat, card in ((0, "AS"), (1, "2S")):
        ref.submit(placed(seat, card))
    ref.submit(UnreadableCard("seat2", best_guesses=((C("3S"), 0.4), (C("3C"), 0.3))))
    for press in (Press.SHORT, Press.LONG):
        ref.submit(SeatButton(2, press))
    assert ref.phase is Phase.COLLECT and [a.card for a in heard.of(CardAccepted)] == [C("AS"), C("2S"), C("3S")]
    if cleared:
        ref.submit(ZoneCleared("seat2"))  # picked up
    ref.submit(placed(2, "3S"))  # laid again, read
    assert not heard.of(CardRejected)
    clear(ref)
    assert phase(ref) is Phase.PLAY and heard.of(TurnTo)[-1].seat == 0
    ref.submit(placed(2, "KS"))  # a card of Cem's own, out of turn, is still rejected
    assert "out of turn" in heard.of(CardRejected)[-1].reason


def test_an_ask_withdrawn_with_a_long_press_undoes_nothing_and_the_card_laid_next_is_played() -> None:
    # Ben's zone held something the camera could not read on his turn (a card face down): asked about, his long
    # press before any guess says he laid no card. Without an ask the long press takes the last card back; here it
    # only withdraws the ask, and the card he lays next is his play.
    ref, heard = in_play()
    ref.submit(placed(0, "AS"))
    ref.submit(UnreadableCard("seat1", best_guesses=((C("KS"), 0.3), (C("KC"), 0.2))))
    ref.submit(SeatButton(1, Press.LONG))
    assert heard.of(Prompt)[-1].message == "no card laid: the table asks no more"
    assert not heard.of(Correction) and [a.card for a in heard.of(CardAccepted)] == [C("AS")]
    ref.submit(placed(1, "2S"))
    assert [a.card for a in heard.of(CardAccepted)] == [C("AS"), C("2S")]


def test_a_rejected_card_picked_up_and_laid_on_its_turn_is_played_and_a_second_card_is_still_rejected() -> None:
    ref, heard = in_play()
    ref.submit(placed(1, "KS"))  # out of turn
    ref.submit(CardRemoved("seat1", C("KS")))
    ref.submit(ZoneCleared("seat1"))
    ref.submit(placed(0, "AS"))
    ref.submit(placed(1, "KS"))
    assert [a.card for a in heard.of(CardAccepted)] == [C("AS"), C("KS")]
    ref.submit(CardRemoved("seat1", C("KS")))
    ref.submit(placed(1, "QS"))  # another card in its place: a second card from Ben
    assert "Ben already played to this trick" in heard.of(CardRejected)[-1].reason
