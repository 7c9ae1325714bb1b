"""The recogniser's half of ``cardtable bench vision``, run in a fresh process.

It imports only the runtime (onnxruntime, numpy, OpenCV and our own ``engine`` and ``vision``), so the
peak resident memory it reports is what the Pi's recogniser needs, not what the benchmark's parent
or a training stack happens to hold. Run as::

    python -m vision.recognise.benchmark --image a.png --image b.png [--table NAME c.png REGIONS.json]
        [--models DIR] [--threads 1]

and it prints one JSON object: per image, latency percentiles and the number of corners read, then
``peak_rss_mb`` and the heavy modules that were imported (expected: none). A ``--table`` frame is read
as the table reads it, in the zones' regions only (``detect(image, regions)``), under its own name.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from pathlib import Path

import cv2
import numpy as np

from vision.detections import Region
from vision.recognise import DEFAULT_MODEL_DIR, ModelError, OnnxRecogniser


def time_detect(
    recogniser: OnnxRecogniser, image: np.ndarray, repeat: int, warmup: int, regions: list[Region] | None = None
) -> dict[str, float]:
    """Latency of ``recogniser.detect(image, regions)`` in ms (p50, p95, mean) over ``repeat`` runs."""
    count = 0
    for _ in range(warmup):
        count = len(recogniser.detect(image, regions))
    millis = []
    for _ in range(repeat):
        start = time.perf_counter()
        count = len(recogniser.detect(image, regions))
        millis.append((time.perf_counter() - start) * 1000)
    return {
        "p50": round(float(np.percentile(millis, 50)), 1),
        "p95": round(float(np.percentile(millis, 95)), 1),
        "mean": round(float(np.mean(millis)), 1),
        "corners": count,
    }


def peak_rss_mb() -> float:
    """This process's peak resident set size in MiB (Linux reports ``ru_maxrss`` in KiB)."""
    kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return round(kib / 1024, 1)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m vision.recognise.benchmark")
    parser.add_argument("--image", type=Path, action="append", default=[])
    parser.add_argument("--table", nargs=3, action="append", default=[], metavar=("NAME", "IMAGE", "REGIONS"))
    parser.add_argument("--models", type=Path, default=DEFAULT_MODEL_DIR)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--tile", choices=("auto", "on", "off"), default="auto")
    parser.add_argument("--fit", type=int, default=None)
    args = parser.parse_args(argv)
    try:
        recogniser = OnnxRecogniser(args.models, threads=args.threads, tile=args.tile, fit=args.fit)
    except ModelError as exc:
        print(exc, file=sys.stderr)
        return 2
    results: dict[str, object] = {}
    for path in args.image:
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if image is None:
            print(f"not an image: {path}", file=sys.stderr)
            return 2
        key = f"{image.shape[1]}x{image.shape[0]}"
        results[key] = time_detect(recogniser, image, args.repeat, args.warmup)
    for name, image_path, regions_path in args.table:
        image = cv2.imread(image_path, cv2.IMREAD_COLOR)
        if image is None:
            print(f"not an image: {image_path}", file=sys.stderr)
            return 2
        try:
            listed = json.loads(Path(regions_path).read_text())
            regions = [(float(a), float(b), float(c), float(d)) for a, b, c, d in listed]
        except (OSError, ValueError, TypeError) as exc:
            print(f"{regions_path}: not a list of regions (x1, y1, x2, y2): {exc}", file=sys.stderr)
            return 2
        results[name] = time_detect(recogniser, image, args.repeat, args.warmup, regions)
    heavy = sorted({m.split(".")[0] for m in sys.modules} & {"torch", "ultralytics", "torchvision"})
    print(json.dumps({"images": results, "peak_rss_mb": peak_rss_mb(), "heavy_imports": heavy}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
