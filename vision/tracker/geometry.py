"""Where things lie, in table mm and image pixels: a zone's bounds grown and clipped to the frame, which corner a box
read, a card's corners matched and carried by a map, how far inside a card's outline a point lies, and whether two
sets of points lie close.

Plain functions of points, which every layer of :class:`~vision.tracker.CardTracker` and the per-zone state
(:mod:`vision.tracker.state`) use.
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

from vision.calibration import Calibration
from vision.detections import Region
from vision.zones import Zone


def _grown(zone: Zone, margin: float) -> np.ndarray:
    """The four corners (table mm, clockwise from top-left) of ``zone``'s bounds grown by ``margin``."""
    x1, y1, x2, y2 = zone.bounds
    return np.array(
        [[x1 - margin, y1 - margin], [x2 + margin, y1 - margin], [x2 + margin, y2 + margin], [x1 - margin, y2 + margin]]
    )


def _image_bounds(calibration: Calibration, zone: Zone, margin: float, width: int, height: int) -> Region:
    """The image-pixel bounding rectangle of ``zone`` grown by ``margin`` mm, clipped to the frame."""
    return _bounds(calibration.to_image(_grown(zone, margin)), width, height)


def _bounds(pts: np.ndarray, width: int, height: int) -> Region:
    """The bounding rectangle of image points, clipped to a ``width`` x ``height`` frame."""
    left, top = float(np.clip(pts[:, 0].min(), 0, width)), float(np.clip(pts[:, 1].min(), 0, height))
    right, bottom = float(np.clip(pts[:, 0].max(), 0, width)), float(np.clip(pts[:, 1].max(), 0, height))
    return (left, top, right, bottom)


_SAME_PLACE_MM = 5.0
"""Readings of one card closer than this (table mm) were read at one place: kept once among its places."""


def _nearest(centres: np.ndarray, points: Sequence[np.ndarray]) -> list[int]:
    """For each box centre (table mm), which of a reading's ``points`` it lies nearest to: the corner that box read
    (a corner boxed twice has two boxes)."""
    return [int(np.argmin([float(np.linalg.norm(c - p)) for p in points])) for c in centres]


def _corresponding(old: np.ndarray, new: np.ndarray) -> np.ndarray:
    """``new``'s four corners (table mm, turning the same way as ``old``'s) starting at the one that puts each
    nearest the same corner of ``old``."""
    return min((np.roll(new, k, axis=0) for k in range(4)), key=lambda o: float(np.linalg.norm(o - old, axis=1).sum()))


def _carried(moved: np.ndarray, points: np.ndarray) -> np.ndarray:
    """``points`` (``(n, 2)`` table mm) carried by the 3 x 3 map ``moved``."""
    return np.asarray(cv2.perspectiveTransform(np.asarray(points, np.float64).reshape(-1, 1, 2), moved)).reshape(-1, 2)


def _depths(outline: np.ndarray, points: Sequence[np.ndarray]) -> list[float]:
    """How far inside ``outline`` (a card's four corners, table mm) each of ``points`` lies, in mm: negative
    outside it. What every test of a reading against the card put down is made of."""
    quad = outline.astype(np.float32)
    return [cv2.pointPolygonTest(quad, (float(p[0]), float(p[1])), True) for p in points]


def _close(a: list[np.ndarray], b: list[np.ndarray], radius: float) -> bool:
    """Whether any point of ``a`` lies within ``radius`` mm of any point of ``b``."""
    return any(float(np.linalg.norm(p - q)) <= radius for p in a for q in b)
