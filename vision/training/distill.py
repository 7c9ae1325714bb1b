"""A smaller classifier taught the shipped reader's whole reading, so that one reading does what eight did.

Why: the runtime reads each crop it is not sure of eight times (upright, three quarter turns, and the
same again with the ink thinned: :meth:`vision.recognise.classifier.CornerClassifier.probabilities`)
and combines them. Those readings, not the network's size, are where a wide frame's time goes: an
unseen deck leaves almost every crop in doubt, so a frame of 27 indices costs 216 classifier runs
(docs/vision.md, "Where a 1280x720 frame's time goes"). A student network is trained here to give, in
one reading of a crop at any quarter turn, what the teacher's eight give for it (knowledge
distillation: the cross-entropy against the teacher's probabilities, beside the usual labels), and
is shipped with ``rotations: 1`` and no thinned second reading.

The teacher's reading is the runtime's own (the committed 8-bit graph through ``CornerClassifier``),
on the clean crops of the pipeline's crop cache; the student sees them under the training
augmentation (random quarter turns, photometric jitter), so it learns to give the clean crop's
reading from a turned or degraded one. Run::

    python -m vision.training.distill --crops runs/train/crops-...npz --out runs/distill

which writes ``runs/distill/models/``: the teacher's folder with the classifier swapped, to be
measured with ``cardtable vision eval ... --models runs/distill/models``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import sys
import time
from pathlib import Path

import numpy as np

from vision.recognise.classifier import CornerClassifier
from vision.recognise.manifest import DEFAULT_MODEL_DIR, MANIFEST_NAME, Manifest, ModelError

from .dataset import CROP_SIZE, NOT_INDEX
from .pipeline import FLOAT_CLASSIFIER, QUANTIZED_CLASSIFIER
from .quantize import classifier_batches

__all__ = ["main", "teacher_probabilities"]


def teacher_probabilities(models: Path, crops_bgr: np.ndarray, threads: int = 1, chunk: int = 256) -> np.ndarray:
    """``(n, classes)``: the runtime's reading of each BGR ``uint8`` crop (48 x 48, as the pipeline cuts
    them) by the classifier in ``models``, with every reading its manifest asks for."""
    manifest = Manifest.load(models)
    spec = manifest.classifier
    reader = CornerClassifier(models / spec.file, spec, threads=threads)
    if crops_bgr.shape[1:] != (reader.height, reader.width, 3):
        raise ValueError(f"crops are {crops_bgr.shape[1:]}, the classifier reads {reader.height}x{reader.width}x3")
    out = [reader.probabilities(batch) for batch in classifier_batches(crops_bgr, chunk)]
    return np.concatenate(out) if out else np.zeros((0, len(spec.classes)), np.float32)


def _teacher_key(models: Path) -> str:
    """A short digest of the teacher's classifier graph and its manifest entry (how it is read)."""
    spec = Manifest.load(models).classifier
    digest = hashlib.sha256((models / spec.file).read_bytes())
    digest.update(spec.model_dump_json().encode())
    return digest.hexdigest()[:12]


def _args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m vision.training.distill", description=__doc__.split("\n\n")[0])
    p.add_argument("--crops", type=Path, required=True, help="a crop cache of the pipeline (crops-*.npz)")
    p.add_argument("--teacher", type=Path, default=DEFAULT_MODEL_DIR, help="the models read as teacher")
    p.add_argument("--out", type=Path, default=Path("runs/distill"), help="work folder (default runs/distill)")
    p.add_argument("--width", type=int, choices=(8, 12, 16, 24, 32), default=16, help="student width (32: teacher's)")
    p.add_argument("--epochs", type=int, default=20, help="student epochs (default 20)")
    p.add_argument("--minutes", type=float, default=40.0, help="time cap of the student's training (default 40)")
    p.add_argument(
        "--init",
        type=Path,
        default=None,
        help="start the student from this float export of the plain network (e.g. the teacher's own, width 32)",
    )
    p.add_argument("--distill", type=float, default=0.7, help="weight of the teacher's reading in the loss")
    p.add_argument("--lr", type=float, default=5e-3, help="peak learning rate (default 5e-3)")
    p.add_argument("--threads", type=int, default=2, help="torch and onnxruntime threads (default 2)")
    p.add_argument("--seed", type=int, default=3)
    a = p.parse_args(argv)
    if not a.crops.is_file():
        p.error(f"--crops: no file {a.crops}")
    if a.init is not None and not a.init.is_file():
        p.error(f"--init: no file {a.init}")
    if a.epochs < 1 or a.minutes <= 0 or not 0.0 < a.distill <= 1.0 or a.threads < 1:
        p.error("--epochs and --threads must be at least 1, --minutes positive, --distill in (0, 1]")
    return a


def _log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", flush=True)


def main(argv: list[str] | None = None) -> int:
    a = _args(argv)
    import torch

    from .classifier import evaluate, export_onnx, reject_rates, train_classifier
    from .quantize import calibration_crops, quantize_model

    torch.set_num_threads(a.threads)
    a.out.mkdir(parents=True, exist_ok=True)
    try:
        z = np.load(a.crops)
        x_tr, y_tr, x_va, y_va, x_ho, y_ho = (z[k] for k in ("x_tr", "y_tr", "x_va", "y_va", "x_ho", "y_ho"))
    except (OSError, KeyError, ValueError) as exc:
        print(f"error: {a.crops} is not a crop cache of the pipeline: {exc}", file=sys.stderr)
        return 2
    try:
        cache = a.out / f"teacher-{a.crops.stem}-{_teacher_key(a.teacher)}.npz"  # another teacher, another cache
        if cache.is_file():
            soft = np.load(cache)["p_tr"]
        else:
            t = time.monotonic()
            soft = teacher_probabilities(a.teacher, x_tr, a.threads)
            np.savez(cache, p_tr=soft)
            _log(f"teacher read {len(x_tr)} crops in {time.monotonic() - t:.0f} s")
        teacher_ho = teacher_probabilities(a.teacher, x_ho, a.threads).argmax(axis=1)
    except (ModelError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    cards = y_ho < NOT_INDEX
    teacher_held = float((teacher_ho[cards] == y_ho[cards]).mean())
    _log(f"teacher on held-out-design index crops: {teacher_held:.4f}; training the student (width {a.width})")
    log: list[dict[str, float]] = []
    t = time.monotonic()
    try:
        model = train_classifier(
            x_tr, y_tr, (x_va, y_va), a.epochs, a.seed, a.out, a.minutes * 60, log, init=a.init, max_lr=a.lr,
            width=a.width, targets=soft, distill=a.distill,
        )  # fmt: skip
    except ValueError as exc:  # an --init export that is not this width's plain network
        print(f"error: {exc}", file=sys.stderr)
        return 2
    train_s = time.monotonic() - t
    models = a.out / "models"
    shutil.rmtree(models, ignore_errors=True)
    shutil.copytree(a.teacher, models)
    export_onnx(model, models / FLOAT_CLASSIFIER, CROP_SIZE)
    calibration = classifier_batches(calibration_crops(x_tr, a.seed))
    quantize_model(models / FLOAT_CLASSIFIER, models / QUANTIZED_CLASSIFIER, calibration, a.out / "quantize")
    manifest = json.loads((models / MANIFEST_NAME).read_text(encoding="utf-8"))
    manifest["classifier"].update(file=QUANTIZED_CLASSIFIER, float_file=FLOAT_CLASSIFIER, rotations=1, thin_ink=0)
    manifest["distilled"] = {
        "teacher": str(a.teacher), "width": a.width, "distill": a.distill, "seed": a.seed,
        "init": None if a.init is None else str(a.init), "epochs": len(log),
    }  # fmt: skip
    (models / MANIFEST_NAME).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    int8_ho = teacher_probabilities(models, x_ho, a.threads).argmax(axis=1)  # the runtime's one reading
    metrics = {
        "width": a.width,
        "distill": a.distill,
        "teacher_heldout_acc": teacher_held,
        "heldout_acc": evaluate(model, x_ho, y_ho),
        "int8_heldout_acc": float((int8_ho[cards] == y_ho[cards]).mean()),
        "val_acc": evaluate(model, x_va, y_va),
        "heldout_rejects": reject_rates(model, x_ho, y_ho),
        "train_s": train_s,
        "epochs": log,
    }
    (a.out / "distill.json").write_text(json.dumps(metrics, indent=2), encoding="utf-8")
    _log(f"student: {json.dumps({k: v for k, v in metrics.items() if k != 'epochs'})}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
