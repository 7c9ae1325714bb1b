"""Card recognition: score it on labelled photos, tune how corners combine, train the models.

  cardtable vision eval DATASET [--errors DIR] [--threads 1] [--limit N] [--aspect search|W:H] [--by-size]
                                [--labelled-boxes] [--per-image FILE]
  cardtable vision tune DATASET          (synthetic held-out sets only: never tune on real photos)
  cardtable vision synth OUT [--count N] [--wide | --saved-square W:H] [--area-faces]   (a synthetic held-out set)
  cardtable vision train [-- OPTIONS]    (needs the train extra: pip install -e '.[train]')

``eval`` prints one JSON object: {"images", "cards", "recall", "precision", "subsets": {...},
"latency_ms": {"p50", "p95"}, "threads"}. See docs/vision.md.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from vision.argtypes import in_range, probability

if TYPE_CHECKING:
    from vision.detections import Recogniser
    from vision.evaluation import Dataset
    from vision.recognise import OnnxRecogniser

NAME = "vision"
HELP = "evaluate, tune or train card recognition"

TUNE_THRESHOLDS = (0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95)


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, not {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected at least 1, not {value}")
    return value


_decks = in_range(int, 0, 8, "a number of decks, 0 to 8")


def _pixel_aspect(text: str) -> float:
    """One pixel aspect such as ``16:9`` or ``1``."""
    from vision.recognise.aspect import parse_aspect

    try:
        return parse_aspect(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _aspect(text: str) -> float | None:
    """``search`` (None) or one pixel aspect."""
    if text == "search":
        return None
    try:
        return _pixel_aspect(text)
    except argparse.ArgumentTypeError as exc:
        raise argparse.ArgumentTypeError(f"{exc}, or 'search'") from None


def _add_model_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("dataset", metavar="DATASET", type=Path, help="folder with index.json and its images")
    parser.add_argument("--models", type=Path, default=None, help="model folder with models.json (default: shipped)")
    parser.add_argument("--threads", type=_positive, default=1, help="onnxruntime threads (default 1, as on the Pi)")
    parser.add_argument("--limit", type=_positive, default=None, help="only the first N images of the index")
    parser.add_argument("--conf", type=probability, default=None, help="detector score threshold")
    parser.add_argument("--tile", choices=("auto", "on", "off"), default="auto", help="read wide frames as tiles")
    parser.add_argument("--fit", type=_positive, default=None, help="detector scale in px (default: its training size)")
    parser.add_argument(
        "--aspect",
        type=_aspect,
        default=None,
        metavar="search|W:H",
        help="pixel aspect of the photos: 'search' (default) reads each at square, 16:9, 4:3 and their portrait "
        "shapes and keeps the most confident reading, for photos saved square from another frame shape; "
        "1 reads them as they are, as the table does its camera's frames",
    )


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="vision_command", metavar="ACTION")
    ev = sub.add_parser("eval", help="recall, precision and latency on a labelled image folder")
    _add_model_options(ev)
    ev.add_argument("--errors", type=Path, default=None, metavar="DIR", help="write annotated failures here")
    ev.add_argument("--threshold", type=probability, default=None, help="evidence a card needs (see docs/vision.md)")
    ev.add_argument("--top-only", action="store_true", help="count only each corner's first candidate")
    ev.add_argument(
        "--every-reading",
        action="store_true",
        help="count every reading on its own, also a second box of the same index (as before 2 December)",
    )
    ev.add_argument(
        "--decks",
        type=_decks,
        default=None,
        metavar="N",
        help="copies of each card in a photo (default 1: a card shows at most two indices, and two side by side "
        "are two cards); 0 lets any card be read any number of times (as before 4 December)",
    )
    ev.add_argument(
        "--labelled-boxes",
        action="store_true",
        help="the classifier alone on the labelled corner boxes: card, rank and suit right, suits confused",
    )
    ev.add_argument(
        "--by-size",
        action="store_true",
        help="also report recall by the size of each card's largest labelled index, overall and per subset; with "
        "--labelled-boxes, the boxes read right by each box's size",
    )
    ev.add_argument(
        "--per-image",
        type=Path,
        default=None,
        metavar="FILE",
        help="also write each image's cards shown and found here (JSON lines), for `cardtable vision compare`",
    )
    compare = sub.add_parser(
        "compare", help="is run B better than run A on the same photos? (paired bootstrap over --per-image files)"
    )
    compare.add_argument("a", metavar="A", type=Path, help="per-image records of the first run")
    compare.add_argument("b", metavar="B", type=Path, help="per-image records of the second run")
    compare.add_argument("--rounds", type=_positive, default=2000, help="bootstrap resamples (default 2000)")
    compare.add_argument("--seed", type=int, default=0, help="seed of the resampling (default 0)")
    tune = sub.add_parser("tune", help="recall/precision for a range of card-vote thresholds (synthetic sets)")
    _add_model_options(tune)
    tune.add_argument(
        "--aspect-rules",
        action="store_true",
        help="instead of the card vote, compare the ways the pixel-aspect search can pick each photo's reading "
        "(every photo read once at every aspect)",
    )
    synth = sub.add_parser("synth", help="render a synthetic held-out set (unseen designs) in the eval format")
    synth.add_argument("out", metavar="OUT", type=Path, help="folder to write images/ and index.json into")
    synth.add_argument("--count", type=_positive, default=300, help="images (default 300)")
    synth.add_argument("--seed", type=int, default=0, help="which scenes (default 0; tune on one, report another)")
    synth.add_argument("--wide", action="store_true", help="1280x720 frames instead of 640x640 images")
    synth.add_argument("--designs", default=None, help="comma-separated designs (default: the held-out ones)")
    synth.add_argument(
        "--saved-square",
        type=_pixel_aspect,
        default=None,
        metavar="W:H",
        help="frames of this shape squashed into a square, as the real development photos were (e.g. 16:9)",
    )
    synth.add_argument(
        "--area-faces",
        action="store_true",
        help="draw each card face shrunk by area averaging, as a camera sees a small card (default: the "
        "training generator's point-sampled warp)",
    )
    train = sub.add_parser("train", help="generate synthetic data and train the models (train extra)")
    train.add_argument("train_args", nargs=argparse.REMAINDER, help="options for the training pipeline, after --")


def run(args: argparse.Namespace) -> int:
    command = getattr(args, "vision_command", None)
    if command == "eval":
        return _eval(args)
    if command == "tune":
        return _tune(args)
    if command == "compare":
        return _compare(args)
    if command == "synth":
        return _synth(args)
    if command == "train":
        return _train(args)
    args._parser.print_help()
    return 2


def _load(args: argparse.Namespace) -> tuple[Dataset, OnnxRecogniser] | None:
    """The dataset and the recogniser, or None after printing why they cannot be loaded."""
    from vision.evaluation import Dataset, DatasetError
    from vision.recognise import DEFAULT_MODEL_DIR, ModelError, OnnxRecogniser
    from vision.recognise.recogniser import DEFAULT_CONF

    try:
        dataset = Dataset.load(args.dataset)
    except DatasetError as exc:
        print(f"cardtable vision: {exc}", file=sys.stderr)
        return None
    conf = DEFAULT_CONF if args.conf is None else args.conf
    try:
        recogniser = OnnxRecogniser(
            args.models or DEFAULT_MODEL_DIR,
            threads=args.threads,
            conf=conf,
            tile=args.tile,
            fit=args.fit,
            orient=True,
            photo=True,
        )
    except ModelError as exc:
        print(f"cardtable vision: {exc}", file=sys.stderr)
        return None
    return dataset, recogniser


def _reader(args: argparse.Namespace, recogniser: OnnxRecogniser) -> Recogniser:
    """The recogniser as ``--aspect`` asks: searching the pixel aspect, or at one aspect."""
    from vision.recognise.aspect import FRAME_SHAPES, AspectSearch

    return AspectSearch(recogniser, FRAME_SHAPES if args.aspect is None else (args.aspect,))


def _eval(args: argparse.Namespace) -> int:
    from vision.evaluation import DatasetError, evaluate
    from vision.recognise import CardVote
    from vision.recognise.cards import DEFAULT_VOTE

    loaded = _load(args)
    if loaded is None:
        return 2
    dataset, recogniser = loaded
    if args.labelled_boxes:
        from vision.evaluation.crops import classify_labelled_boxes
        from vision.evaluation.sizes import SIZE_EDGES
        from vision.recognise.aspect import FRAME_SHAPES

        if args.per_image is not None:
            print(
                "cardtable vision: --per-image scores the recogniser's cards; --labelled-boxes has none",
                file=sys.stderr,
            )
            return 2

        try:
            aspects = FRAME_SHAPES if args.aspect is None else (args.aspect,)
            edges = SIZE_EDGES if args.by_size else None
            reading = classify_labelled_boxes(recogniser, dataset, limit=args.limit, aspects=aspects, size_edges=edges)
            print(json.dumps(reading))
        except DatasetError as exc:
            print(f"cardtable vision: {exc}", file=sys.stderr)
            return 2
        return 0
    vote = CardVote(
        threshold=DEFAULT_VOTE.threshold if args.threshold is None else args.threshold,
        top_only=args.top_only or DEFAULT_VOTE.top_only,
        min_probability=DEFAULT_VOTE.min_probability,
        same_place=None if args.every_reading else DEFAULT_VOTE.same_place,
        decks=DEFAULT_VOTE.decks if args.decks is None else (args.decks or None),
    )
    try:
        report = evaluate(
            _reader(args, recogniser), dataset, vote=vote, limit=args.limit, errors=args.errors, threads=args.threads
        )
    except DatasetError as exc:
        print(f"cardtable vision: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"cardtable vision: cannot write failures to {args.errors}: {exc}", file=sys.stderr)
        return 2
    if args.per_image is not None:
        from vision.evaluation.compare import write_records

        try:
            write_records(args.per_image, report.records())
        except OSError as exc:
            print(f"cardtable vision: cannot write per-image records to {args.per_image}: {exc}", file=sys.stderr)
            return 2
    summary = report.summary()
    if args.by_size:
        from vision.evaluation.sizes import recall_by_index_size, recall_by_subset_and_size

        summary["by_index_size"] = {"all": recall_by_index_size(report), "subsets": recall_by_subset_and_size(report)}
    print(json.dumps(summary))
    return 0


def _compare(args: argparse.Namespace) -> int:
    from vision.evaluation import DatasetError
    from vision.evaluation.compare import paired_difference, read_records

    try:
        result = paired_difference(read_records(args.a), read_records(args.b), rounds=args.rounds, seed=args.seed)
    except DatasetError as exc:
        print(f"cardtable vision: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(result, indent=1))
    return 0


def _tune(args: argparse.Namespace) -> int:
    from vision.evaluation import DatasetError, evaluate, sweep
    from vision.recognise import CardVote
    from vision.recognise.cards import DEFAULT_VOTE

    loaded = _load(args)
    if loaded is None:
        return 2
    dataset, recogniser = loaded
    if args.aspect_rules:
        return _tune_aspect_rules(args, dataset, recogniser)
    try:
        report = evaluate(_reader(args, recogniser), dataset, limit=args.limit, threads=args.threads)
    except DatasetError as exc:
        print(f"cardtable vision: {exc}", file=sys.stderr)
        return 2
    places = ((DEFAULT_VOTE.same_place, DEFAULT_VOTE.decks), (DEFAULT_VOTE.same_place, None), (None, None))
    votes = [
        CardVote(threshold=t, top_only=top, same_place=place, decks=decks)
        for place, decks in places
        for top in (False, True)
        for t in TUNE_THRESHOLDS
    ]
    print(json.dumps({"sweep": sweep(report, votes), "latency_ms": report.summary()["latency_ms"]}, indent=1))
    return 0


def _tune_aspect_rules(args: argparse.Namespace, dataset: Dataset, recogniser: OnnxRecogniser) -> int:
    from vision.evaluation import DatasetError, compare_keeping_rules
    from vision.recognise.aspect import FRAME_SHAPES, KEEP_RULES, AspectSearch

    if args.aspect is not None:
        print("cardtable vision tune: --aspect-rules reads every aspect; leave out --aspect", file=sys.stderr)
        return 2
    try:
        rules = compare_keeping_rules(AspectSearch(recogniser, FRAME_SHAPES), dataset, KEEP_RULES, limit=args.limit)
    except DatasetError as exc:
        print(f"cardtable vision: {exc}", file=sys.stderr)
        return 2
    print(json.dumps({"aspect_rules": rules, "default": "confident"}, indent=1))
    return 0


def _synth(args: argparse.Namespace) -> int:
    from vision.evaluation.synthetic import write_synthetic_set

    designs = [d.strip() for d in args.designs.split(",") if d.strip()] if args.designs else None
    if args.wide and args.saved_square is not None:
        print("cardtable vision synth: --wide and --saved-square are two frame shapes; pick one", file=sys.stderr)
        return 2
    try:
        write_synthetic_set(
            args.out,
            args.count,
            designs=designs,
            seed=args.seed,
            wide=args.wide,
            saved_square=args.saved_square,
            area_faces=args.area_faces,
        )
    except (RuntimeError, OSError, KeyError, ValueError) as exc:  # FaceError (no faces rendered) is a RuntimeError
        print(f"cardtable vision synth: {exc}", file=sys.stderr)
        return 2
    print(json.dumps({"out": str(args.out), "images": args.count}))
    return 0


def _train(args: argparse.Namespace) -> int:
    argv = list(args.train_args)
    if argv[:1] == ["--"]:
        argv = argv[1:]
    try:
        from vision.training.pipeline import main as train_main
    except ModuleNotFoundError as exc:
        missing = (exc.name or "").split(".")[0]
        if missing in {"torch", "ultralytics", "torchvision", "onnx"}:
            print(
                f"cardtable vision train: {missing} is not installed; training needs the train extra:"
                " pip install -e '.[train]' (or `make train`)",
                file=sys.stderr,
            )
        else:
            print(f"cardtable vision train: the training pipeline cannot be loaded ({exc})", file=sys.stderr)
        return 2
    return int(train_main(argv))
