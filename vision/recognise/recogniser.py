"""``OnnxRecogniser``: the Pi's card reader, a detector and a classifier run with onnxruntime."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np

from engine.cards import Card
from vision.detections import Detection, Region
from vision.recognise.classifier import CornerClassifier
from vision.recognise.detector import CornerDetector, TileMode
from vision.recognise.glyphs import settle_by_glyph
from vision.recognise.manifest import DEFAULT_MODEL_DIR, Manifest
from vision.recognise.orientation import IndexOrientation
from vision.recognise.pips import SuitPips, outline_holding

DEFAULT_CONF = 0.05
"""Detector score a corner needs (tuned on synthetic held-out scenes only; docs/vision.md)."""


class OnnxRecogniser:
    """Reads the printed corner indices in a BGR frame and names the card of each.

    ``threads`` is onnxruntime's intra-op thread count (one on the Pi, where other services share
    the cores). ``conf`` and ``iou`` are the detector's score threshold and NMS overlap;
    ``top_k`` is how many classifier candidates each detection carries for the controller to fall
    back on. A detection whose crop the classifier calls "not an index" with probability ``reject``
    or more is dropped (models with a reject class only). ``tile`` decides whether wide frames are
    read as overlapping tiles (see
    :func:`vision.recognise.detector.tile_windows`). ``fit`` is the square a frame (or tile) is
    scaled into before detection; by default the size the detector was trained at. ``orient`` reads
    which way up each index stands with the manifest's orientation network, where it has one
    (``Detection.turns``): a photo's card vote uses it (:class:`~vision.recognise.cards.CardVote`), the
    table's tracker does not, so it is off unless asked for and the table's frames never pay for it.
    ``photo`` says the images are photos of a whole table rather than the table's own frames: a suit in
    doubt is then read from the pips beside its index only where the rank is as sure as the manifest's
    ``pips.photo_rank`` asks (a photo's fanned rows put a neighbour's pips beside every index).

    Each :class:`~vision.detections.Detection` is one corner index: ``polygon`` is its box in the
    input image's pixels (clockwise from top-left), ``confidence`` is the classifier's probability
    of ``card``.
    """

    def __init__(
        self,
        model_dir: Path | str = DEFAULT_MODEL_DIR,
        *,
        threads: int = 1,
        conf: float = DEFAULT_CONF,
        iou: float = 0.5,
        top_k: int = 3,
        max_detections: int = 100,
        tile: TileMode = "auto",
        fit: int | None = None,
        reject: float = 0.5,
        orient: bool = False,
        photo: bool = False,
    ) -> None:
        if top_k < 1:
            raise ValueError(f"top_k must be at least 1, not {top_k}")
        if not 0.0 <= conf <= 1.0 or not 0.0 < iou <= 1.0:
            raise ValueError(f"conf must be in 0..1 and iou in (0, 1], not conf={conf} iou={iou}")
        self.reject = reject
        self.model_dir = Path(model_dir)
        self.manifest = Manifest.load(self.model_dir)
        self.detector = CornerDetector(
            self.model_dir / self.manifest.detector.file,
            self.manifest.detector,
            threads=threads,
            conf=conf,
            iou=iou,
            max_detections=max_detections,
            tile=tile,
            fit=fit,
        )
        self.classifier = CornerClassifier(
            self.model_dir / self.manifest.classifier.file, self.manifest.classifier, threads=threads, rejected=reject
        )
        self.orientation: IndexOrientation | None = None
        """Which way up each index stands (manifest ``orientation``; None without one)."""
        if orient and self.manifest.orientation is not None:
            spec = self.manifest.classifier
            shape = (1 if spec.channels == "GRAY" else 3, self.classifier.height, self.classifier.width)
            self.orientation = IndexOrientation(
                self.model_dir / self.manifest.orientation.file, self.manifest.orientation, shape, threads=threads
            )
        self.pips: SuitPips | None = None
        """The doubtful suits read again from the pips near their index (manifest ``pips``; None without)."""
        if self.manifest.pips is not None:
            self.pips = SuitPips(
                self.model_dir / self.manifest.pips.file, self.manifest.pips, threads=threads, photo=photo
            )
        self.cards: list[Card] = self.manifest.classifier.cards()
        self.top_k = min(top_k, len(self.cards))
        self.threads = threads

    def detect(
        self,
        image: np.ndarray,
        regions: Sequence[Region] | None = None,
        *,
        within: Sequence[Region] | None = None,
        outlines: Sequence[np.ndarray] = (),
    ) -> list[Detection]:
        """The corner indices in ``image`` (BGR ``uint8``, H x W x 3; grey and BGRA are accepted too).

        ``regions`` (image pixels) limits the detector to those parts, each read closer
        (:meth:`~vision.recognise.detector.CornerDetector.boxes`); the classifier crops from the
        whole image either way. ``within`` (image pixels): only the boxes whose centre lies in one of
        these are named; the detector still reads ``regions`` as it would, at the same scale, so what
        it finds does not depend on which zones are wanted (the tracker's zones at rest are not).
        ``outlines`` (image pixels, n x 2 each): cards known to lie there on top of whatever is beneath
        (the tracker's cards just put down); an index inside one reads a doubtful suit from that card's
        pips only (:func:`~vision.recognise.pips.pip_blobs`), and a doubtful rank from its glyph stood the
        way the card says is up (:mod:`vision.recognise.glyphs`: a six or a nine).
        """
        bgr = _as_bgr(image)
        boxes, _scores = self.detector.boxes(bgr, regions)
        if within is not None and len(boxes):
            boxes = boxes[_centres_within(boxes, within)]
        return self._name(bgr, boxes, outlines)

    def read(
        self, image: np.ndarray, boxes: Sequence[Region], *, outlines: Sequence[np.ndarray] = ()
    ) -> list[Detection]:
        """The corner indices at ``boxes`` (image pixels ``(x1, y1, x2, y2)``), read by the classifier
        without the detector: where the tracker knows a card lies and where its indices must be
        (:mod:`vision.proposals`). A box the classifier calls "not an index" (a card's plain corner) is
        dropped, as in :meth:`detect`; ``outlines`` as there."""
        if not len(boxes):
            return []
        return self._name(_as_bgr(image), np.asarray(boxes, np.float32).reshape(-1, 4), outlines)

    def _name(self, bgr: np.ndarray, boxes: np.ndarray, outlines: Sequence[np.ndarray] = ()) -> list[Detection]:
        """Classify the crops at ``boxes`` and build the detections, best candidates first."""
        if not len(boxes):
            return []
        crops = self.classifier.crops(bgr, boxes)
        probs = self.classifier.probabilities(crops)
        real = np.ones(len(boxes), bool)
        if self.manifest.classifier.reject_class is not None:
            # The last class says "no index here" (a pip, court art): such finds are dropped, and the
            # cards' probabilities stay as they are (already discounted by the doubt).
            real = probs[:, -1] < self.reject
            boxes, probs = boxes[real], probs[real]
        turns = self.orientation.turns(crops[real]) if self.orientation is not None else [None] * len(boxes)
        probs = self.classifier.in_context(bgr, boxes, probs)
        if self.pips is not None:
            probs = self.pips.in_context(self.classifier, bgr, boxes, probs, outlines)
        if len(outlines):
            # an index on a card known to lie there stands with its top to the card's nearer end: a six or nine
            holding = [outline_holding(box, outlines) for box in boxes]
            if any(outline is not None for outline in holding):
                probs = settle_by_glyph(probs, self.cards, bgr, boxes, holding)
        if self.manifest.classifier.reject_class is not None:
            probs = probs[:, :-1]
        order = np.argsort(-probs, axis=1)[:, : self.top_k]
        detections = []
        for box, row, best, turn in zip(boxes, probs, order, turns, strict=True):
            x1, y1, x2, y2 = (float(v) for v in box)
            candidates = tuple((self.cards[int(i)], float(row[i])) for i in best)
            detections.append(
                Detection(
                    card=candidates[0][0],
                    confidence=candidates[0][1],
                    polygon=((x1, y1), (x2, y1), (x2, y2), (x1, y2)),
                    candidates=candidates,
                    turns=turn,
                )
            )
        return detections

    def __repr__(self) -> str:
        return f"OnnxRecogniser(model_dir={str(self.model_dir)!r}, threads={self.threads})"


def _as_bgr(image: np.ndarray) -> np.ndarray:
    """The frame as 3-channel uint8, or a ValueError saying what was passed instead."""
    if not isinstance(image, np.ndarray):
        raise ValueError(f"expected an image as a numpy array, not {type(image).__name__}")
    if image.dtype != np.uint8:
        raise ValueError(f"expected a uint8 image, not {image.dtype}")
    if image.ndim == 2 or (image.ndim == 3 and image.shape[2] == 1):
        return cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    if image.ndim == 3 and image.shape[2] == 4:
        return cv2.cvtColor(image, cv2.COLOR_BGRA2BGR)
    if image.ndim != 3 or image.shape[2] != 3:
        raise ValueError(f"expected an H x W x 3 BGR image, not shape {image.shape}")
    if image.shape[0] < 8 or image.shape[1] < 8:
        raise ValueError(f"image too small to read cards: {image.shape[1]}x{image.shape[0]}")
    return image


def _centres_within(boxes: np.ndarray, rects: Sequence[Region]) -> np.ndarray:
    """Which ``boxes`` (n x 4, x1 y1 x2 y2) have their centre inside one of ``rects``."""
    cx, cy = (boxes[:, 0] + boxes[:, 2]) / 2, (boxes[:, 1] + boxes[:, 3]) / 2
    keep = np.zeros(len(boxes), bool)
    for x1, y1, x2, y2 in rects:
        keep |= (cx >= x1) & (cx <= x2) & (cy >= y1) & (cy <= y2)
    return keep
