"""A six or a nine, told apart by which way up its index stands on the card it is printed on.

The classifier reads an index at every angle (a card lies on the table any way round), so it cannot
tell a bare "6" from a "9" standing on its head: the two are one glyph half a turn apart. Most decks
print the suit's pip under the rank, which says which way is up; a deck that prints the rank alone (the
held-out tango_nuevo: its pip sits in the other top corner) leaves the two to a guess, and at the
synthetic table six and nine made about a third of that deck's cards asked about.

Where the card the index is printed on is known (the tracker's outline of the card just put down), so is
which way up the index stands: its top faces the card's nearer short edge. Then the glyph says it: a six's
closed loop (the hole in its ink) lies in its lower half, a nine's in its upper. The loop is looked for
in the ink of the index box and a little round it, on that card only; where no loop is found whole (a box
that cuts the glyph, a blurred hole) nothing changes. A loop also rules out the ranks drawn without one,
and its depth the ranks whose loops never lie there (:func:`ruled_out`).

Plain OpenCV on one small crop per index on such a card whose reading is in doubt; photos, which have no
outlines, never pay for it.
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

from engine.cards import Card, Rank

MARGIN = 0.6
"""The crop searched round an index box: this share of the box's longer side on every side (a detector box
often cuts the glyph's edge, and a loop cut open is no loop: tango_nuevo's sixes boxed 12 pixels wide of 17)."""
IN_BOX = 0.25
"""The index's glyph has at least this share of its bounding box inside the index box."""
SIX_BELOW = 0.56
"""A loop this far down its glyph or further (0 at the glyph's top, 1 at its foot) is a six's (or an eight's), not a
nine's: sixes 0.66-0.69 (tango_nuevo at the synthetic table), 0.58-0.73 (the real development photos, each index
stood up by the orientation network); nines 0.29-0.32 and 0.25-0.38."""
NINE_ABOVE = 0.44
"""A loop this far down its glyph or less is no six's."""
IN_DOUBT = 0.3
"""How much of a reading's card probability the ranks left must hold for the glyph to be believed over it."""
SETTLED = 0.9
"""A reading whose best card holds this share of its card probability is not looked at again."""


def index_up(outline: np.ndarray, centre: tuple[float, float]) -> np.ndarray:
    """The unit vector (image pixels) pointing from an index at ``centre`` towards its top: from the middle of
    the card ``outline`` (4 x 2) to the middle of the short side nearer the index. A card's indices stand
    with their tops to the card's ends, the lower one turned half round."""
    quad = np.asarray(outline, np.float64).reshape(-1, 2)
    if len(quad) != 4:
        raise ValueError(f"a card's outline has 4 corners, not {len(quad)}")
    point = np.asarray(centre, np.float64)
    sides = [(quad[i], quad[(i + 1) % 4]) for i in range(4)]
    lengths = [float(np.linalg.norm(b - a)) for a, b in sides]
    ends = sorted(range(4), key=lambda i: lengths[i])[:2]

    def distance(i: int) -> float:
        (ax, ay), (bx, by) = sides[i]
        return float(abs((bx - ax) * (point[1] - ay) - (by - ay) * (point[0] - ax))) / max(lengths[i], 1e-9)

    a, b = sides[min(ends, key=distance)]
    up = (a + b) / 2 - quad.mean(axis=0)
    return np.asarray(up / max(float(np.linalg.norm(up)), 1e-9), np.float64)


def loop_depth(bgr: np.ndarray, box: np.ndarray, up: np.ndarray, card: np.ndarray) -> float | None:
    """How far down its glyph (0 its top, 1 its foot, along ``up``) the biggest loop of the index at ``box``
    (``x1, y1, x2, y2``) lies, or None where the ink there closes no loop whole. ``card`` (n x 2, image
    pixels) is the card the index is printed on: ink off it is not the glyph's.

    Ink is what is darker than the crop's Otsu threshold in the green channel (red and black ink both;
    paper and most felts are bright there). The glyph is the ink with a loop that lies most inside the box (at
    least :data:`IN_BOX` of it), whose loop is at least 4 % of its bounding box (a "6" drawn in 20 pixels
    keeps a hole of some 15), and which does not run off the searched crop."""
    x1, y1, x2, y2 = (float(v) for v in box)
    margin = MARGIN * max(x2 - x1, y2 - y1)
    h, w = bgr.shape[:2]
    cx1, cy1 = int(max(0, np.floor(x1 - margin))), int(max(0, np.floor(y1 - margin)))
    cx2, cy2 = int(min(w, np.ceil(x2 + margin))), int(min(h, np.ceil(y2 + margin)))
    if cx2 - cx1 < 6 or cy2 - cy1 < 6:
        return None
    green = np.ascontiguousarray(bgr[cy1:cy2, cx1:cx2, 1])
    threshold, _ = cv2.threshold(green, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    ink = (green < threshold).astype(np.uint8)
    on_card = np.zeros_like(ink)
    polygon = np.round(np.asarray(card, np.float64).reshape(-1, 2) - (cx1, cy1)).astype(np.int32)
    cv2.fillPoly(on_card, [polygon], 1)
    ink &= on_card
    contours, hierarchy = cv2.findContours(ink, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_NONE)
    if hierarchy is None:
        return None
    best: tuple[float, float] | None = None  # (share of the glyph inside the box, depth)
    for i, outer in enumerate(contours):
        if hierarchy[0][i][3] != -1:
            continue  # a loop itself, not ink
        bx, by, bw, bh = cv2.boundingRect(outer)
        if bx == 0 or by == 0 or bx + bw >= ink.shape[1] or by + bh >= ink.shape[0]:
            continue  # the glyph runs off the crop: its loop may be cut
        inside = max(0.0, min(bx + bw, x2 - cx1) - max(bx, x1 - cx1)) * max(
            0.0, min(by + bh, y2 - cy1) - max(by, y1 - cy1)
        )
        share = inside / float(bw * bh)
        if share < IN_BOX:
            continue  # ink beside the index (a court picture's frame, the pips), not its glyph
        loops = []
        child = hierarchy[0][i][2]
        while child != -1:
            area = cv2.contourArea(contours[child])
            if area >= 0.04 * bw * bh:
                loops.append((area, contours[child]))
            child = hierarchy[0][child][0]
        if not loops:
            continue
        _, loop = max(loops, key=lambda item: item[0])
        moments = cv2.moments(loop)
        if moments["m00"] <= 0:
            continue
        hole = np.array([moments["m10"] / moments["m00"], moments["m01"] / moments["m00"]])
        heights = outer.reshape(-1, 2).astype(np.float64) @ up
        top, foot = float(heights.max()), float(heights.min())
        if top - foot < 3:
            continue
        depth = (top - float(hole @ up)) / (top - foot)
        if best is None or share > best[0]:
            best = (share, depth)
    return None if best is None else best[1]


LOOPLESS = frozenset({Rank.SEVEN, Rank.JACK, Rank.KING})
"""Ranks whose glyphs close no loop in the A/K/Q/J indices the classifier reads: an index with a loop is none of
them (a "10" cut to its "1" by the detector's box reads as a 7; its "0" says otherwise). Not the two, three and
five: a real photo's blur closes a loop in them (a phone's 2 at 0.47 and 0.54, a 5 at 0.35). A deck lettered
otherwise (a Dutch "B" for the jack) is not one the classifier knows either."""


def ruled_out(depth: float) -> frozenset[Rank]:
    """The ranks an index whose glyph closes a loop ``depth`` down it (:func:`loop_depth`) cannot be.

    Only what the real development photos bear out (the depth of each labelled index's biggest loop, the index
    stood up by the orientation network, 259 loops of 603 indices): a low loop (:data:`SIX_BELOW`) is no nine's,
    queen's or ace's (those 0.25-0.38, 0.35-0.53 and 0.40-0.50), a high one (:data:`NINE_ABOVE`) no six's; a queen's
    loop and a nine's overlap, and so do a four's (0.36-0.51), an eight's (0.67-0.77, but 0.17-0.39 where its lower
    loop closed up) and the rest, so nothing else is ruled out by depth."""
    if depth >= SIX_BELOW:
        return LOOPLESS | {Rank.NINE, Rank.QUEEN, Rank.ACE}
    if depth <= NINE_ABOVE:
        return LOOPLESS | {Rank.SIX}
    return LOOPLESS


def settle_by_glyph(
    probs: np.ndarray,
    cards: Sequence[Card],
    bgr: np.ndarray,
    boxes: np.ndarray,
    outlines: Sequence[np.ndarray | None],
) -> np.ndarray:
    """``probs`` (``(n, classes)``, the first ``len(cards)`` columns the cards') settled by each index's glyph,
    for each row whose ``outlines`` entry (the card its index lies on, or None) is known and whose reading is in
    doubt (its best card under :data:`SETTLED` of the card probability).

    First, where the loop says six or nine, each suit's six and nine are put together on the one it says: the
    classifier cannot tell the two apart where no pip stands under the rank, so what it gives either is the
    glyph's. Then the ranks the loop rules out (:func:`ruled_out`) are taken out and the rest scaled up to the
    same card probability. A row is left as it was where no loop is found, or where what is ruled out held
    all but :data:`IN_DOUBT` of it (the glyph or the reading is wrong)."""
    ranks = np.array([card.rank for card in cards])
    sixes = np.flatnonzero(ranks == Rank.SIX)
    nines = np.array([_same_suit(cards, int(i), Rank.NINE) for i in sixes], np.intp)
    n = len(cards)
    out = probs
    for row, (box, outline) in enumerate(zip(boxes, outlines, strict=True)):
        if outline is None:
            continue
        reading = probs[row, :n].astype(np.float64)
        total = float(reading.sum())
        if total <= 0 or float(reading.max()) >= SETTLED * total:
            continue
        centre = ((float(box[0]) + float(box[2])) / 2, (float(box[1]) + float(box[3])) / 2)
        depth = loop_depth(bgr, box, index_up(outline, centre), outline)
        if depth is None:
            continue
        if depth >= SIX_BELOW or depth <= NINE_ABOVE:
            to, given = (sixes, nines) if depth >= SIX_BELOW else (nines, sixes)
            reading[to] += reading[given]
            reading[given] = 0.0
        keep = ~np.isin(ranks, list(ruled_out(depth)))
        kept = float(reading[keep].sum())
        if kept < IN_DOUBT * total:
            continue
        if out is probs:
            out = probs.copy()
        out[row, :n] = np.where(keep, reading * (total / kept), 0.0).astype(out.dtype)
    return out


def _same_suit(cards: Sequence[Card], i: int, rank: Rank) -> int:
    """The column of the card of ``rank`` in the suit of ``cards[i]``."""
    return next(j for j, card in enumerate(cards) if card.rank == rank and card.suit == cards[i].suit)
