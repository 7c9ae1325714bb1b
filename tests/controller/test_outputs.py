"""The devices and the feed show what the referee announces, each in its own terms."""

from typing import Any

from controller.announcements import Announcer, CameraTrouble, CardRejected, Prompt, TurnTo
from controller.commands import DeclareContract
from controller.outputs import DisplayOutput, FeedOutput, RingOutput, board_line, scoreboard_view
from controller.referee.makao import MakaoReferee
from controller.referee.threefiveeight import ThreeFiveEightReferee
from engine.cards import Card, Suit
from hardware.display.render import layout
from hardware.display.view import ScoreboardView
from hardware.events import Press, SeatButton
from hardware.ring import RingOp
from hardware.simring import SimulatedRing
from vision.events import CardPlaced, UnreadableCard

NAMES = ("Ada", "Ben", "Cem")


class FakeFeed:
    def __init__(self) -> None:
        self.events: list[tuple[str, dict[str, Any] | None]] = []
        self.states: list[dict[str, Any]] = []

    def publish_event(self, type: str, data: dict[str, Any] | None = None) -> int:
        self.events.append((type, data))
        return len(self.events)

    def publish_state(self, snapshot: dict[str, Any]) -> None:
        self.states.append(snapshot)

    def close(self, timeout: float = 3.0) -> None:
        pass


def play_a_trick(outputs: list[Any]) -> ThreeFiveEightReferee:
    ref = ThreeFiveEightReferee(NAMES, "sergeant-major", Announcer(outputs, NAMES))
    ref.start()
    ref.submit(DeclareContract("H"))
    ref.submit(SeatButton(0, Press.SHORT))
    for seat, card in ((0, "AS"), (1, "KS"), (2, "2H")):
        c = Card.from_text(card)
        ref.submit(CardPlaced(f"seat{seat}", c, 0.9, candidates=((c, 0.9),)))
    return ref


def test_ring_shows_turns_and_sweeps_to_the_trick_winner() -> None:
    ring = SimulatedRing(stream=None)
    play_a_trick([RingOutput(ring, 3)])
    ops = [(cmd.op, cmd.arg) for _t, cmd in ring.applied]
    assert ops[0] == (RingOp.SEATS, 3)
    assert (RingOp.TURN, 1) in ops and (RingOp.TURN, 2) in ops
    assert ops[-1] == (RingOp.TRICK, 2)  # Cem trumped with 2H


def test_ring_pulses_while_the_camera_cannot_see_the_mat() -> None:
    ring = SimulatedRing(stream=None)
    output = RingOutput(ring, 3)
    output.announce(CameraTrouble("knocked off the mat", "aim it at the whole mat (1 of its 4 markers in view)"))
    assert ring.state.camera_fault
    output.announce(CameraTrouble(None))
    assert [(cmd.op, cmd.arg) for _t, cmd in ring.applied][-2:] == [(RingOp.CAMERA, 1), (RingOp.CAMERA, 0)]
    assert not ring.state.camera_fault


def test_feed_snapshots_say_the_camera_cannot_see_the_mat_while_it_lasts() -> None:
    """Events are not retained: a spectator who opens the page while the camera is off the mat learns why the game
    waits from the retained snapshot."""
    feed = FakeFeed()
    output = FeedOutput(feed)
    announcer = Announcer([output], NAMES)
    ref = play_a_trick([output])
    announcer.announce(CameraTrouble("knocked off the mat", "aim it at the whole mat (1 of its 4 markers in view)"))
    announcer.show(ref.state())
    kind, data = feed.events[-1]
    assert kind == "camera" and data is not None and data["headline"] == "knocked off the mat"
    assert feed.states[-1]["camera"] == "knocked off the mat"
    announcer.announce(CameraTrouble(None))
    announcer.show(ref.state())
    assert "camera" not in feed.states[-1]


def test_feed_gets_public_events_and_state_but_no_button_prompts() -> None:
    feed = FakeFeed()
    play_a_trick([FeedOutput(feed)])
    types = [t for t, _d in feed.events]
    assert types.count("card_played") == 3 and types[-1] == "trick_won"
    assert Prompt.kind not in types
    assert feed.events[-1][1] == {
        "trick": 0,
        "winner": 2,
        "cards": [[0, "AS"], [1, "KS"], [2, "2H"]],
        "tricks_taken": [0, 0, 1],
    }
    assert feed.states[-1]["tricks_taken"] == [0, 0, 1] and feed.states[-1]["contract"] == "H"


def test_scoreboard_view_of_a_hand_in_play() -> None:
    ref = play_a_trick([])
    view = scoreboard_view(ref.state())
    assert [s.name for s in view.seats] == list(NAMES)
    assert [s.target for s in view.seats] == [8, 5, 3]
    assert view.seats[2].tricks == 1 and view.last_trick_winner == 2 and view.contract == "H"


class RecordingBoard:
    """Stands where the e-ink Scoreboard stands: keeps each view it is asked to show."""

    def __init__(self) -> None:
        self.views: list[ScoreboardView] = []

    def show(self, view: ScoreboardView) -> None:
        self.views.append(view)


def _footer_texts(view: ScoreboardView) -> list[str]:
    """The footer lines a player would read on the 2.9-inch panel, as laid out for drawing."""
    return [t.text for t in layout(view, (296, 128)).texts if t.role == "footer"]


def test_scoreboard_asks_the_player_of_an_unreadable_card_and_clears_once_answered() -> None:
    board = RecordingBoard()
    ref = ThreeFiveEightReferee(NAMES, "sergeant-major", Announcer([DisplayOutput(board)], NAMES))
    ref.start()
    ref.submit(DeclareContract("H"))
    ref.submit(SeatButton(0, Press.SHORT))
    ref.submit(CardPlaced("seat0", Card.from_text("AS"), 0.9, candidates=((Card.from_text("AS"), 0.9),)))
    guesses = ((Card.from_text("KS"), 0.5), (Card.from_text("KC"), 0.4))
    ref.submit(UnreadableCard("seat1", best_guesses=guesses))
    assert board.views[-1].message == "Ben: card unreadable, place it again"
    ref.submit(SeatButton(1, Press.SHORT))
    asked = board.views[-1]
    assert asked.message == "Ben: is it KS? long press to accept"
    assert any(line.startswith("Ben: is it KS?") for line in _footer_texts(asked))
    ref.submit(SeatButton(1, Press.SHORT))
    assert board.views[-1].message == "Ben: is it KC? long press to accept"
    ref.submit(SeatButton(1, Press.LONG))  # KC accepted: Cem to play, nothing left to ask
    assert ref.state().current_trick[-1] == (1, Card.from_text("KC"))
    assert board.views[-1].message == ""
    assert board.views[-1].turn == 2


def test_the_board_says_the_camera_cannot_see_the_mat_over_a_question_and_gives_the_question_back() -> None:
    """Asked "is it KS?", Ben is told instead that the camera was knocked off the mat while it is; once the camera
    sees the mat again the question is back on the board, unanswered."""
    board = RecordingBoard()
    announcer = Announcer([DisplayOutput(board)], NAMES)
    ref = ThreeFiveEightReferee(NAMES, "sergeant-major", announcer)
    ref.start()
    ref.submit(DeclareContract("H"))
    ref.submit(SeatButton(0, Press.SHORT))
    ref.submit(CardPlaced("seat0", Card.from_text("AS"), 0.9, candidates=((Card.from_text("AS"), 0.9),)))
    ref.submit(UnreadableCard("seat1", best_guesses=((Card.from_text("KS"), 0.5), (Card.from_text("KC"), 0.4))))
    ref.submit(SeatButton(1, Press.SHORT))
    assert board.views[-1].message == "Ben: is it KS? long press to accept"
    announcer.announce(CameraTrouble("knocked off the mat", "aim it at the whole mat (1 of its 4 markers in view)"))
    announcer.show(ref.state())
    told = board.views[-1]
    assert told.message == "Camera: knocked off the mat"
    assert _footer_texts(told) == ["Camera: knocked off the mat"], "the small panel says it whole"
    announcer.announce(CameraTrouble(None))
    announcer.show(ref.state())
    assert board.views[-1].message == "Ben: is it KS? long press to accept"


def test_scoreboard_tells_the_table_to_clear_the_zones_after_a_trick() -> None:
    board = RecordingBoard()
    play_a_trick([DisplayOutput(board)])
    assert board.views[-1].message == "Cem takes it: clear the zones"
    assert board.views[-1].last_trick_winner == 2


def test_board_line_names_the_card_and_the_reason_of_a_refusal() -> None:
    line = board_line(CardRejected("seat2", Card.from_text("10H"), "not your turn", seat=2), NAMES)
    assert line == "10♥ not accepted: not your turn"
    assert board_line(TurnTo(1, "seat1"), NAMES) is None


def test_scoreboard_names_the_declarer_asked_for_the_contract_at_the_start() -> None:
    board = RecordingBoard()
    ref = ThreeFiveEightReferee(NAMES, "sergeant-major", Announcer([DisplayOutput(board)], NAMES))
    ref.start()  # asks before any state was shown: the table shows the first state right after
    ref.announcer.show(ref.state())
    assert board.views[-1].message.startswith("Ada: name the contract")


def test_scoreboard_shows_an_aces_demand_as_its_suit() -> None:
    board = RecordingBoard()
    ref = MakaoReferee(NAMES, "makao", Announcer([DisplayOutput(board)], NAMES))
    ref.start()
    for card in ("7H", "AH"):  # the starter, then Ada's ace
        c = Card.from_text(card)
        ref.submit(CardPlaced("pile", c, 0.9, candidates=((c, 0.9),)))
    for _ in range(3):  # no demand -> spades -> hearts
        ref.submit(SeatButton(0, Press.SHORT))
    assert board.views[-1].message == "Ada: demand hearts? long press to confirm"
    ref.submit(SeatButton(0, Press.LONG))
    makao = board.views[-1].makao
    assert makao is not None and makao.suit is Suit.HEARTS and makao.demand is None
    drawn = [t.text for t in layout(board.views[-1], (296, 128)).texts]
    assert "Makao · Top A♥ · suit ♥" in drawn  # not "wants H"
