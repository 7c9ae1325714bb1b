"""Adapters from announcements and table state to the devices and the feed.

Each adapter is an announcement output (see :mod:`controller.announcements`): it reads the typed
announcement and drives its device in the device's own terms. The referee never talks to a device.

- :class:`RingOutput`: the LED ring (whose turn, the trick's winner, a violation, hand end, idle);
- :class:`FeedOutput`: the MQTT feed (events by kind, the retained public state);
- :class:`DisplayOutput`: the e-ink scoreboard (a :class:`~hardware.display.ScoreboardView` per state),
  with what the table waits for on its message line (:func:`board_line`);
- :class:`TrackerOutput`: the camera's tracker, told what the referee learnt that a camera cannot see (the
  pile under its top card taken away for a new stock, a card taken back).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, Protocol

from controller.announcements import (
    Announcement,
    AskReplace,
    CameraTrouble,
    CardAccepted,
    CardRejected,
    Correction,
    ExchangeInstruction,
    GameOver,
    HandScored,
    HandStarted,
    KittyInstruction,
    Prompt,
    ShowCard,
    StockRenewed,
    TrickWon,
    TurnTo,
    ViolationFound,
    WaitForClear,
    payload,
)
from controller.state import TableState
from engine.cards import Card, Suit
from hardware.display.view import MakaoLine, ScoreboardView, SeatLine
from hardware.ring import Ring
from vision.zones import printed_label

__all__ = ["DisplayOutput", "FeedOutput", "RingOutput", "TrackerOutput", "board_line", "scoreboard_view"]

log = logging.getLogger(__name__)


class CameraTracker(Protocol):
    """What :class:`TrackerOutput` tells: a :class:`vision.tracker.CardTracker` (no import of vision here)."""

    def gathered(self, zone: str, top: Card | None = None) -> None: ...

    def taken_back(self, card: Card | None) -> None: ...

    def named(self, zone: str, card: Card) -> None: ...


class TrackerOutput:
    """The referee's word to the camera's tracker (:class:`vision.tracker.CardTracker`): at a new stock
    (``StockRenewed``) the cards under the pile's top card are gone, so one of them played again is a new card,
    not that card seen again; a card undone (``Correction`` with no new card: a player's long press, the table
    named it wrong) is taken back, so the view in which it was reported no longer shows what lay there before;
    the card accepted for one the table asked about on the pile (``AskReplace``, then ``CardAccepted``: picked with
    the button or entered) is that card, which the tracker then has as if it had reported it.
    ``tracker`` is set once the camera is calibrated (``None`` until then: nothing to tell) and replaced with it."""

    def __init__(self, zone: str = "pile") -> None:
        self.zone = zone
        self.asked = False
        """The table asked about a card on ``zone`` and no card was accepted since: the next one accepted is the
        card named for it (a guess picked with the button, or entered), which the tracker is told (``named``)."""
        self.tracker: CameraTracker | None = None

    def announce(self, announcement: Announcement) -> None:
        if isinstance(announcement, AskReplace):
            self.asked = announcement.zone == self.zone
        elif isinstance(announcement, CardAccepted):
            if self.asked and self.tracker is not None:
                self.tracker.named(self.zone, announcement.card)
            self.asked = False
        elif isinstance(announcement, StockRenewed) and self.tracker is not None:
            self.tracker.gathered(self.zone, announcement.top)
        elif isinstance(announcement, Correction) and announcement.new is None and self.tracker is not None:
            self.tracker.taken_back(announcement.old)

    def close(self) -> None:
        self.tracker = None


class RingOutput:
    """Lights the ring for the announcements that mean something to players at a glance."""

    def __init__(self, ring: Ring, seats: int) -> None:
        self.ring = ring
        self.ring.set_seats(seats)

    def announce(self, announcement: Announcement) -> None:
        if isinstance(announcement, TurnTo):
            self.ring.show_turn(announcement.seat)
        elif isinstance(announcement, TrickWon):
            self.ring.trick_won(announcement.winner)
        elif isinstance(announcement, ViolationFound):
            self.ring.violation(announcement.seat)
        elif isinstance(announcement, HandScored | HandStarted):
            self.ring.hand_end()
        elif isinstance(announcement, GameOver):
            self.ring.idle()
        elif isinstance(announcement, CameraTrouble):
            self.ring.camera_fault(announcement.headline is not None)

    def close(self) -> None:
        self.ring.close()


class FeedLike(Protocol):
    def publish_event(self, type: str, data: dict[str, Any] | None = None) -> int: ...

    def publish_state(self, snapshot: dict[str, Any]) -> None: ...

    def close(self, timeout: float = 3.0) -> None: ...


#: Announcements only for the people at the table (prompts, instructions); spectators see the state.
TABLE_ONLY = frozenset({"prompt", "clear_zones", "turn", "show_card", "unreadable", "kitty"})


class FeedOutput:
    """Publishes each announcement as a feed event (``type`` = its kind) and the state snapshot.

    ``published`` counts events; ``on_publish`` (if set) is called with each announcement right after
    the feed took it (the demo measures announcement latency there).
    """

    def __init__(self, feed: FeedLike) -> None:
        self.feed = feed
        self.published = 0
        self.on_publish: Callable[[Announcement], None] | None = None
        self.camera: str | None = None
        """What keeps the table's camera from seeing the mat (:class:`CameraTrouble`'s headline): in each snapshot
        while it lasts, so a spectator who opens the page then sees why the game waits (events are not retained)."""

    def announce(self, announcement: Announcement) -> None:
        if isinstance(announcement, CameraTrouble):
            self.camera = announcement.headline
        if announcement.kind in TABLE_ONLY:
            return
        self.feed.publish_event(announcement.kind, payload(announcement))
        self.published += 1
        if self.on_publish is not None:
            self.on_publish(announcement)

    def show(self, state: TableState) -> None:
        snapshot = state.to_dict()
        if self.camera is not None:
            snapshot["camera"] = self.camera
        self.feed.publish_state(snapshot)

    def close(self) -> None:
        self.feed.close()


_ROLES = {8: "8", 5: "5", 3: "3"}


def scoreboard_view(state: TableState, instruction: str = "", outcome: str = "") -> ScoreboardView:
    """The e-ink view of a table state (3-5-8 or Makao); ``instruction`` (see :func:`board_line`) takes
    the message line from the state's own message and the last violation while it stands. ``outcome``
    (a finished game's "Ben won") replaces the last trick's winner on the board once the game is over."""
    seats = []
    for s, name in enumerate(state.players):
        role = ""
        if state.dealer == s:
            role = "dealer"
        if state.declarer == s and state.game == "358":
            role = "declarer" if not role else role + "/8"
        seats.append(
            SeatLine(
                name=name,
                role=role,
                target=state.targets[s] if s < len(state.targets) else None,
                tricks=state.tricks_taken[s] if s < len(state.tricks_taken) else None,
                score=state.totals[s] if s < len(state.totals) else None,
                cards_left=state.cards_left[s] if s < len(state.cards_left) else None,
                out=s in state.out,
                place=(state.out.index(s) + 1) if s in state.out else None,
            )
        )
    trump = None
    if state.contract in ("S", "H", "D", "C"):
        trump = Suit.from_text(state.contract)
    makao = None
    if state.game == "makao":
        # an ace's demand is a suit letter (the view draws its sign), a jack's a rank
        suit = Suit.from_text(state.demand) if state.demand in ("S", "H", "D", "C") else None
        demand = state.demand if state.demand and suit is None else None
        makao = MakaoLine(top_card=state.top_card, penalty=state.penalty, demand=demand, suit=suit, skip=state.skip)
    return ScoreboardView(
        game="3-5-8" if state.game == "358" else "Makao",
        seats=tuple(seats),
        preset=state.preset,
        hand=state.hand + 1 if state.game == "358" else None,
        hands_total=state.hands_total,
        contract=state.contract,
        trump=trump,
        turn=state.turn,
        last_trick_winner=None if state.game_over and outcome else state.last_trick_winner,
        makao=makao,
        message=instruction or state.message or (state.violations[-1] if state.violations else ""),
        hand_over=state.hand_over,
        extra=(outcome,) if state.game_over and outcome else (),
    )


def _who(names: tuple[str, ...], seat: int | None) -> str:
    if seat is None:
        return "Operator"
    return names[seat] if 0 <= seat < len(names) else f"Seat {seat}"


def board_line(announcement: Announcement, names: tuple[str, ...]) -> str | None:
    """The scoreboard's one-line form of an announcement that waits on someone at the table (a button
    answer, a card to place again, zones to clear, a card to take back), or None for any other.

    Why: these never reach the feed (they are for the table), and a player asked "is it KH?" has to
    see the question where they look, on the board; the full English sentence would be cut on a
    2-inch panel, so the line leads with who and what.
    """
    if isinstance(announcement, Prompt):
        message = announcement.message[:1].upper() + announcement.message[1:]
        return message if announcement.seat is None else f"{_who(names, announcement.seat)}: {announcement.message}"
    if isinstance(announcement, AskReplace):
        who = _who(names, announcement.seat) if announcement.seat is not None else printed_label(announcement.zone)
        return f"{who}: card unreadable, place it again"
    if isinstance(announcement, WaitForClear):
        return f"{_who(names, announcement.winner)} takes it: clear the zones"
    if isinstance(announcement, ShowCard):
        return f"Show {announcement.card.symbol} to the camera"
    if isinstance(announcement, ExchangeInstruction):
        return f"{_who(names, announcement.giver)} gives {announcement.count} to {_who(names, announcement.receiver)}"
    if isinstance(announcement, KittyInstruction):
        order = "discard 4, then the kitty" if announcement.discard_first else "the kitty, then discard 4"
        return f"{_who(names, announcement.seat)}: {order}"
    if isinstance(announcement, CardRejected):
        what = announcement.card.symbol if announcement.card is not None else "Card"
        return f"{what} not accepted: {announcement.reason}"
    return None


class DisplayOutput:
    """Redraws the scoreboard from each state; the display's refresh policy drops unchanged views.

    What the table waits for (:func:`board_line`) stays on the message line until any other
    announcement says the game moved on (a card accepted, the next turn, a contract named...). It is
    drawn with the next state, which every input the referee acts on ends with (and the table shows
    after its own questions), so the board never pairs a question with the state before it. While the camera
    cannot see the mat (:class:`CameraTrouble`) that takes the message line, and what the table waited on comes
    back when it sees the mat again.
    """

    def __init__(self, display: Any) -> None:
        self.display = display
        self.views = 0
        self.waiting: Announcement | None = None
        """The last announcement, when it is one the table waits on (it has a :func:`board_line`)."""
        self.over: GameOver | None = None
        """The game's end, shown (who won) while the state says the game is over."""
        self.camera: str | None = None
        """What keeps the camera from seeing the mat (:class:`CameraTrouble`'s headline), on the message line while it
        lasts."""

    def announce(self, announcement: Announcement) -> None:
        if isinstance(announcement, CameraTrouble):
            # over whatever else the board says while it lasts; what the table waited on comes back after it
            self.camera = announcement.headline
            return
        self.waiting = announcement if board_line(announcement, ()) is not None else None
        if isinstance(announcement, GameOver):
            self.over = announcement
        elif isinstance(announcement, HandStarted):
            self.over = None

    def show(self, state: TableState) -> None:
        line = board_line(self.waiting, state.players) if self.waiting is not None else None
        if self.camera is not None:
            line = f"Camera: {self.camera}"
        outcome = self.over.outcome(state.players) if self.over is not None else ""
        self.display.show(scoreboard_view(state, line or "", outcome))
        self.views += 1

    def close(self) -> None:
        close = getattr(self.display, "close", None)
        if close is not None:
            close()
