"""What happens on the synthetic table: a script of actions, each one thing a player does.

The demo turns each bot move into an action and the renderer draws the frames a camera would see;
tests write short scripts by hand. Seats are numbered as in the engine; a seat says from which side
of the table the hand comes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.cards import Card


@dataclass(frozen=True, slots=True)
class Place:
    """Seat ``seat`` puts ``card`` face up into ``zone`` (a hand carries it in, lets go, leaves)."""

    card: Card
    zone: str
    seat: int = 0


@dataclass(frozen=True, slots=True)
class Collect:
    """Seat ``seat`` sweeps every card out of ``zones`` (a trick is taken), towards their side."""

    zones: tuple[str, ...]
    seat: int = 0


@dataclass(frozen=True, slots=True)
class Gather:
    """Seat ``seat`` takes every card in ``zone`` from under its top card, which stays where it lies
    (Makao: the stock ran out, and the pile under its top card is shuffled into a new one)."""

    zone: str
    seat: int = 0


@dataclass(frozen=True, slots=True)
class Slide:
    """Seat ``seat`` slides ``card`` (already on the table) into ``to_zone``: a move, not a new card."""

    card: Card
    to_zone: str
    seat: int = 0


@dataclass(frozen=True, slots=True)
class PickUp:
    """Seat ``seat`` takes ``card`` back off the table."""

    card: Card
    seat: int = 0


@dataclass(frozen=True, slots=True)
class Nudge:
    """Seat ``seat`` straightens ``card`` where it lies: the hand comes, pushes it ``dx``, ``dy`` mm and turns it
    ``turn`` degrees, and leaves. Nothing was played: players square up a pile or a trick all the time."""

    card: Card
    dx: float
    dy: float
    turn: float = 0.0
    seat: int = 0


LEAN_SHARE = 0.25
"""How often players lean over the table in ``cardtable bench tracker --shadows`` and ``cardtable demo --shadows``:
after this share of the cards played."""
LEAN_FRAMES = 20
"""How long a lean lasts there: two seconds, long enough for the tracker to take the view as still."""


@dataclass(frozen=True, slots=True)
class Lean:
    """Seat ``seat`` leans over the table for ``frames`` frames, to look at a trick or reach for the score pad:
    nothing is played, but their head and shoulders shade the mat under the lamp, ``depth`` of its light taken
    (0.45: a lamp over the table, a person half a metre under it), reaching ``reach`` of the way from their edge of
    the mat to its middle. Why: the tracker must not take a still shadow over a zone for a card lying there."""

    seat: int = 0
    frames: int = 20
    depth: float = 0.45
    reach: float = 0.6


REST_FRAMES = 30
"""How long a hand rests on the mat in ``cardtable bench tracker --rest``: three seconds, longer than the tracker
waits before it asks about something lying still that it cannot read."""

REST_DRIFT_MM = 1.5
"""How far a resting hand wanders, each way, while it lies on the mat: nobody's hand is still to the pixel."""


@dataclass(frozen=True, slots=True)
class Rest:
    """Seat ``seat`` rests a hand on the mat, ``into`` of the way into ``zone`` from its edge nearest them, still for
    ``frames`` frames, and takes it back: a player waiting for their turn with a hand on the table, or pointing at a
    card. Nothing is played. While it lies there the palm wanders smoothly up to ``drift`` mm each way, as a real
    one does (0: perfectly still). Why: a hand lying in a zone is no card, and no card that cannot be read."""

    seat: int
    zone: str
    frames: int = REST_FRAMES
    into: float = 0.4
    drift: float = REST_DRIFT_MM


@dataclass(frozen=True, slots=True)
class Wait:
    """Nothing happens for ``frames`` frames (the camera keeps looking)."""

    frames: int = 5


Action = Place | Collect | Gather | Slide | PickUp | Nudge | Lean | Rest | Wait


def squared_up(card: Card, seat: int, rng: np.random.Generator) -> Nudge:
    """Seat ``seat`` squaring up ``card`` as players do: pushed 2-8 mm any way and turned up to 6 degrees, drawn
    from ``rng``. One place for it, so that ``cardtable demo --nudge`` and ``cardtable bench tracker --nudge``
    push alike."""
    way, push = rng.uniform(0, 2 * np.pi), rng.uniform(2.0, 8.0)
    turn = float(rng.uniform(-6.0, 6.0))
    return Nudge(card, float(push * np.cos(way)), float(push * np.sin(way)), turn, seat)
