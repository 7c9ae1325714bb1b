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


def shading_only(
    before: np.ndarray,
    now: np.ndarray,
    *,
    darkest: float = DARKEST,
    brightest: float = BRIGHTEST,
    window: int = 0,
    exposure: float = 1.0,
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
    which no shadow does."""
    b = np.asarray(before, np.float32)
    n = np.asarray(now, np.float32)
    norm2 = (b * b).sum(axis=-1)
    if window > 1 and b.ndim == 3:
        size = (window, window)
        scale = cv2.boxFilter((n * b).sum(axis=-1), -1, size) / np.maximum(cv2.boxFilter(norm2, -1, size), 1.0)
    else:
        scale = (n * b).sum(axis=-1) / np.maximum(norm2, 1.0)  # how bright ``now`` is along ``before``'s colour
    off = np.linalg.norm(n - scale[..., None] * b, axis=-1)
    length = np.sqrt(norm2)
    low, high = darkest * min(1.0, exposure), brightest * max(1.0, exposure)
    shaded = (scale >= low) & (scale <= high) & (off <= DISTORTION + DISTORTION_SHARE * length)
    dark = (length < 12 * np.sqrt(3)) & (np.linalg.norm(n, axis=-1) < 12 * np.sqrt(3))
    return np.asarray(np.broadcast_to(shaded | dark, n.shape[:-1]))
