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
two corners). The place then testifies for its other candidates, renormalised as the classifier's own
probabilities would be had it known the ruled-out card was not there: QS 0.6 and QC 0.35 become QC
0.875. The table does the same with the cards already played (:func:`controller.referee.base.choose_card`).

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
        near = [h for h in holders if math.dist(h.center, place.center) < self.apart * max(_length(h), _length(place))]
        return len(near) < copies

    def cards(self, detections: Iterable[Detection]) -> set[Card]:
        return {card for card, score in self.evidence(detections).items() if score >= self.threshold}


def _length(detection: Detection) -> float:
    """The longer side of a reading's box: an index's length, whatever its turn."""
    x1, y1, x2, y2 = detection.box
    return max(x2 - x1, y2 - y1)


DEFAULT_VOTE = CardVote()


def cards_in_image(detections: Iterable[Detection], vote: CardVote = DEFAULT_VOTE) -> set[Card]:
    """The distinct cards (faces) that ``detections`` of one image show, by ``vote``."""
    return vote.cards(detections)
