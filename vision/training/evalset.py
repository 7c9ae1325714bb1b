"""Write synthetic scenes of the held-out designs as an evaluation folder in the real-photo format.

The same scorer (``cardtable vision eval DIR``) then measures the whole recogniser on decks it never
saw in training and on the real photos, card by card per image, so the two figures are comparable.
Each design is its own subset. A card counts as present when at least one of its corner indices is
visible (a face-down card or one whose both corners are covered is not expected to be read).

    python -m vision.training.evalset --out data/heldout-eval --per-design 50
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import cv2

from vision.synth.faces import HELD_OUT
from vision.synth.scenes import SceneConfig, render_scene

__all__ = ["main", "write_eval_set"]

_SEED_BASE = 9 * 10**6


def write_eval_set(out: Path, designs: list[str], per_design: int, size: int = 640, seed: int = 0) -> int:
    """Write ``per_design`` scenes of each design under ``out`` with an ``index.json``; returns images."""
    (out / "images").mkdir(parents=True, exist_ok=True)
    cfg = SceneConfig(size=size, card_height=(40.0 * size / 320, 170.0 * size / 320))
    entries = []
    for d, design in enumerate(designs):
        for i in range(per_design):
            s = _SEED_BASE + seed * 10**5 + d * 10**4 + i
            scene = render_scene(s, [design], cfg)
            name = f"images/{design}-{i:04d}.jpg"
            cv2.imwrite(str(out / name), scene.image, [cv2.IMWRITE_JPEG_QUALITY, 92])
            cards = [{"card": str(lab.card), "box": [round(v, 1) for v in lab.box]} for lab in scene.labels]
            names = sorted({str(lab.card) for lab in scene.labels})
            entries.append(
                {
                    "image": name,
                    "width": size,
                    "height": size,
                    "cards": cards,
                    "subset": design,
                    "distinct_cards": names,
                }
            )
    (out / "index.json").write_text(json.dumps(entries, indent=1) + "\n")
    return len(entries)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description="held-out synthetic designs as an eval folder (real-photo format)")
    p.add_argument("--out", type=Path, default=Path("data/heldout-eval"))
    p.add_argument("--per-design", type=int, default=50)
    p.add_argument("--size", type=int, default=640)
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args(argv)
    n = write_eval_set(a.out, list(HELD_OUT), a.per_design, a.size, a.seed)
    print(f"wrote {n} images of {', '.join(HELD_OUT)} to {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
