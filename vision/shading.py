"""What a shadow does to a view of the table, so that the tracker can tell it from a card.

A lamp over the table and players leaning under it put soft shadows on the mat: a shadow takes a share of the
light from whatever lies beneath and leaves its colour. A card does not do that to the felt (white or a patterned
back where green was), nor ink to paper (black where white was, or red). So a pixel whose colour now is its colour
before scaled by a factor inside the range a shadow gives, with little left over, is shading, not something put
down or taken away. This is the shadow model of background subtraction (Horprasert, Harwood and Davis, 1999;
OpenCV's ``BackgroundSubtractorMOG2`` with ``detectShadows`` tests a pixel the same way against its learnt
background): the brightness a pixel has along its old colour, and how far it lies off that colour.

Why: with a shadow's change read as a change, a player leaning over the table to look at the trick (a still
shadow, 45-60 % of the lamp's light) made an empty zone look card-shaped to the tracker, which asked the players
about a card nobody laid, made a pile's covered corners look newly uncovered, and, once it lifted, made the pile look
changed (``cardtable bench tracker --shadows``, ``cardtable demo --shadows``; docs/vision.md, "7 December, later
still").
"""

from __future__ import annotations

from typing import Final

import cv2
import numpy as np

DARKEST: Final = 0.3
"""The least share of the light a shadow is taken to leave (the benches' deepest shadows, ``--shadows 0.6``, leave
0.4); a pixel darker than this against its old colour is something dark laid there: ink, a card's dark back."""
DISTORTION: Final = 20.0
"""Grey levels a shaded colour may lie off its old colour's direction (a camera's noise and a lamp's tint)
before it is another colour, plus :data:`DISTORTION_SHARE` of the old colour's length."""
DISTORTION_SHARE: Final = 0.08
BRIGHTEST: Final = 1.15
"""How much brighter along its old colour a place may look and still be that place in a shadow, by default (times
the views' overall change in brightness, ``exposure``: a camera's auto-exposure, flicker).
Right against a view known to be unshaded (the empty mat, the felt's colour), where a place lit brighter than it is
something of its colour, lighter, lying there. Two views either of which may hold a shadow are compared with
``brightest=1 / DARKEST`` (:func:`vision.proposals.changed_pixels`): a shadow that lay on the first has lifted."""
SHADE_WINDOW_MM: Final = 15.0
"""How far one shadow's scale is taken to hold (see ``window``): a shadow's edge blurs over a centimetre or more
under a lamp; a court picture's lines are a millimetre or two apart."""


SHADOW_LIGHT: Final = 0.7
"""The share of the lamp's smooth light over the mat under which a place on the felt lies in a shadow
(:func:`shadowed`). The lamp's own unevenness (its fall-off towards the mat's edges, a window's light across it)
is fitted away; what is left on an evenly printed felt is within 15 % of it (the renderer's lights, any seed) and a
player leaning under the lamp leaves 0.5-0.6 of it beneath their head."""


def shadowed(top: np.ndarray, *, light: float = SHADOW_LIGHT) -> np.ndarray:
    """Which pixels of a view of the whole mat from above (BGR, any scale) are felt in a shadow: lit at under
    ``light`` of the light the lamp gives there, the lamp's light taken as smooth over the mat (its log brightness a
    quadratic in position, fitted to the felt by least squares with the places far off it left out, three times:
    a shadow's own pixels are those). The felt is the pixels of the view's median chromaticity (a shadow keeps
    it; the mat's white printing, its markers and a card do not). A boolean array ``(h, w)``.

    Why: :func:`shading_only` tells a shadow from a card by comparing two views of a place, one of them known to
    be lit. The picture of the empty mat that the tracker compares every view with is that known view: taken while
    a player leaned over the table, its shadow was the empty mat's look there, and the felt lit again differed
    from it in a zone, as a card would (three asks about an empty zone in a game, docs/vision.md, "8 December,
    past midnight"). One picture alone has no earlier view to compare with, but a lamp's light over a mat varies
    slowly and a shadow's edge does not: seen against the light fitted over the whole mat, the shadow stands out."""
    view = np.asarray(top, np.float32)
    h, w = view.shape[:2]
    total = view.sum(axis=2)
    lit = total > 3 * 12  # too dark to have a colour: ink, the markers
    chroma = view / np.maximum(total, 1.0)[..., None]
    felt_colour = np.median(chroma[lit], axis=0) if lit.any() else np.full(3, 1 / 3, np.float32)
    felt = lit & (np.linalg.norm(chroma - felt_colour, axis=2) < 0.06)
    if felt.sum() < 12:
        return np.zeros((h, w), bool)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    xx, yy = xx / max(w, 1) - 0.5, yy / max(h, 1) - 0.5
    terms = np.stack([np.ones_like(xx), xx, yy, xx * xx, xx * yy, yy * yy], axis=-1)
    brightness = np.log(np.maximum(total, 1.0))
    fit = felt
    for _ in range(3):
        coef = np.linalg.lstsq(terms[fit], brightness[fit], rcond=None)[0]
        off = brightness - terms @ coef
        spread = 1.4826 * float(np.median(np.abs(off[fit])))
        fit = felt & (np.abs(off) < max(3 * spread, 0.05))
    shaded: np.ndarray = felt & (off < np.log(light))
    return shaded


def shading_only(
    before: np.ndarray,
    now: np.ndarray,
    *,
    darkest: float = DARKEST,
    brightest: float = BRIGHTEST,
    window: int = 0,
    exposure: float = 1.0,
    where: np.ndarray | None = None,
) -> np.ndarray:
    """Which pixels of two colour views of the same place (``(h, w, 3)``, any dtype; ``before`` may be a single
    colour, ``(3,)``, such as the felt's) differ only as a shadow falling makes them differ: ``now`` along
    ``before``'s colour at between ``darkest`` and ``brightest`` of its brightness, and within :data:`DISTORTION`
    (and :data:`DISTORTION_SHARE` of its brightness) of that line. A boolean array ``(h, w)``.

    ``window`` (pixels, odd; 0: each pixel alone) takes one scale for all the pixels around each, fitted to them
    by least squares, as a soft shadow's is: then a card's court picture under a new card's paper, whose grey
    lines each changed by another factor, is a change, and the ink of a pile's cards under a shadow darkens with
    its paper. Pixels too dark to have a colour (under 12 grey levels in both) count as shading: their change is
    noise.

    ``exposure`` is how much brighter ``now`` is than ``before`` overall (the ratio of their medians: a camera's
    auto-exposure, or a lamp dimmed): the range widens by it, downwards when it is under 1, upwards when over. Why
    not even the views out first, as :func:`vision.proposals.changed_pixels` does for its grey levels: a shadow
    over most of a view lowers its median, and the rest of it, evened out by that, looks lit brighter than before,
    which no shadow does.

    ``where`` (boolean, ``(h, w)``) asks about those pixels only (the others are False): the ones that changed."""
    b = np.asarray(before, np.float32)
    n = np.asarray(now, np.float32)
    shape = n.shape[:-1]
    if b.ndim == 1:
        b = np.broadcast_to(b, n.shape)
    if where is not None and not where.any():
        return np.zeros(shape, bool)
    if window > 1:
        size = (window, window)
        nb = cv2.boxFilter(_dot(n, b), -1, size)
        scale_all = nb / np.maximum(cv2.boxFilter(_dot(b, b), -1, size), 1.0)
    else:
        scale_all = None
    # only where asked (the pixels that changed): a top-down view is 10^5 pixels, its changed ones a few thousand
    idx = np.nonzero(where) if where is not None else np.nonzero(np.ones(shape, bool))
    bs, ns = b[idx], n[idx]
    norm2 = np.einsum("ic,ic->i", bs, bs)
    # how bright ``now`` is along ``before``'s colour: each pixel alone, or fitted over the window
    scale = np.einsum("ic,ic->i", ns, bs) / np.maximum(norm2, 1.0) if scale_all is None else scale_all[idx]
    off = np.linalg.norm(ns - scale[:, None] * bs, axis=1)
    length = np.sqrt(norm2)
    low, high = darkest * min(1.0, exposure), brightest * max(1.0, exposure)
    shaded = (scale >= low) & (scale <= high) & (off <= DISTORTION + DISTORTION_SHARE * length)
    dark = (length < 12 * np.sqrt(3)) & (np.linalg.norm(ns, axis=1) < 12 * np.sqrt(3))
    result = np.zeros(shape, bool)
    result[idx] = shaded | dark
    return result


def _dot(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Each pixel's colour dot product, ``(h, w, 3)`` twice to ``(h, w)`` (OpenCV: a tenth of numpy's time)."""
    return np.asarray(cv2.transform(cv2.multiply(np.ascontiguousarray(a), np.ascontiguousarray(b)), _ONES))


_ONES: Final = np.ones((1, 3), np.float32)
