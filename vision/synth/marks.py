"""Things on a table that carry print and are not cards: a keyboard's keys and a score sheet's writing.

The real webcam photos show a laptop keyboard beside the cards, and its keys were read as cards (the
"3" key with its "#" above it as the 3C; docs/vision.md). A scene generator that puts only cards, hands
and cloth in front of the classifier never shows it a legend or a word, so it has never been told that
one is "not an index". This module draws such marks on the table surface, before the cards are laid,
and gives the boxes of their legends for the scene's ``decoys`` (rejects for the classifier's training).

What is drawn is chosen to leave every real index alone: no suit pips, and no lone rank glyph
(2-9, 10, J, Q, K, A) on paper, because one held-out deck (tango_nuevo) prints a bare rank in its corner
and a classifier taught that a bare "7" is not an index would lose it. A rank digit appears only as the
lower legend of a keycap with a symbol above it, as on a keyboard's number row.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

__all__ = ["Marks", "draw_marks"]

_FONTS = (
    cv2.FONT_HERSHEY_SIMPLEX,
    cv2.FONT_HERSHEY_DUPLEX,
    cv2.FONT_HERSHEY_PLAIN,
    cv2.FONT_HERSHEY_COMPLEX,
    cv2.FONT_HERSHEY_TRIPLEX,
)
_SHIFTED = dict(zip("1234567890", "!@#$%^&*()", strict=True))
"""A keyboard's number row: each digit's key carries this symbol above it."""
_LETTERS = "BCDEFGHILMNOPRSTUVWXYZ"
"""Key legends of one letter: not A, J, K or Q, which a card prints as its rank."""
_KEY_WORDS = ("Esc", "Tab", "Shift", "Ctrl", "Alt", "Home", "End", "PgUp", "PgDn", "Del", "Ins", "Fn", "Caps", "Enter")
_SHEET_WORDS = (
    "Ann", "Ben", "Cem", "Deniz", "Eva", "Total", "Score", "Round", "Hand", "trumps", "made", "owes", "pass",
    "game", "35", "58", "120", "-3", "+2", "x", "/", "=", "21", "46", "0", "13",
)  # fmt: skip
"""Words and numbers of a score sheet: names, totals, signs (no lone rank: "10" is one, so it is left out)."""


@dataclass(frozen=True, slots=True)
class Marks:
    """A keyboard or a score sheet drawn on the table: its colour image and coverage on the scene's
    canvas, and the boxes (x1, y1, x2, y2) of its legends in canvas pixels."""

    image: np.ndarray  # float32 BGR, canvas size
    alpha: np.ndarray  # float32 0..1, canvas size
    boxes: tuple[tuple[float, float, float, float], ...]


def _text_box(text: str, font: int, scale: float, thickness: int) -> tuple[int, int, int]:
    (w, h), base = cv2.getTextSize(text, font, scale, thickness)
    return w, h, base


def _keyboard(rng: np.random.Generator, key: float) -> tuple[np.ndarray, list[tuple[float, float, float, float]]]:
    """A patch of keys of side ``key`` px, each with a legend; the patch (BGRA uint8) and the legends' boxes."""
    rows, cols = int(rng.integers(1, 5)), int(rng.integers(2, 10))
    gap = key * rng.uniform(0.12, 0.3)
    pitch = key + gap
    height, width = int(rows * pitch + gap), int(cols * pitch + gap)
    light = rng.random() < 0.6
    tint = rng.uniform(-8, 8, 3)
    body = np.clip((rng.uniform(150, 230) if light else rng.uniform(15, 60)) + tint, 0, 255)
    cap = np.clip((rng.uniform(200, 250) if light else rng.uniform(25, 75)) + tint, 0, 255)
    ink = rng.uniform(10, 70) if light else rng.uniform(180, 245)
    patch = np.zeros((height, width, 4), np.uint8)
    patch[..., :3] = body
    patch[..., 3] = 255
    boxes: list[tuple[float, float, float, float]] = []
    font = _FONTS[int(rng.integers(len(_FONTS)))]
    thickness = max(1, round(key / rng.uniform(14, 28)))
    for r in range(rows):
        for c in range(cols):
            x0, y0 = gap + c * pitch, gap + r * pitch
            x1, y1 = int(x0), int(y0)
            x2, y2 = int(x0 + key), int(y0 + key)
            cv2.rectangle(patch, (x1, y1), (x2, y2), (*(cap * 0.85), 255), -1)  # the key's edge, in shade
            inset = max(1, int(key * 0.08))
            cv2.rectangle(patch, (x1 + inset, y1 + inset), (x2 - inset, y2 - inset * 2), (*cap, 255), -1)
            kind = rng.choice(["pair", "letter", "word", "blank"], p=[0.35, 0.35, 0.2, 0.1])
            if kind == "blank":
                continue
            if kind == "pair":
                digit = str(rng.choice(list(_SHIFTED)))
                lines = [_SHIFTED[digit], digit]
            elif kind == "letter":
                lines = [str(rng.choice(list(_LETTERS)))]
            else:
                lines = [str(rng.choice(_KEY_WORDS))]
            target = key * (0.32 if len(lines) == 2 else rng.uniform(0.3, 0.5))  # glyph height
            _, h1, _ = _text_box("0", font, 1.0, thickness)
            scale = target / max(h1, 1)
            widest = max(_text_box(t, font, scale, thickness)[0] for t in lines)
            if widest > key * 0.8:
                scale *= key * 0.8 / widest
            tx = x1 + inset + (key - 2 * inset - widest) * rng.uniform(0.1, 0.9 if len(lines[0]) == 1 else 0.5)
            ty = y1 + inset + target * 1.2
            box = [float("inf"), float("inf"), float("-inf"), float("-inf")]
            for line in lines:
                w, h, _ = _text_box(line, font, scale, thickness)
                cv2.putText(patch, line, (int(tx), int(ty)), font, scale, (ink, ink, ink, 255), thickness, cv2.LINE_AA)
                box = [min(box[0], tx), min(box[1], ty - h), max(box[2], tx + w), max(box[3], ty + thickness)]
                ty += h * 1.45
            boxes.append((box[0], box[1], box[2], box[3]))
    return patch, boxes


def _sheet(rng: np.random.Generator, line: float) -> tuple[np.ndarray, list[tuple[float, float, float, float]]]:
    """A score sheet with ``line`` px tall writing: the sheet (BGRA uint8) and the boxes of its words."""
    lines, width = int(rng.integers(2, 7)), int(line * rng.uniform(5, 12))
    height = int(line * (lines * 1.8 + 1))
    paper = np.clip(rng.uniform(215, 252) + rng.uniform(-6, 6, 3), 0, 255)
    ink = np.array([rng.uniform(20, 120), rng.uniform(10, 60), rng.uniform(0, 60)])[rng.permutation(3)]
    patch = np.zeros((height, width, 4), np.uint8)
    patch[..., :3] = paper
    patch[..., 3] = 255
    font = int(rng.choice([cv2.FONT_HERSHEY_SCRIPT_SIMPLEX, cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_PLAIN]))
    thickness = max(1, round(line / rng.uniform(8, 16)))
    _, h1, _ = _text_box("0", font, 1.0, thickness)
    scale = line / max(h1, 1)
    boxes: list[tuple[float, float, float, float]] = []
    for r in range(lines):
        y = line * (1.5 + r * 1.8)
        if rng.random() < 0.5:  # a ruled line under the writing
            cv2.line(patch, (0, int(y + line * 0.35)), (width, int(y + line * 0.35)), (*(paper * 0.8), 255), 1)
        x = line * rng.uniform(0.2, 0.8)
        while True:
            word = str(rng.choice(_SHEET_WORDS))
            w, h, _ = _text_box(word, font, scale, thickness)
            if x + w > width - line * 0.2:
                break
            cv2.putText(patch, word, (int(x), int(y)), font, scale, (*ink, 255), thickness, cv2.LINE_AA)
            boxes.append((x, y - h, x + w, y + thickness))
            x += w + line * rng.uniform(0.6, 2.0)
    return patch, boxes


def draw_marks(rng: np.random.Generator, size: int, camera: np.ndarray, card_height: float) -> Marks:
    """A keyboard or a score sheet lying somewhere on a ``size`` square table, seen through ``camera``
    (the scene's table-to-image homography), its legends about as tall as the cards' indices
    (``card_height`` px cards). Boxes are kept where they fall at least mostly inside the picture."""
    if rng.random() < 0.6:
        patch, boxes = _keyboard(rng, card_height * rng.uniform(0.14, 0.32))
    else:
        patch, boxes = _sheet(rng, card_height * rng.uniform(0.07, 0.14))
    ph, pw = patch.shape[:2]
    angle = rng.uniform(0, 360)
    x, y = rng.uniform(0.1, 0.9) * size, rng.uniform(0.1, 0.9) * size
    place = cv2.getRotationMatrix2D((pw / 2, ph / 2), angle, 1.0)
    place[:, 2] += (x - pw / 2, y - ph / 2)
    m = camera @ np.vstack([place, [0, 0, 1]])
    warped = cv2.warpPerspective(patch, m, (size, size), flags=cv2.INTER_LINEAR, borderValue=(0, 0, 0, 0))
    out: list[tuple[float, float, float, float]] = []
    for x1, y1, x2, y2 in boxes:
        pts = np.array([[[x1, y1]], [[x2, y1]], [[x2, y2]], [[x1, y2]]], np.float32)
        q = cv2.perspectiveTransform(pts, m).reshape(-1, 2)
        bx1, by1 = q.min(axis=0)
        bx2, by2 = q.max(axis=0)
        cx1, cy1, cx2, cy2 = max(bx1, 0.0), max(by1, 0.0), min(bx2, size - 1.0), min(by2, size - 1.0)
        if cx2 - cx1 < 3 or cy2 - cy1 < 3 or (cx2 - cx1) * (cy2 - cy1) < 0.6 * (bx2 - bx1) * (by2 - by1):
            continue
        out.append((float(cx1), float(cy1), float(cx2), float(cy2)))
    image = warped[..., :3].astype(np.float32)
    return Marks(image=image, alpha=warped[..., 3].astype(np.float32) / 255.0, boxes=tuple(out))
