"""The whole training command on a tiny budget (slow: minutes; needs the train extra)."""

import json

import pytest

pytest.importorskip("torch")
pytest.importorskip("ultralytics")

from vision.recognise import DEFAULT_MODEL_DIR
from vision.training.pipeline import main


@pytest.mark.slow
# torch and ultralytics warn about their own futures inside training and export (not ours to fix)
@pytest.mark.filterwarnings("ignore")
def test_quick_training_run_exports_the_models_and_a_manifest(tmp_path):
    status = main(["--quick", "--out", str(tmp_path), "--det-minutes", "1", "--cls-minutes", "1", "--seed", "1"])
    assert status == 0
    export = tmp_path / "export"
    assert (export / "corner-detector.onnx").stat().st_size > 0
    assert (export / "corner-classifier.onnx").stat().st_size > 0
    assert (export / "corner-orientation.onnx").stat().st_size > 0
    assert (export / "suit-pips.onnx").stat().st_size > 0
    assert (export / "suit-pips-int8.onnx").stat().st_size > 0  # the 8-bit pip network the runtime loads
    manifest = json.loads((export / "models.json").read_text())
    assert manifest["orientation"] == {"file": "corner-orientation.onnx", "sure": 0.9}
    # the command writes the pip reading the shipped models carry (the table's and a photo's rank included)
    assert manifest["pips"] == json.loads((DEFAULT_MODEL_DIR / "models.json").read_text())["pips"]
    metrics = json.loads((export / "metrics.json").read_text())
    assert set(metrics) >= {"classifier", "detector", "orientation", "pips"}
    assert set(metrics["pips"]["heldout_acc"]) >= {"orell", "tango_nuevo_corner", "held_out_covered"}
    int8 = metrics["pips"]["heldout_acc_int8"]
    assert set(int8) == set(metrics["pips"]["heldout_acc"]) and all(0.0 <= v <= 1.0 for v in int8.values())
    assert len(manifest["classifier"]["classes"]) == 53  # 52 cards and "not an index"
    assert manifest["classifier"]["reject_class"] == "none"
    assert manifest["seed"] == 1


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore")
def test_area_faced_epochs_train_the_classifier_on_after_its_own(tmp_path):
    """``--area-finish-epochs``: the classifier is trained on from its best epoch on crops of area-faced
    cards, cut and cached beside the point-sampled ones, and the run's figures say so."""
    argv = ["--quick", "--stages", "classifier", "--out", str(tmp_path), "--cls-minutes", "1", "--seed", "1"]
    assert main([*argv, "--area-finish-epochs", "1", "--area-finish-minutes", "1"]) == 0
    assert len(list(tmp_path.glob("crops-*-area.npz"))) == 1 and len(list(tmp_path.glob("crops-*.npz"))) == 2
    part = json.loads((tmp_path / "part-classifier.json").read_text())
    finish = part["area_finish"]
    assert finish["epochs_planned"] == 1 and len(finish["epochs"]) == 1
    assert set(finish["before"]) == {"val_acc", "heldout_acc"}
    assert (tmp_path / "export" / "corner-classifier.onnx").stat().st_size > 0


def test_a_negative_count_of_area_faced_epochs_is_refused_by_name(capsys):
    assert main(["--area-finish-epochs", "-1"]) == 2
    assert "--area-finish-epochs" in capsys.readouterr().err


def test_unknown_stage_is_refused_by_name(capsys):
    assert main(["--stages", "faces,polish"]) == 2
    assert "polish" in capsys.readouterr().err


def test_the_orientation_stage_without_the_classifiers_crops_is_refused_by_name(tmp_path, capsys):
    assert main(["--stages", "orientation", "--out", str(tmp_path)]) == 2
    assert "run the classifier stage first" in capsys.readouterr().err
    assert not (tmp_path / "export" / "corner-orientation.onnx").exists()
