"""What the referee tells the table: typed announcements, fanned out to every output.

The referee decides *what* happened (a card accepted, a trick won, a revoke proven); each output
decides *how* to show it (a line in the log, a sweep on the LED ring, a redraw of the e-ink board, an
event on the MQTT feed, a spoken sentence). Announcements are frozen dataclasses, never strings glued
together in each output, so that the e-ink view and the feed can read the seat and the card instead of
parsing English, and tests can compare them.

Every announcement knows its feed ``kind`` (the ``type`` of the MQTT event) and can say itself in one
English sentence given the players' names (:meth:`Announcement.text`), which the printer and speech
outputs use.

:class:`Announcer` fans each announcement out to its outputs. An output that raises is logged and
skipped: a broken e-ink panel or a dead broker must never stop the referee.
"""

from __future__ import annotations

import dataclasses
import logging
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol, TextIO

from engine.cards import Card, CardError, Rank, Suit
from vision.zones import printed_label

__all__ = [
    "AnnounceOutput",
    "Announcement",
    "Announcer",
    "AskReplace",
    "CameraTrouble",
    "CardAccepted",
    "CardRejected",
    "ContractDeclared",
    "Correction",
    "Demand",
    "DrawCards",
    "ExchangeInstruction",
    "GameOver",
    "HandPassed",
    "HandScored",
    "HandStarted",
    "KittyInstruction",
    "ListOutput",
    "PenaltyPending",
    "PlayerOut",
    "PrinterOutput",
    "Prompt",
    "ShowCard",
    "Skip",
    "StockRenewed",
    "TrickWon",
    "TurnTo",
    "ViolationFound",
    "WaitForClear",
    "payload",
]

log = logging.getLogger(__name__)

Names = Sequence[str]


def _name(names: Names, seat: int | None) -> str:
    if seat is None:
        return "the operator"
    if 0 <= seat < len(names):
        return names[seat]
    return f"seat {seat}"


def _demanded(code: str) -> str:
    """A demand's record form in words: a suit letter as the suit ("hearts"), a rank as its plural
    ("queens", "sixes"); anything else as given."""
    try:
        return Suit.from_text(code).noun
    except CardError:
        pass
    try:
        noun = Rank.from_text(code).noun
    except CardError:
        return code
    return noun + ("es" if noun.endswith("x") else "s")


@dataclass(frozen=True, slots=True)
class Announcement:
    """Base of every announcement. ``kind`` is the feed event ``type``."""

    kind: ClassVar[str] = "announcement"

    def text(self, names: Names) -> str:
        return self.kind.replace("_", " ")


@dataclass(frozen=True, slots=True)
class HandStarted(Announcement):
    """A new hand (3-5-8) or game (Makao): who deals and, in 3-5-8, the targets (8/5/3 by seat)."""

    kind: ClassVar[str] = "hand_started"
    hand: int
    dealer: int
    targets: tuple[int, ...] = ()
    af: bool = False
    preset: str = ""

    def text(self, names: Names) -> str:
        out = f"Hand {self.hand + 1}: {_name(names, self.dealer)} deals."
        if self.targets:
            out += " Targets: " + ", ".join(f"{_name(names, s)} {t}" for s, t in enumerate(self.targets)) + "."
        if self.af:
            out += " Af: no exchange this hand."
        return out


@dataclass(frozen=True, slots=True)
class ShowCard(Announcement):
    """Ask for a card to be shown to the camera (the holder of 2♣ in ``ucbessekiz``)."""

    kind: ClassVar[str] = "show_card"
    card: Card
    zone: str = ""

    def text(self, names: Names) -> str:
        return f"Whoever holds {self.card} shows it in their zone."


@dataclass(frozen=True, slots=True)
class ExchangeInstruction(Announcement):
    """One exchange step: ``giver`` hands ``count`` cards to ``receiver``, who returns per the rule."""

    kind: ClassVar[str] = "exchange"
    giver: int
    receiver: int
    count: int
    no_trumps: bool = False

    def text(self, names: Names) -> str:
        s = "s" if self.count != 1 else ""
        out = (
            f"{_name(names, self.giver)} gives {self.count} card{s} to {_name(names, self.receiver)}; "
            f"{_name(names, self.receiver)} returns the highest card of each suit given, if higher."
        )
        if self.no_trumps:
            out += " Trumps may not be handed over."
        return out


@dataclass(frozen=True, slots=True)
class ContractDeclared(Announcement):
    """The declarer named the contract (``S H D C NT MISERE``)."""

    kind: ClassVar[str] = "contract"
    seat: int
    contract: str

    def text(self, names: Names) -> str:
        label = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs", "NT": "no trump"}.get(
            self.contract, self.contract.lower()
        )
        return f"{_name(names, self.seat)} declares {label}."


@dataclass(frozen=True, slots=True)
class HandPassed(Announcement):
    """The declarer said "pas": same roles, new deal."""

    kind: ClassVar[str] = "pass"
    seat: int

    def text(self, names: Names) -> str:
        return f"{_name(names, self.seat)} passes: redeal with the same roles."


@dataclass(frozen=True, slots=True)
class KittyInstruction(Announcement):
    """The declarer takes the kitty and discards (order per the preset)."""

    kind: ClassVar[str] = "kitty"
    seat: int
    discard_first: bool = True

    def text(self, names: Names) -> str:
        if self.discard_first:
            return f"{_name(names, self.seat)} discards 4 cards unseen, then takes the kitty."
        return f"{_name(names, self.seat)} takes the kitty, then discards 4 cards."


@dataclass(frozen=True, slots=True)
class TurnTo(Announcement):
    """Whose turn it is, and where the card goes."""

    kind: ClassVar[str] = "turn"
    seat: int
    zone: str
    trick: int = 0

    def text(self, names: Names) -> str:
        return f"{_name(names, self.seat)} to play."


@dataclass(frozen=True, slots=True)
class CardAccepted(Announcement):
    """A card was accepted as played. ``corrected_from`` is the first reading when a candidate was used."""

    kind: ClassVar[str] = "card_played"
    seat: int
    card: Card
    trick: int = 0
    corrected_from: Card | None = None
    still_t: float = 0.0

    def text(self, names: Names) -> str:
        out = f"{_name(names, self.seat)} plays {self.card}."
        if self.corrected_from is not None:
            out += f" (read as {self.corrected_from}, which is impossible)"
        return out


@dataclass(frozen=True, slots=True)
class CardRejected(Announcement):
    """A card was seen but not accepted (out of turn, wrong zone, seen twice...)."""

    kind: ClassVar[str] = "card_rejected"
    zone: str
    card: Card | None
    reason: str
    seat: int | None = None

    def text(self, names: Names) -> str:
        what = str(self.card) if self.card is not None else "card"
        return f"Not accepted: {what} in {printed_label(self.zone)}: {self.reason}"


@dataclass(frozen=True, slots=True)
class AskReplace(Announcement):
    """A card in a zone could not be read: place it again, pick it with the button, or say with a long press
    that no card was laid (``Referee._withdraw_ask``)."""

    kind: ClassVar[str] = "unreadable"
    zone: str
    seat: int | None = None

    def text(self, names: Names) -> str:
        if self.seat is None:  # the Makao starter: no player's button answers for it
            return f"Player: the card in {printed_label(self.zone)} cannot be read; place it again or enter it."
        return (
            f"{_name(names, self.seat)}: the card in {printed_label(self.zone)} cannot be read; place it again, "
            "pick it with short presses, or long press if you laid none."
        )


@dataclass(frozen=True, slots=True)
class TrickWon(Announcement):
    """A trick is complete. ``cards`` is ``(seat, card)`` in play order."""

    kind: ClassVar[str] = "trick_won"
    trick: int
    winner: int
    cards: tuple[tuple[int, Card], ...]
    tricks_taken: tuple[int, ...] = ()

    def text(self, names: Names) -> str:
        played = ", ".join(f"{_name(names, s)} {c}" for s, c in self.cards)
        return f"Trick {self.trick + 1} to {_name(names, self.winner)} ({played})."


@dataclass(frozen=True, slots=True)
class WaitForClear(Announcement):
    """The trick is decided; the next lead waits until the zones are cleared."""

    kind: ClassVar[str] = "clear_zones"
    winner: int

    def text(self, names: Names) -> str:
        return f"{_name(names, self.winner)} collects the trick; clear the zones."


@dataclass(frozen=True, slots=True)
class Prompt(Announcement):
    """A question to one player, answered with the button (a contract choice, a card guess).

    ``reminder`` marks one repeated every turn ("press your button when your play is done"): the
    board shows it, a voice leaves it out (it would double every turn's sentence).
    """

    kind: ClassVar[str] = "prompt"
    seat: int | None
    message: str
    reminder: bool = False

    def text(self, names: Names) -> str:
        return f"{_name(names, self.seat)}: {self.message}"


@dataclass(frozen=True, slots=True)
class ViolationFound(Announcement):
    """A proven breach of the rules (revoke, out of turn...), with its proof."""

    kind: ClassVar[str] = "violation"
    rule: str
    seat: int
    trick: int
    reason: str
    proven_at: int | None = None
    hand: int = 0

    def text(self, names: Names) -> str:
        return f"Violation ({self.rule}) by {_name(names, self.seat)}: {self.reason}"


@dataclass(frozen=True, slots=True)
class Correction(Announcement):
    """An accepted input was undone or corrected."""

    kind: ClassVar[str] = "correction"
    seat: int | None
    old: Card | None
    new: Card | None = None
    reason: str = "undo"

    def text(self, names: Names) -> str:
        if self.new is None:
            return f"Undone: {_name(names, self.seat)}'s {self.old} ({self.reason})."
        return f"Corrected: {_name(names, self.seat)}'s {self.old} is {self.new} ({self.reason})."


@dataclass(frozen=True, slots=True)
class HandScored(Announcement):
    """End of a hand: tricks, targets, this hand's scores, running totals and the audit's findings."""

    kind: ClassVar[str] = "hand_scored"
    hand: int
    tricks: tuple[int, ...]
    targets: tuple[int, ...]
    scores: tuple[int, ...]
    totals: tuple[int, ...]
    audit: tuple[str, ...] = ()

    def text(self, names: Names) -> str:
        parts = [f"{_name(names, s)} {t}/{self.targets[s]} ({self.scores[s]:+d})" for s, t in enumerate(self.tricks)]
        out = f"Hand {self.hand + 1} scored: " + ", ".join(parts) + "."
        out += " Totals: " + ", ".join(f"{_name(names, s)} {v:+d}" for s, v in enumerate(self.totals)) + "."
        if self.audit:
            out += " Audit: " + "; ".join(self.audit)
        else:
            out += " Audit: no violations."
        return out


@dataclass(frozen=True, slots=True)
class GameOver(Announcement):
    """The session (3-5-8) or game (Makao) ended. ``losers`` is used by Makao."""

    kind: ClassVar[str] = "game_over"
    winners: tuple[int, ...]
    totals: tuple[int, ...] = ()
    reason: str = ""
    losers: tuple[int, ...] = ()

    def outcome(self, names: Names) -> str:
        """Who won ("Ben won", "Ada and Ben won"), or in Makao who lost ("Cem lost")."""
        if self.losers and not self.winners:
            return " and ".join(_name(names, s) for s in self.losers) + " lost"
        return " and ".join(_name(names, s) for s in self.winners) + " won"

    def text(self, names: Names) -> str:
        out = f"Game over: {self.outcome(names)}"
        if self.winners and self.losers:  # Makao: the first out won, and the players left with cards lost
            out += "; " + " and ".join(_name(names, s) for s in self.losers) + " lost"
        out += "."
        if self.reason:
            out += f" ({self.reason})"
        return out


@dataclass(frozen=True, slots=True)
class CameraTrouble(Announcement):
    """The camera cannot see the mat well enough to referee (``headline``, short enough for the scoreboard: "mat not
    in view", "knocked off the mat", "mat cut off", "out of focus"; ``advice``, what to do), or, ``headline`` None,
    sees it again (:attr:`vision.calibration.Calibrator.trouble`).

    Why the players are told, and the spectators too: while the camera cannot see the mat the cards laid are not
    read, and a table that says nothing looks as if it refereed them; a spectator sees why the game has paused.
    It says nothing of any card."""

    kind: ClassVar[str] = "camera"
    headline: str | None
    advice: str = ""

    def text(self, names: Names) -> str:
        if self.headline is None:
            return "Camera: sees the mat again."
        return f"Camera: {self.headline}: {self.advice}."


# --- Makao -----------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PenaltyPending(Announcement):
    """A battle-card penalty is growing: ``amount`` cards aimed at ``target``."""

    kind: ClassVar[str] = "penalty"
    amount: int
    target: int

    def text(self, names: Names) -> str:
        return f"{_name(names, self.target)} must add to the battle or draw {self.amount}."


@dataclass(frozen=True, slots=True)
class Demand(Announcement):
    """A jack (rank) or ace (suit) demand is in force."""

    kind: ClassVar[str] = "demand"
    seat: int
    demand: str

    def text(self, names: Names) -> str:
        return f"{_name(names, self.seat)} demands {_demanded(self.demand)}."


@dataclass(frozen=True, slots=True)
class Skip(Announcement):
    """A player loses turns (fours)."""

    kind: ClassVar[str] = "skip"
    seat: int
    turns: int = 1

    def text(self, names: Names) -> str:
        s = "s" if self.turns != 1 else ""
        return f"{_name(names, self.seat)} loses {self.turns} turn{s}."


@dataclass(frozen=True, slots=True)
class DrawCards(Announcement):
    """A player drew cards from the stock (told by the button)."""

    kind: ClassVar[str] = "draw"
    seat: int
    count: int = 1

    def text(self, names: Names) -> str:
        s = "s" if self.count != 1 else ""
        return f"{_name(names, self.seat)} draws {self.count} card{s}."


@dataclass(frozen=True, slots=True)
class StockRenewed(Announcement):
    """The stock ran out: ``seat``, to draw, took the pile from under its top card ``top`` and shuffled those
    ``cards`` into a new stock. Also the camera's cue (:meth:`vision.tracker.CardTracker.gathered`): the
    cards it saw go under the top card are gone, and any of them played again is a new card on the pile."""

    kind: ClassVar[str] = "stock_renewed"
    seat: int
    cards: int
    top: Card

    def text(self, names: Names) -> str:
        s = "s" if self.cards != 1 else ""
        return f"New stock: {_name(names, self.seat)} shuffled the pile under the {self.top} ({self.cards} card{s})."


@dataclass(frozen=True, slots=True)
class PlayerOut(Announcement):
    """A player has no cards left (``place`` 1 = first out)."""

    kind: ClassVar[str] = "player_out"
    seat: int
    place: int

    def text(self, names: Names) -> str:
        return f"{_name(names, self.seat)} is out (place {self.place})."


def _plain(value: Any) -> Any:
    if isinstance(value, Card):
        return str(value)
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    return value


def payload(announcement: Announcement) -> dict[str, Any]:
    """The announcement as plain JSON data (cards as text), for the feed and the report."""
    return {f.name: _plain(getattr(announcement, f.name)) for f in dataclasses.fields(announcement)}


# --- outputs ---------------------------------------------------------------------------------------


class AnnounceOutput(Protocol):
    """One place announcements go. ``announce`` may raise: the :class:`Announcer` contains it.

    An output that draws the whole table (e-ink, the feed's state topic) also defines
    ``show(state: TableState) -> None``, called after every input the referee acted on.
    """

    def announce(self, announcement: Announcement) -> None: ...

    def close(self) -> None: ...


class Announcer:
    """Fans every announcement out to its outputs, in order, containing their failures.

    ``names`` are the players' names for outputs that speak English. ``listeners`` are plain
    callables (the demo's report, tests) called before the outputs.
    """

    def __init__(self, outputs: Sequence[AnnounceOutput] = (), names: Names = ()) -> None:
        self.outputs: list[AnnounceOutput] = list(outputs)
        self.names: list[str] = list(names)
        self.listeners: list[Callable[[Announcement], None]] = []
        self.failures = 0
        self._closed = False

    def add(self, output: AnnounceOutput) -> None:
        self.outputs.append(output)

    def __call__(self, announcement: Announcement) -> None:
        self.announce(announcement)

    def announce(self, announcement: Announcement) -> None:
        for listener in self.listeners:
            listener(announcement)
        for output in self.outputs:
            try:
                output.announce(announcement)
            except Exception:
                self.failures += 1
                log.exception("announcement output %s failed on %s", type(output).__name__, announcement.kind)

    def show(self, state: Any) -> None:
        """Hand the new public state (a :class:`controller.state.TableState`) to outputs that draw it."""
        for output in self.outputs:
            show = getattr(output, "show", None)
            if show is None:
                continue
            try:
                show(state)
            except Exception:
                self.failures += 1
                log.exception("state output %s failed", type(output).__name__)

    def close(self) -> None:
        """Close every output once; later calls do nothing (gpiozero's idempotent ``close``)."""
        if self._closed:
            return
        self._closed = True
        for output in self.outputs:
            try:
                output.close()
            except Exception:
                log.exception("closing announcement output %s failed", type(output).__name__)

    def __enter__(self) -> Announcer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class ListOutput:
    """Keeps every announcement (tests, the demo's report)."""

    def __init__(self) -> None:
        self.items: list[Announcement] = []

    def announce(self, announcement: Announcement) -> None:
        self.items.append(announcement)

    def of(self, kind: type[Announcement]) -> list[Any]:
        return [a for a in self.items if isinstance(a, kind)]

    def close(self) -> None:
        pass


class PrinterOutput:
    """One English line per announcement, to the terminal (or any text stream) and/or the log."""

    def __init__(self, names: Names, stream: TextIO | None = None, *, skip: Sequence[str] = ()) -> None:
        self.names = list(names)
        self.stream = stream if stream is not None else sys.stdout
        self.skip = set(skip)

    def announce(self, announcement: Announcement) -> None:
        if announcement.kind in self.skip:
            return
        print(announcement.text(self.names), file=self.stream, flush=True)

    def close(self) -> None:
        pass


class LogOutput:
    """Every announcement to the log at INFO (what ``cardtable run`` keeps under systemd)."""

    def __init__(self, names: Names) -> None:
        self.names = list(names)

    def announce(self, announcement: Announcement) -> None:
        log.info("%s: %s", announcement.kind, announcement.text(self.names))

    def close(self) -> None:
        pass
