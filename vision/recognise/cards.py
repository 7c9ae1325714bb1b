"""From corner readings to the cards one image shows.

A card lying flat shows two corner indices, and each reading carries the classifier's candidates
with their probabilities. A card counts as found when the evidence for it is strong enough, the
evidence being the chance that at least one of its readings is right if each reading were an
independent witness: ``1 - prod(1 - p_i)`` over every detection that lists the card among its
candidates. One confident corner is enough; two hesitant corners that agree add up; a second-choice
candidate can count when it is close to the first. ``threshold`` trades recall against precision.

Readings of one place are not independent witnesses, though: the detector often boxes one index
twice (a tight and a loose box, or the index and the index with its pip), and the classifier reads
both crops alike, right or wrong. So readings whose boxes overlap by ``same_place`` of the smaller
box are one place, and only the most confident of them testifies: one index shows one card, and a
hesitant second box of it neither doubles its evidence nor names a second card.

A table holds one deck (two for Makao with five or six players, ``decks``), so a card is in view at most
once per copy, and one copy shows at most two indices, at opposite corners, a card's diagonal apart. A
classifier that cannot tell this webcam's small clubs from spades reads a row of both as spades: four
places say QS where only two can. So the places are taken most confident first, and a card a place
names is ruled out for it when the card's copies have already shown all their indices, or when a place
nearer than ``apart`` index lengths already holds every copy (side by side, they cannot be one card's
two corners), or one standing in a way no card prints its two indices (:func:`two_cards_by_turns`,
where the recogniser says which way up each index stands). The place then testifies for its other
candidates, renormalised as the classifier's own probabilities would be had it known the ruled-out card
was not there: QS 0.6 and QC 0.35 become QC 0.875. The table does the same with the cards already
played (:func:`controller.referee.base.choose_card`).

The defaults were tuned on synthetic held-out images only, never on the real development photos,
which stay an honest measure (docs/vision.md says how).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from engine.cards import Card
from vision.detections import Detection, box_overlap


@dataclass(frozen=True, slots=True)
class CardVote:
    """How corner readings combine into found cards (see the module docstring)."""

    threshold: float = 0.5
    """Evidence a card needs to count as found, 0..1."""
    top_only: bool = False
    """Count only each reading's first candidate, not its alternatives."""
    min_probability: float = 0.05
    """Candidate probabilities below this add no evidence (noise in a 52-way softmax)."""
    same_place: float | None = 0.5
    """Readings whose boxes overlap by at least this share of the smaller box are one place, of which only the
    most confident reading counts; ``None`` counts every reading on its own (as before 2 December)."""
    decks: int | None = 1
    """Copies of each card on the table, which rule out a place's reading of a card already shown that often
    (see the module docstring); ``None`` lets every place name any card (as before 4 December). Needs
    ``same_place``: without it one index boxed twice would look like two cards side by side."""
    apart: float = 1.2
    """Two places nearer than this many index lengths (the longer side of the larger box) cannot be one
    card's two corners. The two labelled indices of one card lie a median 3.6 index lengths apart in the
    real photos (the closest 1.6; two nearer pairs are labelling slips, a neighbour's index given the same
    card) and 3.0 or more in the synthetic scenes; neighbours in the webcam's fanned row of 22 cards lie
    0.3-0.65 apart."""

    def __post_init__(self) -> None:
        if not 0.0 <= self.threshold <= 1.0 or not 0.0 <= self.min_probability <= 1.0:
            raise ValueError(
                f"threshold and min_probability must be in 0..1, not {self.threshold}, {self.min_probability}"
            )
        if self.same_place is not None and not 0.0 < self.same_place <= 1.0:
            raise ValueError(f"same_place must be in (0, 1] or None, not {self.same_place}")
        if self.decks is not None and self.decks < 1:
            raise ValueError(f"decks must be at least 1 or None, not {self.decks}")
        if not self.apart > 0.0:
            raise ValueError(f"apart must be above 0, not {self.apart}")

    def evidence(self, detections: Iterable[Detection]) -> dict[Card, float]:
        """Each candidate card's combined evidence over all readings of one image."""
        doubt: dict[Card, float] = {}
        for detection in self.within_deck(self.witnesses(detections)):
            candidates = detection.candidates or ((detection.card, detection.confidence),)
            if self.top_only:
                candidates = candidates[:1]
            for card, probability in candidates:
                if probability < self.min_probability:
                    continue
                face = card.face
                doubt[face] = doubt.get(face, 1.0) * (1.0 - min(max(probability, 0.0), 1.0))
        return {card: 1.0 - remaining for card, remaining in doubt.items()}

    def witnesses(self, detections: Iterable[Detection]) -> list[Detection]:
        """The readings that count: with ``same_place``, the most confident of each place."""
        readings = list(detections)
        if self.same_place is None or len(readings) < 2:
            return readings
        readings.sort(key=lambda d: -d.confidence)
        kept: list[Detection] = []
        for reading in readings:  # greedy, most confident first: each place keeps its best reading
            if not any(box_overlap(reading.box, other.box) >= self.same_place for other in kept):
                kept.append(reading)
        return kept

    def within_deck(self, places: Sequence[Detection]) -> list[Detection]:
        """``places`` with each candidate the deck rules out removed and the rest renormalised; a place
        left with no candidate is dropped (see the module docstring). Unchanged without ``decks`` or
        ``same_place``."""
        if self.decks is None or self.same_place is None:
            return list(places)
        held: dict[Card, list[Detection]] = {}
        kept: list[Detection] = []
        for place in sorted(places, key=lambda d: -d.confidence):
            candidates = place.candidates or ((place.card, place.confidence),)
            room = [self._room(held.get(card.face, []), place) for card, _ in candidates]
            if not all(room):
                allowed = [candidate for candidate, ok in zip(candidates, room, strict=True) if ok]
                remaining = 1.0 - sum(p for (_, p), ok in zip(candidates, room, strict=True) if not ok)
                if not allowed or remaining <= 0.0:
                    continue
                allowed = [(card, min(1.0, p / remaining)) for card, p in allowed]
                place = replace(place, card=allowed[0][0], confidence=allowed[0][1], candidates=tuple(allowed))
            held.setdefault(place.card.face, []).append(place)
            kept.append(place)
        return kept

    def _room(self, holders: Sequence[Detection], place: Detection) -> bool:
        """Whether a card already held by ``holders`` can also be what ``place`` shows."""
        copies = self.decks or 1
        if len(holders) >= 2 * copies:
            return False
        others = [h for h in holders if self._two_cards(h, place)]
        return len(others) < copies

    def _two_cards(self, a: Detection, b: Detection) -> bool:
        """Whether two places cannot be one card's indices: side by side (nearer than ``apart``), or
        standing in a way no card prints its indices (:func:`two_cards_by_turns`)."""
        if math.dist(a.center, b.center) < self.apart * max(_length(a), _length(b)):
            return True
        return two_cards_by_turns(a, b)

    def cards(self, detections: Iterable[Detection]) -> set[Card]:
        return {card for card, score in self.evidence(detections).items() if score >= self.threshold}


_UP = {0: (0.0, -1.0), 1: (1.0, 0.0), 2: (0.0, 1.0), 3: (-1.0, 0.0)}
"""The printed index's up, in image pixels (y down), by its quarter turns to upright: an index that
one counter-clockwise quarter turn stands upright has its top pointing right."""
STACKED = math.tan(math.radians(50))
"""Two indices standing the same way up are two cards when one lies above the other along their up
axis by at least this many times their offset across it (50 degrees or more off the across line)."""
BEHIND = math.sin(math.radians(30))
"""Two indices standing half a turn apart are two cards when the inverted one lies this share of
their distance or more above the upright one, along its up (30 degrees or more past level)."""


def two_cards_by_turns(a: Detection, b: Detection) -> bool:
    """Whether the orientations of two indices of the same reading prove them two cards.

    A card prints an upright index at its top-left corner and one turned half a turn at the
    bottom-right; a four-index deck adds the same at top-right and bottom-left. So two indices of one
    card that stand the same way up lie side by side across their up axis (the top two), and two that
    stand half a turn apart lie with the inverted one below the upright one. Two indices that stand
    alike one above the other, or turned apart with the inverted one above, are two cards, however
    far apart: the webcam's fanned row of clubs read as spades, a row above the real spades, every
    index printed upside down. A quarter turn apart, or an orientation unknown, proves nothing (a card
    lying near 45 degrees gives its indices either neighbouring turn). The margins (:data:`STACKED`,
    :data:`BEHIND`) leave room for a card turned up to 45 degrees from the turn its indices were
    given."""
    if a.turns is None or b.turns is None:
        return False
    (ax, ay), (bx, by) = a.center, b.center
    dx, dy = bx - ax, by - ay
    ux, uy = _UP[a.turns % 4]
    along = dx * ux + dy * uy
    if a.turns % 4 == b.turns % 4:
        return abs(along) >= STACKED * abs(dx * uy - dy * ux)
    if (a.turns - b.turns) % 4 == 2:  # b is the inverted one to a, or a to b: the same line either way
        return along >= BEHIND * math.hypot(dx, dy)
    return False


def _length(detection: Detection) -> float:
    """The longer side of a reading's box: an index's length, whatever its turn."""
    x1, y1, x2, y2 = detection.box
    return max(x2 - x1, y2 - y1)


DEFAULT_VOTE = CardVote()


def cards_in_image(detections: Iterable[Detection], vote: CardVote = DEFAULT_VOTE) -> set[Card]:
    """The distinct cards (faces) that ``detections`` of one image show, by ``vote``."""
    return vote.cards(detections)
