"""The distilled classifier (vision/training/distill.py): a student follows the teacher's reading rather
than only the labels, and the folder it writes is read by the runtime once a crop (needs the train extra)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("onnx")

import torch

from vision.recognise.classifier import CornerClassifier
from vision.recognise.manifest import DEFAULT_MODEL_DIR
from vision.recognise.recogniser import OnnxRecogniser
from vision.training.classifier import train_classifier
from vision.training.dataset import NOT_INDEX
from vision.training.distill import main, teacher_probabilities

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")  # torch's legacy ONNX exporter


def _crops(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Two kinds of crop that differ in every pixel: dark (labelled 2S) and light (not an index)."""
    rng = np.random.default_rng(seed)
    dark = np.full((n, 48, 48, 3), 30, np.int64)
    light = np.full((n, 48, 48, 3), 220, np.int64)
    crops = np.clip(np.concatenate([dark, light]) + rng.integers(-20, 20, (2 * n, 48, 48, 3)), 0, 255)
    return crops.astype(np.uint8), np.array([0] * n + [NOT_INDEX] * n, np.int64)


def test_a_student_taught_only_by_its_teacher_names_what_the_teacher_says(tmp_path: Path) -> None:
    """The labels say 2S; the teacher says 9H (class 20) for the same crops. Taught by the teacher alone
    (``distill=1``), the student reads 9H: the loss follows the teacher's probabilities."""
    crops, labels = _crops(48, 1)
    targets = np.zeros((len(crops), 53), np.float32)
    targets[labels == 0, 20] = 1.0
    targets[labels == NOT_INDEX, NOT_INDEX] = 1.0
    said = targets.argmax(axis=1)  # kept by its agreement with the teacher, as the labels' best would not be
    model = train_classifier(
        crops, labels, (crops, said), 12, 0, tmp_path, 600.0, [], width=16, targets=targets, distill=1.0
    )
    with torch.no_grad():
        x = torch.from_numpy(crops[..., ::-1].copy()).permute(0, 3, 1, 2).float() / 255
        pred = model(x).argmax(1).numpy()
    assert (pred[labels == 0] == 20).mean() > 0.9
    assert (pred[labels == NOT_INDEX] == NOT_INDEX).mean() > 0.9


def test_targets_that_do_not_fit_the_crops_are_refused(tmp_path: Path) -> None:
    crops, labels = _crops(4, 2)
    with pytest.raises(ValueError, match="one target per crop"):
        train_classifier(crops, labels, (crops, labels), 1, 0, tmp_path, 60.0, [], targets=np.zeros((3, 53)), distill=1)


def test_the_teachers_reading_is_one_probability_per_class_for_each_crop() -> None:
    crops, _ = _crops(3, 3)
    probs = teacher_probabilities(DEFAULT_MODEL_DIR, crops)
    assert probs.shape == (6, 53)
    assert np.allclose(probs.sum(axis=1), 1.0, atol=1e-4)


def test_the_student_folder_is_read_once_a_crop_by_the_runtime(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The command writes the shipped folder with the classifier swapped; the runtime loads it and reads
    each crop in one classifier run, however doubtful, where the teacher reads a doubtful crop eight times."""
    crops, labels = _crops(40, 4)
    cache = tmp_path / "crops.npz"
    np.savez(cache, x_tr=crops, y_tr=labels, x_va=crops[::4], y_va=labels[::4], x_ho=crops[::5], y_ho=labels[::5])
    out = tmp_path / "distill"
    assert main(["--crops", str(cache), "--out", str(out), "--epochs", "1", "--minutes", "1", "--threads", "1"]) == 0
    manifest = json.loads((out / "models" / "models.json").read_text())
    assert manifest["classifier"]["rotations"] == 1 and manifest["classifier"]["thin_ink"] == 0
    metrics = json.loads((out / "distill.json").read_text())
    assert 0.0 <= metrics["int8_heldout_acc"] <= 1.0 and len(metrics["epochs"]) == 1

    # taught again by that student, the teacher's readings are not taken from the first teacher's cache
    student_copy = tmp_path / "student"
    shutil.copytree(out / "models", student_copy)
    argv = ["--crops", str(cache), "--out", str(out), "--epochs", "1", "--minutes", "1", "--threads", "1"]
    assert main([*argv, "--teacher", str(student_copy)]) == 0
    assert len(list(out.glob("teacher-*.npz"))) == 2

    crops_in_doubt = np.random.default_rng(5).random((7, 3, 48, 48), dtype=np.float32)
    teacher = OnnxRecogniser(DEFAULT_MODEL_DIR).classifier
    student = OnnxRecogniser(out / "models").classifier
    for classifier in (teacher, student):
        classifier.settled = 1.0  # no reading settles a crop: each is read as a doubtful one is
        classifier.rejected = None  # nor a reading of "not an index" (random crops are mostly that)
    assert _crops_read(teacher, crops_in_doubt, monkeypatch) == 8 * len(crops_in_doubt)
    assert _crops_read(student, crops_in_doubt, monkeypatch) == len(crops_in_doubt)


def _crops_read(classifier: CornerClassifier, batch: np.ndarray, monkeypatch: pytest.MonkeyPatch) -> int:
    """How many crops ``classifier`` runs its graph on to read ``batch``."""
    count = 0
    read = classifier._read

    def counting(crops: np.ndarray) -> np.ndarray:
        nonlocal count
        count += len(crops)
        return read(crops)

    monkeypatch.setattr(classifier, "_read", counting)
    assert classifier.probabilities(batch).shape == (len(batch), 53)
    return count


def test_a_file_that_is_not_a_crop_cache_is_refused_by_name(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "crops.npz"
    np.savez(bad, something=np.zeros(3))
    assert main(["--crops", str(bad), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert str(bad) in err and "crop cache" in err and "Traceback" not in err
