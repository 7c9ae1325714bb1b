"""Synthetic held-out sets in the evaluation's folder format, for tuning and for the model card.

The real development photos must never tune anything, so the card vote and the detector threshold
are tuned on scenes of the designs training never saw (``vision.synth.faces.HELD_OUT``), rendered by
the same scene generator as the training data but from seeds no training split uses. Each scene is one
design, and the design is the entry's ``subset``, so the evaluation reports every unseen deck
separately.

``wide=True`` writes 1280x720 frames (two 720 scenes side by side, cut to 1280) to measure how the
recogniser reads a wide camera frame, with and without tiling. ``saved_square=16/9`` (or 4/3, 9/16...)
writes what the real development photos are: a frame of that shape (two scenes side by side, turned
upright for a portrait shape) squashed into a ``size`` square, to measure the pixel-aspect search
(:mod:`vision.recognise.aspect`) on scenes with known answers. Rendering needs the card faces
(``data/faces/``, rendered and measured here on first use as training does, from the Debian decks that
``scripts/train-deps.sh`` installs), so this is a development tool, not a runtime one.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

SEED_BASE = 9_000_000
"""Far above every seed range training uses (1e6..7e6), so no scene here was ever trained on."""


def write_synthetic_set(
    out: Path,
    count: int,
    *,
    designs: Sequence[str] | None = None,
    seed: int = 0,
    size: int = 640,
    wide: bool = False,
    saved_square: float | None = None,
    area_faces: bool = False,
) -> Path:
    """Render ``count`` labelled scenes into ``out`` (``images/`` and ``index.json``); returns ``out``.

    ``area_faces`` draws the faces as :attr:`~vision.synth.scenes.SceneConfig.area_faces` does; the same
    seed lays the same cards in the same places either way."""
    from vision.synth import faces
    from vision.synth.corners import prepare_design
    from vision.synth.scenes import SceneConfig, render_scene

    chosen = tuple(designs or faces.HELD_OUT)
    if saved_square is not None and not 0.5 <= saved_square <= 2.0:
        raise ValueError(f"a frame saved square must be between 1:2 and 2:1, not {saved_square:g}")
    for design in chosen:  # a fresh checkout has no faces: render and measure what the scenes draw
        if not (faces.ASSET_DIR / design / "index_boxes.json").is_file():  # (the demo deck comes committed)
            prepare_design(design, faces.CACHE_DIR)
    scene_size = 720 if wide or saved_square is not None else size
    default = SceneConfig()
    scale = scene_size / default.size
    cfg = replace(
        default,
        size=scene_size,
        card_height=(default.card_height[0] * scale, default.card_height[1] * scale),
        area_faces=area_faces,
    )
    (out / "images").mkdir(parents=True, exist_ok=True)
    entries = []
    base = SEED_BASE + seed * 100_000
    for number in range(count):
        if saved_square is not None:
            left = render_scene(base + 2 * number, chosen, cfg)
            right = render_scene(base + 2 * number + 1, chosen, cfg)
            image, corners = _saved_square(left, right, saved_square, size)
            subset = f"saved_square_{saved_square:.2f}"
        elif wide:
            left = render_scene(base + 2 * number, chosen, cfg)
            right = render_scene(base + 2 * number + 1, chosen, cfg)
            image, corners = _side_by_side(left, right, 1280)
            subset = "wide_1280x720"
        else:
            scene = render_scene(base + number, chosen, cfg)
            image = scene.image
            corners = [(str(label.card), label.box) for label in scene.labels]
            subset = _design_of(base + number, chosen)
        name = f"images/{number:05d}.jpg"
        cv2.imwrite(str(out / name), image, [cv2.IMWRITE_JPEG_QUALITY, 92])
        entries.append(
            {
                "image": name,
                "width": int(image.shape[1]),
                "height": int(image.shape[0]),
                "cards": [{"card": card, "box": [round(v, 1) for v in box]} for card, box in corners],
                "subset": subset,
                "distinct_cards": sorted({card for card, _ in corners}),
            }
        )
    (out / "index.json").write_text(json.dumps(entries, indent=1), encoding="utf-8")
    return out


def _design_of(seed: int, designs: Sequence[str]) -> str:
    """The design ``render_scene`` picks for ``seed``: its generator's first draw."""
    rng = np.random.default_rng(seed)
    return designs[int(rng.integers(len(designs)))]


def _side_by_side(left: object, right: object, width: int) -> tuple[np.ndarray, list[tuple[str, tuple[float, ...]]]]:
    """Two square scenes joined and cut to ``width`` about the middle; corners cut by the edge are dropped."""
    images = [left.image, right.image]  # type: ignore[attr-defined]
    side = images[0].shape[1]
    cut = (2 * side - width) // 2
    joined = np.hstack(images)[:, cut : cut + width]
    corners: list[tuple[str, tuple[float, ...]]] = []
    for offset, scene in ((0, left), (side, right)):
        for label in scene.labels:  # type: ignore[attr-defined]
            x1, y1, x2, y2 = label.box
            x1, x2 = x1 + offset - cut, x2 + offset - cut
            if x1 >= 0 and x2 <= width:
                corners.append((str(label.card), (x1, y1, x2, y2)))
    return np.ascontiguousarray(joined), corners


def _saved_square(
    left: object, right: object, aspect: float, size: int
) -> tuple[np.ndarray, list[tuple[str, tuple[float, ...]]]]:
    """A frame ``aspect`` wide per unit tall (from two 720 scenes; portrait frames are landscape ones
    turned a quarter clockwise) squashed into a ``size`` square, with its corner boxes."""
    landscape = max(aspect, 1 / aspect)
    image, corners = _side_by_side(left, right, round(720 * landscape))
    if aspect < 1:
        height = image.shape[0]
        image = cv2.rotate(image, cv2.ROTATE_90_CLOCKWISE)
        corners = [(card, (height - y2, x1, height - y1, x2)) for card, (x1, y1, x2, y2) in corners]
    h, w = image.shape[:2]
    sx, sy = size / w, size / h
    squashed = cv2.resize(image, (size, size), interpolation=cv2.INTER_AREA)
    return squashed, [(card, (x1 * sx, y1 * sy, x2 * sx, y2 * sy)) for card, (x1, y1, x2, y2) in corners]
