"""What the scoreboard shows: a frozen snapshot the controller builds from the game state.

The controller owns the rules; the display owns the pixels. Between them sits this plain value, so
that a renderer can be tested from a literal and a refresh policy can tell "nothing changed" by
comparing two views (or two images) without knowing anything about either game.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.cards import Card, Suit


@dataclass(frozen=True, slots=True)
class SeatLine:
    """One player's row on the board.

    ``target`` and ``tricks`` are the 3-5-8 columns (tricks needed this hand, tricks taken so far);
    ``cards_left`` and ``out`` are the Makao columns (cards in hand, finished). ``score`` is the
    session score; ``role`` is a short tag such as ``"dealer"`` or ``"declarer"``.
    """

    name: str
    role: str = ""
    target: int | None = None
    tricks: int | None = None
    score: int | None = None
    cards_left: int | None = None
    out: bool = False
    place: int | None = None  # Makao finishing position (1 = first out)


@dataclass(frozen=True, slots=True)
class MakaoLine:
    """The Makao-specific middle of the board: what is on the pile and what it asks of the next player.

    ``penalty`` is the number of cards the next player must draw (stacked 2s, 3s, kings); ``demand``
    is a free text such as ``"7"`` (a jack's demand) and ``suit`` an ace's requested suit;
    ``skip`` the number of turns the next player must wait (stacked 4s).
    """

    top_card: Card | None = None
    penalty: int = 0
    demand: str | None = None
    suit: Suit | None = None
    skip: int = 0


@dataclass(frozen=True, slots=True)
class ScoreboardView:
    """Everything one frame of the scoreboard shows.

    ``turn`` and ``last_trick_winner`` are seat indexes into ``seats``. ``hand_over`` asks the
    refresh policy for a full (flashing) refresh that clears e-ink ghosting; every other change is
    drawn with a partial refresh where the panel has one. ``message`` is one short status line
    (``"Revoke by Ala"``, ``"Waiting for the deal"``).
    """

    game: str
    seats: tuple[SeatLine, ...]
    preset: str = ""
    hand: int | None = None
    hands_total: int | None = None
    contract: str = ""
    trump: Suit | None = None
    turn: int | None = None
    last_trick_winner: int | None = None
    makao: MakaoLine | None = None
    message: str = ""
    hand_over: bool = False
    extra: tuple[str, ...] = field(default=())

    def __post_init__(self) -> None:
        for label, index in (("turn", self.turn), ("last_trick_winner", self.last_trick_winner)):
            if index is not None and not 0 <= index < len(self.seats):
                raise ValueError(f"ScoreboardView.{label}={index!r} is not a seat index (0..{len(self.seats) - 1})")
