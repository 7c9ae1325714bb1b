"""From corner readings to the cards one image shows.

A card lying flat shows two corner indices, and each reading carries the classifier's candidates
with their probabilities. A card counts as found when the evidence for it is strong enough, the
evidence being the chance that at least one of its readings is right if each reading were an
independent witness: ``1 - prod(1 - p_i)`` over every detection that lists the card among its
candidates. One confident corner is enough; two hesitant corners that agree add up; a second-choice
candidate can count when it is close to the first. ``threshold`` trades recall against precision.

The defaults were tuned on synthetic held-out images only, never on the real development photos,
which stay an honest measure (docs/vision.md says how).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from engine.cards import Card
from vision.detections import Detection


@dataclass(frozen=True, slots=True)
class CardVote:
    """How corner readings combine into found cards (see the module docstring)."""

    threshold: float = 0.5
    """Evidence a card needs to count as found, 0..1."""
    top_only: bool = False
    """Count only each reading's first candidate, not its alternatives."""
    min_probability: float = 0.05
    """Candidate probabilities below this add no evidence (noise in a 52-way softmax)."""

    def __post_init__(self) -> None:
        if not 0.0 <= self.threshold <= 1.0 or not 0.0 <= self.min_probability <= 1.0:
            raise ValueError(
                f"threshold and min_probability must be in 0..1, not {self.threshold}, {self.min_probability}"
            )

    def evidence(self, detections: Iterable[Detection]) -> dict[Card, float]:
        """Each candidate card's combined evidence over all readings of one image."""
        doubt: dict[Card, float] = {}
        for detection in detections:
            candidates = detection.candidates or ((detection.card, detection.confidence),)
            if self.top_only:
                candidates = candidates[:1]
            for card, probability in candidates:
                if probability < self.min_probability:
                    continue
                face = card.face
                doubt[face] = doubt.get(face, 1.0) * (1.0 - min(max(probability, 0.0), 1.0))
        return {card: 1.0 - remaining for card, remaining in doubt.items()}

    def cards(self, detections: Iterable[Detection]) -> set[Card]:
        return {card for card, score in self.evidence(detections).items() if score >= self.threshold}


DEFAULT_VOTE = CardVote()


def cards_in_image(detections: Iterable[Detection], vote: CardVote = DEFAULT_VOTE) -> set[Card]:
    """The distinct cards (faces) that ``detections`` of one image show, by ``vote``."""
    return vote.cards(detections)
