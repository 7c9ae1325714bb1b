"""Find the printed corner indices (rank over suit pip) on a rendered face, from its ink.

The detector learns boxes around corner indices and the classifier reads crops of them, so the boxes
must be tight and must hold the index, not a neighbouring pip or a court picture's frame. The SVGs do
not name the index elements consistently, so the boxes are measured from the pixels: in each corner
region take the ink component nearest to the card's corner (the rank glyph) and grow it by nearby small
components (the suit pip under it, the "0" of "10"). A design prints its indices in the same corners on
every card (top-left + bottom-right mostly, top-right + bottom-left for the Oxygen decks, all four for
some), so the corners are chosen per design by how consistently a glyph sits close to them.

Known and kept (measured on 3 December): four training designs print a suit pip a fifth of the card
wide under the rank, reaching 0.44 of the card's height (nicu-white, nicu-ornamental, ornamental,
tango). The search stops at 0.30 of the height and 0.2 of the width, so their boxes hold the rank and
at most the top of the pip. A measurement that took in the whole pip was tried: the shipped classifier
trained on from its export for 12 epochs on crops cut with those boxes read the real photos worse than
the same training on these boxes (precision -0.025, 95 % interval -0.049 to -0.002; docs/vision.md,
"3 December"), so the boxes stay as the shipped models were trained on them.
"""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np

from engine.cards import Card

from .drawn import is_drawn
from .faces import CACHE_DIR, card_code, load_face, render_design

__all__ = ["MEASURING_VERSION", "find_index", "is_measured", "measure_design", "prepare_design"]

Box = tuple[int, int, int, int]

_REGION_W = 0.26  # corner search region, fraction of card width
_REGION_H = 0.30
_MAX_W = 0.2  # an index is never wider/taller than this
_MAX_H = 0.3
_ONE_INDEX = {"tango_nuevo"}  # prints its index in the top-left corner only
MEASURING_VERSION = 1
"""Raise on any change to what :func:`measure_design` writes: a cached measurement of another version is
measured again (:func:`is_measured`), so a faces cache never trains on boxes the code no longer gives."""
_STAMP = "index_boxes.version"


def _ink(face: np.ndarray) -> np.ndarray:
    """Pixels that differ from the card body's paper colour, away from the card's outline."""
    alpha = face[..., 3] > 200
    w = alpha.shape[1]
    body = face[..., :3][alpha].astype(np.int32)
    paper = np.median(body, axis=0)
    diff = np.abs(face[..., :3].astype(np.int32) - paper).max(axis=2)
    border = max(3, round(0.035 * w))
    kernel = np.ones((2 * border + 1, 2 * border + 1), np.uint8)
    # The image edge counts as outside the card (erode's default border would count it as inside).
    inner = cv2.erode(alpha.astype(np.uint8), kernel, borderType=cv2.BORDER_CONSTANT, borderValue=0) > 0
    ink: np.ndarray = (diff > 60) & inner
    return ink


def find_index(face: np.ndarray, corner: int, ink: np.ndarray | None = None) -> tuple[Box | None, float]:
    """The index box in one corner (0 TL, 1 TR, 2 BR, 3 BL) and the seed glyph's distance from the
    corner as a fraction of the card width (large when the corner holds no index)."""
    h, w = face.shape[:2]
    if ink is None:
        ink = _ink(face)
    rw, rh = round(_REGION_W * w), round(_REGION_H * h)
    x0 = 0 if corner in (0, 3) else w - rw
    y0 = 0 if corner in (0, 1) else h - rh
    region = ink[y0 : y0 + rh, x0 : x0 + rw].astype(np.uint8)
    count, _, stats, _ = cv2.connectedComponentsWithStats(region, connectivity=8)
    comps = []
    for i in range(1, count):
        x, y, cw, ch, area = (int(v) for v in stats[i])
        too_small = area < 0.00015 * w * h or max(cw, ch) < 0.04 * h  # outline remnants, specks
        if too_small or cw > _MAX_W * w or ch > _MAX_H * h:
            continue
        comps.append((x + x0, y + y0, x + x0 + cw, y + y0 + ch))
    if not comps:
        return None, 9.0
    cx = 0 if corner in (0, 3) else w
    cy = 0 if corner in (0, 1) else h

    def dist(b: Box) -> float:
        dx = min(abs(b[0] - cx), abs(b[2] - cx))
        dy = min(abs(b[1] - cy), abs(b[3] - cy))
        return float(np.hypot(dx, dy))

    seed = min(comps, key=dist)
    group = list(seed)
    used = {seed}
    gap_x, gap_y = 0.035 * w, 0.15 * w  # the suit pip may sit well below the rank
    changed = True
    while changed:
        changed = False
        for b in comps:
            if b in used:
                continue
            near = (
                b[0] <= group[2] + gap_x
                and b[2] >= group[0] - gap_x
                and b[1] <= group[3] + gap_y
                and b[3] >= group[1] - gap_y
            )
            if not near:
                continue
            union = [min(group[0], b[0]), min(group[1], b[1]), max(group[2], b[2]), max(group[3], b[3])]
            if union[2] - union[0] > _MAX_W * w or union[3] - union[1] > _MAX_H * h:
                continue
            group = union
            used.add(b)
            changed = True
    return (group[0], group[1], group[2], group[3]), dist(seed) / w


def measure_design(design: str, cache_dir: Path = CACHE_DIR) -> dict[str, list[list[int]]]:
    """Measure the index boxes of all 52 faces of a design and write ``index_boxes.json`` beside them."""
    faces = {card_code(Card.from_index(i)): load_face(design, Card.from_index(i)) for i in range(52)}
    found = {}
    for code, face in faces.items():
        ink = _ink(face)
        found[code] = [find_index(face, c, ink) for c in range(4)]
    # Every design prints an index at top-left and bottom-right; some (Dondorf) also in the other two
    # corners, which then hold a glyph as tall as the top-left one on nearly every card.
    close = [float(np.mean([found[k][c][1] < 0.10 for k in found])) for c in range(4)]
    corners = [0] if design in _ONE_INDEX else [0, 2]
    heights = [
        float(np.median([b[3] - b[1] for k in found if (b := found[k][c][0]) is not None] or [0])) for c in range(4)
    ]
    if min(close[1], close[3]) >= 0.95 and min(heights[1], heights[3]) >= 0.75 * heights[0]:
        corners += [1, 3]
    # Where a glyph touches a court picture's frame the measured box is wrong; the index sits at the
    # same place on every card of a design, so such a box is replaced by the design's median box.
    boxes: dict[str, list[list[int]]] = {}
    median = {c: np.median([b for k in found if (b := found[k][c][0]) is not None], axis=0) for c in corners}
    for code, per_corner in found.items():
        boxes[code] = []
        for c in corners:
            box, _ = per_corner[c]
            m = median[c]
            mh, mw = m[3] - m[1], m[2] - m[0]
            if (
                box is None
                or abs((box[3] - box[1]) - mh) > 0.3 * mh
                or abs((box[1] + box[3]) / 2 - (m[1] + m[3]) / 2) > 0.25 * mh
                or abs((box[0] + box[2]) / 2 - (m[0] + m[2]) / 2) > 0.5 * mw
            ):
                box = (round(m[0]), round(m[1]), round(m[2]), round(m[3]))
            boxes[code].append([int(v) for v in box])
    out = cache_dir / design / "index_boxes.json"
    out.write_text(json.dumps({"corners": corners, **boxes}))
    (cache_dir / design / _STAMP).write_text(f"{MEASURING_VERSION}\n")
    return boxes


def is_measured(design: str, cache_dir: Path = CACHE_DIR) -> bool:
    """Whether ``cache_dir`` holds ``design``'s index boxes as this code measures them.

    The faces cache outlives code changes (as the drawn decks' does, :func:`vision.synth.drawn.is_current`):
    without this a changed measurement would train on the old boxes here and the new ones in a fresh clone.
    """
    stamp = cache_dir / design / _STAMP
    return (
        (cache_dir / design / "index_boxes.json").is_file()
        and stamp.is_file()
        and stamp.read_text().strip() == str(MEASURING_VERSION)
    )


def prepare_design(design: str, cache_dir: Path = CACHE_DIR) -> None:
    """Render ``design``'s faces and measure its index boxes into ``cache_dir``, unless they are there.

    Why: ``data/faces/`` is not committed, so a fresh checkout has neither, and both training and the
    held-out sets (``cardtable vision synth``) draw scenes from them. A measurement made by other code is
    made again (:func:`is_measured`); a drawn deck's boxes come with its drawing. A vector design needs
    Debian's decks and ``rsvg-convert`` (``scripts/train-deps.sh``): without them
    :class:`~vision.synth.faces.FaceError` says so.
    """
    render_design(design, cache_dir)
    if not is_drawn(design) and not is_measured(design, cache_dir):
        measure_design(design, cache_dir)
