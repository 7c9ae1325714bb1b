"""Photos whose pixels are not square: read them at each likely frame shape and keep the best reading.

A photo taken as a 16:9 or 4:3 frame and saved as a square (as every picture of the real development
set was, by the dataset's source) squashes each printed index along one axis by up to 1.78 times. The
detector then misses many corners and the classifier misnames the rest: on the development webcam
photos recall is 0.65 as saved and 0.84 with the frames restored to 1280x720. A table camera's own
frames have square pixels (and the mat's calibration would show it if they did not), so the table
reads them as they are; this is for pictures of unknown origin, which ``cardtable vision eval`` reads.

:class:`AspectSearch` stretches the picture back by each candidate shape, reads it, and keeps the
reading with the most *confident* corners (probability at least ``confident``), preferring the
picture as it is on ties. A squashed index reads with low confidence at the wrong shape and high at
the right one, so confident corners vote for the shape; counting them, rather than all corners,
keeps a wrong stretch that conjures extra doubtful finds from winning. Other ways of scoring a
reading (:data:`KEEP_RULES`) can be compared with ``cardtable vision tune --aspect-rules``; none read
the synthetic or the real sets better on both recall and precision (docs/vision.md).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from fractions import Fraction

import cv2
import numpy as np

from vision.detections import Detection, Recogniser, Region

__all__ = [
    "FRAME_SHAPES",
    "KEEP_RULES",
    "AspectSearch",
    "KeepRule",
    "confident_corners",
    "keep",
    "parse_aspect",
    "stretched",
]

FRAME_SHAPES: tuple[float, ...] = (1.0, 16 / 9, 9 / 16, 4 / 3, 3 / 4)
"""Pixel aspects tried, as width stretch over height stretch: square first, then the frame shapes of
webcams (16:9) and phones (4:3), each landscape and portrait, as if saved square."""


CONFIDENT = 0.9
"""How sure a corner must be to count for the search's own rule: the classifier's "settled" level."""

KeepRule = Callable[[Sequence[Detection]], float]
"""How much a reading is worth: the search keeps the reading that scores highest."""


def confident_corners(level: float) -> KeepRule:
    """Scores a reading by its corners read with probability ``level`` or more."""
    return lambda found: float(sum(d.confidence >= level for d in found))


KEEP_RULES: dict[str, KeepRule] = {
    "confident": confident_corners(CONFIDENT),
    "half-sure": confident_corners(0.5),
    "sum": lambda found: float(sum(d.confidence for d in found)),
    "squares": lambda found: float(sum(d.confidence**2 for d in found)),
    "over-half": lambda found: float(sum(max(0.0, d.confidence - 0.5) for d in found)),
}
"""Ways of scoring one reading, by name: corners read with probability 0.9 or more (the search's own,
``confident``) or 0.5 or more, the sum of the corners' probabilities, of their squares, or of what each
has above one half. Compared on the same readings by ``cardtable vision tune --aspect-rules``."""


def keep(readings: Sequence[tuple[float, list[Detection]]], rule: KeepRule) -> tuple[float, list[Detection]]:
    """The ``(aspect, detections)`` of ``readings`` that ``rule`` scores highest, the earlier one (the
    picture as it is comes first) on ties."""
    if not readings:
        raise ValueError("there is no reading to keep")
    scores = [rule(found) for _aspect, found in readings]
    return readings[max(range(len(readings)), key=lambda i: (scores[i], -i))]


def parse_aspect(text: str) -> float:
    """``"16:9"``, ``"4/3"`` or ``"1.5"`` as a positive number (how much wider than tall a pixel is
    shown). Raises ``ValueError`` naming the text when it is none of those."""
    try:
        if ":" in text:
            w, h = text.split(":", 1)
            value = float(Fraction(w.strip()) / Fraction(h.strip()))
        else:
            value = float(Fraction(text.strip()))
    except (ValueError, ZeroDivisionError):
        raise ValueError(f"a pixel aspect is W:H or a number, such as 16:9 or 1, not {text!r}") from None
    if not 0.2 <= value <= 5.0:
        raise ValueError(f"a pixel aspect must be between 1:5 and 5:1, not {text!r}")
    return value


def stretched(image: np.ndarray, aspect: float) -> tuple[np.ndarray, float, float]:
    """``image`` stretched along one axis so that its pixels become ``aspect`` wide per unit tall;
    returns it with the x and y scale factors applied."""
    h, w = image.shape[:2]
    if aspect == 1.0:
        return image, 1.0, 1.0
    if aspect > 1.0:
        new_w = max(1, round(w * aspect))
        return cv2.resize(image, (new_w, h), interpolation=cv2.INTER_LINEAR), new_w / w, 1.0
    new_h = max(1, round(h / aspect))
    return cv2.resize(image, (w, new_h), interpolation=cv2.INTER_LINEAR), 1.0, new_h / h


def _unscaled(detection: Detection, sx: float, sy: float) -> Detection:
    if sx == 1.0 and sy == 1.0:
        return detection
    polygon = tuple((x / sx, y / sy) for x, y in detection.polygon)
    return replace(detection, polygon=polygon)  # a stretch along an axis keeps an index's quarter turns


class AspectSearch:
    """A :class:`~vision.detections.Recogniser` that reads an image at several pixel aspects and keeps
    the reading with the most confident corners, in the image's own coordinates.

    Each aspect costs one full reading, so the default five cost five times one: meant for photo
    folders (``cardtable vision eval``), not for the table's frames.
    """

    def __init__(
        self, recogniser: Recogniser, aspects: Sequence[float] = FRAME_SHAPES, *, confident: float = CONFIDENT
    ) -> None:
        if not aspects:
            raise ValueError("an aspect search needs at least one aspect")
        if any(a <= 0 for a in aspects):
            raise ValueError(f"pixel aspects must be positive, not {list(aspects)}")
        self.recogniser = recogniser
        self.aspects = tuple(aspects)
        self.confident = confident

    def readings(
        self,
        image: np.ndarray,
        regions: Sequence[Region] | None = None,
        *,
        within: Sequence[Region] | None = None,
        outlines: Sequence[np.ndarray] = (),
    ) -> list[tuple[float, list[Detection]]]:
        """``image`` read at each aspect, in order: ``(aspect, detections)`` in the image's own pixels."""
        out = []
        for aspect in self.aspects:
            wide, sx, sy = stretched(image, aspect)
            scaled = None if regions is None else [(x1 * sx, y1 * sy, x2 * sx, y2 * sy) for x1, y1, x2, y2 in regions]
            wanted = None if within is None else [(x1 * sx, y1 * sy, x2 * sx, y2 * sy) for x1, y1, x2, y2 in within]
            cards = [np.asarray(o, np.float64).reshape(-1, 2) * (sx, sy) for o in outlines]
            found = self.recogniser.detect(wide, scaled, within=wanted, outlines=cards)
            out.append((aspect, [_unscaled(d, sx, sy) for d in found]))
        return out

    def detect(
        self,
        image: np.ndarray,
        regions: Sequence[Region] | None = None,
        *,
        within: Sequence[Region] | None = None,
        outlines: Sequence[np.ndarray] = (),
    ) -> list[Detection]:
        readings = self.readings(image, regions, within=within, outlines=outlines)
        _aspect, best = keep(readings, confident_corners(self.confident))
        return best

    def __repr__(self) -> str:
        return f"AspectSearch({self.recogniser!r}, aspects={[round(a, 3) for a in self.aspects]})"
