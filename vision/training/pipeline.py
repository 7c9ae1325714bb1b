"""One command that trains the recognition models from nothing, reproducibly from a seed.

    python -m vision.training.pipeline --seed 3 --out runs/train        (or: cardtable vision train)

Steps: render and measure the card faces of every design (Debian vector decks, cached in data/faces/),
generate synthetic scenes (YOLO folders for the detector, corner crops for the classifier; held-out
designs only ever in the held-out sets), train the crop classifier (plain torch), train the one-class
corner detector (ultralytics, from a model yaml: no pretrained weights), train the small network that
tells which way up an index stands (plain torch, on the classifier's crops), export them to ONNX, score the
held-out designs, and write ``models.json`` + ``metrics.json`` in ``--out/export``. ``--install`` copies
the exports into ``vision/models/``. Each training stage has a wall-clock cap so the whole run fits
its budget on a 2-core CPU; the best checkpoint so far is exported when a cap ends a stage.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from engine.cards import Card
from vision.argtypes import in_range, probability
from vision.synth.corners import prepare_design
from vision.synth.drawn import MORE_DRAWN, with_bleeding_courts
from vision.synth.faces import DESIGNS, DRAWN, HELD_OUT, NPM_DESIGNS, TRAIN_DESIGNS, render_jokers
from vision.synth.scenes import SceneConfig

from .cores import ThreadsWhenAlone
from .dataset import ARCHITECTURES, CROP_SIZE, MARGIN, NOT_INDEX, make_crops, write_yolo_split

__all__ = ["main"]

MODELS_DIR = Path(__file__).resolve().parents[1] / "models"
DETECTOR_YAML = Path(__file__).resolve().parent / "corner-detector-n.yaml"

# Seed offsets keep every split's scenes disjoint.
_DET_TRAIN, _DET_VAL, _DET_HELD, _CLS_TRAIN, _CLS_VAL, _CLS_HELD = (10**6 * k for k in range(1, 7))
REJECT_CLASS = "none"
"""The classifier's last class: the crop shows no corner index."""
CLS_CARD_HEIGHT = (70.0, 240.0)
"""Card heights in the classifier's 288-px scenes (the shipped models'): indices of about 15-60 px."""
CLS_SCENE_SIZE = 288
"""Side of the classifier's scenes in pixels (the shipped models'). A larger scene with larger cards
gives crops cut down from more pixels than the 48-px input, as a webcam's or a phone's are, where the
288-px scenes mostly blow a small index up."""
TURNED_CLASS = "turned"
"""An upright-only classifier's class before the last: an index, not standing upright (``--upright``)."""


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="cardtable vision train", description=__doc__.split("\n\n")[0])
    p.add_argument("--seed", type=int, default=3, help="seed of every random choice (default 3)")
    p.add_argument("--out", type=Path, default=Path("runs/train"), help="work folder (default runs/train)")
    p.add_argument("--quick", action="store_true", help="a tiny smoke run (minutes): checks the pipeline only")
    p.add_argument("--epochs", type=int, default=None, help="detector epochs (default 30 or 2 with --quick)")
    p.add_argument("--cls-epochs", type=int, default=None, help="classifier epochs (default 40 or 1 with --quick)")
    p.add_argument("--det-images", type=int, default=None, help="detector training scenes (default 2400)")
    p.add_argument("--cls-scenes", type=int, default=None, help="scenes cut into classifier crops (default 7000)")
    p.add_argument(
        "--cls-negatives", type=int, default=2, help="crops per scene that show no index (the reject class; default 2)"
    )
    p.add_argument("--imgsz", type=int, default=320, help="detector training size (default 320)")
    p.add_argument(
        "--export-imgsz",
        type=int,
        default=320,
        help="detector ONNX input size (default 320, the training size: frames are shown at that scale, and "
        "a wide frame is read as two tiles rather than inside a 640 square that is mostly padding)",
    )
    p.add_argument(
        "--det-minutes", type=float, default=None, help="detector training cap, minutes (66; 1 with --quick)"
    )
    p.add_argument(
        "--cls-minutes", type=float, default=None, help="classifier training cap, minutes (52; 1 with --quick)"
    )
    p.add_argument(
        "--sequential",
        action="store_true",
        help="train the classifier and the detector one after the other (default: at once, in two processes)",
    )
    p.add_argument(
        "--jokers",
        type=probability,
        default=0.0,
        help="chance that a scene holds one joker, unlabelled, its corners rejects for the classifier (default 0: "
        "the shipped models saw none)",
    )
    p.add_argument(
        "--marks",
        type=probability,
        default=0.0,
        help="chance that a keyboard or a score sheet lies on the table under the cards, its legends rejects "
        "for the classifier (default 0: the shipped models saw none; 0.3 was tried on 4 Dec and lost fanned "
        "rows of cards, see vision/models/HISTORY.md)",
    )
    p.add_argument(
        "--defocus",
        type=probability,
        default=0.0,
        help="chance that a classifier scene is out of focus, blurred in proportion to its cards (default 0: "
        "the shipped models; 0.5 was tried on 1 Dec and read the table worse, see vision/models/HISTORY.md)",
    )
    p.add_argument(
        "--ink-spread",
        type=probability,
        default=0.0,
        help="share of classifier training crops whose dark ink is spread by a pixel or two, as a soft, "
        "over-exposed webcam prints it (default 0: the shipped models)",
    )
    p.add_argument(
        "--soften",
        type=probability,
        default=0.0,
        help="share of classifier training crops shown at 30-60%% of their resolution and blurred, as a soft "
        "webcam shows a small index (default 0: the shipped models)",
    )
    p.add_argument(
        "--area-faces",
        action="store_true",
        help="shrink each card face by area averaging to its drawn size before the warp, as a camera averages "
        "a small card's light (default: point-sampled by the warp, the shipped models')",
    )
    p.add_argument(
        "--hide-pip",
        type=probability,
        default=0.0,
        help="share of classifier training crops whose suit pip is painted over, their suit taught as either of "
        "their colour, so that a rank printed without its pip leaves the suit in doubt (default 0: the shipped models)",
    )
    p.add_argument(
        "--crop-margin",
        type=_margin_range,
        default=MARGIN,
        help=f"range LO:HI of a classifier training crop's side over its index box's longer side (default "
        f"{MARGIN[0]:g}:{MARGIN[1]:g}, the shipped models')",
    )
    p.add_argument(
        "--cls-card-height",
        type=_height_range,
        default=CLS_CARD_HEIGHT,
        help=f"range LO:HI of card heights in the classifier's scenes, at most --cls-scene-size (default "
        f"{CLS_CARD_HEIGHT[0]:g}:{CLS_CARD_HEIGHT[1]:g}, the shipped models': indices of about 15-60 px)",
    )
    p.add_argument(
        "--cls-scene-size",
        type=_scene_size,
        default=CLS_SCENE_SIZE,
        help=f"side in pixels of the scenes cut into classifier crops, 160-640 (default {CLS_SCENE_SIZE}, "
        "the shipped models')",
    )
    p.add_argument(
        "--npm-decks",
        action="store_true",
        help="train on the three per-card SVG decks from npm too (kennard, kennard-large-index, responsive; "
        "scripts/train-deps.sh fetches them; default: the shipped models' designs)",
    )
    p.add_argument(
        "--drawn-decks",
        type=in_range(
            int, len(DRAWN), len(DRAWN) + len(MORE_DRAWN), f"{len(DRAWN)}-{len(DRAWN) + len(MORE_DRAWN)} decks"
        ),
        default=len(DRAWN),
        help=f"how many procedurally drawn decks to train on (default {len(DRAWN)}, the shipped models'); those past "
        "the twelfth draw their ranks each in another of the printers' fonts of vision.synth.drawn.PRINTERS_FONTS",
    )
    p.add_argument(
        "--upright",
        action="store_true",
        help="a classifier that reads indices upright only and calls the other quarter turns 'turned' (the "
        "runtime reads all four turns and adds up the cards); default: one that reads every turn alike",
    )
    p.add_argument(
        "--cls-arch",
        choices=ARCHITECTURES,
        default="plain",
        help="the classifier network: 'plain' (the shipped models') or 'residual' (see CropNet)",
    )
    p.add_argument(
        "--bleeding-courts",
        action="store_true",
        help="train on drawn decks 01, 04, 07 and 10 with their court pictures printed to the edges, the index "
        "over the picture (default: off, the shipped models; see vision.synth.drawn.BLEEDING)",
    )
    p.add_argument("--workers", type=int, default=2, help="processes for data generation and loading")
    p.add_argument("--install", action="store_true", help="copy the exports into vision/models/")
    p.add_argument("--det-init", type=Path, default=None, help="continue the detector from this checkpoint (.pt)")
    p.add_argument("--det-name", default="detector", help="run folder of the detector under --out")
    p.add_argument(
        "--det-device",
        type=_device,
        default="cpu",
        help="where the detector trains: cpu (default, the shipped recipe) or a CUDA device such as 0, when "
        "a GPU is at hand; the classifier and data stages always run on the CPU",
    )
    p.add_argument(
        "--det-batch",
        type=in_range(int, 1, 1024, "a batch of 1-1024 scenes"),
        default=16,
        help="detector batch (default 16, the shipped recipe; a GPU keeps busy with more)",
    )
    p.add_argument(
        "--cls-init",
        type=Path,
        default=None,
        help="continue the classifier from this state dict (.pt) or float ONNX export (the plain network)",
    )
    p.add_argument("--cls-lr", type=float, default=5e-3, help="classifier peak learning rate (default 5e-3)")
    p.add_argument(
        "--cls-low-res",
        type=_low_res_side,
        default=0,
        help="show the classifier its crops shrunk to this side for the first --cls-low-res-share of its "
        "training, where a batch costs far less, so a time cap on a slow CPU buys more epochs (default 0: "
        "every epoch at 48 px, the shipped models'; 32: at 40 epochs 28%% less time and held-out designs' "
        "recall -0.026; under a binding cap no better: docs/vision.md)",
    )
    p.add_argument(
        "--cls-low-res-share",
        type=in_range(float, 0.05, 0.95, "a share of the training in 0.05..0.95"),
        default=0.5,
        help="share of the classifier's training, by epochs or by its time cap, shown at --cls-low-res (default 0.5)",
    )
    p.add_argument(
        "--cls-ema",
        type=in_range(float, 0.0, 0.99999, "a decay per step in 0..0.99999"),
        default=0.0,
        help="keep an exponential moving average of the classifier's weights with this decay per step "
        "(about 400 steps an epoch) and validate, keep and export the average (default 0: off, the shipped models; "
        "0.999 against 40 plain epochs read the real photos less precisely: docs/vision.md)",
    )
    p.add_argument(
        "--cls-warp",
        type=in_range(float, 0.0, 1.0, "a share of the crops in 0..1"),
        default=0.0,
        help="share of the classifier's crops bent by a small random affine and elastic warp, as another "
        "printer's figures differ (default 0: off, the shipped models; 1.0 against 40 plain epochs, two seeds: "
        "real photos' recall +0.04 at the same precision, but the whole command with it, 29 classifier epochs, "
        "read the real photos worse: docs/vision.md, 5 December, noon)",
    )
    p.add_argument(
        "--cls-mixup",
        type=in_range(float, 0.0, 10.0, "a Beta parameter in 0..10"),
        default=0.0,
        help="blend each classifier batch with itself in another order, the weight drawn from Beta(this, this), "
        "and the loss likewise (mixup; default 0: off, the shipped models; 0.2 made every reading less sure, "
        "no better at any vote threshold: docs/vision.md)",
    )
    p.add_argument(
        "--area-finish-epochs",
        type=int,
        default=0,
        help="after the classifier's training, train it on for this many epochs on crops of area-faced cards "
        "(--area-faces' scenes), as the webcam's clubs read best (docs/vision.md; default 0: the shipped models)",
    )
    p.add_argument(
        "--area-finish-minutes", type=float, default=30.0, help="wall-time cap of that second pass (default 30)"
    )
    p.add_argument(
        "--area-finish-lr", type=float, default=1e-3, help="peak learning rate of that second pass (default 1e-3)"
    )
    p.add_argument(
        "--budget-minutes",
        type=float,
        default=88.0,
        help="the whole command's wall time: the area-faced pass stops in time for the 8-bit classifier and the "
        "manifest to be written within it (default 88, inside the 90 minutes the training is given)",
    )
    p.add_argument(
        "--orient-epochs", type=int, default=None, help="orientation network epochs (default 14 or 1 with --quick)"
    )
    p.add_argument(
        "--orient-minutes", type=float, default=6.0, help="orientation network training cap, minutes (default 6)"
    )
    p.add_argument("--pip-epochs", type=int, default=None, help="pip network epochs (default 12 or 1 with --quick)")
    p.add_argument("--pip-minutes", type=float, default=12.0, help="pip network training cap, minutes (default 12)")
    p.add_argument(
        "--pip-crops", type=int, default=None, help="pip network training crops (default 60000 or 600 with --quick)"
    )
    p.add_argument(
        "--pip-drawn",
        type=in_range(int, 0, 200_000, "a count of pips in 0..200000"),
        default=None,
        help="lone pips of random shape added to the pip network's training pips (vision.training.pips.drawn_pips; "
        "default 8000 or 20 with --quick; 0 as before 5 December afternoon)",
    )
    p.add_argument(
        "--pip-occlude",
        type=in_range(float, 0.0, 1.0, "a share of the crops in 0..1"),
        default=0.3,
        help="share of the pip network's crops crossed by the edge of a card on top, a pip cut to less than 0.8 "
        "of its ink then being 'not a pip' (default 0.3; 0 as before 5 December afternoon)",
    )
    # the Unix time the command's budget ends, handed to its classifier process
    p.add_argument("--deadline", type=float, default=None, help=argparse.SUPPRESS)
    p.add_argument(
        "--torch-threads",
        type=int,
        default=0,
        help="torch threads (default: all cores; 1 when two stages share 2 cores)",
    )
    p.add_argument(
        "--widen-after",
        type=Path,
        default=None,
        metavar="FILE",
        help="train on every core once FILE exists (the pipeline writes it when the detector beside this "
        "classifier process is done)",
    )
    p.add_argument(
        "--stages",
        default="",
        help="comma-separated subset of faces,detector-data,classifier,detector,detector-export,quantize,orientation,"
        "pips,finish "
        "(default: all but detector-export, which the detector stage does itself); "
        "classifier and detector may run as two processes at once once their data exists",
    )
    return p


def _args(argv: list[str] | None) -> argparse.Namespace:
    p = _parser()
    a = p.parse_args(argv)
    if a.cls_card_height[1] > a.cls_scene_size:
        p.error(
            f"--cls-card-height {a.cls_card_height[1]:g} is taller than the {a.cls_scene_size}-px scenes "
            "(--cls-scene-size)"
        )
    return a


def _range(text: str, what: str, least: float, most: float, example: str) -> tuple[float, float]:
    """``LO:HI`` with ``least <= LO < HI <= most``, or an argparse error naming ``what`` and the value."""
    try:
        lo, hi = (float(part) for part in text.split(":"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected LO:HI, such as {example}, not {text!r}") from None
    if not least <= lo < hi <= most:
        raise argparse.ArgumentTypeError(f"{what} must satisfy {least:g} <= LO < HI <= {most:g}, not {text!r}")
    return lo, hi


def _margin_range(text: str) -> tuple[float, float]:
    """``LO:HI`` crop margins over the index box's longer side, 0.5 <= LO < HI <= 3."""
    return _range(text, "crop margins", 0.5, 3.0, "0.85:1.5")


def _height_range(text: str) -> tuple[float, float]:
    """``LO:HI`` card heights in the classifier's scenes, 20 <= LO < HI <= 640 (and at most the scene's
    side: checked in :func:`_args`)."""
    return _range(text, "card heights", 20, 640, "40:240")


def _device(text: str) -> str:
    """``cpu`` or CUDA device numbers such as ``0`` or ``0,1`` (``--det-device``)."""
    if text == "cpu" or re.fullmatch(r"\d+(,\d+)*", text):
        return text
    raise argparse.ArgumentTypeError(f"expected cpu or CUDA device numbers such as 0 or 0,1, not {text!r}")


_scene_size = in_range(int, 160, 640, "a scene side of 160-640 whole pixels")
"""The classifier's scene side (``--cls-scene-size``)."""

_side_under_crops = in_range(int, 8, 47, "0 (off) or a side of 8-47 px, under the 48-px crops")


def _low_res_side(text: str) -> int:
    """``--cls-low-res``: 0 (off, as the command forwards its default to the classifier's process) or a
    side of 8-47 px, under the 48-px crops."""
    return 0 if text.strip() == "0" else _side_under_crops(text)


def _log(msg: str) -> None:
    print(f"[{datetime.now(UTC).strftime('%H:%M:%S')}] {msg}", flush=True)


def _train_designs(a: argparse.Namespace) -> tuple[str, ...]:
    """The designs this run trains on: :data:`TRAIN_DESIGNS`, with ``--npm-decks`` the npm decks too
    (:data:`NPM_DESIGNS`), with ``--drawn-decks`` more drawn ones (:data:`MORE_DRAWN`), and with
    ``--bleeding-courts`` the drawn ones' twins."""
    designs = (*TRAIN_DESIGNS, *MORE_DRAWN[: a.drawn_decks - len(DRAWN)])
    designs = (*designs, *NPM_DESIGNS) if a.npm_decks else designs
    return with_bleeding_courts(designs) if a.bleeding_courts else designs


def _faces(jokers: bool, designs: tuple[str, ...]) -> None:
    for name in dict.fromkeys((*(n for n in DESIGNS if n not in NPM_DESIGNS), *DRAWN, *designs)):
        prepare_design(name)
        if jokers:
            render_jokers(name)


def _classes(upright: bool = False) -> list[str]:
    return [str(Card.from_index(i)) for i in range(52)] + ([TURNED_CLASS] if upright else []) + [REJECT_CLASS]


STAGES = (
    "faces",
    "detector-data",
    "classifier",
    "detector",
    "detector-export",
    "quantize",
    "orientation",
    "pips",
    "finish",
)
FLOAT_CLASSIFIER = "corner-classifier.onnx"
QUANTIZED_CLASSIFIER = "corner-classifier-int8.onnx"


def _stage_detector_data(a: argparse.Namespace, out: Path, n_det: int, n_val: int, n_held: int) -> dict[str, float]:
    det_cfg = _det_cfg(a)
    det_root = out / "det"
    _log(f"writing detector scenes: {n_det} train, {n_val} val, {n_held} held-out")
    t = time.monotonic()
    train_seeds = range(_DET_TRAIN, _DET_TRAIN + n_det)
    designs = _train_designs(a)
    boxes = write_yolo_split(det_root / "train", train_seeds, designs, det_cfg, a.workers)
    write_yolo_split(det_root / "val", range(_DET_VAL, _DET_VAL + n_val), designs, det_cfg, a.workers)
    write_yolo_split(det_root / "heldout", range(_DET_HELD, _DET_HELD + n_held), HELD_OUT, det_cfg, a.workers)
    (det_root / "data.yaml").write_text(
        f"path: {det_root}\ntrain: train/images\nval: val/images\ntest: heldout/images\nnames:\n  0: corner\n"
    )
    seconds = time.monotonic() - t
    _log(f"detector data: {boxes} boxes in {seconds:.0f} s")
    return {"detector_data_s": seconds, "det_boxes": boxes}


def _det_cfg(a: argparse.Namespace) -> SceneConfig:
    # 30-230 px cards at 320: a whole table from above down to one card filling a phone photo; half
    # the pictures stretched along an axis, as photos saved square are (16:9 webcam frames, 4:3 phones)
    return SceneConfig(
        size=a.imgsz,
        card_height=(30.0 * a.imgsz / 320, 230.0 * a.imgsz / 320),
        stretch_probability=0.5,
        joker_probability=a.jokers,
        marks_probability=a.marks,
        area_faces=a.area_faces,
    )


def _stage_classifier(
    a: argparse.Namespace, out: Path, n_cls: int, n_val: int, n_held: int, epochs: int
) -> dict[str, object]:
    x_tr, y_tr, t_tr, x_va, y_va, x_ho, y_ho, data_s = _classifier_crops(a, out, n_cls, n_val, n_held)

    from .classifier import CropNet, evaluate, export_onnx, reject_rates, train_classifier

    # the detector beside this process hands on its core when it is done (vision/training/cores.py)
    alone = ThreadsWhenAlone(a.widen_after.exists, "classifier") if a.widen_after is not None else None

    def train(
        crops: tuple[np.ndarray, np.ndarray, np.ndarray | None, np.ndarray, np.ndarray],
        epochs: int,
        minutes: float,
        init: Path | None,
        lr: float,
        first: bool = True,
    ) -> tuple[CropNet, list[dict[str, float]], float]:
        x, y, turns, xv, yv = crops
        t = time.monotonic()
        log: list[dict[str, float]] = []
        model = train_classifier(
            x,
            y,
            (xv, yv),
            epochs,
            a.seed,
            out,
            minutes * 60,
            log,
            init,
            lr,
            turns=turns if a.upright else None,
            ink_spread=a.ink_spread,
            arch=a.cls_arch,
            hide_pip=a.hide_pip,
            pip_turns=turns,
            soften=a.soften,
            between_epochs=alone,
            low_res=a.cls_low_res if first else 0,
            low_res_share=a.cls_low_res_share,
            ema=a.cls_ema,
            warp=a.cls_warp,
            mixup=a.cls_mixup,
        )
        return model, log, time.monotonic() - t

    _log("training the crop classifier")
    model, cls_log, train_s = train((x_tr, y_tr, t_tr, x_va, y_va), epochs, a.cls_minutes, a.cls_init, a.cls_lr)
    _log_time_cap("classifier", len(cls_log), epochs)
    finish: dict[str, object] = {}
    if a.area_finish_epochs > 0:
        first = {"val_acc": evaluate(model, x_va, y_va), "heldout_acc": evaluate(model, x_ho, y_ho)}
        _log(f"classifier before its area-faced epochs: {first}")
        finish_log: list[dict[str, float]] = []
        finish_s = area_data_s = 0.0
        minutes = area_finish_minutes(a, time.time())
        if minutes > 0:  # (cutting the area-faced crops takes minutes: none are cut when the budget is spent)
            area = argparse.Namespace(**{**vars(a), "area_faces": True})
            ax_tr, ay_tr, at_tr, ax_va, ay_va, _x_ho, _y_ho, area_data_s = _classifier_crops(
                area, out, n_cls, n_val, n_held
            )
            minutes = area_finish_minutes(a, time.time())
        best = out / "classifier-best.pt"  # the first pass's best epoch, which train_classifier keeps
        if minutes > 0:
            _log(f"training the classifier on for {a.area_finish_epochs} epochs on area-faced crops, {minutes:.1f} min")
            model, finish_log, finish_s = train(
                (ax_tr, ay_tr, at_tr, ax_va, ay_va), a.area_finish_epochs, minutes, best, a.area_finish_lr, first=False
            )
            _log_time_cap("area-faced classifier epochs", len(finish_log), a.area_finish_epochs)
        else:
            _log(f"no time left in the {a.budget_minutes:g}-minute budget for the area-faced epochs; skipped")
        finish = {
            "area_finish": {
                "before": first,
                "epochs": finish_log,
                "epochs_planned": a.area_finish_epochs,
                "minutes": minutes,
                "data_s": area_data_s,
                "train_s": finish_s,
            }
        }
    cls_held = evaluate(model, x_ho, y_ho)
    cls_val = evaluate(model, x_va, y_va)
    rejects = reject_rates(model, x_ho, y_ho)
    _log(f"classifier: val {cls_val:.4f}, held-out designs {cls_held:.4f}, held-out rejects {rejects}")
    export_onnx(model, out / "export" / "corner-classifier.onnx", CROP_SIZE)
    return {
        "val_acc": cls_val,
        "heldout_acc": cls_held,
        "heldout_crops": int((y_ho < NOT_INDEX).sum()),
        "heldout_blank_crops": int((y_ho == NOT_INDEX).sum()),
        "heldout_rejects": rejects,
        "train_crops": len(x_tr),
        "epochs": cls_log,
        "epochs_planned": epochs,
        "classifier_data_s": data_s,
        "classifier_train_s": train_s,
        **finish,
    }


AREA_FINISH_RESERVE_MIN = 12.0
"""Minutes the command's budget keeps back after the area-faced pass: its last epoch may run half an
epoch past its cap (:func:`vision.training.classifier.train_classifier` stops by the epoch), then the
8-bit classifier is calibrated, the orientation network trained (about 3 minutes), the pip network
(about 10 on one thread since 5 December afternoon, 60,000 crops for 12 epochs, less on the two it
has by then; 4 before) and the manifest written."""


def area_finish_minutes(a: argparse.Namespace, now: float) -> float:
    """The area-faced pass's wall-time cap at Unix time ``now``: ``--area-finish-minutes``, cut to what
    the command's budget has left (0: none left).

    The pass comes last, after the classifier's own capped epochs and the cutting of its crops, so it
    is the stage that a slow machine pushes past the budget; once the detector is done it trains on
    both cores (:mod:`vision.training.cores`), so where it starts decides how many epochs it gets."""
    if a.deadline is None:
        return float(a.area_finish_minutes)
    left = (float(a.deadline) - now) / 60 - AREA_FINISH_RESERVE_MIN
    return max(0.0, min(float(a.area_finish_minutes), left))


def _classifier_crops(
    a: argparse.Namespace, out: Path, n_cls: int, n_val: int, n_held: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, np.ndarray, np.ndarray, np.ndarray, np.ndarray, float]:
    """The classifier's train, val and held-out crops and labels (and the training crops' turns) for
    ``a``'s scenes, cut once and then read from their cache; with the seconds it took. The scenes'
    cards are :data:`CLS_CARD_HEIGHT` tall by default: smaller indices are mush when blown up to 48 px
    and only slow the classifier down (the detector still learns them)."""
    cls_cfg = _cls_cfg(a)
    _log(f"cutting classifier crops from {n_cls} scenes")
    t = time.monotonic()
    neg = a.cls_negatives
    cache = _crops_cache(a, out, n_cls, n_val, n_held)
    if cache.exists():
        z = np.load(cache)
        x_tr, y_tr, x_va, y_va, x_ho, y_ho = (z[k] for k in ("x_tr", "y_tr", "x_va", "y_va", "x_ho", "y_ho"))
        t_tr = z.get("t_tr")  # caches written before the turns were kept have none
    else:
        x_tr, y_tr, t_tr = make_crops(
            range(_CLS_TRAIN, _CLS_TRAIN + n_cls), _train_designs(a), cls_cfg, a.workers, neg, a.crop_margin
        )
        x_va, y_va, _ = make_crops(range(_CLS_VAL, _CLS_VAL + n_val * 2), _train_designs(a), cls_cfg, a.workers, neg)
        x_ho, y_ho, _ = make_crops(range(_CLS_HELD, _CLS_HELD + n_held * 2), HELD_OUT, cls_cfg, a.workers, neg)
        np.savez(cache, x_tr=x_tr, y_tr=y_tr, t_tr=t_tr, x_va=x_va, y_va=y_va, x_ho=x_ho, y_ho=y_ho)
    data_s = time.monotonic() - t
    _log(f"crops: {len(x_tr)} train, {len(x_va)} val, {len(x_ho)} held-out in {data_s:.0f} s")
    return x_tr, y_tr, t_tr, x_va, y_va, x_ho, y_ho, data_s


def _cls_cfg(a: argparse.Namespace) -> SceneConfig:
    return replace(_det_cfg(a), size=a.cls_scene_size, card_height=a.cls_card_height, defocus_probability=a.defocus)


def _crops_cache(a: argparse.Namespace, out: Path, n_cls: int, n_val: int, n_held: int) -> Path:
    """Where the classifier's crops are kept: same seeds and settings, same crops, so reruns reuse them."""
    cfg = _cls_cfg(a)
    stretch = f"-s{cfg.stretch_probability:g}" if cfg.stretch_probability else ""
    defocus = f"-d{cfg.defocus_probability:g}" if cfg.defocus_probability else ""
    jokers = f"-j{cfg.joker_probability:g}" if cfg.joker_probability else ""
    marks = f"-k{cfg.marks_probability:g}" if cfg.marks_probability else ""
    turns = "-t" if a.upright else ""  # (the same crops, from a cache that keeps their turns)
    margin = f"-m{a.crop_margin[0]:g}:{a.crop_margin[1]:g}" if a.crop_margin != MARGIN else ""
    bleed = "-b" if a.bleeding_courts else ""
    npm = "-npm" if a.npm_decks else ""
    drawn = f"-dd{a.drawn_decks}" if a.drawn_decks != len(DRAWN) else ""
    area = "-area" if cfg.area_faces else ""
    low, high = a.cls_card_height
    height = f"-h{low:g}:{high:g}" if a.cls_card_height != CLS_CARD_HEIGHT else ""
    settings = f"{stretch}{defocus}{jokers}{marks}{turns}{margin}{bleed}{npm}{drawn}{area}{height}"
    name = f"crops-{cfg.size}-{n_cls}-{n_val}-{n_held}-{a.cls_negatives}{settings}"
    return out / f"{name}.npz"


def _stage_quantize(a: argparse.Namespace, out: Path, n_cls: int, n_val: int, n_held: int) -> dict[str, object]:
    """The classifier in 8 bits (see :mod:`vision.training.quantize`), calibrated on training crops,
    with its accuracy on the validation and held-out crops beside the float model's."""
    from .quantize import calibration_crops, classifier_batches, onnx_accuracy, quantize_model

    t = time.monotonic()
    z = np.load(_crops_cache(a, out, n_cls, n_val, n_held))
    calibration = calibration_crops(z["x_tr"], a.seed)
    export = out / "export"
    src, dst = export / "corner-classifier.onnx", export / QUANTIZED_CLASSIFIER
    quantize_model(src, dst, classifier_batches(calibration), out / "quantize")
    metrics: dict[str, object] = {"quantize_s": time.monotonic() - t, "calibration_crops": len(calibration)}
    for split in ("va", "ho"):
        x, y = z[f"x_{split}"], z[f"y_{split}"]
        metrics[f"{split}_acc_float"] = onnx_accuracy(src, x, y, a.upright)
        metrics[f"{split}_acc_int8"] = onnx_accuracy(dst, x, y, a.upright)
    _log(f"classifier quantised: {metrics}")
    return metrics


ORIENTATION = "corner-orientation.onnx"


def _orientation_crops_missing(cache: Path) -> str:
    """Why the orientation stage cannot run on its own in this folder ("" when it can): it reads the
    classifier's cached crops, with each index's turns to upright."""
    if not cache.exists():
        return f"the orientation stage reads the classifier's crops ({cache}): run the classifier stage first"
    if "t_tr" not in np.load(cache).files:
        return f"{cache} was cut before crops kept their turns: delete it and run the classifier stage again"
    return ""


def _stage_orientation(
    a: argparse.Namespace, out: Path, n_cls: int, n_val: int, n_held: int, epochs: int
) -> dict[str, object]:
    """The orientation network (:mod:`vision.training.orientation`) on the classifier's training crops,
    which keep each index's turns to upright; its best epoch chosen on crops of the training designs'
    validation scenes, and its accuracy on the held-out designs' reported beside it."""
    from .orientation import accuracy, export_onnx, train_orientation

    z = np.load(_crops_cache(a, out, n_cls, n_val, n_held))  # (main checked it is there, with the turns)
    t = time.monotonic()
    cfg = _cls_cfg(a)
    x_va, _, t_va = make_crops(range(_CLS_VAL, _CLS_VAL + n_val * 2), _train_designs(a), cfg, a.workers)
    x_ho, _, t_ho = make_crops(range(_CLS_HELD, _CLS_HELD + n_held), HELD_OUT, cfg, a.workers)
    data_s = time.monotonic() - t
    log: list[dict[str, float]] = []
    _log(f"training the orientation network on {int((z['t_tr'] >= 0).sum())} index crops")
    model = train_orientation(
        z["x_tr"], z["t_tr"], (x_va[t_va >= 0], t_va[t_va >= 0]), epochs, a.seed, out, a.orient_minutes * 60, log
    )
    _log_time_cap("orientation", len(log), epochs)
    held = accuracy(model, x_ho[t_ho >= 0], t_ho[t_ho >= 0])
    export_onnx(model, out / "export" / ORIENTATION, CROP_SIZE)
    _log(f"orientation: held-out designs {held:.4f}")
    return {
        "heldout_acc": held,
        "heldout_crops": int((t_ho >= 0).sum()),
        "epochs": log,
        "epochs_planned": epochs,
        "orientation_data_s": data_s,
        "orientation_train_s": sum(e["seconds"] for e in log),
    }


PIPS = "suit-pips.onnx"
QUANTIZED_PIPS = "suit-pips-int8.onnx"
"""The pip network in 8 bits, which the runtime loads (the float export stays beside it): the same static
quantisation as the classifier's (:mod:`vision.training.quantize`), calibrated on the stage's own training
crops. It reads a trick's doubtful pips in about 1.5 ms instead of 2.6 on this project's CPU, with the
held-out pips named as well (docs/vision.md, "5 December, evening")."""
PIP_READING: dict[str, float] = {
    "size": 32,
    "radius": 3.0,
    "most": 6,
    "sure": 0.9,
    "weight": 1.0,
    "settled": 0.9,
    "rank": 0.55,  # at the table: one card to a zone, its own pips beside its index (docs/vision.md, 5 December)
    # a photo of a whole table, where each pip is given to the index it lies nearest to: the tuning set's most
    # recall without less precision than 0.9 (docs/vision.md, 5 December afternoon; 0.9 before, when a fanned
    # row's neighbouring pips could outvote an index)
    "photo_rank": 0.6,
}
"""How the runtime reads the pips (:class:`vision.recognise.manifest.PipSpec`)."""


def _stage_pips(a: argparse.Namespace, out: Path, epochs: int, count: int, drawn: int) -> dict[str, object]:
    """The pip network (:mod:`vision.training.pips`) on the training designs' own pips and on windows of
    their faces away from the pips; its accuracy on each held-out design's pips, and on tango_nuevo's
    corner pips (the suit of its bare-rank corner), reported beside it. The last epoch is kept: the
    held-out designs are only measured, never chosen on."""
    from .orientation import export_onnx  # the same small-network export: a dynamic batch, opset 17
    from .pips import PIP_SIZE, drawn_pips, negatives_of, onnx_pip_accuracy, pip_dataset, pips_of, train_pips
    from .quantize import calibration_crops, classifier_batches, quantize_model

    t = time.monotonic()
    rng = np.random.default_rng(a.seed)
    train_items = []
    for design in _train_designs(a):
        pips = pips_of(design)
        train_items += pips + negatives_of(design, pips, rng)
    if drawn:
        train_items += drawn_pips(rng, drawn)
    held = {design: pips_of(design) for design in HELD_OUT}
    val = {design: pip_dataset(items, 1000, a.seed + 1) for design, items in held.items() if items}
    corner = [p for p in held.get("tango_nuevo", []) if p.corner]
    if corner:
        val["tango_nuevo_corner"] = pip_dataset(corner, 1000, a.seed + 2)
    # every held-out pip crossed by a card's edge: a pip cut short must be "not a pip", a whole one its suit
    val["held_out_covered"] = pip_dataset([p for items in held.values() for p in items], 1000, a.seed + 3, occlude=1.0)
    x, y = pip_dataset(train_items, count, a.seed, tables=0.1, occlude=a.pip_occlude)
    data_s = time.monotonic() - t
    _log(f"training the pip network on {count} crops of {len(train_items)} pips and windows")
    log: list[dict[str, float]] = []
    model = train_pips((x, y), val, epochs, a.seed, a.pip_minutes * 60, log)
    _log_time_cap("pips", len(log), epochs)
    export_onnx(model, out / "export" / PIPS, PIP_SIZE)
    quantized = out / "export" / QUANTIZED_PIPS
    quantize_model(out / "export" / PIPS, quantized, classifier_batches(calibration_crops(x, a.seed)), out / "quantize")
    final = {k.removeprefix("acc_"): v for k, v in log[-1].items() if k.startswith("acc_")}
    int8 = {design: onnx_pip_accuracy(quantized, *crops) for design, crops in val.items()}
    _log(f"pips: held-out designs {final}; 8-bit {int8}")
    return {
        "heldout_acc": final,
        "heldout_acc_int8": int8,
        "train_items": len(train_items),
        "epochs": log,
        "epochs_planned": epochs,
        "pips_data_s": data_s,
        "pips_train_s": sum(e["seconds"] for e in log),
    }


def _pips_file(out: Path) -> str:
    """The pip network the runtime loads: the 8-bit one where the stage wrote it (a folder trained before
    5 December evening has only the float one)."""
    return QUANTIZED_PIPS if (out / "export" / QUANTIZED_PIPS).exists() else PIPS


def _stage_detector(
    a: argparse.Namespace, out: Path, epochs: int, classifier_done: Callable[[], bool] | None = None
) -> dict[str, float]:
    """Train the detector here; with ``classifier_done`` (the classifier training in another process),
    the detector takes every core from the epoch after that process ends (:mod:`vision.training.cores`)."""
    from ultralytics import YOLO  # type: ignore[attr-defined]

    data_yaml = out / "det" / "data.yaml"
    _log("training the corner detector")
    t = time.monotonic()
    # --det-init continues from a checkpoint of our own earlier run (never downloaded weights)
    det = YOLO(str(a.det_init or DETECTOR_YAML), task="detect")
    if classifier_done is not None:
        det.add_callback("on_train_epoch_start", ThreadsWhenAlone(classifier_done, "detector"))
    det.train(
        data=str(data_yaml),
        epochs=epochs,
        imgsz=a.imgsz,
        batch=a.det_batch,
        workers=a.workers,
        cache="ram",
        seed=a.seed,
        deterministic=True,
        device=a.det_device,
        project=str(out),
        name=a.det_name,
        exist_ok=True,
        pretrained=a.det_init is not None,  # False would rebuild from the yaml, dropping --det-init's weights
        amp=False,
        plots=False,
        fliplr=0.0,
        degrees=0.0,
        mosaic=1.0,
        scale=0.3,
        close_mosaic=2,  # the last two epochs on plain scenes (a time cap sets how many epochs there are)
        patience=100,
        warmup_epochs=0.3,  # a time-capped CPU run has few epochs: the default 3-epoch warmup would be all of it
        val=False,  # per-epoch validation costs a minute a epoch here; held-out designs are scored at the end
        time=a.det_minutes / 60.0,
        verbose=False,
    )
    train_s = time.monotonic() - t
    weights = out / a.det_name / "weights"
    best = weights / "best.pt" if (weights / "best.pt").exists() else weights / "last.pt"
    det = YOLO(str(best))
    held = det.val(
        data=str(data_yaml),
        split="test",
        imgsz=a.imgsz,
        batch=16,
        workers=a.workers,
        device=a.det_device,
        plots=False,
    )
    metrics = {
        "heldout_precision": float(held.box.mp),
        "heldout_recall": float(held.box.mr),
        "heldout_map50": float(held.box.map50),
        "heldout_map50_95": float(held.box.map),
        "detector_train_s": train_s,
        "epochs": detector_epochs(out / a.det_name),
        "epochs_planned": epochs,
    }
    _log(f"detector on held-out designs: {metrics}")
    _log_time_cap("detector", int(metrics["epochs"]), epochs)
    _export_detector(a, out)
    return metrics


def detector_epochs(run: Path) -> int:
    """Epochs the detector trained in ``run``, one row of ultralytics' ``results.csv`` each (0 without it).

    Both stages stop at a wall-time cap, so the same command trains fewer epochs on a slower host and
    gives other models (16 detector epochs against the shipped 23 on 3 Dec): the count goes in
    ``metrics.json`` so that two runs' models can be told apart by it."""
    csv = run / "results.csv"
    if not csv.is_file():
        return 0
    return max(0, sum(1 for line in csv.read_text().splitlines() if line.strip()) - 1)


def _log_time_cap(stage: str, reached: int, planned: int) -> None:
    if reached < planned:
        _log(
            f"{stage}: the time cap stopped it after {reached} of {planned} epochs; a faster or slower machine "
            "trains another number and gives other models (metrics.json records it)"
        )


def _export_detector(a: argparse.Namespace, out: Path) -> None:
    """The detector's best checkpoint as ONNX at ``--export-imgsz`` into ``out/export``."""
    from ultralytics import YOLO  # type: ignore[attr-defined]

    weights = out / a.det_name / "weights"
    best = weights / "best.pt" if (weights / "best.pt").exists() else weights / "last.pt"
    onnx_path = Path(YOLO(str(best)).export(format="onnx", imgsz=a.export_imgsz, opset=17, simplify=False))
    shutil.copy(onnx_path, out / "export" / "corner-detector.onnx")
    _log(f"detector exported at {a.export_imgsz} px from {best}")


def _manifest(a: argparse.Namespace, out: Path) -> dict[str, object]:
    return {
        "detector": {
            "file": "corner-detector.onnx",
            "imgsz": a.export_imgsz,
            "train_imgsz": a.imgsz,
            "classes": ["corner"],
            # a photo whose indices the detector saw under 12 px is read again closer (docs/vision.md, 5 Dec)
            "closer": {"below": 12, "tile": 0.75},
            "input": "1x3xHxW RGB float 0..1, letterboxed (pad 114)",
            "output": "1 x (4 + 1) x anchors: cx, cy, w, h in input pixels, then the corner score",
        },
        "classifier": {
            # the 8-bit graph when the quantize stage made one: same accuracy, about twice as fast
            "file": QUANTIZED_CLASSIFIER if (out / "export" / QUANTIZED_CLASSIFIER).exists() else FLOAT_CLASSIFIER,
            "float_file": FLOAT_CLASSIFIER,
            "input_size": [CROP_SIZE, CROP_SIZE],
            "channels": "RGB",
            "scale": "0..1 float",
            "crop_shape": "square",
            "crop_scale": 1.15,
            "thin_ink": 2,  # doubtful crops read again with thinned ink (docs/vision.md, 1 Dec)
            "classes": _classes(a.upright),
            "reject_class": REJECT_CLASS,
            **({"turned_class": TURNED_CLASS} if a.upright else {}),
        },
        # which way up each index stands, for the photo's card vote (vision/recognise/orientation.py)
        **({"orientation": {"file": ORIENTATION, "sure": 0.9}} if (out / "export" / ORIENTATION).exists() else {}),
        # doubtful suits read again from the pips near the index (vision/recognise/pips.py)
        **({"pips": {"file": _pips_file(out), **PIP_READING}} if (out / "export" / PIPS).exists() else {}),
        "trained": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "seed": a.seed,
        "held_out_designs": list(HELD_OUT),
        "train_designs": list(_train_designs(a)),
    }


def main(argv: list[str] | None = None) -> int:
    """Run the training stages (all by default); returns a process exit status."""
    a = _args(argv)
    quick = a.quick
    # ultralytics' time= fits the epochs to the cap, so a quick run needs a short cap too
    a.det_minutes = a.det_minutes if a.det_minutes is not None else (1.0 if quick else 66.0)
    a.cls_minutes = a.cls_minutes if a.cls_minutes is not None else (1.0 if quick else 52.0)
    det_epochs = a.epochs or (2 if quick else 30)
    cls_epochs = a.cls_epochs or (1 if quick else 40)
    orient_epochs = a.orient_epochs or (1 if quick else 14)
    pip_epochs = a.pip_epochs or (1 if quick else 12)
    pip_crops = a.pip_crops or (600 if quick else 60000)
    pip_drawn = a.pip_drawn if a.pip_drawn is not None else (20 if quick else 8000)
    n_det = a.det_images or (40 if quick else 2400)
    n_cls = a.cls_scenes or (60 if quick else 7000)
    n_val, n_held = (10, 20) if quick else (120, 300)
    if a.area_finish_epochs < 0 or a.area_finish_minutes <= 0 or a.budget_minutes <= 0:
        print(
            "--area-finish-epochs must be 0 or more, --area-finish-minutes and --budget-minutes more than 0",
            file=sys.stderr,
        )
        return 2
    if a.cls_init is not None and not a.cls_init.is_file():
        print(f"--cls-init: no such file: {a.cls_init}", file=sys.stderr)
        return 2
    stages = a.stages.split(",") if a.stages else list(STAGES)
    unknown = [s for s in stages if s not in STAGES]
    if unknown:
        print(f"unknown stage(s) {', '.join(unknown)}; stages are {', '.join(STAGES)}", file=sys.stderr)
        return 2
    out = a.out.resolve()
    (out / "export").mkdir(parents=True, exist_ok=True)
    t_start = time.monotonic()
    if a.deadline is None:  # the command's own start; a classifier process it starts is given the same
        a.deadline = time.time() + a.budget_minutes * 60
    try:
        import torch

        from . import tv_shim

        tv_shim.install()
        import ultralytics  # noqa: F401
    except ImportError as exc:
        print(f"training needs the train extra (pip install -e '.[train]'): {exc}", file=sys.stderr)
        return 2
    torch.set_num_threads(a.torch_threads or max(1, os.cpu_count() or 1))
    if a.det_device != "cpu" and not torch.cuda.is_available():  # refused now, not after the scenes are written
        print(f"--det-device {a.det_device}: torch sees no CUDA device on this machine", file=sys.stderr)
        return 2
    if a.cls_init is not None and a.cls_init.suffix == ".onnx":  # refused now, not after the crops are cut
        from .classifier import float_export

        try:
            float_export(a.cls_init)
        except ValueError as exc:
            print(f"--cls-init: {exc}", file=sys.stderr)
            return 2

    if "orientation" in stages and "classifier" not in stages:  # refused now, not after minutes of work
        problem = _orientation_crops_missing(_crops_cache(a, out, n_cls, n_val, n_held))
        if problem:
            print(problem, file=sys.stderr)
            return 2

    if "faces" in stages:
        _log("rendering and measuring card faces")
        t = time.monotonic()
        _faces(a.jokers > 0, _train_designs(a))
        _save_part(out, "faces", {"faces_s": time.monotonic() - t})
    if "detector-data" in stages:
        _save_part(out, "detector-data", _stage_detector_data(a, out, n_det, n_val, n_held))
    both = "classifier" in stages and "detector" in stages and not a.sequential
    detector_done = out / "detector-done"  # the classifier process takes the detector's core once it exists
    detector_done.unlink(missing_ok=True)  # (left by an earlier run in this folder)
    side = _start_classifier_process(a, out, detector_done) if both else None
    if "classifier" in stages and side is None:
        _save_part(out, "classifier", _stage_classifier(a, out, n_cls, n_val, n_held, cls_epochs))
    try:
        if "detector" in stages:
            classifier_done = None if side is None else (lambda: side.poll() is not None)
            _save_part(out, "detector", _stage_detector(a, out, det_epochs, classifier_done))
            if side is not None:
                detector_done.touch()
    except BaseException:
        if side is not None:  # never leave the classifier training on alone
            side.kill()
            side.wait()
        raise
    if "detector-export" in stages and "detector" not in stages:  # (the detector stage exports anyway)
        _export_detector(a, out)
    if side is not None:
        if side.wait() != 0:
            log = out / "classifier.log"
            print(f"the classifier process failed (exit {side.returncode}); see {log}", file=sys.stderr)
            return 1
        _log("classifier process done")
    if "quantize" in stages:
        _save_part(out, "quantize", _stage_quantize(a, out, n_cls, n_val, n_held))
    if "orientation" in stages:
        _save_part(out, "orientation", _stage_orientation(a, out, n_cls, n_val, n_held, orient_epochs))
    if "pips" in stages:
        _save_part(out, "pips", _stage_pips(a, out, pip_epochs, pip_crops, pip_drawn))
    if "finish" in stages:
        export = out / "export"
        (export / "models.json").write_text(json.dumps(_manifest(a, out), indent=2) + "\n")
        parts = {p.stem.removeprefix("part-"): json.loads(p.read_text()) for p in sorted(out.glob("part-*.json"))}
        metrics = {
            **parts,
            "machine": f"{platform.machine()} {os.cpu_count()} CPU, torch {torch.__version__}",
            "argv": argv if argv is not None else sys.argv[1:],
        }
        (export / "metrics.json").write_text(json.dumps(metrics, indent=2) + "\n")
        if a.install:
            names = ["corner-detector.onnx", "corner-classifier.onnx", "models.json", "metrics.json"]
            names += [name for name in (QUANTIZED_CLASSIFIER, ORIENTATION) if (export / name).exists()]
            for name in names:
                shutil.copy(export / name, MODELS_DIR / name)
            _log(f"installed into {MODELS_DIR}")
    _log(f"stages {','.join(stages)} done in {(time.monotonic() - t_start) / 60:.1f} min; exports in {out / 'export'}")
    return 0


_OWN_OPTIONS = frozenset({"stages", "torch_threads", "widen_after", "workers", "out", "install", "help"})
"""Options the classifier process is given its own value of (or none), not the command's."""


def _forwarded_options(a: argparse.Namespace) -> list[str]:
    """Every other option of the command, with the value it resolved to, as the classifier process's
    arguments: it must cut its crops from the very scenes, and cut its time to the very budget, that it
    would in this process. Built from the parser rather than by hand, so that an option added later
    cannot be forgotten (the classifier would silently train on the shipped scenes while the detector
    trained on the new ones)."""
    argv: list[str] = []
    for action in _parser()._actions:
        if not action.option_strings or action.dest in _OWN_OPTIONS:
            continue
        flag = max(action.option_strings, key=len)
        value = getattr(a, action.dest)
        if action.nargs == 0:  # a flag: given or not
            argv += [flag] if value else []
        elif value is None:
            continue
        elif isinstance(value, tuple):  # LO:HI ranges
            argv += [flag, ":".join(repr(v) for v in value)]
        else:
            argv += [flag, repr(value) if isinstance(value, float) else str(value)]
    return argv


def _start_classifier_process(
    a: argparse.Namespace, out: Path, detector_done: Path | None = None
) -> subprocess.Popen[bytes]:
    """Train the classifier in a second process on one thread while the detector trains here.

    The two stages share nothing but the 2 cores; run one after the other, the classifier would
    take its whole budget out of the detector's. The classifier takes every core once
    ``detector_done`` exists (:mod:`vision.training.cores`).
    """
    argv = [sys.executable, "-m", "vision.training.pipeline", "--stages", "classifier", "--torch-threads", "1"]
    if detector_done is not None:
        argv += ["--widen-after", str(detector_done)]
    argv += ["--out", str(out), "--workers", "1", *_forwarded_options(a)]
    _log(f"classifier in a second process, log in {out / 'classifier.log'}")
    with (out / "classifier.log").open("ab") as log:
        return subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT)


def _save_part(out: Path, name: str, data: dict[str, object] | dict[str, float]) -> None:
    (out / f"part-{name}.json").write_text(json.dumps(data, indent=2) + "\n")


if __name__ == "__main__":
    sys.exit(main())
