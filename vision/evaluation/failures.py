"""Pictures of what went wrong, for a person to look at (``cardtable vision eval --errors DIR``).

Each failed image is drawn with the labelled corners in yellow, each reading in green when its card
is in the image and red when it is not, its card and probability beside it, and the missed and false
cards written across the top. ``failures.json`` lists the same facts for scripts.
"""

from __future__ import annotations

import json
from collections.abc import Sequence, Set
from pathlib import Path

import cv2
import numpy as np

from engine.cards import Card
from vision.detections import Detection
from vision.evaluation.dataset import Sample

YELLOW, GREEN, RED, WHITE, BLACK = (0, 220, 255), (40, 200, 40), (40, 40, 230), (255, 255, 255), (0, 0, 0)


def annotate(image: np.ndarray, sample: Sample, detections: Sequence[Detection], found: Set[Card]) -> np.ndarray:
    """A copy of ``image`` with truth, readings and the verdict drawn on it."""
    out = image.copy()
    scale = max(out.shape[0], out.shape[1]) / 640
    thick = max(1, round(scale))
    for corner in sample.corners:
        x1, y1, x2, y2 = (round(v) for v in corner.box)
        cv2.rectangle(out, (x1, y1), (x2, y2), YELLOW, thick)
    for detection in detections:
        colour = GREEN if detection.card.face in sample.cards else RED
        points = np.array(detection.polygon, dtype=np.int32).reshape(-1, 1, 2)
        cv2.polylines(out, [points], True, colour, thick + 1)
        left, top, _, _ = detection.box
        text = f"{detection.card} {detection.confidence:.2f}"
        _label(out, text, (round(left), max(round(top) - 4, 12)), colour, scale)
    missed = sorted(sample.cards - found, key=lambda c: c.index)
    false = sorted(found - sample.cards, key=lambda c: c.index)
    lines = [f"missed: {' '.join(map(str, missed)) or '-'}", f"false: {' '.join(map(str, false)) or '-'}"]
    for row, text in enumerate(lines):
        _label(out, text, (6, round((row + 1) * 22 * scale)), WHITE, scale * 1.2)
    return out


def _label(image: np.ndarray, text: str, origin: tuple[int, int], colour: tuple[int, int, int], scale: float) -> None:
    size = 0.5 * scale
    weight = max(1, round(scale))
    cv2.putText(image, text, origin, cv2.FONT_HERSHEY_SIMPLEX, size, BLACK, weight + 2, cv2.LINE_AA)
    cv2.putText(image, text, origin, cv2.FONT_HERSHEY_SIMPLEX, size, colour, weight, cv2.LINE_AA)


class FailureWriter:
    """Writes one annotated JPEG per failed image into ``directory``, and ``failures.json`` on close."""

    def __init__(self, directory: Path) -> None:
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.records: list[dict[str, object]] = []

    def add(self, image: np.ndarray, sample: Sample, detections: Sequence[Detection], found: Set[Card]) -> None:
        if found == sample.cards:
            return
        name = f"{len(self.records):04d}-{sample.subset}-{sample.path.stem}.jpg"
        cv2.imwrite(str(self.directory / name), annotate(image, sample, detections, found))
        self.records.append(
            {
                "file": name,
                "image": str(sample.path),
                "subset": sample.subset,
                "missed": sorted(str(c) for c in sample.cards - found),
                "false": sorted(str(c) for c in found - sample.cards),
                "readings": [
                    {"card": str(d.card), "confidence": round(d.confidence, 3), "box": [round(v, 1) for v in d.box]}
                    for d in detections
                ],
            }
        )

    def close(self) -> None:
        (self.directory / "failures.json").write_text(json.dumps(self.records, indent=1), encoding="utf-8")
