"""What the recogniser finds in one frame: typed detections, shared by the recogniser, the tracker
and the evaluation, so that each can be replaced without touching the others.

Coordinates are image pixels of the frame that was passed in. A detection is one printed corner
index (a card lying flat shows two); the tracker groups them into cards.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from engine.cards import Card


@dataclass(frozen=True, slots=True)
class Detection:
    """One recognised corner index (or card) in an image.

    ``candidates`` holds the classifier's alternatives best first, each with its probability,
    starting with ``card`` itself; the controller falls back on them when the rules prove the first
    reading impossible. ``turns`` is which way up the printed index stands, where the models say so
    surely: the quarter turns (``np.rot90``, counter-clockwise) that would stand it upright, 0-3, or
    None (no orientation model, or one in doubt). A photo's card vote uses it to tell one card's two
    indices from two cards' (:class:`vision.recognise.cards.CardVote`).
    """

    card: Card
    confidence: float
    polygon: tuple[tuple[float, float], ...]
    candidates: tuple[tuple[Card, float], ...] = ()
    turns: int | None = None

    @property
    def center(self) -> tuple[float, float]:
        xs = [p[0] for p in self.polygon]
        ys = [p[1] for p in self.polygon]
        return (sum(xs) / len(xs), sum(ys) / len(ys))

    @property
    def box(self) -> tuple[float, float, float, float]:
        """Axis-aligned bounds ``(x1, y1, x2, y2)``."""
        xs = [p[0] for p in self.polygon]
        ys = [p[1] for p in self.polygon]
        return (min(xs), min(ys), max(xs), max(ys))


def box_overlap(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> float:
    """The share of the smaller of two boxes ``(x1, y1, x2, y2)`` that the other covers: near 1 for one
    corner index boxed twice (a tight and a loose box), 0 for indices side by side."""
    width = min(a[2], b[2]) - max(a[0], b[0])
    height = min(a[3], b[3]) - max(a[1], b[1])
    if width <= 0 or height <= 0:
        return 0.0
    smaller = min((a[2] - a[0]) * (a[3] - a[1]), (b[2] - b[0]) * (b[3] - b[1]))
    return width * height / smaller if smaller > 0 else 1.0


def box_overlaps(boxes: np.ndarray) -> np.ndarray:
    """:func:`box_overlap` of every pair of ``boxes`` ``(n, 4)``, as an ``(n, n)`` matrix (a frame's boxes
    compared all at once, where a Python loop over pairs would cost the tracker milliseconds a frame)."""
    boxes = np.asarray(boxes, np.float64).reshape(-1, 4)
    width = np.minimum(boxes[:, None, 2], boxes[None, :, 2]) - np.maximum(boxes[:, None, 0], boxes[None, :, 0])
    height = np.minimum(boxes[:, None, 3], boxes[None, :, 3]) - np.maximum(boxes[:, None, 1], boxes[None, :, 1])
    common = np.clip(width, 0, None) * np.clip(height, 0, None)
    area = (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])
    smaller = np.minimum(area[:, None], area[None, :])
    with np.errstate(divide="ignore", invalid="ignore"):
        share = np.where(smaller > 0, common / smaller, 1.0)
    return np.where(common > 0, share, 0.0)


Region = tuple[float, float, float, float]
"""A part of a frame to read, ``(x1, y1, x2, y2)`` in image pixels: where the mat's zones lie."""


class Recogniser(Protocol):
    """Anything that reads cards in a BGR ``uint8`` image (H x W x 3).

    ``regions``, when given, are the parts of the image worth reading (the tracker's zones, from the
    calibration): a recogniser may read only those, and closer. Detections are still in the whole
    image's pixels. ``None`` reads the whole image. ``within``, when given, are the parts whose
    findings are wanted (the zones not at rest): a recogniser may leave the others unnamed, and the
    tracker ignores what it finds there all the same. ``outlines`` are the cards known to lie on top
    (image pixels, n x 2 each: the tracker's cards just put down): a recogniser may take what it reads
    inside one as that card's alone.
    """

    def detect(
        self,
        image: np.ndarray,
        regions: Sequence[Region] | None = None,
        *,
        within: Sequence[Region] | None = None,
        outlines: Sequence[np.ndarray] = (),
    ) -> list[Detection]: ...


class BoxReader(Protocol):
    """Reads the corner indices at given boxes of an image, without looking for them (the classifier alone:
    :meth:`vision.recognise.OnnxRecogniser.read`). The tracker uses one, when given, to read a card the
    detector missed where the card's outline says its indices are (:mod:`vision.proposals`); ``outlines``
    as for :meth:`Recogniser.detect`."""

    def __call__(
        self, image: np.ndarray, boxes: Sequence[Region], *, outlines: Sequence[np.ndarray] = ()
    ) -> list[Detection]: ...
