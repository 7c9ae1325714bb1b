"""``cardtable bench vision``: recogniser latency per frame, its peak memory, and ultralytics beside it.

Measures, on ``--threads`` CPU threads (one by default, as on the Pi):

- the full recogniser (detect + classify every corner) on a 640x640 image and on a 1280x720 frame,
  p50 and p95 per frame, in a fresh process that imports only the runtime, whose peak RSS is the
  runtime's memory figure (target at most 400 MB);
- when ultralytics is installed (the train extra), ultralytics' own ``predict`` with a yolov8n built
  from ``yolov8n.yaml`` (random weights, nothing downloaded) at imgsz 640 on the same images, with
  ``torch.set_num_threads`` set to the same thread count, for comparison (aim: at most half its time).

The 640 image is ``--image`` (docs/vision.md used a webcam photo of the development set) or, without
one, a drawn table scene; the 1280x720 frame is that image and its mirror side by side, so its cards
are about as many pixels tall as in the 640 image. Both are read whole.

Then two 1280x720 frames of the synthetic table (:mod:`vision.render`, the committed demo deck) read
as the table reads them, ``detect(image, tracker.regions())``: the detector reads only the zones when
they take no more windows than the whole frame (the Makao pile, one zone), else the whole frame (the
3-5-8 mat's four zones); the classifier reads what it finds. A 3-5-8 trick, one card in each seat's
zone, and a Makao pile of twenty cards. Why: a frame at the table is not a whole
frame of cards; what it costs is what a player waits for. Ultralytics reads the same frames whole
(it has no zones). Prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

NAME = "vision"
HELP = "recogniser latency (640 image, 1280x720 frame), peak RSS, and ultralytics predict for comparison"

RSS_TARGET_MB = 400


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--image", type=Path, default=None, help="a 640x640 test image (default: a drawn table)")
    parser.add_argument("--models", type=Path, default=None, help="model folder with models.json (default: shipped)")
    parser.add_argument("--threads", type=int, default=1, help="CPU threads for both (default 1)")
    parser.add_argument("--repeat", type=int, default=30, help="timed runs per image (default 30)")
    parser.add_argument("--warmup", type=int, default=3, help="untimed runs first (default 3)")
    parser.add_argument("--tile", choices=("auto", "on", "off"), default="auto", help="tiling of wide frames")
    parser.add_argument("--fit", type=int, default=None, help="detector scale in px (default: its training size)")
    parser.add_argument("--no-ultralytics", action="store_true", help="skip the ultralytics comparison")


def run(args: argparse.Namespace) -> int:
    import cv2

    if args.threads < 1 or args.repeat < 1 or args.warmup < 0:
        print("cardtable bench vision: --threads and --repeat must be at least 1", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="cardtable-bench-") as tmp:
        if args.image is not None:
            image = cv2.imread(str(args.image), cv2.IMREAD_COLOR)
            if image is None:
                print(f"cardtable bench vision: not an image: {args.image}", file=sys.stderr)
                return 2
            image = cv2.resize(image, (640, 640), interpolation=cv2.INTER_AREA)
        else:
            image = table_scene()
        square, frame = Path(tmp) / "640.png", Path(tmp) / "1280x720.png"
        cv2.imwrite(str(square), image)
        cv2.imwrite(str(frame), wide_frame(image))
        named = {"640x640": square, "1280x720": frame}

        command = [sys.executable, "-m", "vision.recognise.benchmark", "--image", str(square), "--image", str(frame)]
        for name, table_image, regions in table_frames():
            path, regions_path = Path(tmp) / f"{name}.png", Path(tmp) / f"{name}.json"
            cv2.imwrite(str(path), table_image)
            regions_path.write_text(json.dumps([list(r) for r in regions]))
            command += ["--table", name, str(path), str(regions_path)]
            named[name] = path
        command += ["--threads", str(args.threads), "--repeat", str(args.repeat), "--warmup", str(args.warmup)]
        command += ["--tile", args.tile]
        if args.fit is not None:
            command += ["--fit", str(args.fit)]
        if args.models is not None:
            command += ["--models", str(args.models)]
        ours = _child(command, args.threads)
        if ours is None or "error" in ours:
            return 2
        result: dict[str, Any] = {
            "machine": machine(),
            "threads": args.threads,
            "image": str(args.image) if args.image else "drawn table scene",
            "recogniser": ours["images"],
            "peak_rss_mb": ours["peak_rss_mb"],
            "rss_target_mb": RSS_TARGET_MB,
            "runtime_heavy_imports": ours["heavy_imports"],
        }
        if not args.no_ultralytics:
            theirs = _ultralytics(named, args)
            result["ultralytics_yolov8n_predict"] = theirs
            if isinstance(theirs, dict):
                timed = [key for key in theirs if key in ours["images"]]
                result["ratio_p50"] = {key: round(ours["images"][key]["p50"] / theirs[key]["p50"], 3) for key in timed}
    print(json.dumps(result, indent=1))
    return 0


def _child(command: list[str], threads: int = 1, quiet: bool = False) -> dict[str, Any] | None:
    """Run a worker process and read the JSON object it prints last; None (and why, on stderr) if it fails."""
    env = {**os.environ, "OMP_NUM_THREADS": str(threads)}
    done = subprocess.run(command, capture_output=True, text=True, env=env)
    if done.returncode != 0:
        last = done.stderr.strip().splitlines()[-1:] or [f"exit status {done.returncode}"]
        if not quiet:
            print(f"cardtable bench vision: {last[0]}", file=sys.stderr)
        return {"error": last[0]}
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def _ultralytics(images: dict[str, Path], args: argparse.Namespace) -> dict[str, Any] | str:
    """Ultralytics' figures on each named image, or a line saying why there are none."""
    import importlib.util

    if importlib.util.find_spec("ultralytics") is None:
        return "not installed (pip install -e '.[train]')"
    paths = {name: str(path) for name, path in images.items()}
    code = (
        "from controller.cli.bench.vision import ultralytics_worker; "
        f"ultralytics_worker({paths!r}, {args.threads}, {args.repeat}, {args.warmup})"
    )
    theirs = _child([sys.executable, "-c", code], args.threads, quiet=True)
    if theirs is None or "error" in theirs:
        return f"failed to run: {theirs['error'] if theirs else 'no output'}"
    return theirs


def ultralytics_worker(paths: dict[str, str], threads: int, repeat: int, warmup: int) -> None:
    """Time ultralytics' ``predict`` with a random-weight yolov8n at 640 on each named image; print JSON."""
    import resource
    import time

    import cv2
    import numpy as np
    import torch

    try:  # torchvision's compiled NMS does not load beside CPU torch here; training ships a shim
        from vision.training import tv_shim

        tv_shim.install()
    except ImportError:
        pass
    from ultralytics import YOLO  # type: ignore[attr-defined]

    torch.set_num_threads(threads)
    model = YOLO("yolov8n.yaml")  # built from the yaml: random weights, nothing downloaded
    results: dict[str, object] = {}
    for name, path in paths.items():
        image = cv2.imread(path, cv2.IMREAD_COLOR)
        if image is None:
            raise SystemExit(f"not an image: {path}")
        for _ in range(warmup):
            model.predict(image, imgsz=640, device="cpu", verbose=False)
        millis = []
        for _ in range(repeat):
            start = time.perf_counter()
            model.predict(image, imgsz=640, device="cpu", verbose=False)
            millis.append((time.perf_counter() - start) * 1000)
        results[name] = {
            "p50": round(float(np.percentile(millis, 50)), 1),
            "p95": round(float(np.percentile(millis, 95)), 1),
            "mean": round(float(np.mean(millis)), 1),
        }
    results["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    print(json.dumps(results))


def machine(cpuinfo: str | None = None) -> str:
    """A short description of the CPU the figures were measured on (``cpuinfo``: the text of
    ``/proc/cpuinfo``, read when not given).

    Why the family, the model and the 8-bit dot-product instructions: the same VM type has come as CPUs
    on which the 8-bit classifier costs 0.25 or 1.7 ms a crop (x86 VNNI and Arm ``asimddp`` speed it up,
    a first-generation EPYC's AVX2 on 128-bit units does not), so a ratio to ultralytics means little
    without them (docs/vision.md)."""
    model = platform.processor() or platform.machine()
    if cpuinfo is None:
        try:
            cpuinfo = Path("/proc/cpuinfo").read_text()
        except OSError:
            cpuinfo = ""
    fields: dict[str, str] = {}
    for line in cpuinfo.splitlines():
        key, sep, value = line.partition(":")
        if sep and key.strip() not in fields:  # the first processor's lines
            fields[key.strip()] = value.strip()
    model = fields.get("model name", model)
    if "cpu family" in fields and "model" in fields:
        model += f" (family {fields['cpu family']} model {fields['model']})"
    flags = set((fields.get("flags") or fields.get("Features") or "").split())
    dot = sorted(flags & {"avx512_vnni", "avx_vnni", "asimddp"})
    if flags:
        model += f", 8-bit dot product: {' '.join(dot) if dot else 'none'}"
    return f"{model}, {os.cpu_count()} CPU(s), {platform.system()} {platform.machine()}"


def table_scene(seed: int = 7) -> Any:
    """A 640x640 overhead view of green felt with a few cards, drawn with OpenCV (deterministic)."""
    import cv2
    import numpy as np

    rng = np.random.default_rng(seed)
    image: Any = np.empty((640, 640, 3), np.uint8)
    image[:] = (60, 110, 40)
    image = cv2.add(image, rng.integers(0, 18, image.shape, dtype=np.uint8))
    ranks = ["A", "K", "Q", "J", "10", "7"]
    for i, rank in enumerate(ranks):
        card = np.full((130, 90, 3), 245, np.uint8)
        colour = (30, 30, 200) if i % 2 else (20, 20, 20)
        for corner in (0, 1):
            patch = np.full((40, 22, 3), 245, np.uint8)
            cv2.putText(patch, rank, (1, 16), cv2.FONT_HERSHEY_SIMPLEX, 0.5, colour, 2, cv2.LINE_AA)
            cv2.circle(patch, (10, 30), 6, colour, -1)
            if corner:
                patch = patch[::-1, ::-1]
                card[130 - 44 : 130 - 4, 90 - 26 : 90 - 4] = patch
            else:
                card[4:44, 4:26] = patch
        angle = float(rng.uniform(0, 360))
        cx, cy = 120 + (i % 3) * 200, 170 + (i // 3) * 280
        big: Any = np.zeros((220, 220, 3), np.uint8)
        mask: Any = np.zeros((220, 220), np.uint8)
        big[45:175, 65:155] = card
        mask[45:175, 65:155] = 255
        rotation = cv2.getRotationMatrix2D((110, 110), angle, 1.0)
        big = cv2.warpAffine(big, rotation, (220, 220))
        mask = cv2.warpAffine(mask, rotation, (220, 220))
        region = image[cy - 110 : cy + 110, cx - 110 : cx + 110]
        region[mask > 127] = big[mask > 127]
    return image


def table_frames(seed: int = 0) -> list[tuple[str, Any, list[tuple[float, float, float, float]]]]:
    """Frames of the synthetic table as the camera sees them once the hands have gone, each with the
    regions the tracker has the recogniser read (its zones, grown by its read margin), by name."""
    import numpy as np

    from engine.cards import deck
    from vision.render import Place, RenderSettings, TableRenderer
    from vision.tracker import CardTracker
    from vision.zones import layout_for

    cards = [deck()[int(i)] for i in np.random.default_rng(seed).permutation(52)]
    plays = {
        "1280x720 table, 3-5-8 trick": ("358", [Place(cards[k], f"seat{k}", k) for k in range(3)]),
        "1280x720 table, Makao pile of 20": ("makao", [Place(cards[k], "pile", k % 4) for k in range(20)]),
    }
    frames = []
    for name, (game, actions) in plays.items():
        layout = layout_for(game)
        renderer = TableRenderer(layout, RenderSettings(), seed=seed)
        for action in actions:
            renderer.apply(action)
        image = renderer.still(1)[0].frame.image
        regions = CardTracker(layout, renderer.true_calibration()).regions()
        frames.append((name, image, [(float(x1), float(y1), float(x2), float(y2)) for x1, y1, x2, y2 in regions]))
    return frames


def wide_frame(image: Any) -> Any:
    """A 1280x720 frame from a square image: it and its mirror side by side, stretched to 720 tall."""
    import cv2
    import numpy as np

    return cv2.resize(np.hstack([image, image[:, ::-1]]), (1280, 720), interpolation=cv2.INTER_LINEAR)
