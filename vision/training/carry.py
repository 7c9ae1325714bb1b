"""Carry the rendered card faces to a machine that cannot render them, in well under half the bytes.

A lent GPU machine (docs/vision.md, "4 December, evening") reaches no package index and takes at most
64 MiB of working tree, while the faces cache (``data/faces``, PNG) is 63 MB and rendering it again needs
rsvg-convert and Debian's decks, which that machine lacks. Lossless WebP that keeps the colour under
fully transparent pixels (``exact``; warping blends those colours into a card's edge) packs it in about
25 MB. Every image is decoded again here and compared pixel for pixel; one that would not come back
the same travels as its PNG. Other files (index boxes, version stamps) travel as they are.

    python -m vision.training.carry pack .devcarry/faces       (here)
    python -m vision.training.carry unpack .devcarry/faces     (there: back into data/faces)
"""

from __future__ import annotations

import argparse
import shutil
import sys
from collections.abc import Sequence
from multiprocessing import Pool
from pathlib import Path

import cv2
import numpy as np

from vision.argtypes import in_range
from vision.synth.faces import CACHE_DIR, HELD_OUT, TRAIN_DESIGNS

__all__ = ["main", "pack_faces", "unpack_faces"]


def _pack_one(job: tuple[Path, Path]) -> bool:
    """Pack one file into folder ``job[1]``; True when it went as WebP."""
    from PIL import Image

    src, folder = job
    folder.mkdir(parents=True, exist_ok=True)
    if src.suffix != ".png":
        shutil.copy2(src, folder / src.name)
        return False
    packed = folder / f"{src.stem}.webp"
    Image.open(src).save(packed, "WEBP", lossless=True, exact=True, method=2, quality=100)
    before, after = cv2.imread(str(src), cv2.IMREAD_UNCHANGED), cv2.imread(str(packed), cv2.IMREAD_UNCHANGED)
    if after is not None and before is not None and before.shape == after.shape and np.array_equal(before, after):
        return True
    packed.unlink()
    shutil.copy2(src, folder / src.name)
    return False


def _unpack_one(job: tuple[Path, Path]) -> None:
    src, folder = job
    folder.mkdir(parents=True, exist_ok=True)
    if src.suffix != ".webp":
        shutil.copy2(src, folder / src.name)
        return
    image = cv2.imread(str(src), cv2.IMREAD_UNCHANGED)
    if image is None:
        raise ValueError(f"{src}: not a readable WebP image")
    if not cv2.imwrite(str(folder / f"{src.stem}.png"), image):
        raise OSError(f"could not write {folder / (src.stem + '.png')}")


def pack_faces(dst: Path, designs: Sequence[str], src: Path = CACHE_DIR, workers: int = 2) -> tuple[int, int]:
    """Pack the cached faces of ``designs`` into ``dst/<design>/``; returns (images as WebP, files as they are).

    Raises ``FileNotFoundError`` naming the first design that has no cached faces (render them first:
    ``cardtable vision train -- --stages faces``)."""
    missing = [d for d in designs if not (src / d).is_dir()]
    if missing:
        raise FileNotFoundError(f"no cached faces for {', '.join(missing)} in {src}")
    jobs = [(f, dst / d) for d in designs for f in sorted((src / d).iterdir()) if f.is_file()]
    with Pool(max(1, workers)) as pool:
        webp = sum(pool.map(_pack_one, jobs, chunksize=8))
    return webp, len(jobs) - webp


def unpack_faces(src: Path, dst: Path = CACHE_DIR, workers: int = 2) -> int:
    """Unpack what :func:`pack_faces` wrote in ``src`` into ``dst`` (PNG again); returns the files written."""
    if not src.is_dir():
        raise FileNotFoundError(f"no packed faces in {src}")
    jobs = [(f, dst / f.parent.name) for f in sorted(src.glob("*/*")) if f.is_file()]
    with Pool(max(1, workers)) as pool:
        pool.map(_unpack_one, jobs, chunksize=8)
    return len(jobs)


def main(argv: list[str] | None = None) -> int:
    """``pack DST`` or ``unpack SRC``; returns a process exit status, with a message for bad input."""
    p = argparse.ArgumentParser(prog="python -m vision.training.carry", description=__doc__.split("\n")[0])
    p.add_argument("action", choices=["pack", "unpack"])
    p.add_argument("folder", type=Path, help="where the packed faces go (pack) or are (unpack)")
    p.add_argument("--workers", type=in_range(int, 1, 256, "1-256 processes"), default=2, help="processes (default 2)")
    a = p.parse_args(argv)
    try:
        if a.action == "pack":
            webp, kept = pack_faces(a.folder, TRAIN_DESIGNS + HELD_OUT, workers=a.workers)
            print(f"packed {webp} images as WebP and {kept} files as they are into {a.folder}")
        else:
            print(f"unpacked {unpack_faces(a.folder, workers=a.workers)} files into {CACHE_DIR}")
    except (OSError, ValueError) as exc:
        print(f"carry {a.action}: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
