"""Comparing pictures: what lies off a zone's felt, and whether a card found again after a hand is the same card pushed
where it lay (its face aligned by OpenCV's ECC, where the two differ most, how much the place it left changed).

Plain functions of images, apart from the tracker's layers so that each can be run on saved views
(tests/vision/data).
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.shading import shading_only


def _off_felt(top: np.ndarray, shade_is_felt: bool = True) -> np.ndarray:
    """Which pixels of a zone's top-down view (BGR) are far from its median colour, the felt's (most of a zone is
    felt), and not the felt in a shadow (:func:`vision.shading.shading_only`) unless ``shade_is_felt`` is False: 1
    where something lies, as uint8."""
    felt = np.median(top.reshape(-1, 3), axis=0)
    far: np.ndarray = np.linalg.norm(top.astype(np.float32) - felt, axis=2) > 60
    return (far & ~shading_only(felt, top, where=far) if shade_is_felt else far).astype(np.uint8)


def _vacated_change(then: np.ndarray, now: np.ndarray, found: np.ndarray, away: int = 4) -> float | None:
    """How much the place a card left changed: the mean difference, in grey levels, between two grey upright views
    of where it lay (``then`` before the hand, ``now`` after; 2 px per mm) outside where it was found (``found``:
    its corners in view pixels) by ``away`` pixels and inside the view's edge by 2, both blurred a little against
    the camera's noise. None when less than 10 mm square was left (a push too small to say)."""
    height, width = then.shape
    there = np.zeros((height, width), np.uint8)
    cv2.fillPoly(there, [np.round(found).astype(np.int32)], 1)
    left = cv2.dilate(there, np.ones((2 * away + 1, 2 * away + 1), np.uint8)) == 0
    left[:2, :] = left[-2:, :] = False
    left[:, :2] = left[:, -2:] = False
    if int(left.sum()) < 40:
        return None
    a = cv2.GaussianBlur(then, (0, 0), 1.5).astype(np.float32)
    b = cv2.GaussianBlur(now, (0, 0), 1.5).astype(np.float32)
    return float(np.abs(a - b)[left].mean())


def _moved_card(
    then: np.ndarray, around: np.ndarray, pad: int, alike: float, guess: np.ndarray | None = None
) -> np.ndarray | None:
    """Where the card of the grey view ``then`` lies later, in ``around`` (the same place's view grown by ``pad``
    pixels on every side): the turn and shift (2 x 3, ``then``'s pixels; ``now``, the view of ``then``'s size and
    place, at it shows ``then``) that OpenCV's ECC alignment finds from ``guess`` (default: none), when the two are at
    least ``alike`` alike then (its correlation coefficient; 1: the same), else None. ``then``'s edges (5 %) are left
    out (the outline's own error, the rounded corners). Both are blurred a little first, so that the camera's noise
    does not count.

    Why the view grown: the card pushed 6-8 mm, aligned in a view of its old place only, is compared where it left
    that view with what lies beside it, and fell short of ``nudge_alike`` (the demo deck with two decks, Makao
    seed 1: a 3H pushed 7.9 mm, a 2S 7.3 mm, an AD 6.4 mm, each then reported again). Why three sizes, each from
    where the last one got even when it did not converge: from where the card lay, the half-size step alone did not
    converge for a 9C pushed 7.8 mm (seed 0 with two decks; the quarter-size one got within a pixel)."""
    height, width = then.shape
    my, mx = height // 20, width // 20
    template = then[my : height - my, mx : width - mx]
    edge = np.array([mx, my], np.float64)
    warp = np.eye(2, 3) if guess is None else np.asarray(guess, np.float64).copy()
    warp[:, 2] += warp[:, :2] @ edge + pad  # from the template's pixels to the grown view's
    criteria = (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT, 100, 1e-5)
    score = 0.0
    for scale in (0.25, 0.5, 1.0):  # coarse first, so that a push of a centimetre is within the alignment's reach
        a = cv2.GaussianBlur(cv2.resize(template, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA), (0, 0), 1.5)
        b = cv2.GaussianBlur(cv2.resize(around, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA), (0, 0), 1.5)
        scaled = warp.astype(np.float32)
        scaled[:, 2] *= scale
        everywhere = np.ones(b.shape, np.uint8)  # (the whole grown view may show the card)
        try:
            score, found = cv2.findTransformECC(
                a.astype(np.float32), b.astype(np.float32), scaled, cv2.MOTION_EUCLIDEAN, criteria, everywhere, 5
            )
        except cv2.error:  # this scale did not converge: the next, finer one starts from where this one did
            score = 0.0
            continue
        warp = np.asarray(found, np.float64)
        warp[:, 2] /= scale
    if score < alike:
        return None
    warp[:, 2] -= warp[:, :2] @ edge + pad
    return warp


def _most_differing(then: np.ndarray, now: np.ndarray, window: int = 8, margin: int = 6) -> float:
    """How much two grey upright views of a card (the same size, 2 px per mm) differ where they differ most: the
    largest mean difference, in grey levels, over any ``window`` pixels square (4 mm: a suit sign's or a digit's
    stroke) at least ``margin`` pixels (3 mm) inside the card's edge, once ``now`` is brought to ``then``'s
    brightness and contrast (a straight fit). Both are blurred a little first, so that the camera's noise and
    the warp's resampling do not count.

    Why the largest over a small square, not one figure for the whole face: a card of another rank or suit laid
    in line with one of a like layout differs in a digit, a suit sign or a pip, a few per cent of the face, which
    a correlation of the whole (OpenCV's ECC, ``nudge_alike``) averages away on white cards printed with little
    ink, while the same card pushed differs nowhere. Within 3 mm of the edge lie what a push uncovers beside the
    card and the rounded corners."""
    a = cv2.GaussianBlur(then, (0, 0), 1.5).astype(np.float32)
    b = cv2.GaussianBlur(now, (0, 0), 1.5).astype(np.float32)
    height, width = a.shape
    inner = (slice(margin, height - margin), slice(margin, width - margin))
    gain, offset = np.polyfit(b[inner].ravel(), a[inner].ravel(), 1)
    local = cv2.boxFilter(np.abs(a - (gain * b + offset))[inner], -1, (window, window), borderType=cv2.BORDER_REFLECT)
    return float(local.max()) if local.size else 0.0
