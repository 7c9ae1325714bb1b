"""The devices and the feed show what the referee announces, each in its own terms."""

from typing import Any

from controller.announcements import Announcer, Prompt
from controller.commands import DeclareContract
from controller.outputs import FeedOutput, RingOutput, scoreboard_view
from controller.referee.threefiveeight import ThreeFiveEightReferee
from engine.cards import Card
from hardware.events import Press, SeatButton
from hardware.ring import RingOp
from hardware.simring import SimulatedRing
from vision.events import CardPlaced

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
