"""Datasets made from synthetic scenes: YOLO detector folders and corner-index crops.

The crop classifier is trained on crops cut from full scenes (not from clean faces) so that it sees
what it will see at runtime: the detector's box around a rotated, blurred, partly lit index with a bit
of card edge and table in it. The crop is square around the box with a random margin and offset,
like a detector's box error.
"""

from __future__ import annotations

from collections.abc import Sequence
from multiprocessing import Pool
from pathlib import Path

import cv2
import numpy as np

from vision.recognise.classifier import crop
from vision.synth.scenes import Scene, SceneConfig, render_scene

__all__ = [
    "ARCHITECTURES",
    "CROP_SIZE",
    "NOT_INDEX",
    "NO_TURN",
    "crop_label",
    "make_crops",
    "negative_boxes",
    "write_yolo_split",
]

CROP_SIZE = 48
MARGIN = (1.0, 1.35)
"""Range of a training crop's side over its index box's longer side (drawn uniformly): the
detector's box is never exact, and the runtime cuts its crops at ``crop_scale`` (models.json)."""
NOT_INDEX = 52
"""Label of a crop that shows no corner index (a pip, court art, table): the classifier's reject class."""
NO_TURN = -1
"""The turns of a crop that shows no index (it has no upright)."""
ARCHITECTURES = ("plain", "residual")
"""The crop classifier's networks (``vision.training.classifier.CropNet`` ``arch``); here, beside the
crops they read, because the training command offers the choice before it imports torch."""


def crop_label(
    image: np.ndarray,
    box: tuple[float, float, float, float],
    rng: np.random.Generator | None,
    size: int = CROP_SIZE,
    margin: tuple[float, float] = MARGIN,
) -> np.ndarray:
    """A square ``size`` x ``size`` BGR crop around ``box``; with ``rng``, a random margin in ``margin``
    (see :data:`MARGIN`) and shift. The cut is the runtime's own (:func:`vision.recognise.classifier.crop`)."""
    x1, y1, x2, y2 = box
    cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
    side = max(x2 - x1, y2 - y1)
    if rng is not None:
        side *= rng.uniform(*margin)
        cx += rng.uniform(-0.1, 0.1) * side
        cy += rng.uniform(-0.1, 0.1) * side
    else:
        side *= 1.15
    half = side / 2
    return crop(image, np.array([cx - half, cy - half, cx + half, cy + half]), (size, size), 1.0, square=True)


def _scene(args: tuple[int, tuple[str, ...], SceneConfig]) -> Scene:
    seed, designs, cfg = args
    return render_scene(seed, designs, cfg)


def _write_one(args: tuple[int, tuple[str, ...], SceneConfig, str]) -> int:
    seed, designs, cfg, out = args
    scene = render_scene(seed, designs, cfg)
    root = Path(out)
    cv2.imwrite(str(root / "images" / f"{seed}.jpg"), scene.image, [cv2.IMWRITE_JPEG_QUALITY, 95])
    s = float(cfg.size)
    lines = []
    for lab in scene.labels:
        x1, y1, x2, y2 = lab.box
        lines.append(f"0 {(x1 + x2) / 2 / s:.6f} {(y1 + y2) / 2 / s:.6f} {(x2 - x1) / s:.6f} {(y2 - y1) / s:.6f}")
    (root / "labels" / f"{seed}.txt").write_text("\n".join(lines) + ("\n" if lines else ""))
    return len(lines)


def write_yolo_split(out: Path, seeds: Sequence[int], designs: Sequence[str], cfg: SceneConfig, workers: int) -> int:
    """Write scenes as a YOLO split (``out/images/*.jpg``, ``out/labels/*.txt``); returns the box count."""
    (out / "images").mkdir(parents=True, exist_ok=True)
    (out / "labels").mkdir(parents=True, exist_ok=True)
    jobs = [(int(s), tuple(designs), cfg, str(out)) for s in seeds]
    if workers <= 1:
        return sum(map(_write_one, jobs))
    with Pool(workers) as pool:
        return sum(pool.imap(_write_one, jobs, chunksize=16))


def negative_boxes(
    labels: Sequence[tuple[float, float, float, float]], size: int, count: int, rng: np.random.Generator
) -> list[tuple[float, float, float, float]]:
    """Up to ``count`` index-sized boxes that hold no corner index: the detector's typical mistakes.

    Most are placed a box or three away from a real index, which lands them on the same card's pips
    or court art (what the detector confuses with an index on real photos); the rest anywhere. A box
    is kept only when it overlaps no index by more than a sliver.
    """
    if not labels:
        return []
    boxes = np.array(labels, np.float32)
    out: list[tuple[float, float, float, float]] = []
    for _ in range(count * 6):
        if len(out) >= count:
            break
        ref = boxes[int(rng.integers(len(boxes)))]
        w, h = (ref[2] - ref[0]) * rng.uniform(0.8, 1.25), (ref[3] - ref[1]) * rng.uniform(0.8, 1.25)
        if rng.random() < 0.75:
            angle, dist = rng.uniform(0, 2 * np.pi), rng.uniform(1.2, 3.5) * max(w, h)
            cx = (ref[0] + ref[2]) / 2 + dist * np.cos(angle)
            cy = (ref[1] + ref[3]) / 2 + dist * np.sin(angle)
        else:
            cx, cy = rng.uniform(0, size), rng.uniform(0, size)
        box = np.array([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], np.float32)
        if box[0] < 0 or box[1] < 0 or box[2] > size or box[3] > size:
            continue
        ix = np.clip(np.minimum(box[2], boxes[:, 2]) - np.maximum(box[0], boxes[:, 0]), 0, None)
        iy = np.clip(np.minimum(box[3], boxes[:, 3]) - np.maximum(box[1], boxes[:, 1]), 0, None)
        areas = (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])
        if np.any(ix * iy > 0.15 * np.minimum(areas, w * h)):
            continue
        out.append((float(box[0]), float(box[1]), float(box[2]), float(box[3])))
    return out


_CropJob = tuple[int, tuple[str, ...], SceneConfig, int, tuple[float, float]]


def _crops_one(args: _CropJob) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    seed, designs, cfg, negatives, margin = args
    scene = render_scene(seed, designs, cfg)
    rng = np.random.default_rng(seed + 1_000_003)
    crops = [crop_label(scene.image, lab.box, rng, margin=margin) for lab in scene.labels]
    labels = [lab.card.index for lab in scene.labels]
    turns = [lab.turns for lab in scene.labels]
    for box in negative_boxes([lab.box for lab in scene.labels], cfg.size, negatives, rng):
        crops.append(crop_label(scene.image, box, rng, margin=margin))
        labels.append(NOT_INDEX)
        turns.append(NO_TURN)
    for box in scene.decoys:  # a joker's corner: looks like an index, is none
        crops.append(crop_label(scene.image, box, rng, margin=margin))
        labels.append(NOT_INDEX)
        turns.append(NO_TURN)
    if not crops:
        empty = np.zeros((0,), np.int64)
        return np.zeros((0, CROP_SIZE, CROP_SIZE, 3), np.uint8), empty, empty
    return np.stack(crops), np.array(labels, np.int64), np.array(turns, np.int64)


def make_crops(
    seeds: Sequence[int],
    designs: Sequence[str],
    cfg: SceneConfig,
    workers: int,
    negatives: int = 0,
    margin: tuple[float, float] = MARGIN,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Crops (N x 48 x 48 x 3 BGR uint8, cut with a margin in ``margin``), labels and turns from
    scenes: card indices 0..51 for corner indices, ``NOT_INDEX`` for up to ``negatives`` crops per
    scene that show no index; the quarter turns (``np.rot90``) that stand each crop's index upright,
    ``NO_TURN`` for those that show none."""
    jobs: list[_CropJob] = [(int(s), tuple(designs), cfg, negatives, margin) for s in seeds]
    if workers <= 1:
        parts = list(map(_crops_one, jobs))
    else:
        with Pool(workers) as pool:
            parts = list(pool.imap(_crops_one, jobs, chunksize=16))
    kept = [p for p in parts if len(p[1])]
    return (
        np.concatenate([p[0] for p in kept]),
        np.concatenate([p[1] for p in kept]),
        np.concatenate([p[2] for p in kept]),
    )
