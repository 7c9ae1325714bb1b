"""The Makao referee: pile cards from the camera, draws and demands from the buttons."""

from pathlib import Path

import pytest

from controller.announcements import (
    Announcer,
    CardAccepted,
    CardRejected,
    Correction,
    Demand,
    DrawCards,
    GameOver,
    ListOutput,
    PenaltyPending,
    Prompt,
    StockRenewed,
    TurnTo,
)
from controller.outputs import TrackerOutput
from controller.referee.makao import MakaoReferee
from controller.simulation import Gather, MakaoTruth, direct_inputs, script_makao
from engine.cards import Card
from engine.check import check_record
from engine.makao.records import record_of
from hardware.events import Press, SeatButton
from vision.events import CardPlaced, UnreadableCard

NAMES = ("Ada", "Ben", "Cem")


def C(text: str) -> Card:
    return Card.from_text(text)


def pile(card: str, *alts: tuple[str, float]) -> CardPlaced:
    first = C(card)
    return CardPlaced("pile", first, 0.9, candidates=((first, 0.9), *((C(c), p) for c, p in alts)))


def referee(names: tuple[str, ...] = NAMES) -> tuple[MakaoReferee, ListOutput]:
    heard = ListOutput()
    ref = MakaoReferee(names, "makao", Announcer([heard], names))
    ref.start()
    return ref, heard


@pytest.mark.parametrize("players", [2, 3, 5])
def test_whole_games_from_the_pile_and_buttons_match_the_bots(players: int) -> None:
    names = ("Ada", "Ben", "Cem", "Dan", "Eve")[:players]
    actions, truth = script_makao(seed=1, players=names)
    ref, heard = referee(names)
    for item in direct_inputs(actions):
        ref.submit(item)
    record = ref.record()
    assert record["turns"] == record_of(truth.game, truth.turns, with_deal=False)["turns"]
    outcome = truth.game.outcome()
    (over,) = heard.of(GameOver)
    assert over.losers == outcome.losers and over.winners == outcome.out[:1]
    winner, losers = names[outcome.out[0]], " and ".join(names[s] for s in outcome.losers)
    assert over.text(names).startswith(f"Game over: {winner} won; {losers} lost. (")
    assert "-" not in over.reason, "the reason is told in words, not the record's code"
    report = check_record(record)
    assert report["losers"] == list(outcome.losers) and report["violations"] == []


def test_a_draw_from_an_empty_stock_announces_the_new_stock_under_the_top_card() -> None:
    """Seed 5's stock runs out once: the player who must draw takes the pile from under its top card (the
    script's ``Gather``), and the table says so before the draw, naming the top card left and how many cards
    went into the new stock; the camera's tracker hears it (``TrackerOutput``)."""
    actions, truth = script_makao(seed=5, players=NAMES)
    (gather,) = [a for a in actions if isinstance(a, Gather)]
    assert truth.game.reshuffles == 1
    ref, heard = referee()
    for item in direct_inputs(actions):
        ref.submit(item)
    (renewed,) = heard.of(StockRenewed)
    assert renewed.seat == gather.seat
    after = heard.items[heard.items.index(renewed) + 1]
    assert isinstance(after, DrawCards) and after.seat == renewed.seat
    laid = [a for a in heard.items[: heard.items.index(renewed)] if isinstance(a, CardAccepted)]
    assert renewed.top == laid[-1].card and renewed.cards == len(laid)  # the starter and all laid but the top
    assert "New stock" in renewed.text(NAMES) and str(renewed.top) in renewed.text(NAMES)


def _draw_that_renews_the_stock() -> tuple[list[object], int, int, MakaoTruth]:
    """Seed 5's inputs (a perfect camera and the buttons), where in them the press that draws from an empty stock
    and renews it is, whose press it is, and the game the bots played."""
    actions, truth = script_makao(seed=5, players=NAMES)
    at, gather = next((i, a) for i, a in enumerate(actions) if isinstance(a, Gather))
    assert isinstance(gather, Gather)
    seat = gather.seat
    inputs = list(direct_inputs(actions))
    before = len(list(direct_inputs(actions[:at])))  # a Gather gives no input: the next one is the press
    assert inputs[before] == SeatButton(seat, Press.SHORT)
    return inputs, before, seat, truth


def test_a_draw_that_renewed_the_stock_taken_back_keeps_the_new_stock_and_the_game_goes_on_as_played() -> None:
    """The player who drew from an empty stock takes the draw back (a long press) and draws again: the drawn
    card goes back on the stock, but the pile's cards were shuffled into it and stay there. The table renews
    the stock once, not again at the second draw, the pile holds only its top card, and the rest of the game
    is refereed as the bots played it."""
    inputs, at, seat, truth = _draw_that_renews_the_stock()
    ref, heard = referee()
    for item in inputs[:at]:
        ref.submit(item)
    assert ref.mgame is not None
    left = ref.mgame.stock_size  # drawn before the stock ran out (a penalty), then back on top of the new one
    ref.submit(inputs[at])
    (renewed,) = heard.of(StockRenewed)
    ref.submit(SeatButton(seat, Press.LONG))
    assert heard.of(Correction)[-1].seat == seat
    assert ref.lying() == {"pile": (renewed.top,)}
    assert ref.mgame.stock_size == left + renewed.cards
    assert "stock" in heard.of(Prompt)[-1].message
    for item in inputs[at:]:
        ref.submit(item)
    assert heard.of(StockRenewed) == [renewed]
    record = ref.record()
    assert record["turns"] == record_of(truth.game, truth.turns, with_deal=False)["turns"]
    report = check_record(record)
    assert report["violations"] == [] and report["losers"] == list(truth.game.outcome().losers)


def test_no_turn_before_a_renewal_kept_by_an_undo_can_be_taken_back() -> None:
    """Once a draw that renewed the stock is taken back, the turns before it cannot be: the cards they laid
    are shuffled in the stock. A long press says so and changes nothing."""
    inputs, at, seat, _truth = _draw_that_renews_the_stock()
    ref, heard = referee()
    for item in inputs[: at + 1]:
        ref.submit(item)
    ref.submit(SeatButton(seat, Press.LONG))
    state, corrections = ref.state(), len(heard.of(Correction))
    ref.submit(SeatButton(seat, Press.LONG))
    assert "shuffled into the stock" in heard.of(Prompt)[-1].message
    assert len(heard.of(Correction)) == corrections and ref.state() == state


def test_a_two_is_a_pending_penalty_and_a_short_press_draws_it() -> None:
    ref, heard = referee()
    ref.submit(pile("7H"))  # the starter
    ref.submit(pile("2H"))
    ref.submit(SeatButton(0, Press.SHORT))  # Ada: done
    assert heard.of(PenaltyPending)[-1] == PenaltyPending(2, 1)
    ref.submit(SeatButton(1, Press.SHORT))  # Ben accepts
    assert heard.of(DrawCards)[-1] == DrawCards(1, 2)
    assert heard.of(TurnTo)[-1].seat == 2
    assert ref.state().cards_left == (4, 7, 5)


def test_a_jack_demand_is_chosen_with_the_button() -> None:
    ref, heard = referee()
    ref.submit(pile("7H"))
    ref.submit(pile("JH"))
    for _ in range(3):  # no demand -> 5 -> 6
        ref.submit(SeatButton(0, Press.SHORT))
    assert "demand 6" in heard.of(Prompt)[-1].message
    ref.submit(SeatButton(0, Press.LONG))
    assert heard.of(Demand)[-1] == Demand(0, "6")
    assert ref.state().demand == "6"


def test_a_card_already_on_the_pile_falls_back_on_the_next_candidate_and_undo_works() -> None:
    ref, heard = referee()
    ref.submit(pile("7H"))
    ref.submit(pile("7H", ("7D", 0.1)))
    accepted = heard.of(CardAccepted)[-1]
    assert (accepted.card, accepted.corrected_from) == (C("7D"), C("7H"))
    ref.submit(SeatButton(0, Press.SHORT))
    assert heard.of(TurnTo)[-1].seat == 1
    ref.submit(SeatButton(1, Press.LONG))
    assert heard.of(Correction)[-1].old == C("7D")
    assert heard.of(TurnTo)[-1].seat == 0
    assert ref.state().top_card == C("7H")


class _HeardByTracker:
    """What the camera's tracker is told through ``TrackerOutput`` (the words, in order)."""

    def __init__(self) -> None:
        self.told: list[str] = []

    def gathered(self, zone: str, top: Card | None = None) -> None:
        self.told.append(f"gathered {zone} under {top}")

    def taken_back(self, card: Card | None) -> None:
        self.told.append(f"taken back {card}")

    def named(self, zone: str, card: Card) -> None:
        self.told.append(f"named {card} on {zone}")


def test_a_card_undone_with_a_long_press_is_told_to_the_cameras_tracker() -> None:
    """A player's long press takes back the card the table named: the camera's tracker hears it, so that the
    card laid again where it lay is read as played (``CardTracker.taken_back``)."""
    tracker = _HeardByTracker()
    to_tracker = TrackerOutput()
    to_tracker.tracker = tracker
    ref = MakaoReferee(NAMES, "makao", Announcer([to_tracker], NAMES))
    ref.start()
    ref.submit(pile("7H"))
    ref.submit(pile("7D"))
    assert tracker.told == []
    ref.submit(SeatButton(0, Press.LONG))
    assert tracker.told == ["taken back 7D"]


def test_the_card_picked_for_one_the_table_asked_about_is_told_to_the_cameras_tracker() -> None:
    """Ada picks 9C for the card the camera could not read: the tracker hears it, so that it has the card as if it
    had reported it (``CardTracker.named``: straightened, it is the card taken off the pile). A card the camera
    read is not told."""
    tracker = _HeardByTracker()
    to_tracker = TrackerOutput()
    to_tracker.tracker = tracker
    ref = MakaoReferee(NAMES, "makao", Announcer([to_tracker], NAMES))
    ref.start()
    ref.submit(pile("9H"))  # the starter
    ref.submit(unreadable(("9S", 0.4), ("9C", 0.3)))
    for press in (Press.SHORT, Press.SHORT, Press.LONG):
        ref.submit(SeatButton(0, press))
    ref.submit(SeatButton(0, Press.SHORT))  # done
    ref.submit(pile("9D"))  # Ben's, read
    assert tracker.told == ["named 9C on pile"]


def test_a_button_out_of_turn_is_refused() -> None:
    ref, heard = referee()
    ref.submit(pile("7H"))
    ref.submit(SeatButton(2, Press.SHORT))
    assert "not your turn" in heard.of(Prompt)[-1].message
    assert not heard.of(DrawCards)


def test_a_restarted_makao_referee_resumes_from_its_journal(tmp_path: Path) -> None:
    from controller.journal import Journal

    inputs = list(direct_inputs(script_makao(seed=3)[0]))
    whole, _ = referee()
    for item in inputs:
        whole.submit(item)
    path = tmp_path / "journal.jsonl"
    first = MakaoReferee(NAMES, "makao", Announcer([], NAMES), Journal(path))
    first.start()
    for item in inputs[: len(inputs) // 2]:
        first.submit(item)
    first.close()
    second = MakaoReferee(NAMES, "makao", Announcer([], NAMES), Journal(path))
    assert second.resume() == len(inputs) // 2
    assert second.state() == first.state()
    for item in inputs[len(inputs) // 2 :]:
        second.submit(item)
    second.close()
    assert second.record() == whole.record()


def test_the_starter_read_is_said_and_a_misread_one_is_taken_back_before_anyone_plays() -> None:
    ref, heard = referee()
    ref.submit(pile("9S"))  # the dealer turned up 9C; the camera read a spade
    assert any("starter 9S" in p.message for p in heard.of(Prompt))
    ref.submit(SeatButton(0, Press.LONG))  # taken back before the first play
    assert heard.of(Correction)[-1] == Correction(None, C("9S"), None, "undo the starter")
    assert ref.state().phase == "starter"
    ref.submit(pile("9C"))  # placed again, read right
    ref.submit(pile("QC"))
    ref.submit(SeatButton(0, Press.SHORT))
    record = ref.record()
    assert record["starter"] == ["9C"] and record["turns"] == [{"seat": 0, "action": "play", "cards": ["QC"]}]


def test_an_unreadable_starter_is_asked_about_and_the_game_waits_for_it() -> None:
    from controller.announcements import AskReplace

    ref, heard = referee()
    ref.submit(UnreadableCard("pile"))
    assert heard.of(AskReplace)[-1] == AskReplace("pile", None)
    assert ref.state().phase == "starter" and not heard.of(TurnTo)


def unreadable(*guesses: tuple[str, float]) -> UnreadableCard:
    return UnreadableCard("pile", best_guesses=tuple((C(c), p) for c, p in guesses))


def test_an_unreadable_card_is_picked_with_the_players_button() -> None:
    """A deck whose corner the models cannot read (a bare rank) used to be placed again and again until
    the operator entered it; its player now picks it from the table's guesses, as at the 3-5-8 table."""
    from controller.announcements import AskReplace

    ref, heard = referee()
    ref.submit(pile("9H"))  # the starter
    ref.submit(unreadable(("9S", 0.4), ("9C", 0.3), ("6S", 0.1)))  # Ada laid 9C
    assert heard.of(AskReplace)[-1] == AskReplace("pile", 0)
    ref.submit(SeatButton(1, Press.SHORT))  # Ben's press is still Ben's: not his turn
    assert "not your turn" in heard.of(Prompt)[-1].message
    ref.submit(SeatButton(0, Press.SHORT))
    assert heard.of(Prompt)[-1].message == "is it 9S? long press to accept"
    ref.submit(SeatButton(0, Press.SHORT))
    ref.submit(SeatButton(0, Press.LONG))
    assert heard.of(CardAccepted)[-1].card == C("9C")
    ref.submit(SeatButton(0, Press.SHORT))  # Ada: done, as after a card read by the camera
    assert ref.record()["turns"] == [{"seat": 0, "action": "play", "cards": ["9C"]}]
    assert heard.of(TurnTo)[-1].seat == 1


def test_the_card_its_player_named_read_by_the_camera_a_moment_later_is_not_laid_again() -> None:
    """Ada's 9C could not be read and she picked it from the guesses; once her hand is gone the camera reads
    it at last, 9C with 6C as its second guess. That is her card read, not a second card: taken for a misread
    (9C is on the pile) it would have fallen back on 6C and laid a card nobody played."""
    ref, heard = referee()
    ref.submit(pile("9H"))  # the starter
    ref.submit(unreadable(("9S", 0.4), ("9C", 0.3)))  # Ada laid 9C
    for press in (Press.SHORT, Press.SHORT, Press.LONG):
        ref.submit(SeatButton(0, press))
    assert heard.of(CardAccepted)[-1].card == C("9C")
    accepted = len(heard.of(CardAccepted))
    ref.submit(pile("9C", ("6C", 0.3)))  # the camera reads it now
    assert len(heard.of(CardAccepted)) == accepted
    ref.submit(SeatButton(0, Press.SHORT))  # Ada: done
    assert ref.record()["turns"] == [{"seat": 0, "action": "play", "cards": ["9C"]}]
    assert heard.of(TurnTo)[-1].seat == 1
    ref.submit(pile("9C", ("6C", 0.3)))  # read again in a later still run: still her card
    assert len(heard.of(CardAccepted)) == accepted
    # once another card lies on it, a reading of the named card is a misread of a new card, as before
    ref.submit(pile("9D"))  # Ben
    ref.submit(pile("9C", ("9S", 0.3)))  # Ben's second nine, 9S, read as the 9C beneath
    assert [a.card for a in heard.of(CardAccepted)[-2:]] == [C("9D"), C("9S")]


def test_the_card_asked_about_read_at_last_as_another_card_is_still_the_one_its_player_named() -> None:
    """A bare-rank deck: Ada's 6C could not be read and she picked it from the guesses; the camera then reads
    it as 9C, but the tracker says it is the card it asked about (nothing was put down since). It is the 6C."""
    ref, heard = referee()
    ref.submit(pile("6H"))  # the starter
    ref.submit(unreadable(("6C", 0.4), ("6S", 0.3)))  # Ada laid 6C
    ref.submit(SeatButton(0, Press.SHORT))
    ref.submit(SeatButton(0, Press.LONG))
    ref.submit(SeatButton(0, Press.SHORT))  # Ada: done
    first = C("9C")
    ref.submit(CardPlaced("pile", first, 0.8, candidates=((first, 0.8),), answers_ask=True))
    assert [a.card for a in heard.of(CardAccepted)] == [C("6C")]
    assert ref.record()["turns"] == [{"seat": 0, "action": "play", "cards": ["6C"]}]
    assert heard.of(TurnTo)[-1].seat == 1


def test_an_ask_about_no_card_laid_is_withdrawn_with_a_long_press_and_the_player_to_move_draws() -> None:
    """Something card-shaped the camera could not read and nobody laid (a card face down, a phone set on the
    pile) is asked about as Ben's, and every press of his went to the guesses: with none he could not draw, and
    only the operator moved the game on. A long press before any guess is named says he laid no card: the ask is
    withdrawn, nothing is undone, and the camera's reading of the top card at last is no new card."""
    from controller.announcements import AskReplace

    ref, heard = referee()
    ref.submit(pile("9H"))  # the starter
    ref.submit(pile("9C"))  # Ada
    ref.submit(SeatButton(0, Press.SHORT))  # done: Ben to move
    ref.submit(UnreadableCard("pile"))
    assert heard.of(AskReplace)[-1] == AskReplace("pile", 1)
    ref.submit(SeatButton(1, Press.SHORT))
    assert "long press if you laid none" in heard.of(Prompt)[-1].message and not heard.of(DrawCards)
    ref.submit(SeatButton(1, Press.LONG))
    assert heard.of(Prompt)[-1].message == "no card laid: the table asks no more" and not heard.of(Correction)
    top = C("9C")
    ref.submit(CardPlaced("pile", top, 0.7, candidates=((top, 0.7), (C("6C"), 0.2)), answers_ask=True))
    ref.submit(SeatButton(1, Press.SHORT))  # Ben draws
    assert heard.of(DrawCards) == [DrawCards(1, 1)] and [a.card for a in heard.of(CardAccepted)] == [C("9C")]
    assert ref.record()["turns"] == [
        {"seat": 0, "action": "play", "cards": ["9C"]},
        {"seat": 1, "action": "draw"},
    ]


def test_the_players_own_card_straightened_and_asked_about_is_withdrawn_and_his_play_ends_as_laid() -> None:
    """Ada straightens the 9C she just laid; read too weakly, it is asked about, and her press to end her play
    named a guess instead. Her long press before any guess says she laid no new card; her short press ends
    her play of the 9C alone."""
    ref, heard = referee()
    ref.submit(pile("9H"))  # the starter
    ref.submit(pile("9C"))  # Ada
    ref.submit(unreadable(("9C", 0.3), ("9S", 0.25), ("6C", 0.2)))  # the 9C laid again
    ref.submit(SeatButton(0, Press.LONG))
    ref.submit(SeatButton(0, Press.SHORT))  # done
    assert [a.card for a in heard.of(CardAccepted)] == [C("9C")] and not heard.of(Correction)
    assert ref.record()["turns"] == [{"seat": 0, "action": "play", "cards": ["9C"]}]
    assert heard.of(TurnTo)[-1].seat == 1


def test_another_players_press_waits_for_the_card_asked_about_on_an_open_play() -> None:
    """Ada's play of 9C is open and a card on the pile could not be read: her second nine, or Ben's card. Ben's
    press ended her play and moved the game on, and the ask went with it: a card laid was lost, and Ben was
    recorded drawing. It waits now until Ada answers (here: she laid none); then it is Ben's press as ever."""
    ref, heard = referee()
    ref.submit(pile("9H"))  # the starter
    ref.submit(pile("9C"))  # Ada, her play open
    ref.submit(unreadable(("9S", 0.3), ("6S", 0.25)))
    ref.submit(SeatButton(1, Press.SHORT))
    assert "not read yet: Ada picks it" in heard.of(Prompt)[-1].message
    assert not heard.of(DrawCards) and ref.record()["turns"] == []
    ref.submit(SeatButton(0, Press.LONG))  # Ada: none laid
    ref.submit(SeatButton(1, Press.SHORT))  # Ben: her play ends, and he draws
    assert ref.record()["turns"] == [{"seat": 0, "action": "play", "cards": ["9C"]}, {"seat": 1, "action": "draw"}]


def test_an_unreadable_card_whose_other_suit_lies_on_the_pile_is_the_one_left() -> None:
    """7H or 7D, and the 7D is the starter: one deck holds one 7D, so the card is the 7H."""
    from controller.announcements import AskReplace

    ref, heard = referee()
    ref.submit(pile("7D"))
    ref.submit(unreadable(("7D", 0.5), ("7H", 0.4)))
    assert heard.of(CardAccepted)[-1].card == C("7H") and not heard.of(AskReplace)
    ref.submit(SeatButton(0, Press.SHORT))
    assert ref.record()["turns"] == [{"seat": 0, "action": "play", "cards": ["7H"]}]


def test_an_unreadable_card_settled_by_its_other_suit_read_at_last_is_not_laid_again() -> None:
    """The 7H settled so (its other suit lies on the pile) is that card, as one its player named: straightened and
    read at last, 7H with JH as its next guess, it is not a second card. tango_nuevo, Makao for four with
    --retake: a QD so settled, laid again and read QD, fell back on its next guess, a JD nobody played, and its
    player had to take it back."""
    ref, heard = referee()
    ref.submit(pile("7D"))
    ref.submit(unreadable(("7D", 0.5), ("7H", 0.4)))
    assert [a.card for a in heard.of(CardAccepted)] == [C("7H")]
    ref.submit(pile("7H", ("JH", 0.3)))  # Ada straightens it; the camera reads it now
    assert [a.card for a in heard.of(CardAccepted)] == [C("7H")] and not heard.of(CardRejected)
    ref.submit(SeatButton(0, Press.SHORT))
    assert ref.record()["turns"] == [{"seat": 0, "action": "play", "cards": ["7H"]}]


def test_a_misread_card_of_another_rank_taken_back_opens_the_play_it_closed() -> None:
    """Ben lays 6C, then 6S read as 9S: a card of another rank ends Ben's play and is taken for Cem's.
    Ben's long press takes the 9S back and his play is open again, so the 6S joins it."""
    ref, heard = referee()
    ref.submit(pile("6H"))  # the starter
    ref.submit(pile("7H"))
    ref.submit(SeatButton(0, Press.SHORT))  # Ada: 7H
    ref.submit(pile("7C"))  # Ben's first card
    ref.submit(pile("9C"))  # Ben's second, 7S, read as 9C: Ben's play closes, 9C is taken for Cem's
    assert heard.of(CardAccepted)[-1].seat == 2
    ref.submit(SeatButton(1, Press.LONG))
    assert heard.of(Correction)[-1] == Correction(2, C("9C"), None, "undo")
    assert "Ben's play of 7C is open again" in heard.of(Prompt)[-1].message
    ref.submit(pile("7S"))  # placed again, read right
    ref.submit(SeatButton(1, Press.SHORT))
    assert ref.record()["turns"][-1] == {"seat": 1, "action": "play", "cards": ["7C", "7S"]}
    assert heard.of(TurnTo)[-1].seat == 2
