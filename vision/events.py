"""What the camera tells the controller: typed events, one per change on the felt.

The tracker turns frames into these; the controller consumes them. They are frozen values (never
tuples or loose dicts) so that they can be journaled, compared in tests and replayed.

``zone`` is the name of a zone of the mat ("seat0", "seat1", "seat2" for 3-5-8; "pile", "stock" for
Makao; "exchange" where the preset uses it). ``frame`` is the index of the frame that confirmed the
change, ``t`` its capture time in seconds (monotonic clock of the frame source).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.cards import Card


@dataclass(frozen=True, slots=True)
class CardPlaced:
    """A card became still in a zone and several frames agree on what it is.

    ``candidates`` lists the recogniser's alternatives, best first, each with its confidence, starting
    with ``card`` itself: the controller tries the next one when the engine proves the first impossible.
    ``still_frame``/``still_t`` mark the frame in which the card became still (latency is measured from it).
    ``answers_ask``: this is the card an :class:`UnreadableCard` asked about, read at last, with no card put down
    in the zone since; a referee that already took the player's word for it keeps that (a bare 6 read later as
    a 9 is still the card the player named).
    """

    zone: str
    card: Card
    confidence: float
    candidates: tuple[tuple[Card, float], ...] = ()
    frame: int = 0
    t: float = 0.0
    still_frame: int = 0
    still_t: float = 0.0
    track_id: int = 0
    answers_ask: bool = False


@dataclass(frozen=True, slots=True)
class CardRemoved:
    """A confirmed card left the felt (picked up, or covered for good)."""

    zone: str
    card: Card
    frame: int = 0
    t: float = 0.0
    track_id: int = 0


@dataclass(frozen=True, slots=True)
class CardMoved:
    """A confirmed card was slid from one zone to another: the same physical card, not a new one."""

    from_zone: str
    to_zone: str
    card: Card
    frame: int = 0
    t: float = 0.0
    track_id: int = 0


@dataclass(frozen=True, slots=True)
class ZoneCleared:
    """Every card left the zone (a trick was collected)."""

    zone: str
    frame: int = 0
    t: float = 0.0


@dataclass(frozen=True, slots=True)
class UnreadableCard:
    """Something card-shaped is still in the zone but no reading is confident enough."""

    zone: str
    frame: int = 0
    t: float = 0.0
    best_guesses: tuple[tuple[Card, float], ...] = field(default=())


VisionEvent = CardPlaced | CardRemoved | CardMoved | ZoneCleared | UnreadableCard
