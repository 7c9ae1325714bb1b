"""The whole training command on a tiny budget (slow: minutes; needs the train extra)."""

import json

import pytest

pytest.importorskip("torch")
pytest.importorskip("ultralytics")

from vision.training.pipeline import main


@pytest.mark.slow
# torch and ultralytics warn about their own futures inside training and export (not ours to fix)
@pytest.mark.filterwarnings("ignore")
def test_quick_training_run_exports_both_models_and_a_manifest(tmp_path):
    status = main(["--quick", "--out", str(tmp_path), "--det-minutes", "1", "--cls-minutes", "1", "--seed", "1"])
    assert status == 0
    export = tmp_path / "export"
    assert (export / "corner-detector.onnx").stat().st_size > 0
    assert (export / "corner-classifier.onnx").stat().st_size > 0
    manifest = json.loads((export / "models.json").read_text())
    assert len(manifest["classifier"]["classes"]) == 53  # 52 cards and "not an index"
    assert manifest["classifier"]["reject_class"] == "none"
    assert manifest["seed"] == 1


def test_unknown_stage_is_refused_by_name(capsys):
    assert main(["--stages", "faces,polish"]) == 2
    assert "polish" in capsys.readouterr().err
