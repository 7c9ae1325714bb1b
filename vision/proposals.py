"""Where to read a card the corner detector missed: the new card's outline, and where its indices lie.

The detector finds corner indices by how they look. Some decks print an index the detector has no
feeling for (the held-out orell deck prints its court cards' indices small, over court art printed to
the edges: the detector scores them 0.02-0.03), and then the card is not read at all, although the
classifier names such an index surely when it is handed a crop of it (docs/vision.md, "2 December, night").
The tracker knows something the detector does not: what the table looked like before the hand came.
What changed while the hand was there is the card just put down, so its outline is a card-sized
rectangle, and a card's indices sit at about known shares of its width and height from its corners.

Nothing here decides what a card is: the boxes go to the classifier and its readings vote in the
tracker like any other, under the same thresholds.
"""

from __future__ import annotations

from typing import Final

import cv2
import numpy as np

from vision.shading import DARKEST, SHADE_WINDOW_MM, shading_only
from vision.zones import CARD_SIZE_MM

INDEX_AT: Final = (
    (0.097, 0.125, 0.097, 0.161),
    (0.103, 0.138, 0.105, 0.208),
    (0.126, 0.165, 0.144, 0.244),
    (0.198, 0.165, 0.288, 0.244),
)
"""Where decks print a corner index: its centre (across, down) and size (width, height) as shares of the
card's width and height, measured from the corner it is printed in. Decks differ (a small index tucked
into the corner, a tall one further in, a jumbo "10" whose two glyphs reach a third of the way across),
and a crop a third of an index off names it less surely, so each corner is read at four places: the
medians of the small, middling and tall thirds of the training designs' measured index boxes
(``data/faces/*/index_boxes.json``), and the tall one reaching inward to twice its width. The readings
of one corner vote side by side in the tracker, so a crop that misses the index and reads it as another
card is outvoted by the ones that fit it.

Why the fourth (docs/vision.md, "5 December, evening"): the measured boxes stop at about a quarter of
the card's width, where the measuring looks, so a jumbo "10" is measured as its "1" and part of its "0";
the three crops centred there read "1(" as a 7, and a held-out jumbo deck's 10s were confirmed as 7s at
the table. The wide place centres a crop on the whole "10". On six training designs at the table's scale
its crops named the wrong card 3 times in 1,248 corner readings (the small place 42, the middling 14,
the tall 4). Leaving the small place out instead cost the held-out demo deck two court cards in six
Makao piles: its small court indices over court art are what these places are read for."""


def changed_card(
    before: np.ndarray, now: np.ndarray, *, threshold: float, tolerance: float, px_per_mm: float = 1.0
) -> np.ndarray | None:
    """The four corners (pixels of these views) of the card that appeared between two top-down views.

    ``before`` and ``now`` are the same part of the table warped top-down at ``px_per_mm``, BGR or grey.
    A pixel changed when it moved by more than ``threshold`` grey levels in any channel (after evening
    out the views' overall brightness, which auto-exposure shifts); the changed pixels' smallest
    enclosing rectangle is the new card when its sides are a card's within ``tolerance`` (a share) and
    its edges show now more than before (a card taken away leaves the same rectangle of change, with
    its edges in ``before``). Anything else (a hand's shadow, a pile pushed about, a card taken away and
    another put down) is no card: ``None``, and the tracker reads only what the detector found, as it
    would without this.
    """
    if before.shape != now.shape or before.size == 0:
        return None
    mask: np.ndarray = changed_pixels(before, now, threshold=threshold, px_per_mm=px_per_mm).astype(np.uint8)
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((7, 7), np.uint8))
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    count, labels, stats, _ = cv2.connectedComponentsWithStats(mask)
    min_area = 40 * px_per_mm * px_per_mm  # specks of noise and flicker, far smaller than any piece of a card
    pieces = [i for i in range(1, count) if stats[i, cv2.CC_STAT_AREA] >= min_area]
    if not pieces:
        return None
    # A hand's edge still in the picture at the view's border (it came from outside) is no part of the card;
    # a card laid white on white may change in pieces, so the rest are taken together, else the largest alone.
    height, width = mask.shape
    inside = [
        i
        for i in pieces
        if stats[i, cv2.CC_STAT_LEFT] > 0
        and stats[i, cv2.CC_STAT_TOP] > 0
        and stats[i, cv2.CC_STAT_LEFT] + stats[i, cv2.CC_STAT_WIDTH] < width
        and stats[i, cv2.CC_STAT_TOP] + stats[i, cv2.CC_STAT_HEIGHT] < height
    ]
    largest = max(pieces, key=lambda i: int(stats[i, cv2.CC_STAT_AREA]))
    for chosen in (inside, [largest]):
        if not chosen:
            continue
        ys, xs = np.nonzero(np.isin(labels, chosen))
        rect = cv2.minAreaRect(np.column_stack([xs, ys]).astype(np.float32))
        short, long_ = sorted(rect[1])
        want_short, want_long = (v * px_per_mm for v in CARD_SIZE_MM)
        if abs(short / want_short - 1) > tolerance or abs(long_ / want_long - 1) > tolerance:
            continue
        quad = np.asarray(cv2.boxPoints(rect), np.float64)
        if _edge_strength(now, quad) > _edge_strength(before, quad):
            return quad
    return None


NOISE_CUT: Final = 3.5
"""A view whose median change between two frames (the camera's noise, where a card covers less than half the
view) is more than the threshold over this is averaged before it is compared (:func:`changed_card`). With the
tracker's threshold of 40 that is a median over 11 grey levels: a camera noisy by about 10 a pixel or more
(the synthetic table's views have a median change of 4.5, 9, 14 and 18.5 at noise 4, 8, 12 and 16). At 2.5
the views of noise 12 were still compared pixel by pixel, and one outline in a 40-card pile was missed: a
covered AH's corner beside the card put down was then reported as a card played (``cardtable bench tracker
--recogniser onnx --game makao --noise 12 --seed 4``)."""


def changed_pixels(before: np.ndarray, now: np.ndarray, *, threshold: float, px_per_mm: float = 1.0) -> np.ndarray:
    """Which pixels of two top-down views of the same part of the table (equal shapes) changed by more than
    ``threshold`` grey levels in any channel, after evening out the views' overall brightness (auto-exposure
    shifts it), as a boolean array: what :func:`changed_card` outlines and :func:`unchanged_at` asks about.

    In colour views a pixel that only a shadow falling or lifting changed (:func:`vision.shading.shading_only`:
    darker or lighter along its own colour, smoothly) has not changed: a player leaning over the table under the
    lamp put nothing down (``cardtable bench tracker --shadows``)."""
    a, b = before.astype(np.float32), now.astype(np.float32)
    level_a, level_b = float(np.median(_grey(before))), float(np.median(_grey(now)))
    if level_b > 1:
        b *= level_a / level_b
    diff = _change(a, b)
    if NOISE_CUT * float(np.median(diff)) > threshold:
        # Most of the view did not change, so its typical change is the camera's noise between two frames. A dim
        # room's (the gain up: 16 grey levels a pixel) crossed the threshold in a fifth of the pixels, which the
        # closing in changed_card joined into one blob the size of the view, and no card was ever outlined.
        # Averaged over a millimetre it falls well under; a card's edge then spreads by under a millimetre. A
        # camera of ordinary noise is compared pixel by pixel, as before (NOISE_CUT).
        diff = _change(cv2.GaussianBlur(a, (0, 0), px_per_mm), cv2.GaussianBlur(b, (0, 0), px_per_mm))
    changed = diff > threshold
    if a.ndim == 3 and changed.any():
        window = round(SHADE_WINDOW_MM * px_per_mm) | 1
        exposure = level_b / level_a if level_a > 1 else 1.0
        # either view may hold the shadow (a still view taken while a player leaned over the table is the view
        # before the next hand), so a place may have grown lighter along its colour as much as darker
        lifted = 1.0 / DARKEST
        changed &= ~shading_only(a, now, window=window, exposure=exposure, brightest=lifted, where=changed)
    return np.asarray(changed)


INDEX_CORE_MM: Final = 6.0
"""The radius (table mm) around a reading's place that :func:`unchanged_at` looks at: the middle of a corner
index (about 10 x 22 mm), whose ink a card put down there replaces, and not the card edges a few millimetres
beside a covered card's peeking corner, which a card put down next to it does bring."""


def unchanged_at(
    changed: np.ndarray,
    points: np.ndarray,
    *,
    share: float,
    px_per_mm: float = 1.0,
    hand: np.ndarray | None = None,
) -> bool:
    """Whether, in the ``changed`` map of :func:`changed_pixels`, less than ``share`` of the pixels within
    :data:`INDEX_CORE_MM` of each of ``points`` (``(n, 2)`` pixels of those views) changed, while more than an
    index's worth of them changed elsewhere: what is read there lay there before the change. A card put down
    with its index at such a place changes a third or more of them (its ink where paper or another index
    was); a covered card's corner left peeking out beside it, none. A hand that hardly changed anything says
    nothing of what lay where (it came and went): False. What the hand changed is ``hand``, a map like
    ``changed`` since the view before it, when ``changed`` compares with an earlier view than that (default:
    ``changed``)."""
    radius = INDEX_CORE_MM * px_per_mm
    moved = changed if hand is None else hand
    if not len(points) or int(moved.sum()) < np.pi * radius * radius:
        return False
    return all(0.0 <= share_at < share for share_at in _core_shares(changed, points, radius))


def lit_only(
    before: np.ndarray,
    now: np.ndarray,
    *,
    threshold: float,
    px_per_mm: float = 1.0,
    changed: np.ndarray | None = None,
) -> bool:
    """Whether two colour views of the same place differ by more than an index's worth of pixels, and by less than
    that once what a shadow changes is left out (:func:`changed_pixels`): what lies there is what lay there, under
    another light (a player leaned over the table, their shadow on it or just lifted). Views that did not change at
    all say nothing here (a hand came and went: :func:`unchanged_at` says why). ``changed``: their
    :func:`changed_pixels`, when the caller has it."""
    area = np.pi * (INDEX_CORE_MM * px_per_mm) ** 2
    if changed is None:
        changed = changed_pixels(before, now, threshold=threshold, px_per_mm=px_per_mm)
    if int(changed.sum()) >= area:
        return False  # something was put down or taken away
    # (the views as they are, not evened out: a shadow over half a view moves its median)
    return int((_change(before.astype(np.float32), now.astype(np.float32)) > threshold).sum()) >= area


def changed_at(changed: np.ndarray, points: np.ndarray, *, share: float, px_per_mm: float = 1.0) -> bool:
    """Whether, in the ``changed`` map of :func:`changed_pixels`, at least ``share`` of the pixels within
    :data:`INDEX_CORE_MM` of each of ``points`` (``(n, 2)`` pixels of those views) changed: something new lies at
    each, where :func:`unchanged_at` asks the opposite (and says nothing of a view that hardly changed)."""
    return len(points) > 0 and all(s >= share for s in _core_shares(changed, points, INDEX_CORE_MM * px_per_mm))


def _core_shares(changed: np.ndarray, points: np.ndarray, radius: float) -> list[float]:
    """The share of ``changed`` pixels within ``radius`` of each of ``points`` (-1 where none lie in the view)."""
    height, width = changed.shape
    shares = []
    for x, y in np.asarray(points, np.float64):
        left, top = max(0, int(x - radius)), max(0, int(y - radius))
        right, bottom = min(width, int(x + radius) + 2), min(height, int(y + radius) + 2)
        if right <= left or bottom <= top:
            shares.append(-1.0)
            continue
        ys, xs = np.mgrid[top:bottom, left:right]
        disc = (xs - x) ** 2 + (ys - y) ** 2 <= radius * radius
        shares.append(float(changed[top:bottom, left:right][disc].mean()) if disc.any() else -1.0)
    return shares


def _change(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """How much each pixel changed from ``a`` to ``b``: the largest of its colours' changes."""
    diff = cv2.absdiff(np.asarray(a, np.float32), np.asarray(b, np.float32))
    if diff.ndim != 3:
        return np.asarray(diff, np.float32)
    channels = cv2.split(diff)  # (OpenCV's per-channel maximum: numpy's over the last axis is 20 times slower)
    largest = channels[0]
    for channel in channels[1:]:
        largest = cv2.max(largest, channel)
    return np.asarray(largest, np.float32)


def index_quads(card: np.ndarray) -> list[np.ndarray]:
    """Where a card with these four corners (table mm, in order around it) may print its indices: for
    each corner, a quad at each place of :data:`INDEX_AT`, measured from that corner along the card's
    short and long sides. Most decks print at two opposite corners and leave the other two plain,
    which the classifier calls "not an index"; which two is not known from the outline (the card may
    lie either way up), so all four are read."""
    width, height = CARD_SIZE_MM
    quads = []
    for i in range(4):
        corner = card[i]
        a, b = card[(i + 1) % 4] - corner, card[(i - 1) % 4] - corner
        across, down = (a, b) if np.linalg.norm(a) < np.linalg.norm(b) else (b, a)
        across, down = across / np.linalg.norm(across), down / np.linalg.norm(down)
        for cx, cy, w, h in INDEX_AT:
            centre = corner + across * cx * width + down * cy * height
            half_w, half_h = across * w * width / 2, down * h * height / 2
            quads.append(
                np.array(
                    [
                        centre - half_w - half_h,
                        centre + half_w - half_h,
                        centre + half_w + half_h,
                        centre - half_w + half_h,
                    ]
                )
            )
    return quads


BRIDGE_WIDTH_MM: Final = 57.0
"""A bridge card's width (its length is a poker card's, 88 mm)."""


def misfit(quad: np.ndarray) -> float:
    """How far an outline's sides (four corners, mm) are off any card's, in mm: its short side outside a bridge
    card's (57) to a poker card's (:data:`CARD_SIZE_MM`, 63) width, or its long side off their length (88), whichever
    is more. The outlines of cards put down in whole Makao games are 63.0-64.0 x 87.0-88.8 mm (six players with two
    decks, seed 2: 93 of 109); a card laid white on white over another changes the view only where it lies on
    something else, and the rectangle around that can come out far off (a 3C on an AC: 56.8 x 96.9, misfit 8.9)."""
    a, b = (float(np.linalg.norm(quad[k] - quad[0])) for k in (1, 3))
    short, long_ = sorted((a, b))
    return max(0.0, BRIDGE_WIDTH_MM - short, short - CARD_SIZE_MM[0], abs(long_ - CARD_SIZE_MM[1]))


def _edge_strength(view: np.ndarray, quad: np.ndarray) -> float:
    """Mean brightness gradient along the outline ``quad`` of ``view``: high where a card's edge is."""
    grey = _grey(view).astype(np.float32)
    grad = cv2.magnitude(cv2.Sobel(grey, cv2.CV_32F, 1, 0, ksize=3), cv2.Sobel(grey, cv2.CV_32F, 0, 1, ksize=3))
    line = np.zeros(grey.shape, np.uint8)
    cv2.polylines(line, [np.round(quad).astype(np.int32)], True, 1, thickness=3)
    on = grad[line.astype(bool)]
    return float(on.mean()) if on.size else 0.0


def _grey(view: np.ndarray) -> np.ndarray:
    return cv2.cvtColor(view, cv2.COLOR_BGR2GRAY) if view.ndim == 3 else view
