"""Stage one: find printed corner indices with the YOLOv8 detector export.

The export expects a square letterboxed RGB image in 0..1 and returns ``(1, 4 + classes, N)``
candidate boxes (centre x, centre y, width, height in letterboxed pixels, then one score per class).
Boxes are mapped back to the caller's image pixels here, so nothing downstream ever sees letterbox
coordinates.

Frames are shown to the detector at the scale it was trained at (``train_imgsz`` in the manifest),
so a full frame's cards look as large to it as the training scenes' cards did, whatever size the
graph was exported at: the frame's short side is scaled to the training size. A wide frame at that
scale is read in one run when it fits the graph, and as overlapping square tiles when it does not
(:func:`plan_windows`). NMS is OpenCV's (``cv2.dnn.NMSBoxes``), not hand-written.

At the table the tracker knows where the zones are, so the caller may pass ``regions``: each is read
on its own, fitted to the whole graph (:func:`region_windows`). A zone is a fixed size in mm, so its
cards' indices then reach the detector at about the same size in pixels whatever the camera's
distance and resolution, and larger than in the whole frame: a 1280x720 frame fitted to 320 shows a
card's index about 7 pixels tall, a Makao pile's region fitted to 320 about 15. On the synthetic
table the pile's top card was found at 80 of its 80 visible corners this way, against 62 of 80 in the
whole frame, and read right and sure (0.9) at 61 against 21 (docs/vision.md). The zones are read
this way only when they take no more detector runs than the whole frame: the Makao pile is one run
against two tiles; 3-5-8's four zones would be four, and on eight synthetic games they read no
better than the whole frame's two tiles (811 against 814 of 816 cards confirmed). When the zones take
more runs than the tiles, the rectangle around them all is read in one run, if that shows them at no
less than :data:`UNION_SCALE` of the tiles' scale: the 3-5-8 mat's four zones, one run instead of two.

A photo has no zones, and its scale is not known in advance. Where the indices found in a whole frame
are small where the detector saw them (the manifest's ``closer``,
:class:`~vision.recognise.manifest.CloserLook`), the frame is read again as four or more overlapping
tiles, closer, and both readings' boxes are kept: on the held-out designs' photos that found 0.038 more
of the cards (docs/vision.md, "5 December, morning: a photo of small indices read again closer").
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import cv2
import numpy as np

from vision.detections import Region
from vision.recognise.manifest import DetectorSpec, ModelError
from vision.recognise.session import open_session, static_dim

TileMode = Literal["auto", "on", "off"]

PAD_VALUE = 114
"""Letterbox padding grey, as ultralytics pads its training images."""


@dataclass(frozen=True, slots=True)
class Letterbox:
    """How an image was fitted into the detector's square: ``input = image * scale + (pad_x, pad_y)``."""

    scale: float
    pad_x: float
    pad_y: float

    def to_image(self, xyxy: np.ndarray) -> np.ndarray:
        """Boxes ``(n, 4)`` in letterboxed pixels to the original image's pixels."""
        out = xyxy.astype(np.float32, copy=True)
        out[:, [0, 2]] = (out[:, [0, 2]] - self.pad_x) / self.scale
        out[:, [1, 3]] = (out[:, [1, 3]] - self.pad_y) / self.scale
        return out


def letterbox(bgr: np.ndarray, size: int, fit: int | None = None) -> tuple[np.ndarray, Letterbox]:
    """Fit ``bgr`` into a ``fit`` square (default ``size``), centred on grey padding in a ``size`` square.

    Returns the network tensor ``(1, 3, size, size)`` float32 RGB in 0..1 and the mapping back. The
    rounding follows ultralytics' ``LetterBox`` so that boxes land where training put them. A ``fit``
    smaller than ``size`` shows the image at a smaller scale to a fixed-size graph.
    """
    fit = size if fit is None else min(fit, size)
    h, w = bgr.shape[:2]
    scale = min(fit / h, fit / w)
    new_w, new_h = max(1, round(w * scale)), max(1, round(h * scale))
    if (new_w, new_h) != (w, h):
        bgr = cv2.resize(bgr, (new_w, new_h), interpolation=cv2.INTER_LINEAR)  # as ultralytics trains
    dw, dh = (size - new_w) / 2, (size - new_h) / 2
    top, bottom = round(dh - 0.1), round(dh + 0.1)
    left, right = round(dw - 0.1), round(dw + 0.1)
    padded = cv2.copyMakeBorder(bgr, top, bottom, left, right, cv2.BORDER_CONSTANT, value=(PAD_VALUE,) * 3)
    # Planar RGB float32 written plane by plane: several times faster than a transpose-and-cast.
    tensor = np.empty((1, 3, size, size), np.float32)
    blue, green, red = cv2.split(padded)
    tensor[0, 0], tensor[0, 1], tensor[0, 2] = red, green, blue
    tensor *= 1.0 / 255.0
    return tensor, Letterbox(scale=scale, pad_x=left, pad_y=top)


Window = tuple[int, int, int, int]


def plan_windows(height: int, width: int, size: int, fit: int, mode: TileMode) -> tuple[list[Window], int]:
    """The windows ``(x, y, w, h)`` the detector reads for a frame, and the square each is fitted into.

    The aim is to show the detector the frame at its training scale: the frame's short side as large
    as ``fit``. A whole frame at that scale fits a larger graph when the frame is not too wide (a
    1280x720 frame at training scale 320 is 569x320, inside a 640 graph): then it is read in one run.
    Otherwise (``auto``), or always (``on``), the frame is read as square tiles as tall as its short
    side, spread along the long side to overlap by at least a fifth, each fitted into ``fit``.
    ``off`` reads the whole frame once, as large as the graph allows up to the training scale.
    """
    long_side, short_side = max(height, width), min(height, width)
    whole = fit * long_side / short_side
    single = (0, 0, width, height)
    if long_side == short_side or mode == "off" or (mode == "auto" and whole <= 1.05 * size):
        return [single], min(size, round(whole))
    starts = _starts(long_side, short_side)
    if width >= height:
        return [(x, 0, short_side, short_side) for x in starts], fit
    return [(0, y, short_side, short_side) for y in starts], fit


def _starts(length: int, side: int) -> list[int]:
    """Where tiles of ``side`` begin along ``length``: evenly spread from end to end, overlapping by at
    least a fifth of a tile (one tile when it spans the length)."""
    if length <= side:
        return [0]
    count = max(2, math.ceil((length - side) / (0.8 * side)) + 1)
    return [round(i * (length - side) / (count - 1)) for i in range(count)]


def closer_windows(height: int, width: int, tile: float) -> list[Window]:
    """Square tiles ``tile`` times the frame's short side, spread over both axes to overlap by at least
    a fifth, for :class:`~vision.recognise.manifest.CloserLook`'s second reading."""
    side = max(1, round(tile * min(height, width)))
    return [(x, y, side, side) for y in _starts(height, side) for x in _starts(width, side)]


MIN_REGION = 8
"""Regions narrower or shorter than this many pixels (a zone out of view) are not read."""


def region_windows(regions: Sequence[Region], height: int, width: int) -> list[Window]:
    """The windows ``(x, y, w, h)`` for ``regions`` ``(x1, y1, x2, y2)``: rounded outwards to whole
    pixels and clipped to the frame; those left smaller than :data:`MIN_REGION` are dropped, as are
    regions that are not four finite numbers (a zone mapped through a broken calibration)."""
    windows: list[Window] = []
    for region in regions:
        if len(region) != 4 or not all(math.isfinite(float(v)) for v in region):
            continue
        x1, y1, x2, y2 = region
        left, top = max(0, math.floor(x1)), max(0, math.floor(y1))
        right, bottom = min(width, math.ceil(x2)), min(height, math.ceil(y2))
        if right - left >= MIN_REGION and bottom - top >= MIN_REGION:
            windows.append((left, top, right - left, bottom - top))
    return windows


UNION_SCALE = 0.85
"""When the zones take more detector runs than the whole frame's tiles, the rectangle around them all is
read in one run instead, if that shows them at no less than this share of the tiles' scale. The 3-5-8 mat's
four zones in a 1280x720 frame make a 782 x 597 rectangle: one run at 0.92 of the two tiles' scale, a card's
index about 8 % smaller, well inside the sizes the detector was trained on (cards 30-230 px tall at 320), for
half the detector's time. Never much smaller than the tiles show it: reading zones larger was what made the
pile's indices found and read sure (docs/vision.md)."""


def _union(windows: Sequence[Window]) -> Window:
    """The smallest window holding all of ``windows``."""
    left, top = min(x for x, _, _, _ in windows), min(y for _, y, _, _ in windows)
    right, bottom = max(x + w for x, _, w, _ in windows), max(y + h for _, y, _, h in windows)
    return (left, top, right - left, bottom - top)


class CornerDetector:
    """The detector session and its decoding; returns boxes in the input image's pixels."""

    def __init__(
        self,
        path: Path,
        spec: DetectorSpec,
        *,
        threads: int = 1,
        conf: float = 0.25,
        iou: float = 0.5,
        max_detections: int = 100,
        tile: TileMode = "auto",
        fit: int | None = None,
    ) -> None:
        self.session = open_session(path, threads)
        model_input = self.session.get_inputs()[0]
        self.input_name = model_input.name
        shape = model_input.shape
        if len(shape) != 4:
            raise ModelError(f"{path}: detector input should be (1, 3, S, S), not {shape}")
        graph_size = static_dim(shape[2])
        # The scale frames are shown at: as given, else the size the detector was trained at (a full
        # frame then looks as large to it as the training scenes did), else the graph's own size.
        wanted = fit or spec.train_imgsz or graph_size or spec.imgsz
        if graph_size is not None:
            self.size, self.fit = graph_size, min(wanted, graph_size)
        else:  # a dynamic graph runs at the wanted size itself (a multiple of its 32-pixel stride)
            self.size = self.fit = max(32, round(wanted / 32) * 32)
        self.num_classes = len(spec.classes)
        self.conf = conf
        self.iou = iou
        self.max_detections = max_detections
        self.tile: TileMode = tile
        self.closer = spec.closer
        self.path = path

    def boxes(self, bgr: np.ndarray, regions: Sequence[Region] | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Corner boxes ``(n, 4)`` as x1, y1, x2, y2 in ``bgr``'s pixels, and their scores ``(n,)``.

        With ``regions`` only those parts are read, each fitted to the whole graph, when they are no
        more windows than the whole frame would take (see the module's docstring); else the whole frame
        is read as usual. A box a region's edge cuts (inside the frame) is dropped as a stump. Without
        ``regions``, a frame whose indices were small where the detector saw them is read again closer
        when the manifest asks for it (``closer``), and both readings' boxes are kept.
        """
        height, width = bgr.shape[:2]
        windows, fit = plan_windows(height, width, self.size, self.fit, self.tile)
        several = len(windows) > 1
        if regions is not None:
            zoomed = region_windows(regions, height, width)
            if len(zoomed) <= len(windows):
                windows, fit, several = zoomed, self.size, True
            elif len(windows) > 1:
                union = _union(zoomed)
                # letterbox's scale for a window: the fit over its longer side
                if self.size / max(union[2], union[3]) >= UNION_SCALE * fit / max(windows[0][2], windows[0][3]):
                    windows, fit, several = [union], self.size, True
        boxes, scores = self._read_windows(bgr, windows, fit, several)
        if regions is None and self.closer is not None and self.tile != "off" and len(boxes):
            seen = np.maximum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]) * fit / max(windows[0][2:])
            if float(np.median(seen)) < self.closer.below:
                tiles = closer_windows(height, width, self.closer.tile)
                near, near_scores = self._read_windows(bgr, tiles, self.fit, True)
                boxes, scores = np.concatenate([boxes, near]), np.concatenate([scores, near_scores])
                keep = self._nms(boxes, scores)
                boxes, scores = boxes[keep], scores[keep]
        boxes[:, [0, 2]] = boxes[:, [0, 2]].clip(0, width)
        boxes[:, [1, 3]] = boxes[:, [1, 3]].clip(0, height)
        return boxes, scores

    def _read_windows(
        self, bgr: np.ndarray, windows: Sequence[Window], fit: int, several: bool
    ) -> tuple[np.ndarray, np.ndarray]:
        """The boxes and scores of ``windows`` read at ``fit``, in ``bgr``'s pixels, merged by NMS when
        there are ``several`` (stumps cut by an inner window edge dropped first)."""
        height, width = bgr.shape[:2]
        all_boxes: list[np.ndarray] = []
        all_scores: list[np.ndarray] = []
        for x, y, w, h in windows:
            boxes, scores = self._read_window(bgr[y : y + h, x : x + w], fit)
            if several and len(boxes):
                # A box cut by an inner window edge is seen whole by the neighbouring one: drop the stump.
                inner = _touches_inner_edge(boxes, x, y, w, h, width, height)
                boxes, scores = boxes[~inner], scores[~inner]
            boxes[:, [0, 2]] += x
            boxes[:, [1, 3]] += y
            all_boxes.append(boxes)
            all_scores.append(scores)
        boxes = np.concatenate(all_boxes) if all_boxes else np.zeros((0, 4), np.float32)
        scores = np.concatenate(all_scores) if all_scores else np.zeros((0,), np.float32)
        if several and len(boxes):
            keep = self._nms(boxes, scores)
            boxes, scores = boxes[keep], scores[keep]
        return boxes, scores

    def _read_window(self, bgr: np.ndarray, fit: int) -> tuple[np.ndarray, np.ndarray]:
        tensor, mapping = letterbox(bgr, self.size, fit)
        output = self.session.run(None, {self.input_name: tensor})[0]
        expected = 4 + self.num_classes
        if output.ndim != 3 or output.shape[0] != 1 or output.shape[1] != expected:
            raise ModelError(
                f"{self.path}: detector output should be (1, {expected}, N) for {self.num_classes} class(es),"
                f" not {tuple(output.shape)}"
            )
        pred = output[0].T  # (N, 4 + classes)
        scores = pred[:, 4:].max(axis=1)
        mask = scores >= self.conf
        pred, scores = pred[mask], scores[mask].astype(np.float32)
        if not len(pred):
            return np.zeros((0, 4), np.float32), scores
        xyxy = np.empty((len(pred), 4), np.float32)
        xyxy[:, 0] = pred[:, 0] - pred[:, 2] / 2
        xyxy[:, 1] = pred[:, 1] - pred[:, 3] / 2
        xyxy[:, 2] = pred[:, 0] + pred[:, 2] / 2
        xyxy[:, 3] = pred[:, 1] + pred[:, 3] / 2
        keep = self._nms(xyxy, scores)
        return mapping.to_image(xyxy[keep]), scores[keep]

    def _nms(self, xyxy: np.ndarray, scores: np.ndarray) -> np.ndarray:
        rects = np.column_stack([xyxy[:, 0], xyxy[:, 1], xyxy[:, 2] - xyxy[:, 0], xyxy[:, 3] - xyxy[:, 1]])
        keep = cv2.dnn.NMSBoxes(
            rects.astype(np.float64).tolist(),
            scores.astype(np.float64).tolist(),
            self.conf,
            self.iou,
            top_k=self.max_detections,
        )
        return np.asarray(keep, dtype=np.int64).reshape(-1)


def _touches_inner_edge(boxes: np.ndarray, x: int, y: int, w: int, h: int, width: int, height: int) -> np.ndarray:
    """Which boxes (in window pixels) touch a window edge that is not also a frame edge."""
    margin = 2.0
    touches = np.zeros(len(boxes), dtype=bool)
    if x > 0:
        touches |= boxes[:, 0] <= margin
    if x + w < width:
        touches |= boxes[:, 2] >= w - margin
    if y > 0:
        touches |= boxes[:, 1] <= margin
    if y + h < height:
        touches |= boxes[:, 3] >= h - margin
    return touches
