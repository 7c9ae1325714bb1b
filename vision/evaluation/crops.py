"""The classifier alone, on the labelled corner boxes (``cardtable vision eval --labelled-boxes``).

Whole-image recall mixes two failures: corners the detector missed and corners it found but the
classifier named wrongly. Reading each labelled box as the runtime would (same crop, same quarter
turns, no detector) separates them, and splitting the answer into rank and suit shows which half of
an index a deck defeats: it is how clubs read as spades on the real webcam photos were found. Split
again by the size of each box (``--by-size``), it says whether a deck's indices are misread at every
size or only where they are a dozen blurred pixels that a person could not read either.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from engine.cards import Card
from vision.evaluation.dataset import Dataset
from vision.evaluation.run import read_image
from vision.evaluation.sizes import bin_names, bin_of, box_side
from vision.recognise.aspect import CONFIDENT, stretched
from vision.recognise.recogniser import OnnxRecogniser


@dataclass
class CropTally:
    """Counts of labelled boxes read right: whole card, rank, suit; and suits confused."""

    boxes: int = 0
    card: int = 0
    rank: int = 0
    suit: int = 0
    rejected: int = 0
    suit_confusions: dict[str, int] = field(default_factory=dict)

    def add(self, truth: Card, read: Card, rejected: bool) -> None:
        self.boxes += 1
        self.card += read.same_face(truth)
        self.rank += read.rank == truth.rank
        self.suit += read.suit == truth.suit
        self.rejected += rejected
        if read.suit != truth.suit:
            key = f"{truth.suit.name.lower()} as {read.suit.name.lower()}"
            self.suit_confusions[key] = self.suit_confusions.get(key, 0) + 1

    def summary(self) -> dict[str, object]:
        n = max(1, self.boxes)
        return {
            "boxes": self.boxes,
            "card": round(self.card / n, 4),
            "rank": round(self.rank / n, 4),
            "suit": round(self.suit / n, 4),
            "rejected": round(self.rejected / n, 4),
            "suit_confusions": dict(sorted(self.suit_confusions.items(), key=lambda kv: -kv[1])),
        }


def classify_labelled_boxes(
    recogniser: OnnxRecogniser,
    dataset: Dataset,
    limit: int | None = None,
    aspects: Sequence[float] = (1.0,),
    confident: float = CONFIDENT,
    size_edges: Sequence[int] | None = None,
) -> dict[str, object]:
    """The classifier's reading of every labelled box, overall and per subset (JSON-ready).

    A box counts as rejected when the classifier calls it "not an index" with the recogniser's reject
    probability; its card reading still counts (the best card), so the figures are the classifier's.

    Each photo is read at each pixel aspect of ``aspects`` (the picture and its boxes stretched alike,
    :func:`~vision.recognise.aspect.stretched`) and the reading with the most boxes read at least
    ``confident`` kept, the earlier aspect winning ties: the rule of
    :class:`~vision.recognise.aspect.AspectSearch`, so that the classifier is judged on the photos as
    the whole-image evaluation reads them. A photo saved square from a 16:9 frame, read as saved,
    squashes every pip: spades and hearts then read as diamonds (docs/vision.md). ``"aspects"`` in the
    answer counts the photos read at each aspect.

    With ``size_edges`` (pixel sizes, rising: :data:`~vision.evaluation.sizes.SIZE_EDGES`) the answer
    and each subset also hold ``"by_index_size"``: the same tallies for the boxes whose longer side, in
    the photo as saved, falls in each bin, in size order (bins with no box left out).
    """
    if not aspects:
        raise ValueError("the labelled boxes need at least one pixel aspect to be read at")
    names = bin_names(size_edges) if size_edges is not None else []
    sized: dict[str | None, dict[str, CropTally]] = {}  # None: every subset
    overall = CropTally()
    subsets: dict[str, CropTally] = {}
    chosen: dict[str, int] = {}
    samples = dataset.samples[:limit] if limit is not None else dataset.samples
    reject = recogniser.manifest.classifier.reject_class is not None
    for sample in samples:
        if not sample.corners:
            continue
        image = read_image(sample)
        boxes = np.array([c.box for c in sample.corners], np.float32)
        readings = []
        for order, aspect in enumerate(aspects):
            wide, sx, sy = stretched(image, aspect)
            scaled = boxes * np.array([sx, sy, sx, sy], np.float32)
            probs = recogniser.classifier.probabilities(recogniser.classifier.crops(wide, scaled))
            probs = recogniser.classifier.in_context(wide, scaled, probs)
            cards = probs[:, :-1] if reject else probs
            readings.append((int((cards.max(axis=1) >= confident).sum()), -order, aspect, probs))
        # the most confident boxes; on a tie the earlier aspect (the photo as saved, first)
        _score, _order, best_aspect, best = max(readings, key=lambda r: (r[0], r[1]))
        key = f"{best_aspect:.3g}"
        chosen[key] = chosen.get(key, 0) + 1
        tally = subsets.setdefault(sample.subset, CropTally())
        for corner, row in zip(sample.corners, best, strict=True):
            cards = row[:-1] if reject else row
            read = recogniser.cards[int(np.argmax(cards))]
            rejected = bool(reject and row[-1] >= recogniser.reject)
            overall.add(corner.card, read, rejected)
            tally.add(corner.card, read, rejected)
            if size_edges is not None:
                size = bin_of(box_side(corner.box), size_edges, names)
                for part in (None, sample.subset):
                    sized.setdefault(part, {}).setdefault(size, CropTally()).add(corner.card, read, rejected)

    def by_size(part: str | None) -> dict[str, object]:
        bins = sized.get(part, {})
        return {"by_index_size": {n: bins[n].summary() for n in names if n in bins}} if size_edges is not None else {}

    return {
        **overall.summary(),
        **by_size(None),
        "aspects": dict(sorted(chosen.items())),
        "subsets": {name: {**t.summary(), **by_size(name)} for name, t in sorted(subsets.items())},
    }
