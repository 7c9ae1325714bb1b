"""Per-image set scoring, micro-averaged: the measure the issue sets for recognition.

Each image contributes the cards it truly shows, the cards the recogniser claims, and their overlap.
Recall is overlap over truth and precision is overlap over claims, summed over all images before
dividing (micro average), so an image with many cards weighs more than one with a single card.
With no claims at all, precision is 1.0 when there was nothing to find and 0.0 otherwise.
"""

from __future__ import annotations

from collections.abc import Set
from dataclasses import dataclass

from engine.cards import Card


@dataclass(slots=True)
class Tally:
    """Running counts for a set of images."""

    images: int = 0
    cards: int = 0
    claimed: int = 0
    correct: int = 0

    def add(self, found: Set[Card], truth: Set[Card]) -> None:
        self.images += 1
        self.cards += len(truth)
        self.claimed += len(found)
        self.correct += len(found & truth)

    @property
    def recall(self) -> float:
        return self.correct / self.cards if self.cards else 1.0

    @property
    def precision(self) -> float:
        if self.claimed:
            return self.correct / self.claimed
        return 1.0 if self.cards == 0 else 0.0

    def summary(self) -> dict[str, float | int]:
        """The figures the evaluation prints for this set of images."""
        return {
            "images": self.images,
            "cards": self.cards,
            "recall": round(self.recall, 4),
            "precision": round(self.precision, 4),
        }
